// Issue 26: the one entry point every model request of the engine passes
// (steps, their retries, continuations, compaction summaries, and subagents'
// requests, whose clients go through their parent's gate). `authorize` throws
// to stop a request: before the first attempt of each, and before every retry,
// with what the failed attempts were billed so far. What it lets through stays
// reserved until the request is over, so requests in flight at once (a fan-out
// of subagents) cannot pass a cap together that none of them passes alone.
import { addUsage } from './usage';
import { type AssistantEvent, type ModelClient, type ModelRequest, type Usage } from '../types';

/** Gives back the request's reservation; a second call does nothing. */
export type ReleaseSpend = () => void;

/** Throws (a RuntimeError of kind budget) when `request` may not go; `billed` is what its failed attempts cost so far. */
export type AuthorizeSpend = (request: ModelRequest, billed?: Usage) => ReleaseSpend;

export function spendGated(client: ModelClient, authorize: AuthorizeSpend): ModelClient {
  return {
    stream(request, signal) {
      // Decided when the step asks, not at its first event: a stopped request never opens a connection.
      const release = authorize(request);
      return gateRetries(client.stream(request, signal), request, authorize, release);
    },
    async complete(request, signal, options = {}) {
      let release = authorize(request);
      try {
        return await client.complete(request, signal, {
          ...options,
          beforeRetry: () => {
            release();
            release = authorize(request);
            options.beforeRetry?.();
          },
        });
      } finally {
        release();
      }
    },
  };
}

/**
 * A retry is announced before its backoff, and a non-streamed resend (S5) before it goes: the gate decides
 * there, counting the attempts already billed.
 */
async function* gateRetries(events: AsyncIterable<AssistantEvent>, request: ModelRequest, authorize: AuthorizeSpend, release: ReleaseSpend): AsyncGenerator<AssistantEvent, void, undefined> {
  let attempt: Usage | undefined;
  let billed: Usage | undefined;
  try {
    for await (const event of events) {
      if (event.type === 'usage') attempt = event.usage;
      else if (event.type === 'retrying' || event.type === 'resending') {
        if (attempt) billed = billed ? addUsage(billed, attempt) : attempt;
        attempt = undefined;
        release();
        release = authorize(request, billed);
      }
      yield event;
    }
  } finally {
    release();
  }
}
