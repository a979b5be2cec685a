// Issue 14 through the real CLI (`node dist/cli.js`) against the mock API:
// a retried step printed once (S6), --max-cost-usd (kind budget), the json
// `context` object, a failed turn's message on stderr in json mode, and usage
// that survives a SIGKILL mid-turn (C3, C4).
import * as assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { historyProblem } from '../../../src/runtime/history';
import { loadSession } from '../../../src/runtime/session';
import { errorReply, MockAnthropicServer, replyBytes, textReply, toolUseReply } from '../../fixtures/mock-anthropic';
import { runCli } from '../../support/run-cli';

describe('CLI: context, cost and retries (node dist/cli.js against the mock API)', function () {
  this.timeout(60_000);
  let server: MockAnthropicServer;
  let ws: string;
  let env: Record<string, string>;

  beforeEach(async () => {
    server = await MockAnthropicServer.start();
    ws = mkdtempSync(path.join(os.tmpdir(), 'turnstone-cc-'));
    env = { ANTHROPIC_BASE_URL: server.url, ANTHROPIC_API_KEY: 'sk-test-cli' };
  });
  afterEach(async () => {
    await server.close();
    rmSync(ws, { recursive: true, force: true });
  });

  it('S6: a step retried after the connection dropped mid-text is printed once in text output', async () => {
    const whole = replyBytes(textReply('Hello, world.'));
    // Cut just after the first text delta ("Hello, "): the partial text reached the CLI before the drop.
    const second = whole.indexOf('event: content_block_delta', whole.indexOf('event: content_block_delta') + 1);
    assert.ok(second > 0);
    server.enqueue({ kind: 'sse', bytes: whole, cutAfterBytes: second }, { kind: 'sse', bytes: whole });
    const run = await runCli(['-p', 'greet', '--cwd', ws], { env });
    assert.equal(run.code, 0, run.stderr);
    assert.equal(run.stdout, 'Hello, world.\n');
    assert.equal(server.requests.length, 2, 'the step was retried');
    assert.match(run.stderr, /reconnecting 1\/\d/);
    assert.equal(run.stderr.split('\n').filter((l) => l.includes('reconnecting')).length, 1, 'one line per retry');
  });

  it('--max-cost-usd ends the turn before a request would pass the cap: failed, kind budget, figures on stderr, history valid', async () => {
    const session = path.join(ws, 's.jsonl');
    // Step 1 costs about $0.06 (20k input tokens at the sonnet price); the cap is $0.05.
    server.enqueue(
      toolUseReply([{ id: 'tu_1', name: 'glob_search', input: { pattern: '*.none' } }], { usage: { input_tokens: 20_000, output_tokens: 100 } }),
      textReply('never sent'),
    );
    const run = await runCli(['-p', 'look around', '--cwd', ws, '--output-format', 'json', '--max-cost-usd', '0.05', '--session', session], { env });
    assert.equal(run.code, 1, run.stderr);
    assert.equal(server.requests.length, 1, 'the second request was not sent');
    const result = JSON.parse(run.stdout);
    assert.equal(result.is_error, true);
    assert.match(result.result, /per-turn cap of \$0\.05/);
    assert.match(run.stderr, /turnstone: Stopped: this turn has cost \$0\.06/);
    const loaded = await loadSession(session);
    assert.equal(historyProblem(loaded.messages), undefined);
    assert.equal(loaded.usage?.input_tokens, 20_000, 'the step that ran is charged');

    const bad = await runCli(['-p', 'x', '--cwd', ws, '--max-cost-usd', 'lots'], { env });
    assert.equal(bad.code, 2);
    assert.match(bad.stderr, /bad --max-cost-usd 'lots'/);
  });

  it('json output carries the context: tokens, window and percent of the model window', async () => {
    server.enqueue(textReply('Done.', { usage: { input_tokens: 1_000, cache_read_input_tokens: 9_000, output_tokens: 50 } }));
    const run = await runCli(['-p', 'hi', '--cwd', ws, '--output-format', 'json'], { env });
    assert.equal(run.code, 0, run.stderr);
    const { context } = JSON.parse(run.stdout);
    assert.equal(context.window, 200_000);
    // 10 000 counted by the API for the request + the reply appended since.
    assert.ok(context.tokens >= 10_000 && context.tokens < 10_100, `tokens ${context.tokens}`);
    assert.equal(context.percent, Math.round((context.tokens / 200_000) * 1000) / 10);
  });

  it('json output: a failed turn also says why on stderr', async () => {
    server.enqueue(errorReply(400, 'invalid_request_error', 'messages: text content blocks must be non-empty'));
    const run = await runCli(['-p', 'hi', '--cwd', ws, '--output-format', 'json'], { env });
    assert.equal(run.code, 1);
    assert.equal(JSON.parse(run.stdout).is_error, true);
    assert.match(run.stderr, /^turnstone: .*text content blocks must be non-empty/m);
  });

  it('C4: a SIGKILL mid-turn keeps the completed steps\' usage; the resumed turn adds to it', async () => {
    const session = path.join(ws, 'crash.jsonl');
    server.enqueue(toolUseReply([{ id: 'tu_sleep', name: 'bash', input: { command: 'sleep 30' } }], { usage: { input_tokens: 1_234, output_tokens: 56 } }));
    const killed = await runCli(['-p', 'wait', '--cwd', ws, '--permission-mode', 'bypassPermissions', '--output-format', 'stream-json', '--session', session], {
      env,
      onLine: (line, _i, child) => {
        // Killed while the bash tool runs, once the finished step's records reached the file.
        if (!line.includes('"type":"step_finished"')) return;
        const poll = setInterval(() => {
          if (!readFileSync(session, 'utf8').includes('"usage":{')) return;
          clearInterval(poll);
          child.kill('SIGKILL');
        }, 20);
        child.once('exit', () => clearInterval(poll));
      },
    });
    assert.equal(killed.signal, 'SIGKILL');
    const loaded = await loadSession(session);
    assert.deepEqual(loaded.usage, { input_tokens: 1_234, output_tokens: 56, cache_read_input_tokens: 0, cache_creation_input_tokens: 0 });

    server.enqueue(textReply('Resumed.', { usage: { input_tokens: 100, output_tokens: 5 } }));
    const resumed = await runCli(['-p', 'go on', '--cwd', ws, '--output-format', 'json', '--session', session], { env });
    assert.equal(resumed.code, 0, resumed.stderr);
    const result = JSON.parse(resumed.stdout);
    assert.equal(result.usage.input_tokens, 1_334);
    assert.equal(result.usage.output_tokens, 61);
  });
});
