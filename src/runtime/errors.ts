// Runtime errors carry a kind so hosts branch on values, never on message text
// (ARCHITECTURE: errors are values at boundaries). An interrupt is not one of
// them: it is always cancellation.ts's AbortedError.
import { type SpendCapStop } from './spend/budget';
import { type ModelErrorKind } from './types';

export type RuntimeErrorKind =
  | ModelErrorKind
  | 'max_iterations'
  | 'health_probe_failed'
  | 'prompt_blocked'
  | 'budget' // a spend cap would be passed by the next request
  | 'unpriced' // a spend cap is set and the request's model has no price: it cannot be held to it
  | 'loop' // the loop guard: one tool call met the same outcome too often
  | 'busy'
  | 'invalid_rule'
  | 'internal';

/** What the loop guard saw (loop/loop-guard.ts): the repeated call, how often, and whether it failed each time or returned the same result. */
export interface LoopStop {
  tool: string;
  /** One line naming the call (its tool and main argument). */
  call: string;
  repeats: number;
  outcome: 'error' | 'result';
}

export class RuntimeError extends Error {
  override readonly name = 'RuntimeError';
  /** Kind `budget`: which cap and the figures, so a UI can offer to continue without reading the message. */
  readonly spendCap: SpendCapStop | undefined;
  /** Kind `loop`: the call the guard stopped at, so a UI can name it and offer to go on. */
  readonly loop: LoopStop | undefined;
  constructor(
    readonly kind: RuntimeErrorKind,
    message: string,
    options?: { cause?: unknown; spendCap?: SpendCapStop; loop?: LoopStop },
  ) {
    super(message, options);
    this.spendCap = options?.spendCap;
    this.loop = options?.loop;
  }
}

export const MAX_ITERATIONS_MESSAGE = 'conversation loop exceeded the maximum number of iterations';

export function errorMessage(error: unknown): string {
  if (error instanceof Error) return error.message;
  return String(error);
}
