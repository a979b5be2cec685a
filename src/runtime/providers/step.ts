// One model step as both providers run it (seed 001, consume_stream + its caller):
// open the stream, normalise raw events (S1/S2), arm the post-tool stall timer (S4),
// finish a stream that ended early or fall back to one non-streaming request (S5),
// and retry failed attempts with backoff, telling the consumer to discard a partial
// step (S6). Provider specifics live behind StepSource.
import { type AssistantEvent, ModelError } from '../types';
import { cutHead } from '../text-cut';
import { AbortedError, TurnCancellation } from '../cancellation';
import { backoffDelay, classifyError, REQUEST_ABORTED, type ResolvedRetry, sleep } from './retry';

export interface StepNormaliser<Raw> {
  /** Appends the events for one raw event to `out`; true once the message is complete. */
  push(raw: Raw, out: AssistantEvent[]): boolean;
  /**
   * The stream ended without completing the message. Appends the closing events and
   * returns 'done' when there is something worth keeping, 'empty' when nothing useful
   * arrived (then the step falls back to a non-streaming request). Throws a retryable
   * ModelError when the stream broke off inside a block: that content is truncated.
   */
  end(out: AssistantEvent[]): 'done' | 'empty';
}

export interface OpenedStream<Raw> {
  /** Raw events in batches (one network chunk each), so a chunk costs one await rather than one per event. */
  batches: AsyncIterable<readonly Raw[]>;
  requestId?: string | undefined;
}

export interface StepSource<Raw> {
  readonly provider: string;
  open(signal: AbortSignal): Promise<OpenedStream<Raw>>;
  normaliser(): StepNormaliser<Raw>;
  /** S5: the same request without streaming, as complete events ending in message_stop. */
  fallback(signal: AbortSignal): Promise<AssistantEvent[]>;
}

export interface StepTiming {
  /** S4: first-event deadline on a request that follows tool results. */
  stallTimeoutMs: number;
  /** Longest silence tolerated mid-stream before the attempt counts as a lost connection. */
  idleTimeoutMs: number;
  retry: ResolvedRetry;
}

type FireReason = 'caller' | 'stall' | 'idle';

/**
 * Cancels an attempt when the caller does, when the first event is late (stall),
 * or when the stream goes silent (idle): a child of the caller's signal that its
 * own timers may cancel alone. Per-event cost is one clock read, since the
 * watchdog re-arms lazily instead of resetting a timer on every event.
 */
class Watchdog {
  private readonly attempt: TurnCancellation;
  private timedOut: 'stall' | 'idle' | undefined;
  private timer: ReturnType<typeof setTimeout> | undefined;
  private last = Date.now();
  private sawEvent = false;

  constructor(
    caller: AbortSignal,
    private readonly stallMs: number | undefined,
    private readonly idleMs: number,
  ) {
    this.attempt = new TurnCancellation(caller);
    if (this.attempt.cancelled) return;
    if (stallMs !== undefined) this.timer = setTimeout(() => this.fire('stall'), stallMs);
    else this.armIdle(idleMs);
  }

  get signal(): AbortSignal {
    return this.attempt.signal;
  }

  /** Why the attempt was cancelled; undefined while it may go on. */
  get reason(): FireReason | undefined {
    return this.timedOut ?? (this.attempt.cancelled ? 'caller' : undefined);
  }

  tick(): void {
    this.last = Date.now();
    if (!this.sawEvent) {
      this.sawEvent = true;
      if (this.stallMs !== undefined) {
        clearTimeout(this.timer);
        this.armIdle(this.idleMs);
      }
    }
  }

  /** The non-streaming fallback may legitimately take minutes: only the caller may abort it. */
  disarm(): void {
    clearTimeout(this.timer);
    this.timer = undefined;
  }

  dispose(): void {
    this.disarm();
    this.attempt.dispose();
  }

  error(): ModelError | AbortedError {
    switch (this.timedOut) {
      case 'stall':
        return new ModelError('stalled', `No response within ${this.stallMs} ms after tool results.`);
      case 'idle':
        return new ModelError('retryable', `The stream went silent for ${this.idleMs} ms.`);
      default:
        return new AbortedError(REQUEST_ABORTED);
    }
  }

  private armIdle(ms: number): void {
    this.timer = setTimeout(() => {
      const silent = Date.now() - this.last;
      if (silent >= this.idleMs) this.fire('idle');
      else this.armIdle(this.idleMs - silent);
    }, ms);
  }

  private fire(reason: 'stall' | 'idle'): void {
    if (this.reason) return;
    this.timedOut = reason;
    clearTimeout(this.timer);
    this.attempt.cancel();
  }
}

/**
 * One line for the "Reconnecting…" notice: status, kind, request id and the
 * message's first line, shortened. A proxy's whole error body (a traceback)
 * belongs in the log (the event's `detail`), not on the user's screen.
 */
export function retryNotice(failure: ModelError): string {
  const first = failure.message.split(/\r?\n/, 1)[0]!.trim();
  const short = first.length > 120 ? `${cutHead(first, 119)}…` : first;
  const status = failure.details.status !== undefined ? `HTTP ${failure.details.status}, ` : '';
  const id = failure.details.requestId ? `, request ${failure.details.requestId}` : '';
  return `${short} (${status}${failure.kind}${id})`;
}

function withRequestId(err: ModelError, requestId: string | undefined): ModelError {
  if (!requestId || err.details.requestId) return err;
  return new ModelError(err.kind, err.message, { ...err.details, requestId });
}

export async function* runStep<Raw>(
  source: StepSource<Raw>,
  afterToolResults: boolean,
  signal: AbortSignal,
  timing: StepTiming,
): AsyncGenerator<AssistantEvent, void, undefined> {
  const policy = timing.retry;
  let retries = 0;
  let stallResent = false;
  // Whether the consumer has seen content of the current attempt (then a retry must reset it).
  let emitted = false;
  for (;;) {
    if (signal.aborted) throw new AbortedError(REQUEST_ABORTED);
    const dog = new Watchdog(signal, afterToolResults ? timing.stallTimeoutMs : undefined, timing.idleTimeoutMs);
    let iterator: AsyncIterator<readonly Raw[]> | undefined;
    let requestId: string | undefined;
    let failure: ModelError | AbortedError;
    try {
      const opened = await source.open(dog.signal);
      requestId = opened.requestId;
      iterator = opened.batches[Symbol.asyncIterator]();
      const normaliser = source.normaliser();
      const out: AssistantEvent[] = [];
      let complete = false;
      read: while (!complete) {
        const next = await iterator.next();
        if (next.done) break;
        dog.tick();
        const batch = next.value;
        for (let j = 0; j < batch.length && !complete; j++) {
          complete = normaliser.push(batch[j]!, out);
          if (out.length === 0) continue;
          emitted = true;
          for (let i = 0; i < out.length; i++) yield out[i]!;
          out.length = 0;
          // The consumer may have aborted while holding an event; the rest of the batch is moot.
          if (dog.reason) break read;
        }
      }
      // A fired watchdog may surface as a plain end of the body; find out whether it did.
      if (dog.reason) throw dog.error();
      if (!complete && normaliser.end(out) === 'empty') {
        dog.tick();
        dog.disarm();
        // Said before it is sent: the spend gate decides on it like on a retry (issue 26).
        yield { type: 'resending' };
        const events = await source.fallback(dog.signal);
        if (emitted) yield { type: 'step_reset' };
        out.push(...events);
      }
      for (const event of out) yield event;
      return;
    } catch (err) {
      failure = dog.reason ? dog.error() : classifyError(err, source.provider);
    } finally {
      dog.dispose();
      // Closing the iterator cancels the body (the response may still be open after message_stop).
      void iterator?.return?.()?.catch(() => undefined);
    }

    if (signal.aborted || failure instanceof AbortedError) throw new AbortedError(REQUEST_ABORTED);
    failure = withRequestId(failure, requestId);
    let delayMs: number;
    let attempt: number;
    let maxAttempts: number;
    if (failure.kind === 'stalled') {
      if (stallResent) throw failure;
      stallResent = true;
      delayMs = 0;
      attempt = 1;
      maxAttempts = 1;
    } else {
      if (failure.kind !== 'retryable') throw failure;
      if (retries >= policy.maxRetries) {
        throw new ModelError('retryable', `${failure.message} (gave up after ${retries} ${retries === 1 ? 'retry' : 'retries'})`, failure.details);
      }
      retries++;
      const asked = failure.details.retryAfterMs;
      if (asked !== undefined && asked > policy.maxRetryAfterMs) throw failure;
      delayMs = asked ?? backoffDelay(retries, policy);
      attempt = retries;
      maxAttempts = policy.maxRetries;
    }
    yield { type: 'retrying', attempt, maxAttempts, delayMs, reason: retryNotice(failure), detail: failure.message };
    if (emitted) {
      yield { type: 'step_reset' };
      emitted = false;
    }
    await sleep(delayMs, signal);
  }
}

/** Retries a one-shot request (non-streaming `complete`) under the same policy, silently; `beforeRetry` may stop a retry by throwing. */
export async function withRetries<T>(provider: string, signal: AbortSignal, policy: ResolvedRetry, run: (signal: AbortSignal) => Promise<T>, beforeRetry?: () => void): Promise<T> {
  for (let retries = 0; ; retries++) {
    if (signal.aborted) throw new AbortedError(REQUEST_ABORTED);
    try {
      return await run(signal);
    } catch (err) {
      if (signal.aborted) throw new AbortedError(REQUEST_ABORTED);
      const failure = classifyError(err, provider);
      if (failure.kind !== 'retryable' || retries >= policy.maxRetries) throw failure;
      const asked = failure.details.retryAfterMs;
      if (asked !== undefined && asked > policy.maxRetryAfterMs) throw failure;
      beforeRetry?.();
      await sleep(asked ?? backoffDelay(retries + 1, policy), signal);
    }
  }
}
