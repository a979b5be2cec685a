import assert from 'node:assert/strict';
import { autoCompactThreshold, compactHistory, HEALTH_PROBE_INPUT, localSummary, planCompaction } from '../../../src/runtime/context/compaction';
import { ConversationRuntime } from '../../../src/runtime/loop/conversation';
import { historyProblem } from '../../../src/runtime/session/history';
import { type Message } from '../../../src/runtime/types';
import { baseConfig, deferred, long, memoryTools, recordEvents, ScriptedModel, step, usage } from './fakes';

const user = (text: string): Message => ({ role: 'user', content: [{ type: 'text', text }] });
const said = (text: string): Message => ({ role: 'assistant', content: [{ type: 'text', text }] });
const uses = (id: string, path = 'f.ts'): Message => ({ role: 'assistant', content: [{ type: 'tool_use', id, name: 'read_file', input: { path } }] });
const answers = (id: string): Message => ({ role: 'user', content: [{ type: 'tool_result', tool_use_id: id, content: `result ${id}` }] });
const countSummaries = (ms: readonly Message[]) => JSON.stringify(ms).split('<conversation_summary>').length - 1;
const signal = new AbortController().signal;

describe('runtime: compaction', () => {
  it('C1: keeps the last 4 messages and never splits a tool_use/tool_result pair', () => {
    const history = [user('a'), said('b'), user('c'), said('d'), user('e'), uses('t1'), answers('t1'), said('done')];
    const plan = planCompaction(history)!;
    assert.deepEqual(plan.kept, history.slice(4));
    assert.deepEqual(plan.removed, history.slice(0, 4));
    // Here the plain cut (last 4) would start at a tool result: the pair moves into the kept part.
    const odd = [user('a'), said('b'), uses('t1'), answers('t1'), uses('t2'), answers('t2'), said('done')];
    const plan2 = planCompaction(odd)!;
    assert.deepEqual(plan2.kept, odd.slice(2));
    assert.equal(planCompaction([user('a'), said('b')]), undefined, 'nothing to remove');
  });

  it('C1: re-compacting folds the earlier summary in: one summary, never nested', async () => {
    let history = [user('first goal'), said('ok'), user('c'), said('d'), user('e'), said('f'), user('g'), said('h')];
    const first = await compactHistory(history, { model: 'm', signal });
    assert.equal(first?.summarySource, 'local', 'no client: local summary');
    history = [...first!.messages, user('i'), said('j'), user('k'), said('l')];
    const second = await compactHistory(history, { model: 'm', signal });
    assert.equal(countSummaries(second!.messages), 1);
    assert.match(JSON.stringify(second!.messages[0]), /first goal/, 'what the first summary said survives');
    assert.equal(historyProblem(second!.messages), undefined);
  });

  it('C1: the model writes the summary; when that fails a deterministic local summary is used', async () => {
    const history = [user('refactor parser'), uses('t1', 'src/parser.ts'), answers('t1'), said('looked'), user('x'), said('y'), user('z'), said('w')];
    const model = new ScriptedModel([]);
    const byModel = await compactHistory(history, { model: 'm', client: model, signal });
    assert.equal(byModel?.summarySource, 'model');
    assert.match(JSON.stringify(byModel!.messages[0]), /MODEL SUMMARY/);
    assert.match(JSON.stringify(model.completeRequests[0]!.messages), /refactor parser/);

    model.completeResult = new Error('overloaded');
    const fallback = await compactHistory(history, { model: 'm', client: model, signal });
    assert.equal(fallback?.summarySource, 'local');
    assert.equal(fallback?.fallbackReason, 'overloaded');
    const again = await compactHistory(history, { model: 'm', client: model, signal });
    assert.deepEqual(again?.messages, fallback?.messages, 'deterministic');
    assert.match(localSummary(history.slice(0, 4)), /read_file×1[\s\S]*src\/parser\.ts/);
  });

  it('C1: the absolute threshold is unset by default (the share of the window applies); TURNSTONE_AUTO_COMPACT_INPUT_TOKENS overrides the setting', () => {
    assert.equal(autoCompactThreshold(undefined, {}), undefined);
    assert.equal(autoCompactThreshold(50_000, {}), 50_000);
    assert.equal(autoCompactThreshold(50_000, { TURNSTONE_AUTO_COMPACT_INPUT_TOKENS: '2000' }), 2000);
    assert.equal(autoCompactThreshold(50_000, { TURNSTONE_AUTO_COMPACT_INPUT_TOKENS: 'lots' }), 50_000);
  });

  it('C1: compacts before sampling when the next request would pass the threshold, never on tokens summed over requests', async () => {
    const model = new ScriptedModel([
      // Each request carries ~100 tokens: 300 summed over three requests, but the context never nears 250.
      step('', [{ id: 'a', name: 'read_file', input: { path: 'x' } }], usage(40, 10, 60)),
      step('', [{ id: 'b', name: 'read_file', input: { path: 'y' } }], usage(10, 10, 90)),
      step('', [{ id: 'c', name: 'read_file', input: { path: 'z' } }], usage(10, 10, 230)),
      step('done', [], usage(100)),
    ]);
    const rt = new ConversationRuntime({ model, tools: memoryTools({ x: 'X', y: 'X', z: 'X' }) }, { ...baseConfig, env: { TURNSTONE_AUTO_COMPACT_INPUT_TOKENS: '250' } });
    const events = recordEvents(rt);
    // A prompt worth summarising (issue 26: never a summary larger than what it removes).
    const s = await rt.runTurn(long('go'));
    assert.equal(s.outcome, 'completed');
    assert.deepEqual(s.autoCompaction, { trigger: 'auto', removedMessageCount: 3, summarySource: 'model' });
    const kinds = events.filter((e) => e.type === 'compaction' || e.type === 'step_started').map((e) => (e.type === 'step_started' ? `step ${e.step}` : 'compaction'));
    assert.deepEqual(kinds, ['step 1', 'step 2', 'step 3', 'step 4', 'compaction'], 'one compaction, before the 4th request (240 counted + the appended results > 250)');
    assert.equal(model.completeRequests.length, 1);
    assert.equal(countSummaries(model.requests[3]!.messages), 1, 'the 4th request already carries the summary');
    assert.equal(historyProblem(model.requests[3]!.messages), undefined);
  });

  it('C1: the threshold is autoCompactPercent of the model window; contextWindow overrides the table', async () => {
    const model = new ScriptedModel([
      step('', [{ id: 'a', name: 'read_file', input: { path: 'x' } }], usage(10_000)),
      step('', [{ id: 'b', name: 'read_file', input: { path: 'x' } }], usage(15_990)),
      step('done', [], usage(100)),
    ]);
    const rt = new ConversationRuntime({ model, tools: memoryTools({ x: 'X' }) }, { ...baseConfig, contextWindow: 20_000, autoCompactPercent: 80, env: {} });
    const s = await rt.runTurn(long('go'));
    assert.equal(s.autoCompaction?.trigger, 'auto');
    assert.equal(model.completeRequests.length, 1, 'compacted once, crossing 80 % of 20 000');
    assert.equal(s.context.window, 20_000);
    assert.ok(s.context.tokens <= 8_000, `after compaction at most 40 % of the window (${s.context.tokens})`);
  });

  it('C1: compaction also runs by command between turns', async () => {
    const model = new ScriptedModel([step('one'), step('two'), step('three')]);
    const rt = new ConversationRuntime({ model, tools: memoryTools() }, baseConfig);
    for (const t of ['a', 'b', 'c']) await rt.runTurn(long(t));
    const event = await rt.compact();
    assert.deepEqual(event, { trigger: 'manual', removedMessageCount: 2, summarySource: 'model' });
    assert.equal(rt.messages.length, 4);
    assert.equal(await new ConversationRuntime({ model, tools: memoryTools() }, baseConfig).compact(), undefined);
  });

  it('C1: the plan (todo_write) is restated after the summary; the next compaction restates it anew, not inside the summary', async () => {
    const model = new ScriptedModel([step('one'), step('two'), step('three'), step('four'), step('five')]);
    const todos = [
      { content: 'Look around', status: 'completed' as const, activeForm: 'Looking around' },
      { content: 'Run the tests', status: 'in_progress' as const, activeForm: 'Running the tests' },
    ];
    const rt = new ConversationRuntime({ model, tools: memoryTools() }, baseConfig, { plan: todos });
    for (const t of ['a', 'b', 'c']) await rt.runTurn(long(t));
    assert.ok(await rt.compact());
    const first = rt.messages[0]!;
    assert.equal(first.role, 'user');
    const texts = first.content.map((b) => (b.type === 'text' ? b.text : ''));
    assert.match(texts[0]!, /^<conversation_summary>/);
    assert.equal(texts[1], '<current_plan>\nYour plan (todo_write) as you last wrote it; keep it current with todo_write as you work:\n1. [completed] Look around\n2. [in_progress] Run the tests\n</current_plan>');
    assert.equal(historyProblem(rt.messages), undefined);
    // A second compaction: the summary request does not get the stale plan to summarise, and one plan block follows.
    for (const t of ['d', 'e']) await rt.runTurn(long(t));
    assert.ok(await rt.compact());
    assert.equal(model.completeRequests.length, 2, "two summaries were asked for");
    const summaryRequest = JSON.stringify(model.completeRequests.at(-1)?.messages);
    assert.ok(!summaryRequest.includes('<current_plan>'), 'the restated plan is not summarised again');
    assert.equal(JSON.stringify(rt.messages).split('<current_plan>').length - 1, 1, 'one plan block');
    // Without a plan nothing is restated.
    const plain = new ConversationRuntime({ model: new ScriptedModel([step('1'), step('2'), step('3'), step('4')]), tools: memoryTools() }, baseConfig);
    for (const t of ['a', 'b', 'c']) await plain.runTurn(long(t));
    await plain.compact();
    assert.ok(!JSON.stringify(plain.messages).includes('<current_plan>'));
  });

  it('C1: an interrupt during a slow summary request ends the turn as aborted with a valid history', async () => {
    const model = new ScriptedModel([step('', [{ id: 'a', name: 'read_file', input: { path: 'x' } }], usage(500))]);
    const summaryStarted = deferred();
    model.complete = async () => {
      summaryStarted.resolve();
      return new Promise(() => undefined);
    };
    const rt = new ConversationRuntime({ model, tools: memoryTools({ x: 'X' }) }, { ...baseConfig, keepRecent: 0, env: { TURNSTONE_AUTO_COMPACT_INPUT_TOKENS: '100' } });
    const c = new AbortController();
    const turn = rt.runTurn(long('go'), { signal: c.signal });
    await summaryStarted.promise;
    c.abort();
    const s = await turn;
    assert.equal(s.outcome, 'aborted');
    assert.equal(historyProblem(rt.messages), undefined);
    assert.deepEqual(rt.messages.map((m) => m.role), ['user', 'assistant', 'user']);
  });

  it('C2: after a compaction a harmless glob probe runs before the next step', async () => {
    const model = new ScriptedModel([step('a'), step('b'), step('c'), step('after')]);
    const tools = memoryTools();
    const rt = new ConversationRuntime({ model, tools }, baseConfig);
    for (const t of ['1', '2', '3']) await rt.runTurn(long(t));
    await rt.compact();
    assert.equal(tools.calls.length, 0);
    await rt.runTurn('4');
    assert.deepEqual(tools.calls, [{ name: 'glob_search', input: { ...HEALTH_PROBE_INPUT } }]);
  });

  it('C2: a failing probe stops the turn and tells the user to start a new session', async () => {
    const model = new ScriptedModel([step('a'), step('b'), step('c'), step('never sent')]);
    const tools = memoryTools();
    tools.tools.glob_search!.run = () => ({ content: 'workspace adapter is gone', isError: true });
    const rt = new ConversationRuntime({ model, tools }, baseConfig);
    for (const t of ['1', '2', '3']) await rt.runTurn(long(t));
    await rt.compact();
    const events = recordEvents(rt);
    const s = await rt.runTurn('4');
    assert.equal(s.outcome, 'failed');
    assert.equal(s.error?.kind, 'health_probe_failed');
    assert.match(s.error!.message, /workspace adapter is gone.*Start a new session/);
    assert.equal(model.remaining, 1, 'no request was sent on the broken state');
    assert.ok(events.some((e) => e.type === 'turn_failed' && e.kind === 'health_probe_failed'));
  });
});
