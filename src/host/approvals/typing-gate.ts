// Issue 25.1: a modal dialog focuses its first button, so a key the user was
// about to type (a space, Enter) would answer it. While the user types (in the
// panel's composer or in an editor) a modal waits, and opens once they pause.
// The panel says itself when typing starts and stops (it measures the pause
// where the keys arrive); editor keystrokes are timed here. No vscode import:
// the clock is injectable for the unit test.

/** How long without a keystroke counts as a pause (the panel uses the same). */
export const TYPING_QUIET_MS = 1_500;

export interface Clock {
  now(): number;
  /** Resolves after `ms`, or at once when `signal` aborts. */
  sleep(ms: number, signal: AbortSignal): Promise<void>;
}

export const realClock: Clock = {
  now: () => Date.now(),
  sleep: (ms, signal) =>
    new Promise<void>((resolve) => {
      if (signal.aborted) return resolve();
      const timer = setTimeout(done, ms);
      function done() {
        clearTimeout(timer);
        signal.removeEventListener('abort', done);
        resolve();
      }
      signal.addEventListener('abort', done, { once: true });
    }),
};

export class TypingGate {
  private lastEditorKeyAt = Number.NEGATIVE_INFINITY;
  private panelActive = false;
  private readonly panelPaused = new Set<() => void>();

  constructor(
    private readonly quietMs = TYPING_QUIET_MS,
    private readonly clock: Clock = realClock,
  ) {}

  /** The panel reports typing started (true) or paused / left (false); also false when the panel goes away. */
  panelTyping(active: boolean): void {
    this.panelActive = active;
    if (active) return;
    for (const wake of this.panelPaused) wake();
    this.panelPaused.clear();
  }

  /** A keystroke in an editor. */
  editorTyped(): void {
    this.lastEditorKeyAt = this.clock.now();
  }

  /** Whether the user is typing now (in the panel, or in an editor within the last quietMs). */
  get typing(): boolean {
    return this.panelActive || this.clock.now() - this.lastEditorKeyAt < this.quietMs;
  }

  /**
   * Resolves once the user has paused (at once if they are not typing), or when
   * `signal` aborts (the request was answered elsewhere).
   */
  async quiet(signal: AbortSignal): Promise<void> {
    while (!signal.aborted) {
      if (this.panelActive) {
        await new Promise<void>((resolve) => {
          this.panelPaused.add(resolve);
          signal.addEventListener('abort', () => resolve(), { once: true });
        });
        continue;
      }
      const left = this.lastEditorKeyAt + this.quietMs - this.clock.now();
      if (left <= 0) return;
      await this.clock.sleep(left, signal);
    }
  }
}
