// S8: OpenAI's Responses API (`openai`) through the `openai` package, normalised
// to the same AssistantEvents as the other providers. Reasoning summaries become
// thinking; each reasoning item's encrypted content rides on its thinking block
// (EncryptedReasoning) and goes back with the next request. Loaded lazily by index.ts.
import { STATUS_CODES } from 'node:http';
import OpenAI from 'openai';
import type { Response as ApiResponse, ResponseOutputItem, ResponseStreamEvent, ResponseUsage } from 'openai/resources/responses/responses';
import {
  type AssistantEvent,
  type CompleteOptions,
  emptyUsage,
  type ModelClient,
  ModelError,
  type ModelRequest,
  type ModelResponse,
  type StopReason,
  type Usage,
} from '../types';
import { DEFAULT_IDLE_TIMEOUT_MS, DEFAULT_REQUEST_TIMEOUT_MS, DEFAULT_STALL_TIMEOUT_MS, type OpenAIResponsesOptions, resolveOpenAIEnv } from './options';
import { type ResponsesParams, toResponsesParams } from './openai-responses-params';
import { OPENAI_API_BASE_URL } from './presets';
import { argumentsCut, authError, looksLikeContextOverflow, resolveRetry } from './retry';
import { type SseFrame, sseBatches } from './sse';
import { eventsToResponse } from './events-to-response';
import { cutHead } from '../text-cut';
import { runStep, type StepNormaliser, type StepSource, type StepTiming, withRetries } from './step';

const PROVIDER = 'openai';
export const OPENAI_DEFAULT_BASE_URL = OPENAI_API_BASE_URL;

/** input_tokens includes cached reads; ours (Anthropic's meaning) does not. Proxies may leave any field out. */
export function mapResponsesUsage(u: Partial<ResponseUsage> | null | undefined): Usage {
  if (!u) return emptyUsage();
  const cached = u.input_tokens_details?.cached_tokens ?? 0;
  return { input_tokens: Math.max(0, (u.input_tokens ?? 0) - cached), output_tokens: u.output_tokens ?? 0, cache_read_input_tokens: cached, cache_creation_input_tokens: 0 };
}

function closingEvents(usage: Usage, stopReason: StopReason | null, out: AssistantEvent[]): void {
  out.push({ type: 'usage', usage });
  if (usage.cache_read_input_tokens > 0) out.push({ type: 'prompt_cache', cacheReadInputTokens: usage.cache_read_input_tokens, cacheCreationInputTokens: 0 });
  out.push({ type: 'message_stop', stopReason });
}

function stopReasonOf(response: Pick<ApiResponse, 'status' | 'incomplete_details'>, calledTools: boolean): StopReason {
  if (response.status === 'incomplete') {
    const reason = response.incomplete_details?.reason;
    if (reason === 'max_output_tokens') return 'max_tokens';
    if (reason === 'content_filter') return 'refusal';
  }
  return calledTools ? 'tool_use' : 'end_turn';
}

const RETRYABLE_CODES = new Set(['server_error', 'rate_limit_exceeded', 'internal_error', 'server_is_overloaded', 'slow_down']);

/** A failure reported inside a 200 stream (`error` event, `response.failed`): retried only when a retry can help. */
export function responsesStreamError(code: string | null | undefined, message: string): ModelError {
  const msg = `${PROVIDER}: ${code ? `${code}: ` : ''}${message}`;
  if (code === 'context_length_exceeded' || looksLikeContextOverflow(message)) return new ModelError('context_overflow', msg);
  if (code === 'invalid_api_key' || code === 'authentication_error') return authError(PROVIDER, msg);
  if (!code || RETRYABLE_CODES.has(code)) return new ModelError('retryable', `${PROVIDER}: error event in stream: ${code ? `${code}: ` : ''}${message}`);
  return new ModelError('invalid_request', msg);
}

/** The longest line of the provider's message a failure keeps (a proxy may put a whole JSON body on one line). */
const MAX_REASON_CHARS = 300;

function firstLine(text: string): string {
  const line = text.split(/\r?\n/, 1)[0]!.trim();
  return line.length > MAX_REASON_CHARS ? `${cutHead(line, MAX_REASON_CHARS - 1)}…` : line;
}

/** "500 Internal Server Error: <first line>" from the SDK's "500 <the provider's whole message>". */
function statusLine(status: number, sdkMessage: string): string {
  const said = sdkMessage.startsWith(`${status} `) ? sdkMessage.slice(`${status} `.length) : sdkMessage;
  const reason = said === 'status code (no body)' ? '' : firstLine(said);
  const text = STATUS_CODES[status];
  return `${status}${text ? ` ${text}` : ''}${reason ? `: ${reason}` : ''}`;
}

/** What retry.ts and step.ts append to a message: kept when a long message is cut to its first line. */
const OUR_SUFFIXES = / \((?:check the API key[^()]*|gave up after \d+ retr(?:y|ies))\)$/;

/**
 * A failed request as the user reads it (stderr, the CLI's json `result`, the panel): one line with the HTTP
 * status and the first line of the provider's message. A proxy may answer with a whole Python traceback:
 * that reached the log with each retry (the retrying event's `detail`, as for every provider) and stays on
 * the error's cause.
 */
export function oneLineFailure(err: unknown): unknown {
  if (!(err instanceof ModelError)) return err;
  const cause = err.details.cause as { status?: unknown; message?: unknown } | undefined;
  let message = err.message;
  // classifyError put the SDK's message between our prefix and our suffixes.
  if (typeof cause?.status === 'number' && typeof cause.message === 'string' && cause.message !== '' && message.includes(cause.message)) {
    const status = cause.status;
    const sdkMessage = cause.message;
    message = message.replace(sdkMessage, () => statusLine(status, sdkMessage));
  }
  if (/[\r\n]/.test(message)) message = `${firstLine(message)}${OUR_SUFFIXES.exec(message)?.[0] ?? ''}`;
  return message === err.message ? err : new ModelError(err.kind, message, err.details);
}

async function* withOneLineFailures(events: AsyncIterable<AssistantEvent>): AsyncGenerator<AssistantEvent, void, undefined> {
  try {
    yield* events;
  } catch (err) {
    throw oneLineFailure(err);
  }
}

/** OpenAI's 400 for an organisation that must be verified before it gets reasoning summaries. */
function summariesRefused(err: unknown): boolean {
  const e = err as { status?: unknown; message?: unknown; param?: unknown };
  if (e?.status !== 400) return false;
  return e.param === 'reasoning.summary' || (typeof e.message === 'string' && /reasoning summar/i.test(e.message));
}

function summaryText(parts: readonly string[]): string {
  return parts.join('\n\n');
}

/** '' is how a call says "no arguments"; anything else must parse. */

/**
 * Arguments that do not parse mean the stream was cut. In a reply the server calls incomplete (the output
 * limit) that is the reply, as with the other providers: the call goes to the loop, which answers it with an
 * error saying its input was cut off. In one it calls complete (a proxy may close a cut upstream stream with
 * `response.completed`) running truncated JSON would corrupt the step, so it is retried.
 */
function cutCallError(): ModelError {
  return new ModelError('retryable', `${PROVIDER}: the stream ended inside a function call's arguments.`);
}

/** A finished output item as events. `model` is the request's: reasoning goes back only to it. Returns whether it is an answer (text or a call). */
function itemEvents(item: ResponseOutputItem, model: string, out: AssistantEvent[], streamed?: OpenItem): boolean {
  switch (item.type) {
    case 'reasoning': {
      // A proxy may stream the summary yet leave it out of the finished item.
      const given = (item.summary ?? []).map((s) => s.text);
      const summary = given.length > 0 || !streamed ? given : streamed.summary;
      out.push({
        type: 'thinking',
        thinking: summaryText(summary),
        signature: '',
        ...(item.encrypted_content ? { reasoning: { provider: 'openai' as const, model, id: item.id, encryptedContent: item.encrypted_content, summary } } : {}),
      });
      return false;
    }
    case 'message': {
      if (streamed?.text) return true;
      let any = false;
      for (const part of item.content ?? []) {
        const text = part.type === 'output_text' ? part.text : part.refusal;
        if (!text) continue;
        out.push({ type: 'text_delta', text });
        any = true;
      }
      return any;
    }
    case 'function_call':
      // A proxy may stream the arguments yet leave them out of the finished item.
      out.push({ type: 'tool_use', id: item.call_id, name: item.name, inputJson: item.arguments || streamed?.args || '' });
      return true;
    default:
      // Built-in server tools: we declare none, so none should arrive.
      return false;
  }
}

interface OpenItem {
  /** Text deltas were shown for it (then its finished item does not repeat them). */
  text: boolean;
  /** Summary parts as streamed. */
  summary: string[];
  /** A function call's id and name as its output_item.added gave them (proxies may send none). */
  call?: { id: string; name: string };
  /** A function call's arguments as streamed. */
  args: string;
  /** tool_use_start went out. */
  started: boolean;
  done: boolean;
}

/**
 * Responses SSE events → AssistantEvents. Items are keyed by output_index, which
 * every event names; an item is known from its first event, since proxies may
 * leave out output_item.added or output_item.done (response.completed then
 * carries the finished items).
 */
export class ResponsesNormaliser implements StepNormaliser<SseFrame> {
  private readonly items = new Map<number, OpenItem>();
  private calls = 0;
  private useful = false;
  /** Calls whose arguments do not parse, held back until the response says whether it was cut on purpose. */
  private readonly cut: AssistantEvent[] = [];

  constructor(private readonly model: string) {}

  push(frame: SseFrame, out: AssistantEvent[]): boolean {
    if (frame.data === '' || frame.data === '[DONE]') return false;
    // The type inside the data is authoritative: proxies may send data-only frames.
    return this.pushEvent(JSON.parse(frame.data) as ResponseStreamEvent, out);
  }

  private itemAt(index: number): OpenItem {
    let item = this.items.get(index);
    if (!item) this.items.set(index, (item = { text: false, summary: [], args: '', started: false, done: false }));
    return item;
  }

  private finish(index: number, done: ResponseOutputItem, out: AssistantEvent[]): void {
    const item = this.itemAt(index);
    if (item.done) return;
    item.done = true;
    if (done.type === 'function_call' && !item.started) {
      item.started = true;
      this.calls++;
      out.push({ type: 'tool_use_start', id: done.call_id, name: done.name });
    }
    const events: AssistantEvent[] = [];
    if (itemEvents(done, this.model, events, item)) this.useful = true;
    for (const event of events) (event.type === 'tool_use' && argumentsCut(event.inputJson) ? this.cut : out).push(event);
  }

  /**
   * The response is over: finishes a call the server never finished (a proxy may leave it out of
   * response.completed; its streamed arguments are all there is), then settles the calls held back.
   */
  private settle(incomplete: boolean, out: AssistantEvent[]): void {
    for (const item of this.items.values()) {
      if (item.done || !item.call) continue;
      item.done = true;
      this.useful = true;
      (argumentsCut(item.args) ? this.cut : out).push({ type: 'tool_use', id: item.call.id, name: item.call.name, inputJson: item.args });
    }
    if (this.cut.length === 0) return;
    if (!incomplete) throw cutCallError();
    // Cut at the limit, such a call is the reply's last item: its place in the step is kept.
    out.push(...this.cut);
  }

  pushEvent(event: ResponseStreamEvent, out: AssistantEvent[]): boolean {
    switch (event.type) {
      case 'response.output_item.added': {
        const added = event.item;
        const item = this.itemAt(event.output_index);
        if (added.type === 'function_call' && !item.started) {
          item.started = true;
          item.call = { id: added.call_id, name: added.name };
          if (added.arguments) item.args = added.arguments;
          this.calls++;
          out.push({ type: 'tool_use_start', id: added.call_id, name: added.name });
        }
        return false;
      }
      case 'response.output_text.delta':
      case 'response.refusal.delta':
        if (event.delta === '') return false;
        this.itemAt(event.output_index).text = true;
        out.push({ type: 'text_delta', text: event.delta });
        return false;
      case 'response.reasoning_summary_text.delta': {
        if (event.delta === '') return false;
        const parts = this.itemAt(event.output_index).summary;
        // Parts are joined by a blank line in the block; the live text shows the same.
        if (event.summary_index >= parts.length) {
          if (parts.length > 0) out.push({ type: 'thinking_delta', thinking: '\n\n' });
          while (parts.length <= event.summary_index) parts.push('');
        }
        parts[event.summary_index] += event.delta;
        out.push({ type: 'thinking_delta', thinking: event.delta });
        return false;
      }
      case 'response.function_call_arguments.delta':
        this.itemAt(event.output_index).args += event.delta;
        return false;
      case 'response.function_call_arguments.done':
        this.itemAt(event.output_index).args = event.arguments;
        return false;
      case 'response.output_item.done':
        this.finish(event.output_index, event.item, out);
        return false;
      case 'response.completed':
      case 'response.incomplete': {
        const response = event.response;
        (response.output ?? []).forEach((item, index) => this.finish(index, item, out));
        this.settle(response.status === 'incomplete' || event.type === 'response.incomplete', out);
        closingEvents(mapResponsesUsage(response.usage), stopReasonOf(response, this.calls > 0), out);
        return true;
      }
      case 'response.failed': {
        const error = event.response.error;
        throw responsesStreamError(error?.code, error?.message ?? 'the response failed');
      }
      case 'error':
        throw responsesStreamError(event.code, event.message);
      default:
        return false;
    }
  }

  end(out: AssistantEvent[]): 'done' | 'empty' {
    // An unfinished item means its text or call arguments are cut short: keeping it would corrupt the step.
    for (const item of this.items.values()) if (!item.done) throw new ModelError('retryable', `${PROVIDER}: the stream ended inside an output item.`);
    // No completion event: nothing says a call was cut on purpose.
    if (this.cut.length > 0) throw cutCallError();
    if (!this.useful) return 'empty';
    closingEvents(emptyUsage(), this.calls > 0 ? 'tool_use' : 'end_turn', out);
    return 'done';
  }
}

/** A non-streamed Response as the events a stream would have produced. */
export function responseToEvents(response: ApiResponse, model: string): AssistantEvent[] {
  const out: AssistantEvent[] = [];
  let calls = 0;
  for (const item of response.output) {
    if (item.type === 'function_call') {
      if (response.status !== 'incomplete' && argumentsCut(item.arguments ?? '')) throw cutCallError();
      calls++;
      out.push({ type: 'tool_use_start', id: item.call_id, name: item.name });
    }
    itemEvents(item, model, out);
  }
  closingEvents(mapResponsesUsage(response.usage), stopReasonOf(response, calls > 0), out);
  return out;
}

export class OpenAIResponsesModelClient implements ModelClient {
  private readonly sdk: OpenAI | undefined;
  private readonly timing: StepTiming;
  private readonly requestTimeoutMs: number;
  /**
   * OpenAI gives reasoning summaries only to verified organisations and refuses
   * the whole request otherwise. After one such refusal requests go without
   * them: the model still reasons and its items are still kept, unsummarised.
   */
  private summaries = true;

  constructor(options: OpenAIResponsesOptions = {}) {
    const env = resolveOpenAIEnv();
    const apiKey = options.apiKey || env.apiKey;
    this.timing = {
      stallTimeoutMs: options.stallTimeoutMs ?? DEFAULT_STALL_TIMEOUT_MS,
      idleTimeoutMs: options.idleTimeoutMs ?? DEFAULT_IDLE_TIMEOUT_MS,
      retry: resolveRetry(options.retry),
    };
    this.requestTimeoutMs = options.requestTimeoutMs ?? DEFAULT_REQUEST_TIMEOUT_MS;
    // Without a key we report 'auth' at the first request, so the host can ask for one.
    this.sdk = apiKey
      ? new OpenAI({
          apiKey,
          baseURL: options.baseURL || env.baseURL || OPENAI_DEFAULT_BASE_URL,
          // S6: we own retries, so each one is reported and a partial step is reset.
          maxRetries: 0,
          timeout: this.requestTimeoutMs,
          ...(options.headers ? { defaultHeaders: options.headers } : {}),
        })
      : undefined;
  }

  stream(request: ModelRequest, signal: AbortSignal): AsyncIterable<AssistantEvent> {
    return withOneLineFailures(runStep(this.source(request), request.afterToolResults, signal, this.timing));
  }

  async complete(request: ModelRequest, signal: AbortSignal, options: CompleteOptions = {}): Promise<ModelResponse> {
    const sdk = this.client();
    try {
      const events = await withRetries(
        PROVIDER,
        signal,
        this.timing.retry,
        // Parsed inside the retried call: a cut function call is retried like a failed request.
        async (s) => responseToEvents(await this.withoutRefusedSummaries(request, (params) => this.createNonStreaming(sdk, params, s)), request.model),
        options.beforeRetry,
      );
      return eventsToResponse(events);
    } catch (err) {
      throw oneLineFailure(err);
    }
  }

  /** Runs `send` with the request's params; once more without summaries if the organisation may not have them. */
  private async withoutRefusedSummaries<T>(request: ModelRequest, send: (params: ResponsesParams) => Promise<T>): Promise<T> {
    const params = toResponsesParams(request, { summaries: this.summaries });
    try {
      return await send(params);
    } catch (err) {
      if (!params.reasoning?.summary || !summariesRefused(err)) throw err;
      this.summaries = false;
      return send(toResponsesParams(request, { summaries: false }));
    }
  }

  private client(): OpenAI {
    if (!this.sdk) throw new ModelError('auth', 'No OpenAI API key: set OPENAI_API_KEY or store one with "Turnstone: Set API Key".');
    return this.sdk;
  }

  private createNonStreaming(sdk: OpenAI, params: ResponsesParams, signal: AbortSignal): Promise<ApiResponse> {
    return sdk.responses.create({ ...params, stream: false }, { signal, timeout: this.requestTimeoutMs });
  }

  private source(request: ModelRequest): StepSource<SseFrame> {
    return {
      provider: PROVIDER,
      open: async (signal) => {
        const sdk = this.client();
        // The SDK sends the request and turns error statuses into APIErrors; we read the 200 body's frames.
        const response = await this.withoutRefusedSummaries(request, (params) => sdk.responses.create({ ...params, stream: true }, { signal }).asResponse());
        return { batches: sseBatches(response), requestId: response.headers.get('x-request-id') ?? undefined };
      },
      normaliser: () => new ResponsesNormaliser(request.model),
      fallback: async (signal) => {
        const sdk = this.client();
        return responseToEvents(await this.withoutRefusedSummaries(request, (params) => this.createNonStreaming(sdk, params, signal)), request.model);
      },
    };
  }
}
