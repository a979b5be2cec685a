// Issue 24, class 7: the sandbox is the boundary. With the real bubblewrap, a
// sandboxed command cannot plant what runs outside it later (MCP servers,
// editor settings, git config and hooks, in nested repositories too), cannot
// read the workspace's secret files or the user's credentials, and ordinary
// work (git add/commit/status, writing files) still runs without new questions.
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { NodeShell } from '../../../src/tools/node-adapter';
import { bwrapArgs, CommandSandbox, sandboxStatus } from '../../../src/tools/shell/sandbox';
import { scanProtected } from '../../../src/tools/shell/protected-layout';
import { sensitiveFileMatcher } from '../../../src/runtime/policy/sensitive-files';

describe('tools: the sandbox keeps control files read-only and secrets hidden (issue 24)', function () {
  this.timeout(60_000);
  let base: string;
  let ws: string;
  let home: string;
  let hideSecrets = true;

  const shell = () =>
    new NodeShell({ sandbox: new CommandSandbox(() => ({ mode: 'auto', network: 'allow', roots: [ws], hideSecrets, sensitive: sensitiveFileMatcher(['private/**']) }), { home, layoutTtlMs: 0 }) });
  const run = async (command: string) => {
    const r = await shell().run(command, { cwd: ws, timeoutMs: 30_000, env: { HOME: home } });
    assert.equal(r.sandboxed, true);
    return r;
  };
  const git = (...args: string[]) => execFileSync('git', ['-c', 'user.name=t', '-c', 'user.email=t@e', ...args], { cwd: ws, encoding: 'utf8' });

  before(async () => {
    const status = await sandboxStatus();
    assert.ok(status.available, `no usable sandbox on this machine: ${status.available ? '' : status.reason}`);
  });
  beforeEach(() => {
    hideSecrets = true;
    base = fs.realpathSync(fs.mkdtempSync('/var/tmp/turnstone-boundary-'));
    ws = path.join(base, 'ws');
    home = path.join(base, 'home');
    fs.mkdirSync(ws);
    fs.mkdirSync(home);
    git('init', '-q');
  });
  afterEach(() => fs.rmSync(base, { recursive: true, force: true }));

  it('24.7: existing control files are read-only inside: .mcp.json, .vscode/, .claude/, .turnstone/, .git/config, .git/hooks, .gitmodules, .envrc', async () => {
    const files = ['.mcp.json', '.vscode/mcp.json', '.vscode/settings.json', '.claude/settings.json', '.turnstone/commands/x.md', '.gitmodules', '.envrc'];
    for (const f of files) {
      fs.mkdirSync(path.dirname(path.join(ws, f)), { recursive: true });
      fs.writeFileSync(path.join(ws, f), 'original\n');
    }
    const attempts = [
      ...files.map((f) => `echo planted > ${f}`),
      'git config core.fsmonitor "touch pwned"',
      'echo "[core]\n\tfsmonitor = touch pwned" >> .git/config',
      'printf "#!/bin/sh\\ntouch pwned\\n" > .git/hooks/pre-commit && chmod +x .git/hooks/pre-commit',
      'mv .vscode .vscode-old',
      'rm -rf .claude',
      'ln -sf /tmp/x .turnstone/link',
    ];
    for (const command of attempts) {
      const r = await run(command);
      assert.notEqual(r.exitCode, 0, `${command} succeeded: ${r.output}`);
    }
    for (const f of files) assert.equal(fs.readFileSync(path.join(ws, f), 'utf8'), 'original\n', f);
    assert.doesNotMatch(fs.readFileSync(path.join(ws, '.git/config'), 'utf8'), /fsmonitor/);
    assert.equal(fs.existsSync(path.join(ws, '.git/hooks/pre-commit')), false);
  });

  it('24.7: a missing control folder or file the command creates is removed when it ends, and the model told; the workspace is left as it was', async () => {
    const created = await run(`mkdir -p .vscode .claude && echo '{"servers":{}}' > .vscode/mcp.json && echo '{"mcpServers":{"x":{"command":"touch","args":["pwned"]}}}' > .mcp.json && touch .envrc .gitmodules && echo made`);
    assert.match(created.output, /made/);
    for (const f of ['.vscode', '.claude', '.mcp.json', '.envrc', '.gitmodules']) assert.equal(fs.existsSync(path.join(ws, f)), false, `${f} was not removed`);
    assert.equal(created.sandboxNotes?.length, 5);
    assert.match(created.sandboxNotes!.join('\n'), /\.mcp\.json, which makes something run outside the sandbox later.*removed it/);
    // Nothing of the sandbox's own is left in the workspace by an ordinary command either.
    const plain = await run('echo hello > hello.txt');
    assert.equal(plain.sandboxNotes, undefined);
    assert.deepEqual(fs.readdirSync(ws).sort(), ['.git', 'hello.txt']);
  });

  it('24.7: nested repositories, worktree-less submodule folders and a core.hooksPath folder are protected too', async () => {
    fs.mkdirSync(path.join(ws, 'vendor', 'lib'), { recursive: true });
    execFileSync('git', ['init', '-q'], { cwd: path.join(ws, 'vendor', 'lib') });
    fs.mkdirSync(path.join(ws, '.husky'));
    fs.writeFileSync(path.join(ws, '.husky', 'pre-commit'), 'npm test\n');
    git('config', 'core.hooksPath', '.husky');
    for (const command of ['git -C vendor/lib config core.fsmonitor "touch pwned"', 'echo x > vendor/lib/.git/hooks/post-checkout', 'echo "touch pwned" >> .husky/pre-commit']) {
      assert.notEqual((await run(command)).exitCode, 0, command);
    }
    assert.doesNotMatch(fs.readFileSync(path.join(ws, 'vendor/lib/.git/config'), 'utf8'), /fsmonitor/);
    assert.equal(fs.readFileSync(path.join(ws, '.husky', 'pre-commit'), 'utf8'), 'npm test\n');
  });

  it('24.7: a submodule\'s git folder (.git/modules/<name>) keeps its config and hooks read-only, with no work tree checked out', async () => {
    // A bare repository has the layout git gives a submodule's folder: config, hooks, objects.
    git('init', '-q', '--bare', '.git/modules/lib');
    for (const command of ['git --git-dir=.git/modules/lib config core.fsmonitor "touch pwned"', 'echo "touch pwned" > .git/modules/lib/hooks/post-checkout', 'rm -rf .git/modules/lib/hooks']) {
      assert.notEqual((await run(command)).exitCode, 0, `${command} succeeded`);
    }
    assert.doesNotMatch(fs.readFileSync(path.join(ws, '.git/modules/lib/config'), 'utf8'), /fsmonitor/);
    assert.equal(fs.existsSync(path.join(ws, '.git/modules/lib/hooks/post-checkout')), false);
  });

  it("24.7: the workspace's secret files are unreadable (any depth, the user's globs too); templates stay readable; hideSecrets false shows them", async () => {
    fs.mkdirSync(path.join(ws, 'config'));
    fs.mkdirSync(path.join(ws, 'private'));
    fs.writeFileSync(path.join(ws, '.env'), 'TOKEN=root-secret\n');
    fs.writeFileSync(path.join(ws, 'config', '.env.production'), 'TOKEN=nested-secret\n');
    fs.writeFileSync(path.join(ws, 'server.key'), 'key-secret\n');
    fs.writeFileSync(path.join(ws, 'private', 'notes.txt'), 'glob-secret\n');
    fs.writeFileSync(path.join(ws, '.env.example'), 'TOKEN=\n');
    fs.symlinkSync('.env', path.join(ws, 'innocent'));
    const read = 'cat .env config/.env.production server.key private/notes.txt innocent; grep -r secret . ; cat .env.example';
    const hidden = await run(read);
    assert.doesNotMatch(hidden.output, /root-secret|nested-secret|key-secret|glob-secret/);
    assert.match(hidden.output, /TOKEN=\n|TOKEN=$/m);
    assert.match(hidden.output, /Permission denied/);
    hideSecrets = false;
    const shown = await run(read);
    assert.match(shown.output, /root-secret/);
    assert.match(shown.output, /nested-secret/);
  });

  it('24.7: a secret made a moment after the last scan (the scan is reused for a few seconds) is hidden at the top level all the same', async () => {
    const sandbox = new CommandSandbox(() => ({ mode: 'auto', network: 'allow', roots: [ws] }), { home, layoutTtlMs: 60_000 });
    const cached = new NodeShell({ sandbox });
    await cached.run('true', { cwd: ws, timeoutMs: 30_000 });
    fs.writeFileSync(path.join(ws, '.env.local'), 'TOKEN=fresh-secret\n');
    const r = await cached.run('cat .env.local', { cwd: ws, timeoutMs: 30_000 });
    assert.doesNotMatch(r.output, /fresh-secret/);
  });

  // Written out here, not read from the product's list: dropping an entry there must fail this test.
  const CREDENTIALS = ['.ssh', '.aws', '.gnupg', '.config/gcloud', '.docker', '.kube', '.azure', '.config/gh', '.netrc', '.git-credentials', '.npmrc', '.pypirc', '.password-store', '.vault-token'];

  it(`24.7: every credential path in the home folder is hidden (${CREDENTIALS.length} of them), each checked on its own`, async () => {
    const leaked: string[] = [];
    for (const rel of CREDENTIALS) {
      const p = path.join(home, rel);
      const isFile = /^\.(netrc|git-credentials|npmrc|pypirc|vault-token)$/.test(rel);
      fs.mkdirSync(isFile ? path.dirname(p) : p, { recursive: true });
      fs.writeFileSync(isFile ? p : path.join(p, 'credentials'), `secret-of-${rel}\n`);
    }
    for (const rel of CREDENTIALS) {
      const r = await run(`cat ~/${rel} ~/${rel}/credentials 2>/dev/null; true`);
      if (r.output.includes(`secret-of-${rel}`)) leaked.push(rel);
    }
    assert.deepEqual(leaked, []);
  });

  it('24.7: ordinary git work runs unchanged: status shows no placeholders, add -A and commit do not pick them up', async () => {
    fs.writeFileSync(path.join(ws, 'a.txt'), 'a\n');
    const r = await run('git status --short && git add -A && git -c user.name=t -c user.email=t@e commit -qm one && git show --stat --format= HEAD');
    assert.equal(r.exitCode, 0, r.output);
    assert.match(r.output, /\?\? a\.txt/);
    assert.doesNotMatch(r.output, /\.vscode|\.claude|\.turnstone|\.mcp\.json|\.envrc|\.gitmodules/);
    assert.equal(git('ls-files').trim(), 'a.txt');
  });
});

// The mount list alone, built from a real scan of a real folder: no bubblewrap is run, so this holds on any machine.
describe('tools: the sandbox\'s read-only mounts (scan of the workspace, then bwrapArgs)', () => {
  let base: string;
  let ws: string;
  beforeEach(() => {
    base = fs.realpathSync(fs.mkdtempSync('/var/tmp/turnstone-mounts-'));
    ws = path.join(base, 'ws');
    fs.mkdirSync(path.join(base, 'home'));
    // A repository with a submodule whose work tree is not checked out: only its git folder exists.
    for (const dir of ['.git/hooks', '.git/modules/lib/hooks', '.git/modules/lib/objects']) fs.mkdirSync(path.join(ws, dir), { recursive: true });
    fs.writeFileSync(path.join(ws, '.git/config'), '[core]\n');
    fs.writeFileSync(path.join(ws, '.git/modules/lib/config'), '[core]\n\tworktree = ../../../lib\n');
  });
  afterEach(() => fs.rmSync(base, { recursive: true, force: true }));

  /** The paths bound read-only after (so over) the workspace's writable bind, in mount order. */
  const readOnlyOverWorkspace = (args: string[]): string[] => {
    const writableAt = args.findIndex((a, i) => a === '--bind' && args[i + 1] === ws && args[i + 2] === ws);
    assert.ok(writableAt >= 0, `the workspace is not bound writable: ${args.join(' ')}`);
    const out: string[] = [];
    for (let i = writableAt + 3; i < args.length; i++) if (args[i] === '--ro-bind' && args[i + 1] === args[i + 2]) out.push(args[i + 1]!);
    return out;
  };

  it('24.7: .git/modules/<name>/config and hooks are mounted read-only over the workspace, beside .git/config and .git/hooks; the submodule\'s objects stay writable', async () => {
    const layout = await scanProtected(ws, { sensitive: sensitiveFileMatcher() });
    const args = bwrapArgs({ writable: [ws], network: 'allow', home: path.join(base, 'home'), readOnly: layout.control });
    const readOnly = readOnlyOverWorkspace(args).map((p) => path.relative(ws, p));
    for (const expected of ['.git/config', '.git/hooks', '.git/modules/lib/config', '.git/modules/lib/hooks']) {
      assert.ok(readOnly.includes(expected), `${expected} is not mounted read-only; read-only: ${readOnly.join(', ')}`);
    }
    assert.ok(!readOnly.some((p) => p === '.git/modules/lib' || p.startsWith('.git/modules/lib/objects')), `more than config and hooks is read-only: ${readOnly.join(', ')}`);
  });
});
