// Issue 14 through the real CLI (`node dist/cli.js`) against the mock API:
// a retried step printed once (S6), --max-cost-usd (kind budget), the json
// `context` object, a failed turn's message on stderr in json mode, and usage
// that survives a SIGKILL mid-turn (C3, C4).
import * as assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { historyProblem } from '../../../src/runtime/session/history';
import { loadSession } from '../../../src/runtime/session/session';
import { errorReply, jsonMessageReply, MockAnthropicServer, replyBytes, textReply, toolUseReply } from '../../fixtures/mock-anthropic';
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

  it('--max-cost-usd ends the turn before a request could pass the cap: failed, kind budget, figures on stderr, history valid', async () => {
    const session = path.join(ws, 's.jsonl');
    // Each request reserves its whole 64k-token reply limit at the sonnet price ($0.96, issue 26): step 1 fits a
    // $1.05 cap; after it cost about $0.12 (40k input tokens), the next one could pass it.
    server.enqueue(
      toolUseReply([{ id: 'tu_1', name: 'glob_search', input: { pattern: '*.none' } }], { usage: { input_tokens: 40_000, output_tokens: 100 } }),
      textReply('never sent'),
    );
    const run = await runCli(['-p', 'look around', '--cwd', ws, '--output-format', 'json', '--max-cost-usd', '1.05', '--session', session], { env });
    assert.equal(run.code, 1, run.stderr);
    assert.equal(server.requests.length, 1, 'the second request was not sent');
    const result = JSON.parse(run.stdout);
    assert.equal(result.is_error, true);
    assert.match(result.result, /up to about \$0\.9\d, counting its 64000-token reply limit\) could pass the per-turn cap of \$1\.05/);
    assert.match(run.stderr, /turnstone: Stopped: this turn has cost \$0\.12/);
    const loaded = await loadSession(session);
    assert.equal(historyProblem(loaded.messages), undefined);
    assert.equal(loaded.usage?.input_tokens, 40_000, 'the step that ran is charged');

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

  it('C1: a turn whose requests each carry ~27k tokens does not compact (the issue\'s 12-step repro: it used to compact 3 times)', async () => {
    for (let i = 0; i < 11; i++) {
      server.enqueue(toolUseReply([{ id: `tu_${i}`, name: 'glob_search', input: { pattern: `*.n${i}` } }], { usage: { input_tokens: 500, cache_read_input_tokens: 26_500 + i * 50, output_tokens: 40 } }));
    }
    server.enqueue(textReply('Done.', { usage: { input_tokens: 500, cache_read_input_tokens: 27_100, output_tokens: 10 } }));
    const run = await runCli(['-p', 'look around', '--cwd', ws, '--output-format', 'json'], { env });
    assert.equal(run.code, 0, run.stderr);
    const result = JSON.parse(run.stdout);
    assert.equal(result.iterations, 12);
    assert.equal(server.requests.length, 12, 'no summary requests');
    assert.ok(result.context.percent < 20, `one request's context (${result.context.percent} %), not the sum over twelve`);
  });

  it('C4: the summary request of a compaction is charged in the turn\'s usage and cost', async () => {
    server.enqueue(
      toolUseReply([{ id: 'tu_1', name: 'glob_search', input: { pattern: '*.a' } }], { usage: { input_tokens: 100, output_tokens: 10 } }),
      toolUseReply([{ id: 'tu_2', name: 'glob_search', input: { pattern: '*.b' } }], { usage: { input_tokens: 100, output_tokens: 10 } }),
      toolUseReply([{ id: 'tu_3', name: 'glob_search', input: { pattern: '*.c' } }], { usage: { input_tokens: 6_000, output_tokens: 10 } }),
      jsonMessageReply([{ type: 'text', text: 'Summary: three globs found nothing.' }], { usage: { input_tokens: 3_000, output_tokens: 200 } }),
      textReply('Nothing there.', { usage: { input_tokens: 500, output_tokens: 10 } }),
    );
    // A prompt of ~3 000 tokens: what the compaction removes must be larger than a summary can be (issue 26).
    const prompt = `search ${'lorem ipsum dolor '.repeat(670)}`;
    const run = await runCli(['-p', prompt, '--cwd', ws, '--output-format', 'json'], { env: { ...env, TURNSTONE_AUTO_COMPACT_INPUT_TOKENS: '5000' } });
    assert.equal(run.code, 0, run.stderr);
    const result = JSON.parse(run.stdout);
    assert.equal(server.requests.length, 5);
    assert.notEqual(server.bodies[3]!['stream'], true, 'the 4th request is the (non-streaming) summary');
    assert.equal(result.usage.input_tokens, 100 + 100 + 6_000 + 3_000 + 500);
    assert.equal(result.usage.output_tokens, 10 + 10 + 10 + 200 + 10);
    // sonnet: $3 / $15 per million tokens
    assert.equal(result.cost_usd, Math.round(((9_700 * 3 + 240 * 15) / 1e6) * 1e6) / 1e6);
  });

  it('T6: the API refuses four parallel large read_file results as too long: they are shrunk in place, the step resubmitted, and a later run resumes', async () => {
    const session = path.join(ws, 'big.jsonl');
    for (const f of ['a', 'b', 'c', 'd']) writeFileSync(path.join(ws, `${f}.txt`), `${f} line of a big file\n`.repeat(Math.ceil((256 * 1024) / 19)));
    server.enqueue(
      toolUseReply(['a', 'b', 'c', 'd'].map((f) => ({ id: `tu_${f}`, name: 'read_file', input: { path: `${f}.txt` } })), { usage: { input_tokens: 3_000, output_tokens: 40 } }),
      // What our estimate puts well inside the window, the API (a denser tokenizer, a smaller window behind a proxy) refuses.
      errorReply(400, 'invalid_request_error', 'prompt is too long: 210000 tokens > 200000 maximum'),
      textReply('Read all four.'),
    );
    const run = await runCli(['-p', 'read a b c d', '--cwd', ws, '--output-format', 'json', '--session', session], { env });
    assert.equal(run.code, 0, run.stderr);
    assert.equal(JSON.parse(run.stdout).result, 'Read all four.');
    const [refused, resent] = [JSON.stringify(server.bodies[1]).length, JSON.stringify(server.bodies[2]).length];
    assert.ok(resent < refused * 0.6, `the resubmitted request is much smaller than the refused one (${resent} vs ${refused} characters)`);
    assert.equal((JSON.stringify(server.bodies[2]).match(/characters of this tool result were cut/g) ?? []).length, 4);
    server.enqueue(textReply('Still fine.'));
    const next = await runCli(['-p', 'and now?', '--cwd', ws, '--output-format', 'json', '--session', session], { env });
    assert.equal(next.code, 0, next.stderr);
    assert.equal(JSON.parse(next.stdout).result, 'Still fine.');
    assert.match(JSON.stringify(server.bodies[3]), /characters of this tool result were cut/, 'the shrunk history is what the session resumes with');
  });
});
