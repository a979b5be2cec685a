// Issue 26: the one entry point every model request of the engine passes
// (steps, their retries, continuations, compaction summaries, and later
// subagents, which are handed the same client). `authorize` throws to stop a
// request: before the first attempt of each, and before every retry, with what
// the failed attempts were billed so far.
import { addUsage } from './usage';
import { type AssistantEvent, type ModelClient, type ModelRequest, type Usage } from '../types';

/** Throws (a RuntimeError of kind budget) when `request` may not go; `billed` is what its failed attempts cost so far. */
export type AuthorizeSpend = (request: ModelRequest, billed?: Usage) => void;

export function spendGated(client: ModelClient, authorize: AuthorizeSpend): ModelClient {
  return {
    stream(request, signal) {
      authorize(request);
      return gateRetries(client.stream(request, signal), request, authorize);
    },
    complete(request, signal, options = {}) {
      authorize(request);
      return client.complete(request, signal, {
        ...options,
        beforeRetry: () => {
          authorize(request);
          options.beforeRetry?.();
        },
      });
    },
  };
}

/**
 * A retry is announced before its backoff, and a non-streamed resend (S5) before it goes: the gate decides
 * there, counting the attempts already billed.
 */
async function* gateRetries(events: AsyncIterable<AssistantEvent>, request: ModelRequest, authorize: AuthorizeSpend): AsyncGenerator<AssistantEvent, void, undefined> {
  let attempt: Usage | undefined;
  let billed: Usage | undefined;
  for await (const event of events) {
    if (event.type === 'usage') attempt = event.usage;
    else if (event.type === 'retrying' || event.type === 'resending') {
      if (attempt) billed = billed ? addUsage(billed, attempt) : attempt;
      attempt = undefined;
      authorize(request, billed);
    }
    yield event;
  }
}
