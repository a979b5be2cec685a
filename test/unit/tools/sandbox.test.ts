// The command sandbox with the real bubblewrap (no stand-ins): what a command
// inside it can and cannot do, and that ordinary work (npm test, git, a build)
// still runs. CI installs bubblewrap (.ci/run); a machine without a usable one
// fails these tests with the probe's reason rather than skipping silently.
import assert from 'node:assert/strict';
import { spawn, type ChildProcess } from 'node:child_process';
import * as fs from 'node:fs';
import * as http from 'node:http';
import * as net from 'node:net';
import { type AddressInfo } from 'node:net';
import * as path from 'node:path';
import { NodeShell, NodeWorkspace } from '../../../src/tools/node-adapter';
import { createToolExecutor } from '../../../src/tools/registry';
import { CommandSandbox, type SandboxNetwork, sandboxStatus } from '../../../src/tools/shell/sandbox';
import { ctx } from './helpers';

interface Fixture {
  base: string;
  ws: string;
  home: string;
  tmp: string;
  outside: string;
  shell: NodeShell;
  run(command: string, sandbox?: boolean): Promise<{ output: string; exitCode: number | null; sandboxed: boolean }>;
}

function fixture(network: SandboxNetwork = 'allow'): Fixture {
  // Not under the temp folder, which the sandbox hides behind the command's own: "outside" must really be outside.
  const base = fs.realpathSync(fs.mkdtempSync('/var/tmp/turnstone-sandbox-'));
  const ws = path.join(base, 'ws');
  const home = path.join(base, 'home');
  const tmp = path.join(base, 'tmp');
  const outside = path.join(base, 'outside');
  for (const d of [ws, home, tmp, outside, path.join(home, '.ssh')]) fs.mkdirSync(d, { recursive: true });
  fs.writeFileSync(path.join(home, '.ssh', 'id_rsa'), '-----BEGIN OPENSSH PRIVATE KEY----- planted\n');
  const sandbox = new CommandSandbox(() => ({ mode: 'auto', network, roots: [ws] }), { home });
  const shell = new NodeShell({ sandbox });
  return {
    base,
    ws,
    home,
    tmp,
    outside,
    shell,
    run: async (command, sandboxed) => {
      const r = await shell.run(command, { cwd: ws, timeoutMs: 60_000, env: { HOME: home }, ...(sandboxed === false ? { sandbox: false } : {}) });
      return { output: r.output, exitCode: r.exitCode, sandboxed: r.sandboxed === true };
    },
  };
}

describe('tools: the command sandbox (bubblewrap)', function () {
  this.timeout(60_000);
  let f: Fixture;
  const children: ChildProcess[] = [];

  before(async () => {
    const status = await sandboxStatus();
    assert.ok(status.available, `no usable sandbox on this machine: ${status.available ? '' : status.reason}`);
  });
  beforeEach(() => {
    f = fixture();
  });
  afterEach(() => {
    for (const c of children.splice(0)) c.kill('SIGKILL');
    fs.rmSync(f.base, { recursive: true, force: true });
  });

  it('writes inside the workspace and its own temp folder (/tmp, TMPDIR); a write anywhere else fails', async () => {
    const name = `turnstone-sbx-${process.pid}-${Date.now()}.txt`;
    const r = await f.run(`echo a > in-ws.txt && echo b > /tmp/${name} && echo "tmp:$(cat $TMPDIR/${name})" && echo c > ${f.outside}/escaped.txt`);
    assert.equal(r.sandboxed, true);
    assert.notEqual(r.exitCode, 0);
    assert.match(r.output, /tmp:b/);
    assert.match(r.output, /Read-only file system/);
    assert.equal(fs.readFileSync(path.join(f.ws, 'in-ws.txt'), 'utf8'), 'a\n');
    assert.equal(fs.existsSync(path.join('/tmp', name)), false, "the command's /tmp is its own, not the machine's");
    assert.equal(fs.existsSync(path.join(f.outside, 'escaped.txt')), false);
    // The next command gets a fresh one: nothing one command leaves there waits for the next.
    const next = await f.run(`cat /tmp/${name}`);
    assert.notEqual(next.exitCode, 0);
  });

  it('~/.ssh/id_rsa planted in the home folder cannot be read (and can without the sandbox)', async () => {
    const inside = await f.run('cat ~/.ssh/id_rsa');
    assert.notEqual(inside.exitCode, 0);
    assert.doesNotMatch(inside.output, /planted/);
    const outside = await f.run('cat ~/.ssh/id_rsa', false);
    assert.equal(outside.sandboxed, false);
    assert.match(outside.output, /planted/);
  });

  it("another process's /proc/<pid>/environ cannot be read: the command has its own PID namespace", async () => {
    const canary = `turnstone-canary-${Date.now().toString(36)}`;
    const holder = spawn('sleep', ['300'], { env: { PATH: process.env.PATH, SECRET_FOR_TEST: canary }, stdio: 'ignore' });
    children.push(holder);
    const readAll = `cat /proc/${holder.pid}/environ; cat /proc/${process.pid}/environ; cat /proc/[0-9]*/environ 2>/dev/null | tr '\\0' '\\n' | grep -c ${canary}`;
    const inside = await f.run(readAll);
    assert.doesNotMatch(inside.output, new RegExp(`SECRET_FOR_TEST=${canary}`));
    assert.match(inside.output, /^0$/m);
    // Control: the same command outside the sandbox does find it, so the check can fail.
    const outside = await f.run(readAll, false);
    assert.match(outside.output, new RegExp(canary));
  });

  it('ordinary work still runs: npm test in a small package, git status in a repo, a node build writing into the workspace', async () => {
    fs.writeFileSync(
      path.join(f.ws, 'package.json'),
      JSON.stringify({ name: 'fixture', version: '1.0.0', scripts: { test: 'node test.js' } }),
    );
    fs.writeFileSync(path.join(f.ws, 'test.js'), "require('assert').equal(1 + 1, 2); console.log('fixture tests passed');\n");
    const npm = await f.run('npm test');
    assert.equal(npm.exitCode, 0, npm.output);
    assert.match(npm.output, /fixture tests passed/);

    const git = await f.run('git init -q . && git -c user.name=t -c user.email=t@e commit -q --allow-empty -m init && echo x > new.txt && git status --short');
    assert.equal(git.exitCode, 0, git.output);
    assert.match(git.output, /\?\? new\.txt/);

    const build = await f.run(`node -e "require('fs').mkdirSync('dist',{recursive:true}); require('fs').writeFileSync('dist/out.js','built')"`);
    assert.equal(build.exitCode, 0, build.output);
    assert.equal(fs.readFileSync(path.join(f.ws, 'dist', 'out.js'), 'utf8'), 'built');
  });

  it('keeps the exit code, and the process tree dies on timeout', async () => {
    const r = await f.run('exit 7');
    assert.equal(r.exitCode, 7);
    const started = Date.now();
    const slow = await f.shell.run('sleep 300', { cwd: f.ws, timeoutMs: 500 });
    assert.equal(slow.timedOut, true);
    assert.ok(Date.now() - started < 10_000);
  });

  it('network: on by default, off with turnstone.sandbox.network "deny"', async () => {
    const server = http.createServer((_req, res) => res.end('pong'));
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const port = (server.address() as AddressInfo).port;
    const fetchIt = `node -e "fetch('http://127.0.0.1:${port}/').then(r=>r.text()).then(t=>console.log('got',t),e=>{console.log('failed',e.cause?.code);process.exit(3)})"`;
    try {
      const allowed = await f.run(fetchIt);
      assert.match(allowed.output, /got pong/);
      const denied = fixture('deny');
      try {
        const r = await denied.run(fetchIt);
        assert.equal(r.sandboxed, true);
        assert.equal(r.exitCode, 3, r.output);
        assert.match(r.output, /failed/);
      } finally {
        fs.rmSync(denied.base, { recursive: true, force: true });
      }
    } finally {
      server.close();
    }
  });

  it("the sockets our environment names (VS Code's IPC, the ssh-agent, Docker) are covered and their variables unset; a plain socket in the workspace still works", async () => {
    const servers: net.Server[] = [];
    const listen = async (p: string) => {
      const server = net.createServer((c) => c.end('hello'));
      servers.push(server);
      await new Promise<void>((resolve) => server.listen(p, resolve));
    };
    const ipc = path.join(f.tmp, 'vscode-ipc-test.sock');
    const own = path.join(f.ws, 'app.sock');
    await listen(ipc);
    await listen(own);
    const saved = process.env.VSCODE_IPC_HOOK_CLI;
    process.env.VSCODE_IPC_HOOK_CLI = ipc;
    const connect = (p: string) => `echo "var:\${VSCODE_IPC_HOOK_CLI:-unset}"; node -e "require('net').connect('${p}').on('data',d=>{console.log('connected',String(d));process.exit(0)}).on('error',e=>{console.log('refused',e.code);process.exit(4)})"`;
    try {
      const inside = await f.run(connect(ipc));
      assert.match(inside.output, /var:unset/);
      assert.match(inside.output, /refused/);
      const app = await f.run(connect(own));
      assert.match(app.output, /connected hello/);
      const outside = await f.run(connect(ipc), false);
      assert.match(outside.output, /connected hello/);
      assert.match(outside.output, /var:\//);
    } finally {
      if (saved === undefined) delete process.env.VSCODE_IPC_HOOK_CLI;
      else process.env.VSCODE_IPC_HOOK_CLI = saved;
      for (const server of servers) server.close();
    }
  });

  it("turnstone.sandbox 'off' runs commands as before", async () => {
    const shell = new NodeShell({ sandbox: new CommandSandbox(() => ({ mode: 'off', network: 'allow', roots: [f.ws] })) });
    const r = await shell.run(`echo c > ${f.outside}/written.txt`, { cwd: f.ws, timeoutMs: 10_000 });
    assert.equal(r.sandboxed, undefined);
    assert.equal(r.exitCode, 0);
    assert.ok(fs.existsSync(path.join(f.outside, 'written.txt')));
  });

  it('the bash tool: a failure the sandbox caused hints at sandbox:false; with sandbox:false the command runs outside', async () => {
    const executor = createToolExecutor({ workspace: new NodeWorkspace(f.ws), shell: f.shell }, { outputDir: path.join(f.base, 'output') });
    const failed = await executor.execute('bash', { command: `echo c > ${f.outside}/x.txt` }, ctx());
    assert.equal(failed.isError, true);
    assert.match(failed.content, /ran in the OS sandbox/);
    assert.match(failed.content, /sandbox: false/);
    // npm's spelling of the same failure (a cache in the read-only home folder).
    const npmStyle = await executor.execute('bash', { command: `echo "npm error code EROFS: read-only file system, mkdir '/root/.npm'" >&2; exit 1` }, ctx());
    assert.match(npmStyle.content, /sandbox: false/);
    const plain = await executor.execute('bash', { command: 'exit 1' }, ctx());
    assert.doesNotMatch(plain.content, /OS sandbox/);
    const outside = await executor.execute('bash', { command: `echo c > ${f.outside}/x.txt`, sandbox: false }, ctx());
    assert.equal(outside.isError, false, outside.content);
    assert.ok(fs.existsSync(path.join(f.outside, 'x.txt')));
  });
});
