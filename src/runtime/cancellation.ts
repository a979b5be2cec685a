// One way to cancel (issue 27): a turn holds one TurnCancellation, made from the
// host's or CLI's signal; each request and each tool use gets a child of it.
// Stopping the turn cancels every child; a child may be cancelled alone (a tool
// use's own timeout) without touching the turn. Every interrupt, wherever it
// lands (stream, tool, prompt, hook), surfaces as the one AbortedError (T8).

/** The one error an interrupt becomes, whatever was waiting when it came. */
export class AbortedError extends Error {
  override readonly name = 'AbortedError';
  readonly kind = 'aborted' as const;
  constructor(message = 'the turn was interrupted', options?: { cause?: unknown }) {
    super(message, options);
  }
}

/**
 * True for AbortedError and for what the platform throws when a signal fires:
 * fetch's and AbortSignal's DOMException `AbortError`, child_process's and
 * stream's `AbortError` (code ABORT_ERR), and the SDKs' `APIUserAbortError`.
 */
export function isAbortedError(error: unknown): boolean {
  if (error instanceof AbortedError) return true;
  if (typeof error !== 'object' || error === null) return false;
  const { name, code } = error as { name?: unknown; code?: unknown };
  return name === 'AbortError' || name === 'APIUserAbortError' || code === 'ABORT_ERR';
}

type Parent = AbortSignal | TurnCancellation | undefined;

export class TurnCancellation {
  /** Mirrors signal.aborted without the cost of its getter on every check of the loop's hot path. */
  private done = false;
  private readonly controller = new AbortController();
  /**
   * Pending races reject through this set rather than an EventTarget listener each,
   * so an await costs no addEventListener/removeEventListener pair.
   */
  private readonly waiters = new Set<(error: AbortedError) => void>();
  private readonly children = new Set<TurnCancellation>();
  private detach: (() => void) | undefined;

  /** Cancelled when `parent` is (an AbortSignal, or a TurnCancellation: prefer its child()). */
  constructor(parent?: Parent) {
    if (parent instanceof TurnCancellation) {
      if (parent.cancelled) this.done = true;
      else {
        parent.children.add(this);
        this.detach = () => parent.children.delete(this);
      }
    } else if (parent) {
      if (parent.aborted) this.done = true;
      else {
        const onAbort = () => this.cancel();
        parent.addEventListener('abort', onAbort, { once: true });
        this.detach = () => parent.removeEventListener('abort', onAbort);
      }
    }
    if (this.done) this.controller.abort(new AbortedError());
  }

  get cancelled(): boolean {
    return this.done;
  }

  /** For the ports (model, tools, hooks, prompter), which take the platform's signal. */
  get signal(): AbortSignal {
    return this.controller.signal;
  }

  /** How many races are waiting: 0 once every raced promise has settled (no leak). */
  get racing(): number {
    return this.waiters.size;
  }

  /** One per request and per tool use: cancelled with this one, or alone. */
  child(): TurnCancellation {
    return new TurnCancellation(this);
  }

  cancel(): void {
    if (this.done) return;
    this.done = true;
    this.detach?.();
    this.detach = undefined;
    const error = new AbortedError();
    for (const reject of this.waiters) reject(error);
    this.waiters.clear();
    for (const child of this.children) child.cancel();
    this.children.clear();
    this.controller.abort(error);
  }

  throwIfCancelled(): void {
    if (this.cancelled) throw new AbortedError();
  }

  /**
   * Resolves with `promise`, or rejects with AbortedError as soon as this is
   * cancelled, so a port that ignores its signal can never hold an interrupt hostage.
   */
  race<T>(promise: Promise<T>): Promise<T> {
    if (this.cancelled) {
      promise.catch(() => undefined);
      return Promise.reject(new AbortedError());
    }
    return new Promise<T>((resolve, reject) => {
      const waiters = this.waiters;
      const onCancel = (error: AbortedError) => {
        promise.catch(() => undefined);
        reject(error);
      };
      waiters.add(onCancel);
      promise.then(
        (value) => {
          waiters.delete(onCancel);
          resolve(value);
        },
        (error: unknown) => {
          waiters.delete(onCancel);
          reject(error);
        },
      );
    });
  }

  /** Lets go of the parent (and the children still attached); pending races stay pending. */
  dispose(): void {
    this.detach?.();
    this.detach = undefined;
    for (const child of this.children) child.dispose();
    this.children.clear();
    this.waiters.clear();
  }
}
