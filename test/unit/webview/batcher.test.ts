import assert from 'node:assert/strict';
import { DeltaBatcher } from '../../../src/webview/batcher';
import { type HostToWebview } from '../../../src/webview/protocol';

/** A hand-driven clock: time only moves when the test says so. */
function fakeClock() {
  let now = 0;
  const timers: { at: number; fn: () => void; id: number }[] = [];
  let nextId = 1;
  return {
    now: () => now,
    setTimer: (fn: () => void, ms: number) => {
      const t = { at: now + ms, fn, id: nextId++ };
      timers.push(t);
      return t.id;
    },
    clearTimer: (id: unknown) => {
      const i = timers.findIndex((t) => t.id === id);
      if (i >= 0) timers.splice(i, 1);
    },
    advance(ms: number) {
      now += ms;
      for (;;) {
        const due = timers.filter((t) => t.at <= now).sort((a, b) => a.at - b.at)[0];
        if (!due) break;
        timers.splice(timers.indexOf(due), 1);
        due.fn();
      }
    },
    pending: () => timers.length,
  };
}

describe('DeltaBatcher', function () {
  function setup(intervalMs = 30) {
    const clock = fakeClock();
    const posts: { at: number; message: HostToWebview }[] = [];
    const b = new DeltaBatcher((message) => posts.push({ at: clock.now(), message }), { intervalMs, ...clock });
    return { clock, posts, b };
  }

  it('posts the first event at once, then at most one message per interval', function () {
    const { clock, posts, b } = setup();
    b.push({ type: 'assistant_delta', id: 'a', text: 'H' });
    assert.equal(posts.length, 1);
    for (let i = 0; i < 100; i++) {
      b.push({ type: 'assistant_delta', id: 'a', text: 'x' });
      clock.advance(1);
    }
    clock.advance(100);
    for (let i = 1; i < posts.length; i++) assert.ok(posts[i]!.at - posts[i - 1]!.at >= 30, `gap ${posts[i]!.at - posts[i - 1]!.at}`);
    assert.ok(posts.length <= 1 + Math.ceil(100 / 30) + 1);
    const text = posts.map((p) => (p.message.type === 'assistant_delta' ? p.message.text : '')).join('');
    assert.equal(text, 'H' + 'x'.repeat(100));
  });

  it('merges consecutive deltas of the same block and keeps the order of everything else', function () {
    const { clock, posts, b } = setup();
    b.push({ type: 'turn', state: 'running' }); // posted at once
    b.push({ type: 'thinking_delta', id: 't', text: 'a' });
    b.push({ type: 'thinking_delta', id: 't', text: 'b' });
    b.push({ type: 'block_end', id: 't' });
    b.push({ type: 'assistant_delta', id: 'x', text: '1' });
    b.push({ type: 'assistant_delta', id: 'x', text: '2' });
    b.push({ type: 'tool_output', id: 'tool', chunk: 'o1' });
    b.push({ type: 'tool_output', id: 'tool', chunk: 'o2' });
    b.push({ type: 'assistant_delta', id: 'y', text: '3' });
    b.push({ type: 'assistant_delta', id: 'x', text: '4' });
    assert.equal(posts.length, 1);
    clock.advance(30);
    assert.equal(posts.length, 2);
    assert.deepEqual(posts[1]!.message, {
      type: 'batch',
      events: [
        { type: 'thinking_delta', id: 't', text: 'ab' },
        { type: 'block_end', id: 't' },
        { type: 'assistant_delta', id: 'x', text: '12' },
        { type: 'tool_output', id: 'tool', chunk: 'o1o2' },
        { type: 'assistant_delta', id: 'y', text: '3' },
        { type: 'assistant_delta', id: 'x', text: '4' },
      ],
    });
  });

  it('does not mutate the events it was given', function () {
    const { clock, b } = setup();
    b.push({ type: 'turn', state: 'running' });
    const first = { type: 'assistant_delta' as const, id: 'a', text: 'a' };
    b.push(first);
    b.push({ type: 'assistant_delta', id: 'a', text: 'b' });
    clock.advance(30);
    assert.equal(first.text, 'a');
  });

  it('flush() posts now; clear() drops; a restore supersedes what is pending', function () {
    const { clock, posts, b } = setup();
    b.push({ type: 'turn', state: 'running' });
    b.push({ type: 'assistant_delta', id: 'a', text: 'x' });
    b.flush();
    assert.equal(posts.length, 2);
    assert.equal(clock.pending(), 0);
    clock.advance(5);
    b.push({ type: 'assistant_delta', id: 'a', text: 'lost' });
    b.clear();
    clock.advance(100);
    assert.equal(posts.length, 2);
    b.push({ type: 'assistant_delta', id: 'a', text: 'y' }); // quiet for > interval: immediate
    assert.equal(posts.length, 3);
    b.push({ type: 'assistant_delta', id: 'a', text: 'superseded' });
    b.push({ type: 'restore', snapshot: { items: [], turn: 'idle', notices: [], queued: [] } });
    clock.advance(30);
    assert.equal(posts.length, 4);
    assert.equal(posts[3]!.message.type, 'restore');
    b.dispose();
  });
});
