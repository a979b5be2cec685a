// Issue 25.1: a modal approval (its first button focused) waits while the user
// types and opens once they pause. The panel says when typing starts and stops;
// editor keystrokes are timed with a fake clock: no test waits for real time.
import assert from 'node:assert/strict';
import { type Clock, TypingGate } from '../../../src/host/approvals/typing-gate';

class FakeClock implements Clock {
  t = 1_000;
  private sleepers: { until: number; resolve: () => void }[] = [];
  now(): number {
    return this.t;
  }
  sleep(ms: number, signal: AbortSignal): Promise<void> {
    return new Promise((resolve) => {
      this.sleepers.push({ until: this.t + ms, resolve });
      signal.addEventListener('abort', () => resolve(), { once: true });
    });
  }
  /** Moves time on and wakes whoever slept until then. */
  async advance(ms: number): Promise<void> {
    this.t += ms;
    const due = this.sleepers.filter((s) => s.until <= this.t);
    this.sleepers = this.sleepers.filter((s) => s.until > this.t);
    for (const s of due) s.resolve();
    await settle();
  }
}

const settle = async () => {
  for (let i = 0; i < 5; i++) await Promise.resolve();
};

describe('typing gate (issue 25.1)', () => {
  it('25.1: not typing: a dialog may open at once', async () => {
    const gate = new TypingGate(1_500, new FakeClock());
    assert.equal(gate.typing, false);
    await gate.quiet(new AbortController().signal);
  });

  it('25.1: while the panel says the user types, the dialog waits, however long; it opens when the panel says they paused', async () => {
    const clock = new FakeClock();
    const gate = new TypingGate(1_500, clock);
    gate.panelTyping(true);
    let opened = false;
    const waiting = gate.quiet(new AbortController().signal).then(() => (opened = true));
    // A busy machine may delay the panel's messages: time passing alone never opens the dialog.
    await clock.advance(60_000);
    assert.equal(opened, false);
    gate.panelTyping(false);
    await waiting;
    assert.equal(opened, true);
  });

  it('25.1: keystrokes in an editor hold the dialog until 1.5 s after the last one', async () => {
    const clock = new FakeClock();
    const gate = new TypingGate(1_500, clock);
    gate.editorTyped();
    let opened = false;
    const waiting = gate.quiet(new AbortController().signal).then(() => (opened = true));
    for (let i = 0; i < 10; i++) {
      await clock.advance(200);
      gate.editorTyped();
      assert.equal(opened, false, `still typing after ${(i + 1) * 200} ms`);
    }
    await clock.advance(1_499);
    assert.equal(opened, false, 'not before the pause is complete');
    await clock.advance(1);
    await waiting;
    assert.equal(opened, true);
    assert.equal(gate.typing, false);
  });

  it('25.1: a request answered elsewhere ends the wait at once', async () => {
    const gate = new TypingGate(1_500, new FakeClock());
    gate.panelTyping(true);
    const answered = new AbortController();
    const waiting = gate.quiet(answered.signal);
    answered.abort();
    await waiting;
    assert.equal(gate.typing, true, 'the user is still typing; only the wait ended');
  });
});
