// Issue 26.2–26.4 reproduced through the real CLI (`node dist/cli.js`) against
// the scripted mock APIs: a compaction summary inside a capped turn, a model
// without a price (and --model-prices), and a session resumed on another model.
import * as assert from 'node:assert/strict';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { jsonMessageReply, MockAnthropicServer, textReply, toolUseReply } from '../../fixtures/mock-anthropic';
import { chunk, chunksReply, MockOpenAIServer, openaiTextReply, usageChunk } from '../../fixtures/mock-openai';
import { runCli } from '../../support/run-cli';

describe('CLI: spend caps and costs (issue 26, node dist/cli.js against the mock APIs)', function () {
  this.timeout(90_000);
  let ws: string;
  beforeEach(() => {
    ws = mkdtempSync(path.join(os.tmpdir(), 'turnstone-spend-'));
  });
  afterEach(() => rmSync(ws, { recursive: true, force: true }));

  describe('Anthropic', () => {
    let api: MockAnthropicServer;
    let env: Record<string, string>;
    beforeEach(async () => {
      api = await MockAnthropicServer.start();
      env = { ANTHROPIC_BASE_URL: api.url, ANTHROPIC_API_KEY: 'sk-test-cli' };
    });
    afterEach(() => api.close());

    it('26.2: a compaction summary inside a capped turn is gated and charged, and the turn never ends above the cap', async () => {
      // claude-3-5-haiku: $1 in, $5 out, an 8192-token reply limit ($0.041 reserved per step).
      const page = `${'x'.repeat(99)}\n`.repeat(800);
      for (const f of ['a', 'b', 'c']) writeFileSync(path.join(ws, `${f}.txt`), page);
      const read = (f: string, input: number) => toolUseReply([{ id: `tu_${f}`, name: 'read_file', input: { path: `${f}.txt` } }], { usage: { input_tokens: input, output_tokens: 50 } });
      api.enqueue(
        read('a', 2_000),
        read('b', 24_000),
        read('c', 46_000),
        // The summary (the 4th request would carry ~68k tokens, over the 60k threshold) removes the first read.
        jsonMessageReply([{ type: 'text', text: 'Read a.txt: 800 lines of x.' }], { usage: { input_tokens: 600, output_tokens: 300 } }),
        textReply('never sent', { usage: { input_tokens: 30_000, output_tokens: 8_000 } }),
      );
      // After the summary about $0.075 is spent; the 4th step's worst case (~45k tokens in, the 8192-token reply)
      // is over $0.09 more: it may not go. Reckoning its reply as long as the last one ($0.0003), it would have.
      const cap = 0.15;
      const run = await runCli(['-p', 'read a, b and c', '--cwd', ws, '--model', 'claude-3-5-haiku-latest', '--max-cost-usd', String(cap), '--output-format', 'json'], {
        env: { ...env, TURNSTONE_AUTO_COMPACT_INPUT_TOKENS: '60000' },
      });
      assert.equal(run.code, 1, run.stderr);
      const result = JSON.parse(run.stdout);
      assert.equal(result.is_error, true);
      assert.match(result.result, /counting its 8192-token reply limit\) could pass the per-turn cap of \$0\.15/);
      assert.equal(api.requests.length, 4, 'three steps and the summary; the fourth step was not sent');
      assert.equal((api.bodies[3] as { stream?: boolean }).stream ?? false, false, 'the fourth request was the summary');
      assert.equal(result.usage.input_tokens, 2_000 + 24_000 + 46_000 + 600, 'the summary is charged');
      assert.ok(result.cost_usd <= cap, `the turn cost ${result.cost_usd}, over the $${cap} cap`);
    });

    it('26.4: a session resumed on another model keeps what its turns cost: an opus turn ($0.525) then a haiku turn adds the haiku turn', async () => {
      const session = path.join(ws, 's.jsonl');
      api.enqueue(textReply('opus answer', { usage: { input_tokens: 100_000, output_tokens: 1_000 } }));
      const first = await runCli(['-p', 'a', '--cwd', ws, '--model', 'claude-opus-4-5', '--session', session, '--output-format', 'json'], { env });
      assert.equal(first.code, 0, first.stderr);
      assert.equal(JSON.parse(first.stdout).cost_usd, 0.525);
      api.enqueue(textReply('haiku answer', { usage: { input_tokens: 10_000, output_tokens: 100 } }));
      const second = await runCli(['-p', 'b', '--cwd', ws, '--model', 'claude-haiku-4-5', '--session', session, '--output-format', 'json'], { env });
      assert.equal(second.code, 0, second.stderr);
      // $0.525 at opus prices + 10 000 × $1/M + 100 × $5/M at haiku prices; not the whole session re-priced at haiku ($0.1065).
      assert.equal(JSON.parse(second.stdout).cost_usd, 0.5355);
    });
  });

  describe('OpenAI-compatible (gpt-4o has no built-in price)', () => {
    let api: MockOpenAIServer;
    let env: Record<string, string>;
    beforeEach(async () => {
      api = await MockOpenAIServer.start();
      env = { TURNSTONE_PROVIDER: 'openai-compatible', OPENAI_BASE_URL: api.baseURL, OPENAI_API_KEY: 'sk-local' };
    });
    afterEach(() => api.close());

    const twoSteps = () => {
      writeFileSync(path.join(ws, 'a.txt'), 'alpha\n');
      api.enqueue(
        chunksReply([chunk({ tool_calls: [{ index: 0, id: 'c1', type: 'function', function: { name: 'read_file', arguments: '{"path":"a.txt"}' } }] }), chunk({}, 'tool_calls'), usageChunk(60_000, 20)]),
        openaiTextReply('It says alpha.', { usage: [60_100, 10] }),
      );
    };

    it('issue 42 item 11 (was 26.3): with --max-cost-usd and no price nothing is sent: stop_reason spend_cap and an error naming --model-prices; without a cap, cost_usd null, not 0', async () => {
      twoSteps();
      const run = await runCli(['-p', 'read a', '--cwd', ws, '--model', 'gpt-4o', '--max-cost-usd', '0.01', '--output-format', 'json'], { env });
      assert.equal(run.code, 1, run.stderr);
      const result = JSON.parse(run.stdout);
      assert.equal(result.stop_reason, 'spend_cap');
      assert.match(result.result, /^Nothing was sent: no price is known for the model gpt-4o, so the spend cap \(\$0\.01 per turn\) could not be held.*--model-prices <file>/);
      assert.equal(api.requests.length, 0);

      const uncapped = await runCli(['-p', 'read a', '--cwd', ws, '--model', 'gpt-4o', '--output-format', 'json'], { env });
      assert.equal(uncapped.code, 0, uncapped.stderr);
      const free = JSON.parse(uncapped.stdout);
      assert.equal(free.cost_usd, null);
      assert.equal(free.usage.input_tokens, 120_100);
    });

    it('26.3: --model-prices gives the model a price: the cost is counted and the cap holds', async () => {
      const prices = path.join(ws, 'prices.json');
      writeFileSync(prices, JSON.stringify({ 'gpt-4o': { input: 2.5, output: 10, cacheRead: 1.25 } }));
      twoSteps();
      const run = await runCli(['-p', 'read a', '--cwd', ws, '--model', 'gpt-4o', '--model-prices', prices, '--max-cost-usd', '1', '--output-format', 'json'], { env });
      assert.equal(run.code, 0, run.stderr);
      assert.equal(JSON.parse(run.stdout).cost_usd, Math.round(((120_100 * 2.5 + 30 * 10) / 1e6) * 1e6) / 1e6);
      assert.doesNotMatch(run.stderr, /cannot be enforced/);

      // gpt-4o's 16 384-token reply limit at $10/M is $0.16: a $0.10 cap sends nothing.
      const capped = await runCli(['-p', 'read a', '--cwd', ws, '--model', 'gpt-4o', '--model-prices', prices, '--max-cost-usd', '0.10', '--output-format', 'json'], { env });
      assert.equal(capped.code, 1);
      assert.match(JSON.parse(capped.stdout).result, /16384-token reply limit\) could pass the per-turn cap of \$0\.10/);
      assert.equal(api.requests.length, 2, 'the capped run sent nothing');

      writeFileSync(prices, JSON.stringify({ 'gpt-4o': { input: 'cheap' } }));
      const bad = await runCli(['-p', 'x', '--cwd', ws, '--model-prices', prices], { env });
      assert.equal(bad.code, 2);
      assert.match(bad.stderr, /--model-prices .*prices\.json: the price of gpt-4o was left out \(input\)/);
      const missing = await runCli(['-p', 'x', '--cwd', ws, '--model-prices', path.join(ws, 'nope.json')], { env });
      assert.equal(missing.code, 2);
      assert.match(missing.stderr, /nope\.json cannot be read \(ENOENT\)/);
    });
  });
});
