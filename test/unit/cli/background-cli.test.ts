// Issue 28, background commands in the CLI (node dist/cli.js against the
// scripted mock API): the model starts a real node HTTP server in the
// background, probes it from a later bash step, stops it; nothing it started
// outlives the CLI, whether the model stopped it or not.
import * as assert from 'node:assert/strict';
import { mkdtempSync, realpathSync, rmSync, writeFileSync } from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { MockAnthropicServer, replyFrames, textReply, toolUseReply } from '../../fixtures/mock-anthropic';
import { runCli } from '../../support/run-cli';
import { processesWith, until } from '../../support/process-tree';

const SERVER = `const http = require('http'); const fs = require('fs');
const s = http.createServer((q, r) => r.end('pong from background')).listen(0, '127.0.0.1', () => {
  fs.writeFileSync('port.tmp', String(s.address().port)); fs.renameSync('port.tmp', 'port.txt'); console.log('listening');
});`;
// Waits for the server's port file (a condition, not a time), then asks it once.
const PROBE = `const fs = require('fs'); const http = require('http');
(function wait() {
  if (!fs.existsSync('port.txt')) return setTimeout(wait, 25);
  http.get({ host: '127.0.0.1', port: Number(fs.readFileSync('port.txt', 'utf8')) }, (res) => {
    let body = ''; res.on('data', (d) => (body += d)); res.on('end', () => console.log('probe got: ' + body));
  }).on('error', (e) => { console.log('probe failed: ' + e.message); process.exit(1); });
})();`;

describe('28.bg: CLI background commands (node dist/cli.js against the mock API)', function () {
  this.timeout(90_000);
  let server: MockAnthropicServer;
  let ws: string;
  let serverFile: string;

  beforeEach(async () => {
    server = await MockAnthropicServer.start();
    ws = realpathSync(mkdtempSync(path.join(os.tmpdir(), 'turnstone-cli-bg-')));
    // A name no other process has: the process table is searched for it.
    serverFile = `server-${Math.random().toString(36).slice(2, 10)}.js`;
    writeFileSync(path.join(ws, serverFile), SERVER);
    writeFileSync(path.join(ws, 'probe.js'), PROBE);
  });
  afterEach(async () => {
    // Only when a test failed: what it left must not outlive it.
    for (const pid of processesWith(serverFile)) process.kill(pid, 'SIGKILL');
    await server.close();
    rmSync(ws, { recursive: true, force: true });
  });

  const env = () => ({ ANTHROPIC_BASE_URL: server.url, ANTHROPIC_API_KEY: 'sk-test-cli' });
  const args = ['-p', 'start the server, test it, stop it', '--permission-mode', 'bypassPermissions', '--output-format', 'json'];
  const start = (id = 'tu_start') => toolUseReply([{ id, name: 'bash', input: { command: `node ${serverFile}`, run_in_background: true, description: 'dev server' } }]);
  const probe = () => toolUseReply([{ id: 'tu_probe', name: 'bash', input: { command: 'node probe.js' } }]);
  const resultOf = (request: number, id: string): string => {
    const messages = (server.bodies[request] as { messages: Array<{ content: unknown }> }).messages;
    const block = (messages.at(-1)!.content as Array<{ type: string; tool_use_id?: string; content?: unknown }>).find((b) => b.tool_use_id === id);
    return JSON.stringify(block?.content);
  };

  it('28.bg: start a node server in the background, probe it from a later bash step, read it, kill_shell: no process survives', async () => {
    server.enqueue(
      start(),
      probe(),
      toolUseReply([{ id: 'tu_read', name: 'bash_output', input: { id: 'bash_1', filter: 'listening' } }]),
      toolUseReply([{ id: 'tu_kill', name: 'kill_shell', input: { id: 'bash_1' } }]),
      textReply('The server answered and is stopped.'),
    );
    const run = await runCli([...args, '--cwd', ws], { env: env() });
    assert.equal(run.code, 0, run.stderr);
    assert.match(resultOf(1, 'tu_start'), /Started in the background as bash_1/);
    assert.match(resultOf(2, 'tu_probe'), /probe got: pong from background/);
    assert.match(resultOf(3, 'tu_read'), /listening.*Status: running/);
    assert.match(resultOf(4, 'tu_kill'), /Stopped bash_1/);
    await until(`no ${serverFile} process`, () => processesWith(serverFile).length === 0, 10_000);
  });

  it('28.bg: a server the model never stopped is stopped when the CLI exits', async () => {
    server.enqueue(start(), probe(), textReply('It works; I left it running.'));
    const run = await runCli([...args, '--cwd', ws], { env: env() });
    assert.equal(run.code, 0, run.stderr);
    assert.match(resultOf(2, 'tu_probe'), /probe got: pong from background/);
    await until(`no ${serverFile} process after the CLI exited`, () => processesWith(serverFile).length === 0, 10_000);
  });

  for (const [signal, code] of [['SIGTERM', 143], ['SIGHUP', 129]] as const) {
    it(`42.7: ${signal} to the CLI (a closed terminal, a CI cancel) with the sandbox off stops the turn and its background server: nothing is left re-parented to pid 1`, async () => {
      // The third request never answers: the turn is waiting on the model, the server running, when the signal comes.
      server.enqueue(start(), probe(), { kind: 'sse', frames: replyFrames([{ type: 'text', text: 'never sent' }]), stallAfterFrames: 0 });
      const run = runCli([...args, '--cwd', ws, '--sandbox', 'off'], {
        env: env(),
        onSpawn: (child) => {
          void until(`the CLI's third model request, with ${serverFile} running`, () => server.requests.length >= 3 && processesWith(serverFile).length > 0, 60_000).then(
            () => child.kill(signal),
            () => child.kill('SIGKILL'),
          );
        },
      });
      const done = await run;
      await until(`no ${serverFile} process after ${signal}`, () => processesWith(serverFile).length === 0, 10_000);
      assert.equal(done.code, code, done.stderr);
      assert.match(done.stderr, new RegExp(`${signal}: stopping the turn`));
    });
  }

  it('42.10: a session resumed with --session names its next background command bash_2, not a second bash_1', async () => {
    const sessionFile = path.join(ws, 'run.jsonl');
    server.enqueue(start(), textReply('Started it.'));
    const first = await runCli([...args, '--cwd', ws, '--session', sessionFile], { env: env() });
    assert.equal(first.code, 0, first.stderr);
    assert.match(resultOf(1, 'tu_start'), /Started in the background as bash_1/);
    server.enqueue(start('tu_again'), textReply('Started it again.'));
    const resumed = await runCli([...args, '--cwd', ws, '--session', sessionFile], { env: env() });
    assert.equal(resumed.code, 0, resumed.stderr);
    assert.match(resultOf(3, 'tu_again'), /Started in the background as bash_2/);
    await until(`no ${serverFile} process after the CLI exited`, () => processesWith(serverFile).length === 0, 10_000);
  });

  it('28.bg: turnstone.bash.maxBackground 0 (from --settings): starting one is a clear error, and the turn goes on', async () => {
    const settings = path.join(ws, 'settings.json');
    writeFileSync(settings, JSON.stringify({ 'turnstone.bash.maxBackground': 0 }));
    server.enqueue(start(), textReply('ok'));
    const run = await runCli([...args, '--cwd', ws, '--settings', settings], { env: env() });
    assert.equal(run.code, 0, run.stderr);
    assert.match(resultOf(1, 'tu_start'), /turnstone\.bash\.maxBackground allows \(0\)/);
    assert.equal(processesWith(serverFile).length, 0);
  });
});
