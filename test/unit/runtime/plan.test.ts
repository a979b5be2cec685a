// Issue 28, the plan tool: the reducer, todo_write through the real tool
// registry and turn loop, the plan saved in the session file and restored.
import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { ConversationRuntime } from '../../../src/runtime/loop/conversation';
import { EMPTY_PLAN, PlanError, planProgress, reducePlan, type Todo } from '../../../src/runtime/plan';
import { forkSession, JsonlSessionStore, loadSession } from '../../../src/runtime/session/session';
import { buildSystemPrompt } from '../../../src/runtime/context/system-prompt';
import { NodeWorkspace } from '../../../src/tools/node-adapter';
import { createToolExecutor } from '../../../src/tools/registry';
import { type ToolResultBlock } from '../../../src/runtime/types';
import { baseConfig, fixedClock, recordEvents, ScriptedModel, step } from './fakes';

const todo = (content: string, status: Todo['status']): Todo => ({ content, status, activeForm: `${content}ing` });
const three = (done: number): Todo[] => ['Read', 'Fix', 'Test'].map((c, i) => todo(c, i < done ? 'completed' : i === done ? 'in_progress' : 'pending'));

describe('28.plan: the plan reducer', () => {
  it('28.plan: a write replaces the whole list, a clear empties it', () => {
    const first = reducePlan(EMPTY_PLAN, { type: 'write', todos: three(0) });
    assert.deepEqual(first, three(0));
    const second = reducePlan(first, { type: 'write', todos: [todo('Only', 'pending')] });
    assert.deepEqual(second, [todo('Only', 'pending')]);
    assert.deepEqual(reducePlan(second, { type: 'clear' }), []);
  });

  it('28.plan: two items in_progress are refused with a kind and a message naming them, and the plan stays as it was', () => {
    const before = reducePlan(EMPTY_PLAN, { type: 'write', todos: three(1) });
    const bad = [todo('A', 'in_progress'), todo('B', 'in_progress'), todo('C', 'pending')];
    assert.throws(
      () => reducePlan(before, { type: 'write', todos: bad }),
      (e: unknown) => e instanceof PlanError && e.kind === 'several_in_progress' && /At most one todo may be in_progress.*"A", "B"/.test(e.message),
    );
    assert.deepEqual(before, three(1));
  });

  it('28.plan: blank content or activeForm is refused; a bad saved plan is not restored', () => {
    assert.throws(() => reducePlan(EMPTY_PLAN, { type: 'write', todos: [{ content: ' ', status: 'pending', activeForm: 'x' }] }), (e: unknown) => e instanceof PlanError && e.kind === 'blank_text');
    const kept = reducePlan(EMPTY_PLAN, { type: 'restore', todos: three(2) });
    assert.deepEqual(reducePlan(kept, { type: 'restore', todos: [todo('A', 'in_progress'), todo('B', 'in_progress')] }), three(2));
  });

  it('28.plan: progress counts completed items and names the active one', () => {
    assert.deepEqual(planProgress(three(1)), { completed: 1, total: 3, active: todo('Fix', 'in_progress') });
    assert.deepEqual(planProgress(three(3)), { completed: 3, total: 3, active: undefined });
    assert.deepEqual(planProgress(EMPTY_PLAN), { completed: 0, total: 0, active: undefined });
  });

  it('28.plan: the system prompt says when to plan and when not, and stays byte-identical between calls (S7)', () => {
    const ctx = { workspaceRoot: '/w', platform: 'linux', host: 'test', date: '2026-12-01' };
    const prompt = buildSystemPrompt(ctx);
    assert.match(prompt, /several steps.*todo_write/);
    assert.match(prompt, /Skip it for a question, a one-line answer/);
    assert.equal(buildSystemPrompt(ctx), prompt);
  });
});

describe('28.plan: todo_write in the turn loop and the session file', () => {
  let dir: string;
  beforeEach(() => {
    dir = mkdtempSync(path.join(os.tmpdir(), 'turnstone-plan-'));
  });
  afterEach(() => rmSync(dir, { recursive: true, force: true }));

  const tools = () => createToolExecutor({ workspace: new NodeWorkspace(dir) });
  const write = (id: string, todos: unknown) => ({ id, name: 'todo_write', input: { todos } });

  it('28.plan: three writes emit plan_updated each, run without asking in plan mode, and end in the summary; a bad write is an error result', async () => {
    const model = new ScriptedModel([
      step('Planning.', [write('p1', three(0))]),
      step('', [write('p2', [todo('A', 'in_progress'), todo('B', 'in_progress')])]),
      step('', [write('p3', three(1))]),
      step('', [write('p4', three(3))]),
      step('All done.'),
    ]);
    // plan mode is read-only and no prompter is given: anything that needed a permission would be denied.
    const rt = new ConversationRuntime({ model, tools: tools(), clock: fixedClock() }, { ...baseConfig, permissionMode: 'plan' });
    const events = recordEvents(rt);
    const summary = await rt.runTurn('fix it');
    assert.equal(summary.outcome, 'completed');
    const updates = events.filter((e) => e.type === 'plan_updated').map((e) => (e.type === 'plan_updated' ? planProgress(e.todos).completed : -1));
    assert.deepEqual(updates, [0, 1, 3]);
    assert.ok(!events.some((e) => e.type === 'permission_decided'), 'todo_write needs no permission');
    const results = rt.messages.flatMap((m) => (m.role === 'user' ? m.content.filter((b): b is ToolResultBlock => b.type === 'tool_result') : []));
    assert.equal(results.length, 4);
    assert.match(results[0]!.content, /Plan updated: 0\/3 completed\. In progress: Read\./);
    assert.equal(results[1]!.is_error, true);
    assert.match(results[1]!.content, /At most one todo may be in_progress/);
    assert.deepEqual(summary.todos, three(3));
    assert.deepEqual(rt.plan, three(3));
  });

  it('28.plan: bad input (a wrong status) is refused by the schema before anything changes', async () => {
    const model = new ScriptedModel([step('', [write('p1', [{ content: 'A', status: 'doing', activeForm: 'Aing' }])]), step('ok')]);
    const rt = new ConversationRuntime({ model, tools: tools(), clock: fixedClock() }, baseConfig);
    const events = recordEvents(rt);
    await rt.runTurn('go');
    assert.ok(!events.some((e) => e.type === 'plan_updated'));
    const result = rt.messages[2]!.content[0] as ToolResultBlock;
    assert.equal(result.is_error, true);
    assert.match(result.content, /invalid input for todo_write[\s\S]*status/);
  });

  it('28.plan: the plan is saved in the session file, restored on resume and copied by a fork; going back to a checkpoint starts without it', async () => {
    const store = await JsonlSessionStore.create(path.join(dir, 'sessions'));
    const model = new ScriptedModel([step('', [write('p1', three(0))]), step('', [write('p2', three(2))]), step('Two done.')]);
    await new ConversationRuntime({ model, tools: tools(), session: store, clock: fixedClock() }, baseConfig).runTurn('go');
    await store.flush();
    const records = readFileSync(store.path, 'utf8').trim().split('\n').map((l) => JSON.parse(l) as { type: string; name?: string });
    assert.equal(records.filter((r) => r.type === 'event' && r.name === 'plan_updated').length, 2);

    const loaded = await loadSession(store.path);
    assert.deepEqual(loaded.plan, three(2));
    const resumed = new ConversationRuntime({ model: new ScriptedModel([step('Still two.')]), tools: tools() }, baseConfig, { messages: loaded.messages, plan: loaded.plan });
    assert.deepEqual(resumed.plan, three(2));
    assert.deepEqual((await resumed.runTurn('status?')).todos, three(2));

    const whole = await forkSession(store.path, path.join(dir, 'sessions'));
    assert.deepEqual((await loadSession(whole.store.path)).plan, three(2));
    const back = await forkSession(store.path, path.join(dir, 'sessions'), 0);
    assert.deepEqual(back.session.plan, []);
    assert.deepEqual((await loadSession(back.store.path)).plan, []);
  });
});
