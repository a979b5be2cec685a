// Coalesces host → webview traffic: at most one postMessage per interval.
// Peers post one message per streamed chunk (Continue) or re-send the whole
// state (Roo); both freeze long sessions. Here consecutive deltas for the same
// block are merged and everything in a window goes out as one `batch`, in order.
import { type HostEvent, type HostToWebview } from './protocol';

export interface BatcherOptions {
  /** Minimum gap between two posts, ms. */
  intervalMs?: number;
  now?: () => number;
  setTimer?: (fn: () => void, ms: number) => unknown;
  clearTimer?: (handle: unknown) => void;
}

type Mergeable = Extract<HostEvent, { type: 'assistant_delta' | 'thinking_delta' | 'tool_output' }>;

const isMergeable = (e: HostEvent): e is Mergeable => e.type === 'assistant_delta' || e.type === 'thinking_delta' || e.type === 'tool_output';

export class DeltaBatcher {
  private pending: HostEvent[] = [];
  private lastPost = -Infinity;
  private timer: unknown;
  private readonly intervalMs: number;
  private readonly now: () => number;
  private readonly setTimer: (fn: () => void, ms: number) => unknown;
  private readonly clearTimer: (handle: unknown) => void;

  constructor(
    private readonly post: (message: HostToWebview) => void,
    options: BatcherOptions = {},
  ) {
    this.intervalMs = options.intervalMs ?? 30;
    this.now = options.now ?? (() => performance.now());
    this.setTimer = options.setTimer ?? ((fn, ms) => setTimeout(fn, ms));
    this.clearTimer = options.clearTimer ?? ((h) => clearTimeout(h as ReturnType<typeof setTimeout>));
  }

  /**
   * Queues an event. The first event after a quiet interval goes out at once
   * (no added latency for a permission request or a lone delta); later ones
   * wait for the window to close.
   */
  push(event: HostEvent): void {
    if (event.type === 'restore') this.pending = []; // everything before it is superseded
    const last = this.pending[this.pending.length - 1];
    if (last && isMergeable(event) && isMergeable(last) && last.type === event.type && last.id === event.id) {
      this.pending[this.pending.length - 1] = mergeDeltas(last, event);
    } else {
      this.pending.push(event);
    }
    if (this.timer !== undefined) return;
    const wait = this.lastPost + this.intervalMs - this.now();
    if (wait <= 0) this.flush();
    else this.timer = this.setTimer(() => this.flush(), wait);
  }

  /** Posts whatever is pending now (e.g. before the turn ends, or in tests). */
  flush(): void {
    if (this.timer !== undefined) {
      this.clearTimer(this.timer);
      this.timer = undefined;
    }
    if (this.pending.length === 0) return;
    const events = this.pending;
    this.pending = [];
    this.lastPost = this.now();
    this.post(events.length === 1 ? events[0]! : { type: 'batch', events });
  }

  /** Drops pending events (the webview is gone; its `ready` will get a `restore`). */
  clear(): void {
    if (this.timer !== undefined) this.clearTimer(this.timer);
    this.timer = undefined;
    this.pending = [];
  }

  dispose(): void {
    this.clear();
  }
}

function mergeDeltas(a: Mergeable, b: Mergeable): Mergeable {
  if (a.type === 'tool_output' && b.type === 'tool_output') return { ...a, chunk: a.chunk + b.chunk };
  if (a.type !== 'tool_output' && b.type !== 'tool_output') return { ...a, text: a.text + b.text };
  return b;
}
