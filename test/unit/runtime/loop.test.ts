import assert from 'node:assert/strict';
import { AssistantMessageBuilder, consumeStep } from '../../../src/runtime/loop/assistant-message';
import { ConversationRuntime } from '../../../src/runtime/loop/conversation';
import { TurnCancellation } from '../../../src/runtime/cancellation';
import { MAX_ITERATIONS_MESSAGE } from '../../../src/runtime/errors';
import { type RuntimeEvent } from '../../../src/runtime/events';
import { historyProblem, TURN_ABORTED_NOTE } from '../../../src/runtime/session/history';
import { ModelError, type AssistantEvent, type Message, type ToolResultBlock } from '../../../src/runtime/types';
import { baseConfig, deferred, FakeTools, fixedClock, long, memoryTools, recordEvents, ScriptedHooks, ScriptedModel, ScriptedPrompter, step } from './fakes';

const allowAll = new ScriptedPrompter({ kind: 'allow', scope: 'once' });
const results = (m: Message | undefined) => (m?.role === 'user' ? m.content.filter((b): b is ToolResultBlock => b.type === 'tool_result') : []);

describe('runtime: the turn loop', () => {
  it('T1: a multi-step read → edit → final-text turn pushes every message and rebuilds the request each step', async () => {
    const model = new ScriptedModel([
      step('Let me read it.', [{ id: 'r1', name: 'read_file', input: { path: 'main.ts' } }]),
      step('Now the fix.', [{ id: 'e1', name: 'edit_file', input: { path: 'main.ts', old_string: 'bug', new_string: 'fix' } }]),
      step('Done: replaced bug with fix.'),
    ]);
    const tools = memoryTools({ 'main.ts': 'const x = bug;' });
    const rt = new ConversationRuntime({ model, tools, clock: fixedClock() }, { ...baseConfig, permissionMode: 'acceptEdits' });
    const summary = await rt.runTurn('fix main.ts');

    assert.equal(summary.outcome, 'completed');
    assert.equal(summary.iterations, 3);
    assert.equal(summary.finalText, 'Done: replaced bug with fix.');
    assert.deepEqual(tools.calls.map((c) => c.name), ['read_file', 'edit_file']);
    assert.deepEqual(rt.messages.map((m) => m.role), ['user', 'assistant', 'user', 'assistant', 'user', 'assistant']);
    assert.equal(historyProblem(rt.messages), undefined);
    // Each request carries the full history so far, system prompt and tools.
    assert.deepEqual(model.requests.map((r) => r.messages.length), [1, 3, 5]);
    assert.ok(model.requests.every((r) => r.system === baseConfig.systemPrompt && r.tools.length === 5));
    assert.deepEqual(model.requests.map((r) => r.afterToolResults), [false, true, true]);
    assert.equal(results(model.requests[1]!.messages[2])[0]!.content, 'const x = bug;');
  });

  it('T2: more steps than maxIterations fails the turn with the documented error and leaves a valid history', async () => {
    const model = new ScriptedModel([1, 2, 3].map((i) => step('', [{ id: `g${i}`, name: 'glob_search', input: { pattern: '*.ts' } }])));
    const rt = new ConversationRuntime({ model, tools: memoryTools() }, { ...baseConfig, maxIterations: 2 });
    const events = recordEvents(rt);
    const summary = await rt.runTurn('loop forever');
    assert.equal(summary.outcome, 'failed');
    assert.equal(summary.error?.kind, 'max_iterations');
    assert.equal(summary.error?.message, MAX_ITERATIONS_MESSAGE);
    assert.equal(model.requests.length, 2);
    assert.equal(historyProblem(rt.messages), undefined);
    assert.ok(events.some((e) => e.type === 'turn_failed' && e.message === 'conversation loop exceeded the maximum number of iterations'));
  });

  it('T3: text deltas become one block, flushed before thinking and tool use, in streamed order', async () => {
    const events: RuntimeEvent[] = [];
    const builder = new AssistantMessageBuilder((e) => events.push(e), fixedClock().now, 1);
    const stream: AssistantEvent[] = [
      { type: 'text_delta', text: 'I will ' },
      { type: 'text_delta', text: 'think.' },
      { type: 'thinking_delta', thinking: 'hmm' },
      { type: 'thinking', thinking: 'hmm, yes', signature: 'sig' },
      { type: 'text_delta', text: 'Reading.' },
      { type: 'tool_use', id: 't1', name: 'read_file', inputJson: '{"path":"a"}' },
      { type: 'message_stop', stopReason: 'tool_use' },
    ];
    for (const e of stream) builder.push(e);
    const result = builder.finish();
    assert.deepEqual(result.message.content, [
      { type: 'text', text: 'I will think.' },
      { type: 'thinking', thinking: 'hmm, yes', signature: 'sig' },
      { type: 'text', text: 'Reading.' },
      { type: 'tool_use', id: 't1', name: 'read_file', input: { path: 'a' } },
    ]);
    const done = events.find((e) => e.type === 'thinking_done');
    assert.ok(done && done.type === 'thinking_done' && done.chars === 8 && done.ms > 0);
  });

  it('T3: a stream without message_stop, or without content, is a protocol error', async () => {
    const run = (evs: AssistantEvent[]) =>
      consumeStep((async function* () { yield* evs; })(), new AssistantMessageBuilder(() => undefined, Date.now, 1), new TurnCancellation());
    await assert.rejects(run([{ type: 'text_delta', text: 'hi' }]), (e: unknown) => e instanceof ModelError && e.kind === 'protocol' && /message stop/.test(e.message));
    await assert.rejects(run([{ type: 'message_stop', stopReason: 'end_turn' }]), (e: unknown) => e instanceof ModelError && /no content/.test(e.message));
  });

  it('T3: step_reset drops the partial step and the UI is told to discard it', async () => {
    const model = new ScriptedModel([
      [
        { type: 'text_delta', text: 'partial that will be retried' },
        { type: 'retrying', attempt: 1, maxAttempts: 5, delayMs: 200, reason: 'overloaded' },
        { type: 'step_reset' },
        ...step('clean answer'),
      ],
    ]);
    const rt = new ConversationRuntime({ model, tools: memoryTools() }, baseConfig);
    const events = recordEvents(rt);
    const summary = await rt.runTurn('hi');
    assert.equal(summary.finalText, 'clean answer');
    assert.ok(events.some((e) => e.type === 'retrying' && e.attempt === 1 && e.maxAttempts === 5));
    assert.ok(events.some((e) => e.type === 'step_discarded'));
    assert.deepEqual(rt.messages[1], { role: 'assistant', content: [{ type: 'text', text: 'clean answer' }] });
  });

  it('T4: the summary carries messages, tool results, cache events, iterations, usage and cost', async () => {
    const model = new ScriptedModel([
      [{ type: 'prompt_cache', cacheReadInputTokens: 0, cacheCreationInputTokens: 500 }, ...step('', [{ id: 'a', name: 'read_file', input: { path: 'x' } }], { input_tokens: 10, output_tokens: 5, cache_creation_input_tokens: 500, cache_read_input_tokens: 0 })],
      [{ type: 'prompt_cache', cacheReadInputTokens: 500, cacheCreationInputTokens: 0 }, ...step('ok', [], { input_tokens: 20, output_tokens: 7, cache_creation_input_tokens: 0, cache_read_input_tokens: 500 })],
    ]);
    const rt = new ConversationRuntime({ model, tools: memoryTools({ x: 'X' }) }, baseConfig);
    const s = await rt.runTurn('go');
    assert.equal(s.assistantMessages.length, 2);
    assert.deepEqual(s.toolResults, [{ toolUseId: 'a', name: 'read_file', isError: false, content: 'X' }]);
    assert.equal(s.promptCacheEvents.length, 2);
    assert.equal(s.iterations, 2);
    assert.deepEqual(s.usage, { input_tokens: 30, output_tokens: 12, cache_creation_input_tokens: 500, cache_read_input_tokens: 500 });
    assert.ok(s.costUsd > 0);
    assert.equal(s.autoCompaction, undefined);
  });

  it('T5: tool errors, unknown tools and malformed input JSON become is_error results and the turn goes on', async () => {
    const model = new ScriptedModel([
      step('', [
        { id: 'a', name: 'explode', input: {} },
        { id: 'b', name: 'no_such_tool', input: {} },
        { id: 'c', name: 'read_file', json: '{"path": "x"' },
        { id: 'd', name: 'read_file', json: '[1,2]' },
      ]),
      step('recovered'),
    ]);
    const tools = new FakeTools({
      explode: { readOnly: true, run: () => { throw new Error('disk on fire'); } },
      read_file: { readOnly: true },
    });
    const rt = new ConversationRuntime({ model, tools }, baseConfig);
    const s = await rt.runTurn('go');
    assert.equal(s.outcome, 'completed');
    const [a, b, c, d] = s.toolResults;
    assert.ok(a!.isError && /explode failed: disk on fire/.test(a!.content));
    assert.deepEqual([b!.isError, b!.content], [true, 'unknown tool: no_such_tool']);
    assert.ok(c!.isError && /^invalid tool input JSON: /.test(c!.content), c!.content);
    assert.ok(d!.isError && /must be a JSON object/.test(d!.content));
    assert.equal(tools.calls.length, 1, 'only the valid tool use ran');
    // The model's own text stays beside the `{}`, for a provider that sends arguments back as text (issue 42 item 16).
    assert.deepEqual(rt.messages[1]!.content[2], { type: 'tool_use', id: 'c', name: 'read_file', input: {}, unparsedInput: '{"path": "x"' });
  });

  it('T6: context overflow compacts and resubmits the same step', async () => {
    const model = new ScriptedModel([
      step('', [{ id: 'a', name: 'read_file', input: { path: 'x' } }]),
      step('', [{ id: 'b', name: 'read_file', input: { path: 'x' } }]),
      new ModelError('context_overflow', 'prompt is too long: 210000 tokens > 200000 maximum', { status: 400 }),
      step('finished after compaction'),
    ]);
    const rt = new ConversationRuntime({ model, tools: memoryTools({ x: 'X' }) }, { ...baseConfig, keepRecent: 2 });
    const events = recordEvents(rt);
    const s = await rt.runTurn(long('go'));
    assert.equal(s.outcome, 'completed');
    assert.equal(s.iterations, 3, 'the resubmission is the same step');
    assert.equal(s.autoCompaction?.trigger, 'context_overflow');
    assert.equal(s.autoCompaction?.summarySource, 'model');
    const resent = model.requests[3]!;
    assert.ok(resent.messages.length < model.requests[2]!.messages.length);
    assert.match(JSON.stringify(resent.messages[0]), /conversation_summary/);
    assert.equal(historyProblem(resent.messages), undefined);
    assert.ok(events.some((e) => e.type === 'compaction' && e.trigger === 'context_overflow'));
  });

  it('T6: an auth error asks the host for a key and resubmits once; a second one fails the turn', async () => {
    const model = new ScriptedModel([new ModelError('auth', 'invalid x-api-key', { status: 401 }), step('hello')]);
    let asked = 0;
    const rt = new ConversationRuntime({ model, tools: memoryTools(), onAuthError: async () => (++asked, true) }, baseConfig);
    assert.equal((await rt.runTurn('hi')).finalText, 'hello');
    assert.equal(asked, 1);

    model.push(new ModelError('auth', 'invalid', { status: 401 }), new ModelError('auth', 'still invalid', { status: 401 }));
    const failed = await rt.runTurn('again');
    assert.equal(failed.outcome, 'failed');
    assert.equal(failed.error?.kind, 'auth');
    assert.equal(asked, 2);
  });

  it('T6: other API errors end the turn with turn_failed and the conversation stays usable', async () => {
    const model = new ScriptedModel([new ModelError('invalid_request', 'bad request', { status: 400 }), step('fine now')]);
    const rt = new ConversationRuntime({ model, tools: memoryTools() }, baseConfig);
    const events = recordEvents(rt);
    const failed = await rt.runTurn('first');
    assert.equal(failed.outcome, 'failed');
    assert.ok(events.some((e) => e.type === 'turn_failed' && e.kind === 'invalid_request'));
    const ok = await rt.runTurn('second');
    assert.equal(ok.finalText, 'fine now');
    // Issue 47 item 5: the new input replaces the failed one (never merged with it); roles still alternate.
    assert.equal(historyProblem(rt.messages), undefined);
    assert.deepEqual(rt.messages[0]!.content.map((b) => (b.type === 'text' ? b.text : '')), ['second']);
  });

  it('T6: a failed turn carries the provider request id in its summary and turn_failed event', async () => {
    const model = new ScriptedModel([new ModelError('invalid_request', 'bad request', { status: 400, requestId: 'req_t6' })]);
    const rt = new ConversationRuntime({ model, tools: memoryTools() }, baseConfig);
    const events = recordEvents(rt);
    const failed = await rt.runTurn('first');
    assert.deepEqual(failed.error, { kind: 'invalid_request', message: 'bad request', requestId: 'req_t6' });
    assert.ok(events.some((e) => e.type === 'turn_failed' && e.requestId === 'req_t6'));
  });

  it('T7: steering lands after the tool results of its step', async () => {
    const toolRunning = deferred();
    const release = deferred();
    const model = new ScriptedModel([step('', [{ id: 'a', name: 'slow', input: {} }]), step('adjusted')]);
    const tools = new FakeTools({ slow: { readOnly: true, run: async () => { toolRunning.resolve(); await release.promise; return { content: 'slow done', isError: false }; } } });
    const rt = new ConversationRuntime({ model, tools }, baseConfig);
    const events = recordEvents(rt);
    const turn = rt.runTurn('start');
    await toolRunning.promise;
    assert.equal(rt.steer('use tabs, not spaces'), 'steered');
    release.resolve();
    await turn;
    assert.deepEqual(rt.messages[2], {
      role: 'user',
      content: [{ type: 'tool_result', tool_use_id: 'a', content: 'slow done' }, { type: 'text', text: 'use tabs, not spaces' }],
    });
    assert.equal(model.requests[1]!.messages.length, 3);
    assert.ok(events.some((e) => e.type === 'interjection_applied' && e.text === 'use tabs, not spaces'));
  });

  it('T7: steering during the final step re-runs the loop; steering after the turn is queued for the next', async () => {
    const gate = deferred();
    const model = new ScriptedModel([
      async function* () {
        yield { type: 'text_delta', text: 'all done' } as AssistantEvent;
        await gate.promise;
        yield* step('', [], undefined);
      },
      step('ok, also handled the late request'),
    ]);
    const rt = new ConversationRuntime({ model, tools: memoryTools() }, baseConfig);
    const turn = rt.runTurn('task');
    await new Promise((r) => setImmediate(r));
    rt.steer('one more thing');
    gate.resolve();
    const s = await turn;
    assert.equal(s.iterations, 2);
    assert.equal(s.finalText, 'ok, also handled the late request');
    assert.deepEqual(rt.messages[2], { role: 'user', content: [{ type: 'text', text: 'one more thing' }] });

    assert.equal(rt.steer('after the turn'), 'queued');
    rt.queue('and this');
    assert.deepEqual(rt.queued.map((q) => [q.text, q.delivery]), [['after the turn', 'steer'], ['and this', 'queue']]);
    model.push(step('next turn'));
    await rt.runTurn('');
    assert.deepEqual(rt.messages[4]!.content, [{ type: 'text', text: 'after the turn' }, { type: 'text', text: 'and this' }]);
    assert.deepEqual(rt.queued, []);
  });

  it('T8: interrupt during a running tool answers every unanswered tool use with aborted and notes it', async () => {
    const running = deferred();
    let sawAbort = false;
    const model = new ScriptedModel([step('', [{ id: 'a', name: 'read_file', input: { path: 'x' } }, { id: 'b', name: 'bash', input: { command: 'sleep 100' } }, { id: 'c', name: 'read_file', input: { path: 'x' } }])]);
    const tools = memoryTools({ x: 'X' });
    tools.tools.bash!.run = (_input, ctx) =>
      new Promise((_resolve, reject) => {
        running.resolve();
        ctx.signal.addEventListener('abort', () => { sawAbort = true; reject(new Error('killed')); });
      });
    const rt = new ConversationRuntime({ model, tools }, { ...baseConfig, permissionMode: 'bypassPermissions' });
    const events = recordEvents(rt);
    const controller = new AbortController();
    const turn = rt.runTurn('go', { signal: controller.signal });
    await running.promise;
    controller.abort();
    const s = await turn;
    assert.equal(s.outcome, 'aborted');
    assert.ok(sawAbort, 'the running tool saw the abort signal');
    const answered = results(rt.messages[2]);
    assert.deepEqual(answered.map((r) => [r.tool_use_id, r.content]), [['a', 'X'], ['b', 'aborted'], ['c', 'aborted']]);
    assert.deepEqual(rt.messages[2]!.content.at(-1), { type: 'text', text: TURN_ABORTED_NOTE });
    assert.equal(historyProblem(rt.messages), undefined);
    assert.ok(events.some((e) => e.type === 'turn_aborted'));
    assert.equal(tools.calls.length, 2, 'the tool after the interrupted one never ran');
  });

  it('T8: interrupt while streaming, while a permission prompt is open, and while a hook runs', async () => {
    // Streaming: the provider never yields again and ignores the signal.
    const streaming = new ScriptedModel([
      async function* () {
        yield { type: 'text_delta', text: 'thinking about it' } as AssistantEvent;
        await new Promise(() => undefined);
      },
    ]);
    let rt = new ConversationRuntime({ model: streaming, tools: memoryTools() }, baseConfig);
    let c = new AbortController();
    let turn = rt.runTurn('go', { signal: c.signal });
    await new Promise((r) => setImmediate(r));
    c.abort();
    assert.equal((await turn).outcome, 'aborted');
    assert.deepEqual(rt.messages.map((m) => m.role), ['user']);
    assert.equal(historyProblem(rt.messages), undefined);

    // Permission prompt open: the prompter never answers.
    const opened = deferred();
    const prompter = new ScriptedPrompter(() => (opened.resolve(), new Promise(() => undefined)));
    rt = new ConversationRuntime({ model: new ScriptedModel([step('', [{ id: 'e', name: 'bash', input: { command: 'make' } }])]), tools: memoryTools() }, baseConfig);
    c = new AbortController();
    turn = rt.runTurn('build', { signal: c.signal, prompter });
    await opened.promise;
    c.abort();
    assert.equal((await turn).outcome, 'aborted');
    assert.deepEqual(results(rt.messages[2]).map((r) => r.content), ['aborted']);

    // PreToolUse hook running.
    const hookStarted = deferred();
    const hooks = new ScriptedHooks({
      PreToolUse: (_p, signal) => new Promise((resolve) => { hookStarted.resolve(); signal.addEventListener('abort', () => resolve({ outcome: 'cancelled', messages: [] })); }),
    });
    rt = new ConversationRuntime({ model: new ScriptedModel([step('', [{ id: 'h', name: 'read_file', input: { path: 'x' } }])]), tools: memoryTools({ x: 'X' }), hooks }, baseConfig);
    c = new AbortController();
    turn = rt.runTurn('read', { signal: c.signal });
    await hookStarted.promise;
    c.abort();
    assert.equal((await turn).outcome, 'aborted');
    assert.deepEqual(results(rt.messages[2]).map((r) => [r.tool_use_id, r.content]), [['h', 'aborted']]);
    assert.equal(historyProblem(rt.messages), undefined);
  });

  it('T10: a Stop hook blocking twice sends the model back twice, then the turn ends', async () => {
    let stops = 0;
    const hooks = new ScriptedHooks({ Stop: () => (++stops <= 2 ? { outcome: 'denied', messages: [`run the tests (${stops})`] } : { outcome: 'ok', messages: [] }) });
    const model = new ScriptedModel([step('done?'), step('tests run'), step('really done')]);
    const rt = new ConversationRuntime({ model, tools: memoryTools(), hooks }, baseConfig);
    const s = await rt.runTurn('work');
    assert.equal(s.outcome, 'completed');
    assert.equal(s.iterations, 3);
    assert.equal(s.finalText, 'really done');
    assert.deepEqual(rt.messages[2]!.content, [{ type: 'text', text: 'Stop hook feedback:\nrun the tests (1)' }]);
    assert.deepEqual(rt.messages[4]!.content, [{ type: 'text', text: 'Stop hook feedback:\nrun the tests (2)' }]);
    assert.deepEqual(hooks.calls.filter((c) => c.event === 'Stop').map((c) => c.payload.stop_hook_active), [false, true, true]);
  });

  it('T10: a Stop hook that always blocks is capped', async () => {
    const hooks = new ScriptedHooks({ Stop: () => ({ outcome: 'denied', messages: ['never satisfied'] }) });
    const model = new ScriptedModel([step('a'), step('b'), step('c')]);
    const rt = new ConversationRuntime({ model, tools: memoryTools(), hooks }, { ...baseConfig, maxStopHookBlocks: 2 });
    const events = recordEvents(rt);
    const s = await rt.runTurn('work');
    assert.equal(s.outcome, 'completed');
    assert.equal(s.iterations, 3);
    assert.ok(events.some((e) => e.type === 'warning' && e.kind === 'stop_hook_cap'));
  });

  it('T11: read-only tools of one reply run concurrently and are recorded in call order', async () => {
    const gates = { a: deferred(), b: deferred(), c: deferred() };
    const started: string[] = [];
    const model = new ScriptedModel([
      step('', [
        { id: 'a', name: 'read_file', input: { path: 'a' } },
        { id: 'b', name: 'read_file', input: { path: 'b' } },
        { id: 'c', name: 'read_file', input: { path: 'c' } },
        { id: 'w', name: 'write_file', input: { path: 'out', content: 'x' } },
      ]),
      step('done'),
    ]);
    const tools = memoryTools();
    tools.tools.read_file!.run = async (input) => {
      const p = String(input.path) as 'a' | 'b' | 'c';
      started.push(p);
      await gates[p].promise;
      return { content: `content of ${p}`, isError: false };
    };
    const rt = new ConversationRuntime({ model, tools }, { ...baseConfig, permissionMode: 'acceptEdits' });
    const turn = rt.runTurn('read three');
    while (started.length < 3) await new Promise((r) => setImmediate(r));
    assert.deepEqual(started, ['a', 'b', 'c'], 'all three reads started before any finished');
    assert.ok(!tools.log.includes('start write_file'), 'the write waits for the reads');
    gates.c.resolve();
    gates.b.resolve();
    gates.a.resolve();
    const s = await turn;
    assert.deepEqual(results(rt.messages[2]).map((r) => r.tool_use_id), ['a', 'b', 'c', 'w']);
    assert.deepEqual(s.toolResults.map((r) => r.content), ['content of a', 'content of b', 'content of c', 'wrote out']);
    assert.deepEqual(tools.log.slice(-2), ['start write_file', 'end write_file']);
  });

  it('T12: events tell a UI the whole story of a turn, in order', async () => {
    const model = new ScriptedModel([
      [{ type: 'thinking_delta', thinking: 'plan' }, { type: 'thinking', thinking: 'plan', signature: 's' }, ...step('Reading', [{ id: 'a', name: 'bash', input: { command: 'ls' } }])],
      step('ok'),
    ]);
    const tools = memoryTools();
    tools.tools.bash!.run = (_i, ctx) => (ctx.onProgress?.('file1\n'), { content: 'file1', isError: false });
    const rt = new ConversationRuntime({ model, tools }, baseConfig);
    const events = recordEvents(rt);
    await rt.runTurn('list', { prompter: allowAll });
    const types = events.map((e) => e.type).filter((t, i, all) => t !== all[i - 1]);
    assert.deepEqual(types, [
      'turn_started', 'step_started', 'thinking_delta', 'thinking_done', 'text_delta', 'tool_use_started', 'tool_use_ready', 'usage', 'step_finished',
      'permission_requested', 'permission_decided', 'tool_progress', 'tool_finished',
      'step_started', 'text_delta', 'usage', 'step_finished', 'turn_ended',
    ]);
    // A listener that throws does not break the turn.
    rt.subscribe(() => { throw new Error('bad listener'); });
    model.push(step('still fine'));
    assert.equal((await rt.runTurn('again')).finalText, 'still fine');
  });
});
