// Issue 14 in the runtime: context accounting (C1), every request charged (C4),
// spend caps, overflow that never wedges (T6), max_tokens continued once, the
// one steering queue (T7) and the probe after compaction (C2).
import assert from 'node:assert/strict';
import { ConversationRuntime, CONTINUE_AFTER_MAX_TOKENS } from '../../../src/runtime/loop/conversation';
import { modelLimits, UNKNOWN_MODEL_LIMITS } from '../../../src/runtime/context/context-window';
import { historyProblem } from '../../../src/runtime/session/history';
import { shrinkText } from '../../../src/runtime/context/overflow';
import { MemorySessionStore, parseSession } from '../../../src/runtime/session/session';
import { ModelError, type AssistantEvent, type ContentBlock, type Message, type ModelRequest } from '../../../src/runtime/types';
import { AnthropicModelClient } from '../../../src/runtime/providers/anthropic';
import { errorFrame, messageStartFrame, MockAnthropicServer, textReply } from '../../fixtures/mock-anthropic';
import { FAST } from '../providers/helpers';
import { baseConfig, deferred, long, memoryTools, recordEvents, ScriptedHooks, ScriptedModel, step, usage } from './fakes';

const requestTokens = (r: ModelRequest) => Math.ceil(JSON.stringify(r.messages).length / 4);
const withStop = (events: AssistantEvent[], stopReason: string): AssistantEvent[] => events.map((e) => (e.type === 'message_stop' ? { ...e, stopReason } : e));

describe('runtime: context, cost and steering (issue 14)', () => {
  it('C1: the model table gives window and output limit; contextWindow and the output cap override it; unknown models get a conservative default and a log line', async () => {
    assert.deepEqual(modelLimits('claude-sonnet-4-5').limits, { contextWindow: 200_000, maxOutputTokens: 64_000 });
    assert.deepEqual(modelLimits('claude-3-5-haiku-latest').limits, { contextWindow: 200_000, maxOutputTokens: 8_192 });
    assert.equal(modelLimits('gpt-4o-mini').limits.contextWindow, 128_000);
    assert.deepEqual(modelLimits('llama3.1:8b'), { limits: UNKNOWN_MODEL_LIMITS, known: false });
    assert.deepEqual(modelLimits('llama3.1:8b', { contextWindow: 131_072 }).limits, { contextWindow: 131_072, maxOutputTokens: 8_192 });
    assert.equal(modelLimits('claude-sonnet-4-5', { maxOutputTokens: 4_000 }).limits.maxOutputTokens, 4_000);

    const log: string[] = [];
    const model = new ScriptedModel([step('hi')]);
    const rt = new ConversationRuntime({ model, tools: memoryTools(), log: (m) => log.push(m) }, { ...baseConfig, model: 'llama3.1:8b' });
    await rt.runTurn('hello');
    assert.equal(model.requests[0]!.maxTokens, UNKNOWN_MODEL_LIMITS.maxOutputTokens, 'max_tokens is the model\'s, not 8192 for all');
    assert.match(log.join('\n'), /llama3\.1:8b is not in the context-window table: assuming a 32000-token window/);
    assert.equal(rt.context.window, 32_000);
  });

  it('C1: switching to a model with a smaller window compacts before its first request', async () => {
    const big = usage(1_000, 50, 29_000);
    const model = new ScriptedModel([step('big answer', [], big), step('one', [], big), step('two', [], big), step('small model answer')]);
    const rt = new ConversationRuntime({ model, tools: memoryTools() }, { ...baseConfig, model: 'claude-sonnet-4-5' });
    await rt.runTurn(long('a'));
    await rt.runTurn(long('b'));
    await rt.runTurn(long('c'));
    assert.equal(model.completeRequests.length, 0, '30k of a 200k window: no compaction');
    // 27: the next turn's context names another model (32k window: 30k is past 85 %); the session is the same.
    const s = await rt.runTurn('d', { context: { model, tools: memoryTools(), config: { ...baseConfig, model: 'llama3.1:8b' } } });
    assert.equal(s.autoCompaction?.trigger, 'auto');
    assert.equal(model.completeRequests.length, 1);
    assert.match(JSON.stringify(model.requests[3]!.messages[0]), /conversation_summary/);
  });

  it('C4: summary requests and the discarded attempts of a retried step are charged; usage is persisted per step', async () => {
    const model = new ScriptedModel([
      [{ type: 'text_delta', text: 'Hel' }, { type: 'usage', usage: usage(400, 0) }, { type: 'step_reset' }, ...step('Hello', [{ id: 'a', name: 'read_file', input: { path: 'x' } }], usage(400, 20))],
      step('done', [], usage(500, 30)),
    ]);
    model.completeResult = { content: [{ type: 'text', text: 'SUMMARY' }], usage: usage(2_000, 300), stopReason: 'end_turn' };
    const session = new MemorySessionStore();
    const rt = new ConversationRuntime({ model, tools: memoryTools({ x: 'X' }), session }, { ...baseConfig, keepRecent: 1, env: { TURNSTONE_AUTO_COMPACT_INPUT_TOKENS: '410' } });
    const events = recordEvents(rt);
    const s = await rt.runTurn(long('go'));
    assert.equal(s.outcome, 'completed');
    assert.equal(model.completeRequests.length, 1, 'compacted once (the 2nd request would carry 400 + the results > 410)');
    assert.deepEqual(s.turnUsage, usage(400 + 400 + 2_000 + 500, 0 + 20 + 300 + 30));
    assert.ok(events.filter((e) => e.type === 'usage').length >= 3, 'a usage event per request: step, summary, step');
    // Each step's usage is saved with its assistant message; the summary request's as an event of its own.
    const persisted = session.records.filter((r) => (r.type === 'event' && r.name === 'usage') || (r.type === 'message' && r.usage !== undefined));
    assert.deepEqual(persisted.map((r) => r.type), ['message', 'event', 'message']);
    // What a crash right after the first step would reload: that step's usage, not nothing.
    const firstOnly = session.records.slice(0, session.records.indexOf(persisted[0]!) + 1);
    const loaded = parseSession('mem.jsonl', firstOnly.map((r) => JSON.stringify(r)).join('\n'));
    assert.deepEqual(loaded.usage, usage(800, 20));
  });

  it('C4: through the real Anthropic client, an attempt that broke after message_start is charged when the step is retried', async () => {
    const mock = await MockAnthropicServer.start();
    try {
      mock.enqueue({ kind: 'sse', frames: [messageStartFrame({ usage: { input_tokens: 700 } }), errorFrame('overloaded_error', 'Overloaded')] }, textReply('after', { usage: { input_tokens: 700, output_tokens: 9 } }));
      const client = new AnthropicModelClient({ ...FAST, baseURL: mock.url });
      const rt = new ConversationRuntime({ model: client, tools: memoryTools() }, baseConfig);
      const s = await rt.runTurn('hi');
      assert.equal(s.finalText, 'after');
      assert.equal(s.turnUsage.input_tokens, 1_400, 'both attempts were billed for their input');
      assert.equal(s.turnUsage.output_tokens, 1 + 9);
      assert.equal(rt.context.tokens >= 700 && rt.context.tokens < 800, true, 'the context is one request, not the sum');
    } finally {
      await mock.close();
    }
  });

  it('spend caps: the turn stops before a request would pass the per-turn or per-session cap, kind budget, history valid', async () => {
    const model = new ScriptedModel([step('', [{ id: 'a', name: 'read_file', input: { path: 'x' } }], usage(20_000, 100)), step('never')]);
    // A 1000-token reply limit: each request reserves $0.015 of output (issue 26: the whole limit counts).
    const rt = new ConversationRuntime({ model, tools: memoryTools({ x: 'X' }) }, { ...baseConfig, model: 'claude-sonnet-4-5', maxTokens: 1000, maxCostPerTurnUsd: 0.05 });
    const events = recordEvents(rt);
    const s = await rt.runTurn('go');
    assert.equal(s.outcome, 'failed');
    assert.equal(s.error?.kind, 'budget');
    assert.match(s.error!.message, /this turn has cost \$0\.06 .*per-turn cap of \$0\.05/);
    assert.equal(model.requests.length, 1);
    assert.equal(historyProblem(rt.messages), undefined);
    assert.ok(events.some((e) => e.type === 'turn_failed' && e.kind === 'budget'));
    // 25.6: which cap and the figures travel structured, so a UI words its own card and offers to continue.
    const failed = events.find((e) => e.type === 'turn_failed');
    assert.ok(failed?.type === 'turn_failed' && failed.spendCap?.cap === 'turn' && failed.spendCap.capUsd === 0.05 && failed.spendCap.spentUsd > 0.05);
    assert.deepEqual(s.error?.spendCap, failed.spendCap);

    const capped = new ConversationRuntime({ model: new ScriptedModel([step('x')]), tools: memoryTools() }, { ...baseConfig, model: 'claude-sonnet-4-5', maxTokens: 1000, maxCostPerSessionUsd: 0.1 }, { usage: usage(40_000, 0) });
    const t = await capped.runTurn('more');
    assert.equal(t.error?.kind, 'budget');
    assert.match(t.error!.message, /this session has cost \$0\.12/);
    assert.equal(t.error?.spendCap?.cap, 'session');
    // Raised for this session (the user chose to continue): the same turn now goes through.
    const raised = { model: new ScriptedModel([step('x')]), tools: memoryTools(), config: { ...baseConfig, model: 'claude-sonnet-4-5', maxTokens: 1000, maxCostPerSessionUsd: 0.3 } };
    assert.equal((await capped.runTurn('', { context: raised })).outcome, 'completed');
  });

  const fourReads = () => ['a', 'b', 'c', 'd'].map((p) => ({ id: p, name: 'read_file', input: { path: p } }));
  const bigFiles = (kb: number) => Object.fromEntries(['a', 'b', 'c', 'd'].map((c) => [c, `${c.repeat(kb * 1024 - 3)}END`]));

  it('T6: four parallel tool results the API counts as past the window: shrunk in place (head, tail, how to read the rest), the step resubmitted, later turns work', async () => {
    // 4 × 160 KB is ~164k tokens by our estimate (under 85 % of 200k, so no compaction first), but the API's
    // tokenizer counts denser and refuses it: recovery must not rely on the estimate being right.
    const apiTokens = (r: ModelRequest) => Math.ceil(JSON.stringify(r.messages).length / 3);
    const guarded = (events: AssistantEvent[]) => async function* (r: ModelRequest): AsyncGenerator<AssistantEvent> {
      if (apiTokens(r) > 200_000) throw new ModelError('context_overflow', `prompt is too long: ${apiTokens(r)} tokens > 200000 maximum`);
      yield* events;
    };
    // Each request takes the next script entry: the refused one and its resubmission both get 'read them all'.
    const model = new ScriptedModel([guarded(step('', fourReads(), usage(3_000))), guarded(step('read them all')), guarded(step('read them all')), guarded(step('next turn fine'))]);
    const rt = new ConversationRuntime({ model, tools: memoryTools(bigFiles(160)) }, { ...baseConfig, model: 'claude-sonnet-4-5' });
    const events = recordEvents(rt);
    const s = await rt.runTurn('read a b c d');
    assert.equal(s.outcome, 'completed', s.error?.message);
    assert.equal(s.finalText, 'read them all');
    assert.equal(model.requests.length, 3, 'step 1, the refused step 2, step 2 resubmitted');
    const compaction = events.find((e) => e.type === 'compaction');
    assert.ok(compaction && compaction.type === 'compaction' && compaction.trigger === 'context_overflow' && compaction.shrunkToolResults === 4, JSON.stringify(compaction));
    const results = rt.messages.flatMap((m): ContentBlock[] => m.content).filter((b) => b.type === 'tool_result');
    assert.equal(results.length, 4);
    for (const r of results) {
      const content = r.type === 'tool_result' ? r.content : '';
      assert.ok(content.length < 100_000);
      assert.match(content, /characters of this tool result were cut[\s\S]*read_file with an offset[\s\S]*END$/);
    }
    assert.equal(historyProblem(rt.messages), undefined);
    assert.ok(s.context.tokens <= 200_000 * 0.4, `at most 40 % after recovering (${s.context.tokens})`);
    assert.equal((await rt.runTurn('and now?')).outcome, 'completed', 'the session is not wedged');
  });

  it('C1/T6: four 256 KB results the estimate already puts past 85 %: compacted (shrunk) before sampling, no overflow at all', async () => {
    const model = new ScriptedModel([step('', fourReads(), usage(3_000)), step('read them all')]);
    const rt = new ConversationRuntime({ model, tools: memoryTools(bigFiles(256)) }, { ...baseConfig, model: 'claude-sonnet-4-5' });
    const events = recordEvents(rt);
    const s = await rt.runTurn('read a b c d');
    assert.equal(s.outcome, 'completed');
    const compaction = events.find((e) => e.type === 'compaction');
    assert.ok(compaction && compaction.type === 'compaction' && compaction.trigger === 'auto' && compaction.shrunkToolResults === 4);
    assert.ok(requestTokens(model.requests[1]!) < 200_000 * 0.45);
    assert.equal(shrinkText('x'.repeat(10), 20), 'x'.repeat(10), 'short text is never cut');
  });

  it('T6: a single user message larger than the window fails the turn with a message that says so', async () => {
    const model = new ScriptedModel([new ModelError('context_overflow', 'prompt is too long')]);
    const rt = new ConversationRuntime({ model, tools: memoryTools() }, { ...baseConfig, contextWindow: 1_000 });
    const s = await rt.runTurn('z'.repeat(8_000));
    assert.equal(s.outcome, 'failed');
    assert.equal(s.error?.kind, 'context_overflow');
    assert.match(s.error!.message, /A single message is larger than the model's context window \(about \d+ tokens; the window holds 1000\)/);
    assert.equal(model.requests.length, 1, 'no hopeless resubmit');
  });

  it('max_tokens: a reply cut at the output limit is continued once, then the user is told', async () => {
    const model = new ScriptedModel([withStop(step('part one'), 'max_tokens'), withStop(step(' part two'), 'max_tokens')]);
    const rt = new ConversationRuntime({ model, tools: memoryTools() }, baseConfig);
    const events = recordEvents(rt);
    const s = await rt.runTurn('write a lot');
    assert.equal(s.iterations, 2);
    assert.deepEqual((rt.messages[2] as Message).content, [{ type: 'text', text: CONTINUE_AFTER_MAX_TOKENS }]);
    assert.ok(events.some((e) => e.type === 'warning' && e.kind === 'max_tokens' && /cut off at the output limit/.test(e.message)));
  });

  it('T7: text steered after the loop\'s last check starts the next turn by itself (runQueued) and survives a runtime rebuild', async () => {
    const model = new ScriptedModel([step('first done'), step('handled the late steer')]);
    const session = new MemorySessionStore();
    const flushed = deferred();
    const release = deferred();
    // The session flush after the last step is where a late steer lands (the repro).
    session.flush = async () => {
      flushed.resolve();
      await release.promise;
    };
    const rt = new ConversationRuntime({ model, tools: memoryTools(), session }, baseConfig);
    const turn = rt.runTurn('task');
    await flushed.promise;
    assert.equal(rt.steer('late thought'), 'queued');
    release.resolve();
    await turn;
    // A settings change rebuilds the runtime on the same history: the queue moves with it.
    const rebuilt = new ConversationRuntime({ model, tools: memoryTools() }, baseConfig, { messages: [...rt.messages], queued: rt.queued });
    assert.deepEqual(rebuilt.queued.map((q) => q.text), ['late thought']);
    const next = await rebuilt.runQueued();
    assert.equal(next?.finalText, 'handled the late steer');
    assert.deepEqual(rebuilt.messages[2], { role: 'user', content: [{ type: 'text', text: 'late thought' }] });
    assert.equal(await rebuilt.runQueued(), undefined, 'nothing left to run');
  });

  it('T7: steered text passes the UserPromptSubmit hook: blocked text never reaches the model', async () => {
    const gate = deferred();
    const model = new ScriptedModel([
      async function* () {
        yield* step('', [{ id: 'a', name: 'read_file', input: { path: 'x' } }]);
        await gate.promise;
      },
      step('done'),
    ]);
    const hooks = new ScriptedHooks({ UserPromptSubmit: (p) => (String(p.prompt).includes('SECRET') ? { outcome: 'denied', messages: ['no secrets'] } : { outcome: 'ok', messages: [] }) });
    const rt = new ConversationRuntime({ model, tools: memoryTools({ x: 'X' }), hooks }, baseConfig);
    const events = recordEvents(rt);
    const turn = rt.runTurn('task');
    await new Promise((r) => setImmediate(r));
    rt.steer('paste SECRET here');
    rt.steer('also check y');
    gate.resolve();
    const s = await turn;
    assert.equal(s.outcome, 'completed');
    const sent = JSON.stringify(model.requests[1]!.messages);
    assert.ok(!sent.includes('SECRET'));
    assert.ok(sent.includes('also check y'));
    assert.ok(events.some((e) => e.type === 'warning' && e.kind === 'prompt_blocked' && /no secrets/.test(e.message)));
    assert.deepEqual(hooks.calls.filter((c) => c.event === 'UserPromptSubmit').map((c) => c.payload.prompt), ['task', 'paste SECRET here', 'also check y']);
  });

  it('C2: after a failed probe the next turn probes again, until one succeeds', async () => {
    const model = new ScriptedModel([step('a'), step('b'), step('c'), step('after')]);
    const tools = memoryTools();
    let broken = true;
    tools.tools.glob_search!.run = () => (broken ? { content: 'adapter gone', isError: true } : { content: 'No files found', isError: false });
    const rt = new ConversationRuntime({ model, tools }, baseConfig);
    for (const t of ['1', '2', '3']) await rt.runTurn(long(t));
    await rt.compact();
    assert.equal((await rt.runTurn('4')).error?.kind, 'health_probe_failed');
    assert.equal((await rt.runTurn('5')).error?.kind, 'health_probe_failed', 'probed again, not skipped');
    broken = false;
    assert.equal((await rt.runTurn('6')).outcome, 'completed');
    assert.equal(tools.calls.filter((c) => c.name === 'glob_search').length, 3);
    await rt.runTurn('7').catch(() => undefined);
    assert.equal(tools.calls.filter((c) => c.name === 'glob_search').length, 3, 'no probe once one succeeded');
  });
});
