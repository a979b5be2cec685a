// Issue 28, the plan in the panel: the host turns plan_updated into one `plan`
// message, the shared transcript state keeps it (and a restore replaces it),
// the protocol checks it, and a todo_write card says where the plan stood.
import assert from 'node:assert/strict';
import { PanelBridge } from '../../../src/host/panel/panel-bridge';
import { HostEvent, type PlanTodo } from '../../../src/webview/protocol';
import { toolViewFromInput } from '../../../src/webview/tool-view';
import { emptySnapshot, Transcript } from '../../../src/webview/transcript';

const todos: PlanTodo[] = [
  { content: 'Read', status: 'completed', activeForm: 'Reading' },
  { content: 'Fix', status: 'in_progress', activeForm: 'Fixing' },
  { content: 'Test', status: 'pending', activeForm: 'Testing' },
];

describe('28.plan: the plan in the panel (host bridge, protocol, shared state)', () => {
  it('28.plan: plan_updated becomes one validated `plan` message carrying the whole list', () => {
    const out: HostEvent[] = [];
    new PanelBridge((e) => out.push(e)).handle({ type: 'plan_updated', todos });
    assert.deepEqual(out, [{ type: 'plan', todos }]);
    assert.equal(HostEvent.safeParse(out[0]).success, true);
    assert.equal(HostEvent.safeParse({ type: 'plan', todos: [{ ...todos[0], status: 'doing' }] }).success, false, 'an unknown status is dropped');
  });

  it('28.plan: the transcript state keeps the plan for a re-shown panel, and a restore (new or resumed session) replaces it', () => {
    const t = new Transcript();
    assert.deepEqual(t.apply({ type: 'plan', todos }), [{ type: 'chrome', part: 'plan' }]);
    assert.deepEqual(t.snapshot.plan, todos);
    t.apply({ type: 'restore', snapshot: emptySnapshot() });
    assert.equal(t.snapshot.plan, undefined, 'a new session has no plan');
    t.apply({ type: 'restore', snapshot: { ...emptySnapshot(), plan: todos } });
    assert.deepEqual(t.snapshot.plan, todos, 'a resumed session brings its plan');
  });

  it('28.plan: a todo_write card summarises progress and the active item', () => {
    assert.deepEqual(toolViewFromInput('todo_write', { todos }), { kind: 'other', summary: '1/3 · Fix' });
    assert.deepEqual(toolViewFromInput('todo_write', { todos: 'nonsense' }), { kind: 'other', summary: '0/0' });
  });
});
