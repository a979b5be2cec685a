// Runtime errors carry a kind so hosts branch on values, never on message text
// (ARCHITECTURE: errors are values at boundaries). Abort helpers live here too
// because every await in the loop must give way to an interrupt (T8).
import { type ModelErrorKind } from './types';

export type RuntimeErrorKind =
  | ModelErrorKind
  | 'max_iterations'
  | 'health_probe_failed'
  | 'prompt_blocked'
  | 'busy'
  | 'invalid_rule'
  | 'internal';

export class RuntimeError extends Error {
  override readonly name = 'RuntimeError';
  constructor(
    readonly kind: RuntimeErrorKind,
    message: string,
    options?: { cause?: unknown },
  ) {
    super(message, options);
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

export function errorMessage(error: unknown): string {
  if (error instanceof Error) return error.message;
  return String(error);
}
