import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { NodeShell, NodeWorkspace } from '../../../src/tools/node-adapter';
import { createToolExecutor } from '../../../src/tools/registry';
import { type NodeToolEnv, ctx, isAlive, makeNodeEnv } from './helpers';

async function waitFor(check: () => boolean, ms: number): Promise<boolean> {
  const end = Date.now() + ms;
  while (Date.now() < end) {
    if (check()) return true;
    await new Promise((r) => setTimeout(r, 25));
  }
  return check();
}

describe('tools: bash on the Node shell', () => {
  let env: NodeToolEnv;
  const pids: number[] = [];
  beforeEach(async () => {
    env = await makeNodeEnv();
  });
  afterEach(async () => {
    for (const pid of pids.splice(0)) {
      try {
        process.kill(pid, 'SIGKILL');
      } catch {
        // already gone
      }
    }
    await env.cleanup();
  });

  it('kills the whole process tree on timeout, grandchild included', async () => {
    const pidFile = path.join(env.base, 'grandchild.pid');
    // bash → bash -c (child) → sleep (grandchild); only a group kill reaches the sleep.
    const command = `bash -c 'sleep 300 & echo $! > ${pidFile}; wait'`;
    const started = Date.now();
    const out = await env.executor.execute('bash', { command, timeout: 1000 }, ctx());
    assert.ok(Date.now() - started < 10_000);
    assert.equal(out.isError, true);
    assert.match(out.content, /Timed out after 1000 ms/);
    // 25.5: killed, no exit code; the note says why, once.
    assert.equal(out.exit?.code, null);
    assert.match(out.exit?.note ?? '', /^Timed out after 1000 ms/);
    const pid = Number(fs.readFileSync(pidFile, 'utf8'));
    pids.push(pid);
    assert.ok(pid > 0);
    assert.ok(await waitFor(() => !isAlive(pid), 5000), `grandchild ${pid} still running`);
  });

  it('kills the tree when the signal aborts, and says it was interrupted', async () => {
    const pidFile = path.join(env.base, 'child.pid');
    const controller = new AbortController();
    const running = env.executor.execute('bash', { command: `sleep 300 & echo $! > ${pidFile}; echo started; wait` }, {
      signal: controller.signal,
      onProgress: (chunk) => {
        if (chunk.includes('started')) controller.abort();
      },
    });
    const out = await running;
    assert.equal(out.isError, true);
    assert.match(out.content, /Interrupted/);
    const pid = Number(fs.readFileSync(pidFile, 'utf8'));
    pids.push(pid);
    assert.ok(await waitFor(() => !isAlive(pid), 5000), `child ${pid} still running`);
  });

  it('truncates huge output to head and tail and saves the full text to a named file', async () => {
    const out = await env.executor.execute('bash', { command: 'echo FIRST; seq 1 200000; echo LAST' }, ctx());
    assert.equal(out.isError, false);
    assert.ok(out.content.length < 31_000, `content is ${out.content.length} chars`);
    assert.match(out.content, /^FIRST\n1\n2\n/);
    assert.match(out.content, /199999\n200000\nLAST\n\nExit code: 0$/);
    const saved = /saved to (\S+)\]/.exec(out.content)?.[1];
    assert.ok(saved, 'result names the file');
    assert.ok(saved.startsWith(env.outputDir));
    // The file is the command's output exactly as printed (streamed there as it ran).
    const full = fs.readFileSync(saved, 'utf8');
    assert.equal(full.split('\n').length, 200_003);
    assert.ok(full.startsWith('FIRST\n1\n') && full.endsWith('200000\nLAST\n'));
  });

  it('when the output folder cannot be written, a huge output still returns its head and tail and says it could not be saved', async () => {
    fs.writeFileSync(env.outputDir, 'a file where the output folder should be');
    const out = await env.executor.execute('bash', { command: 'seq 1 3000000' }, ctx());
    assert.equal(out.isError, false, 'the command ran: its result is not an error');
    assert.ok(out.content.length < 31_000);
    assert.match(out.content, /^1\n2\n/);
    assert.match(out.content, /2999999\n3000000\n\nExit code: 0$/);
    assert.match(out.content, /the middle is lost\); they could not be saved \(/);
  });

  it('gives a command that reads stdin an immediate end of input', async () => {
    const started = Date.now();
    const out = await env.executor.execute('bash', { command: 'cat; read -r line; echo "read exit $?"', timeout: 20_000 }, ctx());
    assert.ok(Date.now() - started < 5000, 'did not wait for input');
    assert.match(out.content, /read exit 1/);
  });

  it('returns when the command exits even if a background process keeps stdout open', async () => {
    const pidFile = path.join(env.base, 'daemon.pid');
    const started = Date.now();
    const out = await env.executor.execute('bash', { command: `sleep 300 & echo $! > ${pidFile}; echo launched`, timeout: 60_000 }, ctx());
    pids.push(Number(fs.readFileSync(pidFile, 'utf8')));
    assert.ok(Date.now() - started < 10_000, 'resolved on the main process exit');
    assert.equal(out.isError, false);
    assert.match(out.content, /launched/);
  });

  it('interleaves stderr with stdout and strips terminal colour codes', async () => {
    const out = await env.executor.execute('bash', { command: "printf '\\033[31mred\\033[0m\\n'; echo oops >&2; exit 1" }, ctx());
    assert.equal(out.isError, true);
    assert.match(out.content, /^red\noops\n\nExit code: 1$/);
    // 25.5: the exit code travels structured beside the text, so a card never parses it out of the output.
    assert.deepEqual(out.exit, { code: 1 });
  });

  it('reports a command killed by a signal with 128 + the signal number', async () => {
    const shell = new NodeShell();
    const result = await shell.run('kill -TERM $$', { cwd: env.root, timeoutMs: 10_000 });
    assert.equal(result.exitCode, 143);
    assert.equal(result.timedOut, false);
  });

  it('is not offered when the host has no shell', () => {
    const executor = createToolExecutor({ workspace: new NodeWorkspace(env.root) });
    assert.equal(executor.definitions().some((d) => d.name === 'bash'), false);
    assert.equal(executor.isReadOnly('bash'), undefined);
  });
});

describe('tools: NodeShell output buffer', () => {
  it('spills output past the bound to a file, all of it, while memory keeps only head and tail', async () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'turnstone-spill-'));
    try {
      const file = path.join(dir, 'out', 'full.log');
      const result = await new NodeShell().run('seq 1 3000000', { cwd: process.cwd(), timeoutMs: 30_000, spill: { path: file, afterChars: 10_000 } });
      assert.equal(result.exitCode, 0);
      assert.equal(result.savedTo, file);
      const expected = Array.from({ length: 3_000_000 }, (_, i) => i + 1).join('\n') + '\n';
      assert.equal(fs.statSync(file).size, expected.length);
      assert.ok(fs.readFileSync(file, 'utf8') === expected, 'byte for byte the printed output');
      assert.ok(result.output.length < 1.2 * 1024 * 1024, `kept ${result.output.length} chars`);
      // Short output never touches the disk.
      const small = await new NodeShell().run('echo hi', { cwd: process.cwd(), timeoutMs: 30_000, spill: { path: path.join(dir, 'small.log'), afterChars: 10_000 } });
      assert.equal(small.savedTo, undefined);
      assert.equal(fs.existsSync(path.join(dir, 'small.log')), false);
    } finally {
      fs.rmSync(dir, { recursive: true, force: true });
    }
  });


  it('keeps the head and the tail of endless output within its bound', async () => {
    const shell = new NodeShell({ maxBufferedChars: 10_000 });
    const result = await shell.run('seq 1 300000', { cwd: process.cwd(), timeoutMs: 30_000 });
    assert.equal(result.exitCode, 0);
    assert.ok(result.output.length < 10_200, `kept ${result.output.length} chars`);
    assert.ok(result.output.startsWith('1\n2\n3\n'));
    assert.ok(result.output.endsWith('299999\n300000\n'));
    assert.match(result.output, /characters of output dropped in the middle/);
  });
});
