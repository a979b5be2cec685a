// Runtime errors carry a kind so hosts branch on values, never on message text
// (ARCHITECTURE: errors are values at boundaries). Abort helpers live here too
// because every await in the loop must give way to an interrupt (T8).
import { type SpendCapStop } from './budget';
import { type ModelErrorKind } from './types';

export type RuntimeErrorKind =
  | ModelErrorKind
  | 'max_iterations'
  | 'health_probe_failed'
  | 'prompt_blocked'
  | 'budget' // a spend cap would be passed by the next request
  | 'busy'
  | 'invalid_rule'
  | 'internal';

export class RuntimeError extends Error {
  override readonly name = 'RuntimeError';
  /** Kind `budget`: which cap and the figures, so a UI can offer to continue without reading the message. */
  readonly spendCap: SpendCapStop | undefined;
  constructor(
    readonly kind: RuntimeErrorKind,
    message: string,
    options?: { cause?: unknown; spendCap?: SpendCapStop },
  ) {
    super(message, options);
    this.spendCap = options?.spendCap;
  }
}

export const MAX_ITERATIONS_MESSAGE = 'conversation loop exceeded the maximum number of iterations';

export function abortedError(): RuntimeError {
  return new RuntimeError('aborted', 'the turn was interrupted');
}

export function isAborted(error: unknown): boolean {
  if (error instanceof RuntimeError || (error instanceof Error && 'kind' in error)) {
    return (error as { kind: unknown }).kind === 'aborted';
  }
  return error instanceof Error && error.name === 'AbortError';
}

/**
 * Resolves with `promise`, or rejects with an aborted error as soon as `signal`
 * fires, so a port that ignores its signal can never hold an interrupt hostage.
 */
export function abortable<T>(promise: Promise<T>, signal: AbortSignal): Promise<T> {
  if (signal.aborted) {
    promise.catch(() => undefined);
    return Promise.reject(abortedError());
  }
  return new Promise<T>((resolve, reject) => {
    const onAbort = () => {
      promise.catch(() => undefined);
      reject(abortedError());
    };
    signal.addEventListener('abort', onAbort, { once: true });
    promise.then(
      (value) => {
        signal.removeEventListener('abort', onAbort);
        resolve(value);
      },
      (error: unknown) => {
        signal.removeEventListener('abort', onAbort);
        reject(error);
      },
    );
  });
}

/**
 * One abort listener for a whole turn. `race` makes any promise give way to
 * the interrupt without adding and removing an EventTarget listener per await,
 * which matters on the loop's hot path.
 */
export class AbortScope {
  /** Mirrors signal.aborted without the cost of the getter on every check. */
  aborted: boolean;
  private readonly waiters = new Set<(error: unknown) => void>();
  private readonly onAbort = () => {
    this.aborted = true;
    const error = abortedError();
    for (const reject of this.waiters) reject(error);
    this.waiters.clear();
  };

  constructor(readonly signal: AbortSignal) {
    this.aborted = signal.aborted;
    signal.addEventListener('abort', this.onAbort, { once: true });
  }

  race<T>(promise: Promise<T>): Promise<T> {
    if (this.aborted) {
      promise.catch(() => undefined);
      return Promise.reject(abortedError());
    }
    return new Promise<T>((resolve, reject) => {
      const waiters = this.waiters;
      waiters.add(reject);
      promise.then(
        (value) => {
          waiters.delete(reject);
          resolve(value);
        },
        (error: unknown) => {
          waiters.delete(reject);
          reject(error);
        },
      );
    });
  }

  dispose(): void {
    this.signal.removeEventListener('abort', this.onAbort);
    this.waiters.clear();
  }
}

export function errorMessage(error: unknown): string {
  if (error instanceof Error) return error.message;
  return String(error);
}
