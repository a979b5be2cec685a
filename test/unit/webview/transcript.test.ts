import assert from 'node:assert/strict';
import { OUTPUT_TAIL_CHARS, Transcript, restoreEvents } from '../../../src/webview/transcript';
import { type HostEvent } from '../../../src/webview/protocol';

describe('Transcript (panel state shared by host mirror and webview)', function () {
  it('opens blocks on first delta, appends, closes, and records thinking duration', function () {
    const t = new Transcript();
    t.apply({ type: 'thinking_delta', id: 'th', text: 'a', stepId: 's' });
    t.apply({ type: 'thinking_delta', id: 'th', text: 'b' });
    t.apply({ type: 'block_end', id: 'th', durationMs: 4000 });
    t.apply({ type: 'assistant_delta', id: 'a', text: 'Hel' });
    const changes = t.apply({ type: 'assistant_delta', id: 'a', text: 'lo' });
    assert.deepEqual(changes.map((c) => c.type), ['updated']);
    assert.deepEqual(t.items, [
      { kind: 'thinking', id: 'th', text: 'ab', open: false, stepId: 's', durationMs: 4000 },
      { kind: 'assistant', id: 'a', text: 'Hello', open: true },
    ]);
    t.apply({ type: 'turn', state: 'idle' });
    const a = t.get('a');
    assert.equal(a?.kind === 'assistant' && a.open, false, 'turn end closes open blocks');
  });

  it('drops a discarded step and ignores events for unknown ids', function () {
    const t = new Transcript();
    t.apply({ type: 'item_add', item: { kind: 'user', id: 'u', text: 'q' } });
    t.apply({ type: 'assistant_delta', id: 'a', text: 'partial', stepId: 's1' });
    t.apply({ type: 'item_add', item: { kind: 'tool', id: 't', stepId: 's1', name: 'bash', status: 'running', view: { kind: 'bash', command: 'ls' } } });
    assert.deepEqual(t.apply({ type: 'step_discarded', stepId: 's1' }), [{ type: 'removed', ids: ['a', 't'] }]);
    assert.deepEqual(t.items.map((i) => i.id), ['u']);
    assert.deepEqual(t.apply({ type: 'tool_output', id: 't', chunk: 'x' }), []);
    assert.deepEqual(t.apply({ type: 'permission_settled', requestId: 'nope', settlement: { decision: 'allow' } }), []);
  });

  it('keeps only a tail of bash output', function () {
    const t = new Transcript();
    t.apply({ type: 'item_add', item: { kind: 'tool', id: 't', name: 'bash', status: 'running', view: { kind: 'bash', command: 'yes' } } });
    for (let i = 0; i < 50; i++) t.apply({ type: 'tool_output', id: 't', chunk: 'y\n'.repeat(1000) });
    const item = t.get('t');
    assert.ok(item?.kind === 'tool' && item.view.kind === 'bash' && item.view.output?.length === OUTPUT_TAIL_CHARS);
  });

  it('keeps the streamed bash output when the final update brings only the exit code (issue 19, finding 2)', function () {
    const t = new Transcript();
    t.apply({ type: 'item_add', item: { kind: 'tool', id: 't', name: 'bash', status: 'running', view: { kind: 'bash', command: 'ls' } } });
    t.apply({ type: 'tool_output', id: 't', chunk: 'a.ts\nb.ts\n' });
    t.apply({ type: 'tool_update', id: 't', status: 'done', view: { kind: 'bash', command: 'ls', exitCode: 0 } });
    const item = t.get('t');
    assert.ok(item?.kind === 'tool' && item.view.kind === 'bash');
    assert.equal(item.view.output, 'a.ts\nb.ts\n');
    assert.equal(item.view.exitCode, 0);
  });

  it('copies what it stores, so a caller still holding an event never sees it change', function () {
    const t = new Transcript();
    const add: HostEvent = { type: 'item_add', item: { kind: 'assistant', id: 'a', text: 'x', open: true } };
    t.apply(add);
    t.apply({ type: 'assistant_delta', id: 'a', text: 'y' });
    assert.equal(add.item.kind === 'assistant' && add.item.text, 'x');
  });

  it('reconnecting shows until new content arrives', function () {
    const t = new Transcript();
    t.apply({ type: 'reconnecting', attempt: 2, maxAttempts: 5 });
    assert.deepEqual(t.reconnecting, { attempt: 2, maxAttempts: 5 });
    t.apply({ type: 'assistant_delta', id: 'a', text: 'x' });
    assert.equal(t.reconnecting, undefined);
  });

  it('restore replaces everything; settlement and chrome parts are kept', function () {
    const t = new Transcript();
    t.apply({ type: 'item_add', item: { kind: 'user', id: 'old', text: 'x' } });
    t.apply({ type: 'restore', snapshot: { items: [{ kind: 'permission', id: 'p', toolName: 'bash', title: 'Run?', subject: 'ls' }], turn: 'running', notices: [], queued: [] } });
    t.apply({ type: 'permission_settled', requestId: 'p', settlement: { decision: 'deny', by: 'dialog' } });
    t.apply({ type: 'usage', usage: { inputTokens: 1, outputTokens: 1, cacheReadTokens: 0, cacheWriteTokens: 0 } });
    assert.equal(t.get('old'), undefined);
    assert.deepEqual(t.snapshot.items[0], { kind: 'permission', id: 'p', toolName: 'bash', title: 'Run?', subject: 'ls', settled: { decision: 'deny', by: 'dialog' } });
    assert.equal(t.snapshot.turn, 'running');
    assert.equal(t.snapshot.usage?.outputTokens, 1);
  });

  it('restoreEvents sends the newest items first and the rest as prepends that rebuild the same snapshot', function () {
    const items = Array.from({ length: 2_345 }, (_, i) => ({ kind: 'user' as const, id: `u${i}`, text: String(i) }));
    const snapshot = { items, turn: 'idle' as const, notices: [], queued: [], session: { id: 's', title: 't', model: 'm' } };
    const events = restoreEvents(snapshot);
    assert.equal(events[0]!.type, 'restore');
    assert.equal(events[0]!.type === 'restore' && events[0]!.snapshot.items.length, 200);
    assert.ok(events.slice(1).every((e) => e.type === 'prepend'));
    const t = new Transcript();
    const changes = events.flatMap((e) => t.apply(e));
    assert.deepEqual(t.snapshot, snapshot);
    assert.deepEqual(changes.filter((c) => c.type === 'prepended').reduce((n, c) => n + (c.type === 'prepended' ? c.count : 0), 0), 2_145);
    assert.equal(restoreEvents({ ...snapshot, items: items.slice(0, 5) }).length, 1);
  });
});
