// Issue 28, background commands in the panel: the bash card that started one
// follows it (its id, its last lines, how it ended), at most one update per
// interval however much it prints, and only such a card's command can be stopped.
import assert from 'node:assert/strict';
import { BACKGROUND_TAIL_CHARS, BACKGROUND_TAIL_LINES, BackgroundFeed, lastLines } from '../../../src/host/panel/background-feed';
import { PanelBridge } from '../../../src/host/panel/panel-bridge';
import { type HostEvent, HostEvent as HostEventSchema, WebviewToHost } from '../../../src/webview/protocol';
import { emptySnapshot, Transcript } from '../../../src/webview/transcript';

type Update = Extract<HostEvent, { type: 'tool_update' }>;
const updates = (out: HostEvent[], id: string) => out.filter((e): e is Update => e.type === 'tool_update' && e.id === id);
const bashView = { kind: 'bash' as const, command: 'node server.js', description: 'dev server' };

/** A clock the test moves: timers run only when it says so. */
function manualTimers() {
  let now = 0;
  const due: { at: number; fn: () => void; handle: ReturnType<typeof setTimeout> }[] = [];
  return {
    setTimer: (fn: () => void, ms: number) => {
      const handle = { id: due.length } as unknown as ReturnType<typeof setTimeout>;
      due.push({ at: now + ms, fn, handle });
      return handle;
    },
    clearTimer: (handle: ReturnType<typeof setTimeout>) => {
      const i = due.findIndex((d) => d.handle === handle);
      if (i >= 0) due.splice(i, 1);
    },
    advance(ms: number) {
      now += ms;
      for (const d of due.filter((x) => x.at <= now)) {
        due.splice(due.indexOf(d), 1);
        d.fn();
      }
    },
    get pending() {
      return due.length;
    },
  };
}

describe('28.bg card: a background command in the panel (bridge mapping, pacing, protocol)', () => {
  it('28.bg card: the bash tool use that started bash_1 becomes its card: id, running, what it printed before the result, then how it ended', () => {
    const out: HostEvent[] = [];
    const bridge = new PanelBridge((e) => out.push(e));
    bridge.handle({ type: 'turn_started', turnId: 't1', input: 'x' });
    bridge.handle({ type: 'tool_use_ready', id: 'b1', name: 'bash', input: { command: 'node server.js', description: 'dev server', run_in_background: true } });
    // Output can come before the tool use's result: the card starts with it.
    bridge.backgroundEvent({ type: 'output', id: 'bash_1', chunk: 'listening on 3000\n' });
    assert.equal(bridge.followsBackground('bash_1'), false, 'no card follows it yet');
    bridge.handle({ type: 'tool_finished', id: 'b1', name: 'bash', isError: false, content: 'Started in the background as bash_1.', background: { id: 'bash_1' } });
    const started = updates(out, 'b1').at(-1)!;
    assert.equal(started.status, 'done');
    assert.deepEqual(started.view, { ...bashView, output: 'listening on 3000\n', background: { id: 'bash_1', state: 'running' } });
    assert.equal(bridge.followsBackground('bash_1'), true);
    assert.equal(bridge.followsBackground('bash_2'), false);

    bridge.backgroundEvent({ type: 'ended', id: 'bash_1', status: 'killed', exitCode: null });
    const ended = updates(out, 'b1').at(-1)!;
    assert.deepEqual(ended.view, { ...bashView, output: 'listening on 3000\n', background: { id: 'bash_1', state: 'killed', exitCode: null } });
    for (const e of out) assert.ok(HostEventSchema.safeParse(e).success, `valid: ${JSON.stringify(e).slice(0, 200)}`);

    // A new or resumed transcript: its cards are gone, and nothing follows bash_1 any more.
    bridge.restore(emptySnapshot());
    assert.equal(bridge.followsBackground('bash_1'), false);
  });

  it('28.bg card: a foreground bash, and a background start that failed, are plain bash cards', () => {
    const out: HostEvent[] = [];
    const bridge = new PanelBridge((e) => out.push(e));
    bridge.handle({ type: 'tool_use_ready', id: 'b2', name: 'bash', input: { command: 'ls' } });
    bridge.handle({ type: 'tool_finished', id: 'b2', name: 'bash', isError: false, content: 'a', exit: { code: 0 } });
    bridge.handle({ type: 'tool_use_ready', id: 'b3', name: 'bash', input: { command: 'x', run_in_background: true } });
    bridge.handle({ type: 'tool_finished', id: 'b3', name: 'bash', isError: true, content: 'bash failed: 4 background commands are running' });
    for (const id of ['b2', 'b3']) {
      const view = updates(out, id).at(-1)!.view;
      assert.ok(view?.kind === 'bash' && view.background === undefined, id);
    }
  });

  it('28.bg card: a chatty command updates its card at most once per interval, with only its last 40 lines', () => {
    const out: HostEvent[] = [];
    const timers = manualTimers();
    const feed = new BackgroundFeed((e) => out.push(e), { intervalMs: 250, setTimer: timers.setTimer, clearTimer: timers.clearTimer });
    feed.started('b1', bashView, 'bash_1');
    for (let i = 1; i <= 5_000; i++) feed.handle({ type: 'output', id: 'bash_1', chunk: `line ${i}\n` });
    assert.equal(out.length, 0, 'nothing before the interval ends');
    assert.equal(timers.pending, 1, 'one timer, however many chunks');
    timers.advance(249);
    assert.equal(out.length, 0);
    timers.advance(1);
    assert.equal(out.length, 1, 'one update for 5000 lines');
    const view = (out[0] as Update).view;
    assert.ok(view?.kind === 'bash');
    const lines = view.output!.replace(/\n$/, '').split('\n');
    assert.equal(lines.length, BACKGROUND_TAIL_LINES);
    assert.equal(lines[0], `line ${5_000 - BACKGROUND_TAIL_LINES + 1}`);
    assert.equal(lines.at(-1), 'line 5000');
    // Quiet: no timer, no update.
    timers.advance(10_000);
    assert.equal(out.length, 1);
    // The end goes out at once, without waiting for the interval.
    feed.handle({ type: 'output', id: 'bash_1', chunk: 'bye\n' });
    feed.handle({ type: 'ended', id: 'bash_1', status: 'exited', exitCode: 3 });
    assert.equal(out.length, 2);
    assert.equal(timers.pending, 0, 'the pending update was folded into the last one');
    const last = (out[1] as Update).view;
    assert.ok(last?.kind === 'bash' && last.output!.endsWith('line 5000\nbye\n'));
    assert.deepEqual(last.background, { id: 'bash_1', state: 'exited', exitCode: 3 });
  });

  it('28.bg card: the tail is bounded in characters too, and terminal escapes are dropped', () => {
    assert.equal(lastLines('x'.repeat(100_000)).length, BACKGROUND_TAIL_CHARS);
    assert.equal(lastLines('a\nb\nc'), 'a\nb\nc');
    const out: HostEvent[] = [];
    const feed = new BackgroundFeed((e) => out.push(e));
    feed.started('b1', bashView, 'bash_1');
    feed.handle({ type: 'output', id: 'bash_1', chunk: '\u001b[32mready\u001b[0m\n' });
    feed.handle({ type: 'ended', id: 'bash_1', status: 'exited', exitCode: 0 });
    const view = (out.at(-1) as Update).view;
    assert.ok(view?.kind === 'bash' && view.output === 'ready\n');
  });

  it('28.bg card: the host mirror keeps the card for a reloaded panel; Stop is a validated message naming a bash_N id', () => {
    const mirror = new Transcript();
    mirror.apply({ type: 'item_add', item: { kind: 'tool', id: 'b1', name: 'bash', status: 'running', view: bashView } });
    mirror.apply({ type: 'tool_update', id: 'b1', status: 'done', view: { ...bashView, output: 'a\n', background: { id: 'bash_1', state: 'running' } } });
    const restored = new Transcript();
    restored.apply({ type: 'restore', snapshot: mirror.snapshot });
    const card = restored.get('b1');
    assert.ok(card?.kind === 'tool' && card.view.kind === 'bash');
    assert.deepEqual(card.view.background, { id: 'bash_1', state: 'running' });
    assert.equal(card.view.output, 'a\n');

    assert.equal(WebviewToHost.safeParse({ type: 'stop_background', id: 'bash_12' }).success, true);
    for (const id of ['bash_0', 'bash_', '../bash_1', 'bash_1; rm -rf /', 'b1', 'x'.repeat(300)]) {
      assert.equal(WebviewToHost.safeParse({ type: 'stop_background', id }).success, false, id);
    }
  });
});
