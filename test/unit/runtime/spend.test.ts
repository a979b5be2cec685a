// Issue 26.2–26.4: spend caps that hold and costs that are facts. Every request
// the engine makes (steps, retries, continuations, summaries) passes one gate
// that reserves the request's whole reply limit; a model without a price is
// said once and reported as unknown; each request is priced once, at its own
// model, and a resumed session sums what was saved.
import assert from 'node:assert/strict';
import { ConversationRuntime } from '../../../src/runtime/loop/conversation';
import { parseModelPrices } from '../../../src/runtime/spend/model-prices';
import { AnthropicModelClient } from '../../../src/runtime/providers/anthropic';
import { MemorySessionStore, parseSession } from '../../../src/runtime/session/session';
import { type AssistantEvent } from '../../../src/runtime/types';
import { errorFrame, jsonMessageReply, MockAnthropicServer, messageStartFrame, textReply } from '../../fixtures/mock-anthropic';
import { FAST } from '../providers/helpers';
import { baseConfig, memoryTools, recordEvents, ScriptedModel, step, usage } from './fakes';

const SONNET = 'claude-sonnet-4-5'; // $3 in, $15 out
const HAIKU = 'claude-haiku-4-5'; // $1 in, $5 out
const OPUS = 'claude-opus-4-5'; // $5 in, $25 out
const read = (id: string) => step('', [{ id, name: 'read_file', input: { path: 'x' } }], usage(20_000, 100));

describe('runtime: spend caps that hold, costs that are facts (issue 26)', () => {
  it('26.2: the first request reserves its whole reply limit: a cap smaller than that sends nothing; a smaller limit fits', async () => {
    const model = new ScriptedModel([step('long reply', [], usage(100, 60_000))]);
    // 64 000 output tokens at $15/M could cost $0.96: a $0.50 cap cannot allow it, however short the last reply was.
    const rt = new ConversationRuntime({ model, tools: memoryTools() }, { ...baseConfig, model: SONNET, maxCostPerTurnUsd: 0.5 });
    const s = await rt.runTurn('write a lot');
    assert.equal(s.outcome, 'failed');
    assert.equal(s.error?.kind, 'budget');
    assert.match(s.error!.message, /counting its 64000-token reply limit\) could pass the per-turn cap of \$0\.50/);
    assert.equal(model.requests.length, 0, 'nothing was sent');

    const small = new ScriptedModel([step('fits', [], usage(100, 10_000))]);
    const ok = new ConversationRuntime({ model: small, tools: memoryTools() }, { ...baseConfig, model: SONNET, maxTokens: 20_000, maxCostPerTurnUsd: 0.5 });
    const t = await ok.runTurn('write less');
    assert.equal(t.outcome, 'completed');
    assert.equal(small.requests[0]!.maxTokens, 20_000);
    assert.ok(t.costUsd <= 0.5);
  });

  it('26.2: the per-session cap counts the next request\'s reserve (a session cannot pass its cap by one request)', async () => {
    const model = new ScriptedModel([step('x')]);
    // $0.09 spent (30k input at $3/M); the next request reserves $0.015 of output: $0.105 > $0.10.
    const rt = new ConversationRuntime({ model, tools: memoryTools() }, { ...baseConfig, model: SONNET, maxTokens: 1000, maxCostPerSessionUsd: 0.1 }, { usage: usage(30_000, 0) });
    const s = await rt.runTurn('one more');
    assert.equal(s.error?.kind, 'budget');
    assert.match(s.error!.message, /this session has cost \$0\.09 and the next request .* could pass the per-session cap of \$0\.10/);
    assert.equal(model.requests.length, 0);
  });

  it('26.2: a compaction summary passes the gate: when it could pass the cap it is not requested (the local summary costs nothing) and the turn never ends above the cap', async () => {
    // Two reads of ~20k tokens each; the third request would carry ~41k: compaction first, its summary costing
    // ~500 tokens of transcript and a 2048-token reply reserve ($0.033 at sonnet prices).
    const files = { a: 'a'.repeat(80_000), b: 'b'.repeat(80_000) };
    const steps = () => [
      step('', [{ id: 'ra', name: 'read_file', input: { path: 'a' } }], usage(1_000, 100)),
      step('', [{ id: 'rb', name: 'read_file', input: { path: 'b' } }], usage(21_000, 100)),
      step('done', [], usage(21_500, 10)),
    ];
    const config = { ...baseConfig, model: SONNET, maxTokens: 1000, keepRecent: 1, env: { TURNSTONE_AUTO_COMPACT_INPUT_TOKENS: '30000' } };
    const model = new ScriptedModel(steps());
    const rt = new ConversationRuntime({ model, tools: memoryTools(files) }, { ...config, maxCostPerTurnUsd: 0.1 });
    const events = recordEvents(rt);
    const s = await rt.runTurn('go');
    assert.equal(model.completeRequests.length, 0, 'the summary request was not sent');
    assert.ok(events.some((e) => e.type === 'warning' && e.kind === 'compaction_fallback' && /could pass the spend cap/.test(e.message)));
    assert.equal(s.error?.kind, 'budget', 'and the step after it could not go either');
    assert.ok(s.costUsd <= 0.1, `the turn cost ${s.costUsd}`);

    // With room for it, the same summary is requested and charged.
    const roomy = new ScriptedModel(steps());
    roomy.completeResult = { content: [{ type: 'text', text: 'MODEL SUMMARY' }], usage: usage(600, 300), stopReason: 'end_turn' };
    const rt2 = new ConversationRuntime({ model: roomy, tools: memoryTools(files) }, { ...config, maxCostPerTurnUsd: 5 });
    const s2 = await rt2.runTurn('go');
    assert.equal(s2.outcome, 'completed');
    assert.equal(roomy.completeRequests.length, 1);
    assert.equal(s2.turnUsage.input_tokens, 1_000 + 21_000 + 600 + 21_500, 'the summary is charged');
  });

  it('26.2: a retry passes the gate too, counting what the failed attempt was billed (real Anthropic client)', async () => {
    const mock = await MockAnthropicServer.start();
    try {
      // Attempt 1 is billed 30k input ($0.09 at $3/M) and breaks; a retry reserving $0.015 more would pass $0.10.
      mock.enqueue({ kind: 'sse', frames: [messageStartFrame({ usage: { input_tokens: 30_000 } }), errorFrame('overloaded_error', 'Overloaded')] }, textReply('never'));
      const client = new AnthropicModelClient({ ...FAST, baseURL: mock.url });
      const rt = new ConversationRuntime({ model: client, tools: memoryTools() }, { ...baseConfig, model: SONNET, maxTokens: 1000, maxCostPerTurnUsd: 0.1 });
      const s = await rt.runTurn('hi');
      assert.equal(s.error?.kind, 'budget');
      assert.equal(mock.requests.length, 1, 'the retry was not sent');
      assert.equal(s.turnUsage.input_tokens, 30_000, 'the failed attempt is charged');
      assert.ok(s.costUsd <= 0.1);
    } finally {
      await mock.close();
    }
  });

  it('26.2 / S5: the non-streamed resend of a stream that gave nothing passes the gate too (real Anthropic client)', async () => {
    const mock = await MockAnthropicServer.start();
    try {
      // The stream is billed 30k input ($0.09) and ends with nothing usable; resending it whole could pass $0.10.
      mock.enqueue({ kind: 'sse', frames: [messageStartFrame({ usage: { input_tokens: 30_000 } })] });
      const client = new AnthropicModelClient({ ...FAST, baseURL: mock.url });
      const rt = new ConversationRuntime({ model: client, tools: memoryTools() }, { ...baseConfig, model: SONNET, maxTokens: 1000, maxCostPerTurnUsd: 0.1 });
      const s = await rt.runTurn('hi');
      assert.equal(s.error?.kind, 'budget');
      assert.equal(mock.requests.length, 1, 'the resend was not sent');
      assert.ok(s.costUsd <= 0.1);

      // Under the cap, the resend goes (S5 as before).
      mock.enqueue({ kind: 'sse', frames: [messageStartFrame({ usage: { input_tokens: 10 } })] }, jsonMessageReply([{ type: 'text', text: 'from the resend' }]));
      const free = new ConversationRuntime({ model: client, tools: memoryTools() }, { ...baseConfig, model: SONNET, maxTokens: 1000, maxCostPerTurnUsd: 0.1 });
      const ok = await free.runTurn('hi');
      assert.equal(ok.outcome, 'completed', JSON.stringify(ok.error));
      assert.equal(ok.finalText, 'from the resend');
    } finally {
      await mock.close();
    }
  });

  it('26.2: a max_tokens continuation is a request like any other: gated', async () => {
    const cutOff: AssistantEvent[] = [...step('part one', [], usage(100, 1000)).slice(0, -1), { type: 'message_stop', stopReason: 'max_tokens' }];
    const model = new ScriptedModel([cutOff, step(' part two')]);
    // Step 1 costs $0.0153; the continuation reserves $0.015 more: $0.0303 > $0.025.
    const rt = new ConversationRuntime({ model, tools: memoryTools() }, { ...baseConfig, model: SONNET, maxTokens: 1000, maxCostPerTurnUsd: 0.025 });
    const s = await rt.runTurn('go');
    assert.equal(s.error?.kind, 'budget');
    assert.equal(model.requests.length, 1);
  });

  it('issue 42 item 11 (was 26.3): with a cap and no price for the model nothing is sent, and the error names turnstone.modelPrices; without a cap the cost is unknown; turnstone.modelPrices gives it a price', async () => {
    const model = new ScriptedModel([read('a'), step('done', [], usage(60_000, 10))]);
    const rt = new ConversationRuntime({ model, tools: memoryTools({ x: 'X' }) }, { ...baseConfig, model: 'gpt-4o', maxCostPerTurnUsd: 0.01 });
    const s = await rt.runTurn('go');
    assert.equal(s.outcome, 'failed');
    assert.equal(s.error?.kind, 'unpriced');
    assert.match(s.error?.message ?? '', /^Nothing was sent: no price is known for the model gpt-4o, so the spend cap \(\$0\.01 per turn\) could not be held\..*turnstone\.modelPrices \(CLI: --model-prices <file>\)/);
    assert.equal(model.requests.length, 0, 'a cap it cannot count is no cap: the request was never sent');

    const uncapped = new ScriptedModel([read('a'), step('done', [], usage(60_000, 10))]);
    const rt0 = new ConversationRuntime({ model: uncapped, tools: memoryTools({ x: 'X' }) }, { ...baseConfig, model: 'gpt-4o' });
    const events = recordEvents(rt0);
    const u = await rt0.runTurn('go');
    assert.equal(u.outcome, 'completed');
    assert.ok(u.unpricedRequests > 0);
    const usageEvent = events.find((e) => e.type === 'usage');
    assert.ok(usageEvent?.type === 'usage' && usageEvent.stepCostUsd === null);

    const { prices, problems } = parseModelPrices({ 'gpt-4o': { input: 2.5, output: 10 }, broken: { input: 'cheap' } });
    assert.deepEqual(prices, { 'gpt-4o': { inputPerMTok: 2.5, outputPerMTok: 10 } });
    assert.match(problems[0]!, /the price of broken was left out \(input\)/);
    const priced = new ScriptedModel([step('hi', [], usage(1_000, 10))]);
    const rt2 = new ConversationRuntime({ model: priced, tools: memoryTools() }, { ...baseConfig, model: 'gpt-4o', maxTokens: 1000, maxCostPerTurnUsd: 0.05, prices });
    const events2 = recordEvents(rt2);
    const t = await rt2.runTurn('hi');
    assert.equal(t.outcome, 'completed');
    assert.equal(t.unpricedRequests, 0);
    assert.ok(Math.abs(t.costUsd - (1_000 * 2.5 + 10 * 10) / 1e6) < 1e-12);
    assert.ok(!events2.some((e) => e.type === 'warning'));
    // And the cap holds: $0.05 cannot cover a 10 000-token reply reserve at $10/M plus what was spent.
    const capped = new ConversationRuntime({ model: new ScriptedModel([]), tools: memoryTools() }, { ...baseConfig, model: 'gpt-4o', maxTokens: 10_000, maxCostPerTurnUsd: 0.05, prices });
    assert.equal((await capped.runTurn('x')).error?.kind, 'budget');
  });

  it('26.4: costs are facts: an opus turn then a haiku turn on the resumed session adds the haiku turn to what the opus turn cost', async () => {
    const store = new MemorySessionStore();
    const first = new ConversationRuntime({ model: new ScriptedModel([step('opus answer', [], usage(100_000, 1_000))]), tools: memoryTools(), session: store }, { ...baseConfig, model: OPUS });
    const a = await first.runTurn('a');
    const opusCost = (100_000 * 5 + 1_000 * 25) / 1e6;
    assert.ok(Math.abs(a.costUsd - opusCost) < 1e-9, `${a.costUsd}`);

    const loaded = parseSession('s.jsonl', store.records.map((r) => JSON.stringify(r)).join('\n'));
    assert.ok(loaded.cost && Math.abs(loaded.cost.usd - opusCost) < 1e-9, 'the saved cost');
    const second = new ConversationRuntime(
      { model: new ScriptedModel([step('haiku answer', [], usage(10_000, 100))]), tools: memoryTools() },
      { ...baseConfig, model: HAIKU },
      { messages: loaded.messages, ...(loaded.usage ? { usage: loaded.usage } : {}), ...(loaded.cost ? { cost: loaded.cost } : {}) },
    );
    const b = await second.runTurn('b');
    const haikuCost = (10_000 * 1 + 100 * 5) / 1e6;
    assert.ok(Math.abs(b.costUsd - (opusCost + haikuCost)) < 1e-9, `${b.costUsd} is the opus turn at opus prices plus the haiku turn`);
  });

  it('26.4: a session saved before costs were (usage only) is priced once on resume; what was saved after is summed as saved', () => {
    const records = [
      { type: 'meta', version: 1, id: 'old', createdAt: '2026-01-01T00:00:00Z' },
      { type: 'message', ts: 1, message: { role: 'user', content: [{ type: 'text', text: 'hi' }] } },
      // Written by an older version: usage, no cost.
      { type: 'message', ts: 2, message: { role: 'assistant', content: [{ type: 'text', text: 'yo' }] }, usage: usage(1_000, 100) },
    ];
    const legacy = parseSession('old.jsonl', records.map((r) => JSON.stringify(r)).join('\n'));
    assert.equal(legacy.cost, undefined);
    const rt = new ConversationRuntime({ model: new ScriptedModel([]), tools: memoryTools() }, { ...baseConfig, model: SONNET }, { messages: legacy.messages, usage: legacy.usage! });
    assert.ok(Math.abs(rt.costUsd - (1_000 * 3 + 100 * 15) / 1e6) < 1e-12);

    const withCost = [...records, { type: 'event', ts: 3, name: 'turn_ended', data: { cumulative: usage(1_000, 100), costUsd: 0.5, unpricedRequests: 0 } }, { type: 'message', ts: 4, message: { role: 'user', content: [{ type: 'text', text: 'x' }] } }];
    const saved = parseSession('new.jsonl', withCost.map((r) => JSON.stringify(r)).join('\n'));
    assert.deepEqual(saved.cost, { usd: 0.5, unpricedRequests: 0, usage: usage(1_000, 100) });
    const resumed = new ConversationRuntime({ model: new ScriptedModel([]), tools: memoryTools() }, { ...baseConfig, model: HAIKU }, { messages: saved.messages, usage: saved.usage!, cost: saved.cost! });
    assert.equal(resumed.costUsd, 0.5, 'as saved, not re-priced at haiku');
  });
});
