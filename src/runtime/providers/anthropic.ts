// S8: the Anthropic Messages API through @anthropic-ai/sdk, normalised to
// AssistantEvents (S1/S2). Loaded lazily by index.ts.
import Anthropic from '@anthropic-ai/sdk';
import type { ContentBlock as ApiContentBlock, Message as ApiMessage, RawMessageStreamEvent } from '@anthropic-ai/sdk/resources/messages/messages';
import {
  type AssistantContentBlock,
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
import { type AnthropicParams, toAnthropicParams } from './anthropic-params';
import {
  type AnthropicClientOptions,
  DEFAULT_IDLE_TIMEOUT_MS,
  DEFAULT_REQUEST_TIMEOUT_MS,
  DEFAULT_STALL_TIMEOUT_MS,
  resolveAnthropicEnv,
} from './options';
import { resolveRetry, streamErrorFromData } from './retry';
import { type SseFrame, sseBatches } from './sse';
import { runStep, type StepNormaliser, type StepSource, type StepTiming, withRetries } from './step';

type OpenBlock =
  | { kind: 'text'; hasText: boolean }
  | { kind: 'thinking'; thinking: string; signature: string }
  | { kind: 'redacted'; data: string }
  | { kind: 'tool'; id: string; name: string; json: string; initial: string }
  | { kind: 'other' };

const PROVIDER = 'anthropic';

/** The part of an Anthropic SDK client a step uses; Bedrock's and Vertex's clients have it too. */
export interface MessagesSdk {
  messages: Pick<Anthropic['messages'], 'create'>;
}

/**
 * Where Claude is served: Anthropic's API, or a cloud (Bedrock, Vertex) through
 * Anthropic's SDK for it. The Messages API, its events and the step runner are the same.
 */
export interface ClaudeHost {
  readonly provider: string;
  /** The SDK client; throws a ModelError naming what to configure when it cannot be built. */
  sdk(): Promise<MessagesSdk>;
  /** The model id this host knows our id by (cloud catalogues name models differently). */
  modelId?(id: string): string;
  /** A failure in this host's terms (credentials, region, project), or undefined to classify it as usual. */
  explain?(err: unknown): ModelError | undefined;
}

function mergeUsage(target: Usage, u: { input_tokens?: number | null; output_tokens?: number | null; cache_creation_input_tokens?: number | null; cache_read_input_tokens?: number | null }): void {
  if (u.input_tokens != null) target.input_tokens = u.input_tokens;
  if (u.output_tokens != null) target.output_tokens = u.output_tokens;
  if (u.cache_creation_input_tokens != null) target.cache_creation_input_tokens = u.cache_creation_input_tokens;
  if (u.cache_read_input_tokens != null) target.cache_read_input_tokens = u.cache_read_input_tokens;
}

/** Usage, prompt cache (when the cache was touched) and the stop: how every step ends. */
function closingEvents(usage: Usage, stopReason: StopReason | null, out: AssistantEvent[]): void {
  out.push({ type: 'usage', usage: { ...usage } });
  if (usage.cache_read_input_tokens > 0 || usage.cache_creation_input_tokens > 0) {
    out.push({ type: 'prompt_cache', cacheReadInputTokens: usage.cache_read_input_tokens, cacheCreationInputTokens: usage.cache_creation_input_tokens });
  }
  out.push({ type: 'message_stop', stopReason });
}

const nonEmptyInput = (input: unknown) =>
  input !== null && typeof input === 'object' && Object.keys(input as object).length > 0 ? JSON.stringify(input) : '';

/** A complete block (message_start content, non-streaming replies) as events. Returns whether it is text/tool use. */
function completeBlockEvents(block: ApiContentBlock, out: AssistantEvent[]): boolean {
  switch (block.type) {
    case 'text':
      if (block.text === '') return false;
      out.push({ type: 'text_delta', text: block.text });
      return true;
    case 'thinking':
      out.push({ type: 'thinking', thinking: block.thinking, signature: block.signature });
      return false;
    case 'redacted_thinking':
      out.push({ type: 'redacted_thinking', data: block.data });
      return false;
    case 'tool_use':
      out.push({ type: 'tool_use_start', id: block.id, name: block.name });
      out.push({ type: 'tool_use', id: block.id, name: block.name, inputJson: nonEmptyInput(block.input) });
      return true;
    default:
      // Server-tool blocks: we declare no server tools, so none should arrive.
      return false;
  }
}

/** seed 001 consume_stream, phase 2: SSE frames → AssistantEvents. */
export class AnthropicNormaliser implements StepNormaliser<SseFrame> {
  constructor(private readonly provider = PROVIDER) {}

  private readonly open = new Map<number, OpenBlock>();
  private readonly usage = emptyUsage();
  private stopReason: StopReason | null = null;
  /** A finished text block with text, or a finished tool use: enough to synthesise message_stop (S5). */
  private useful = false;
  /** message_start arrived; a second one after any content means the stream restarted mid-message. */
  private started = false;
  private sawContent = false;

  push(sse: SseFrame, out: AssistantEvent[]): boolean {
    // Pings only prove the connection is alive (the step's watchdog has seen them already).
    if (sse.event === 'ping' || sse.data === '') return false;
    if (sse.event === 'error') throw streamErrorFromData(this.provider, sse.data);
    // The type inside the data is authoritative: some gateways send data-only frames.
    const event = JSON.parse(sse.data) as RawMessageStreamEvent;
    const type: string = event.type;
    if (type === 'error') throw streamErrorFromData(this.provider, sse.data);
    return this.pushEvent(event, out);
  }

  pushEvent(event: RawMessageStreamEvent, out: AssistantEvent[]): boolean {
    switch (event.type) {
      case 'content_block_delta': {
        this.sawContent = true;
        const block = this.open.get(event.index);
        const delta = event.delta;
        switch (delta.type) {
          case 'text_delta':
            if (delta.text !== '') {
              out.push({ type: 'text_delta', text: delta.text });
              if (block?.kind === 'text') block.hasText = true;
            }
            break;
          case 'input_json_delta':
            if (block?.kind === 'tool') block.json += delta.partial_json;
            break;
          case 'thinking_delta':
            if (block?.kind === 'thinking') block.thinking += delta.thinking;
            if (delta.thinking !== '') out.push({ type: 'thinking_delta', thinking: delta.thinking });
            break;
          case 'signature_delta':
            if (block?.kind === 'thinking') block.signature += delta.signature;
            break;
          default:
            break;
        }
        return false;
      }
      case 'content_block_start': {
        this.sawContent = true;
        const b = event.content_block;
        switch (b.type) {
          case 'text':
            this.open.set(event.index, { kind: 'text', hasText: b.text !== '' });
            if (b.text !== '') out.push({ type: 'text_delta', text: b.text });
            break;
          case 'thinking':
            this.open.set(event.index, { kind: 'thinking', thinking: b.thinking ?? '', signature: b.signature ?? '' });
            if (b.thinking) out.push({ type: 'thinking_delta', thinking: b.thinking });
            break;
          case 'redacted_thinking':
            this.open.set(event.index, { kind: 'redacted', data: b.data });
            break;
          case 'tool_use':
            // Streamed input starts as {} and arrives as input_json_delta fragments (seed: the empty object is dropped).
            this.open.set(event.index, { kind: 'tool', id: b.id, name: b.name, json: '', initial: nonEmptyInput(b.input) });
            out.push({ type: 'tool_use_start', id: b.id, name: b.name });
            break;
          default:
            this.open.set(event.index, { kind: 'other' });
        }
        return false;
      }
      case 'content_block_stop': {
        const block = this.open.get(event.index);
        this.open.delete(event.index);
        if (!block) return false;
        switch (block.kind) {
          case 'text':
            if (block.hasText) this.useful = true;
            break;
          case 'thinking':
            out.push({ type: 'thinking', thinking: block.thinking, signature: block.signature });
            break;
          case 'redacted':
            out.push({ type: 'redacted_thinking', data: block.data });
            break;
          case 'tool':
            out.push({ type: 'tool_use', id: block.id, name: block.name, inputJson: block.json !== '' ? block.json : block.initial });
            this.useful = true;
            break;
          default:
            break;
        }
        return false;
      }
      case 'message_start': {
        if (this.started) {
          // A repeated message_start before any content is harmless; after content, appending the replay
          // would duplicate text ("Said eSaid exactly once."), so the step is retried from scratch instead.
          if (this.sawContent) throw new ModelError('retryable', `${this.provider}: the stream restarted mid-message (a second message_start after content).`);
          return false;
        }
        this.started = true;
        mergeUsage(this.usage, event.message.usage);
        // The input is billed from here on: if the attempt breaks and is retried, it is still charged (C4).
        out.push({ type: 'usage', usage: { ...this.usage } });
        const content = event.message.content ?? [];
        if (content.length > 0) this.sawContent = true;
        for (const block of content) if (completeBlockEvents(block, out)) this.useful = true;
        return false;
      }
      case 'message_delta':
        if (event.delta.stop_reason) this.stopReason = event.delta.stop_reason;
        if (event.usage) mergeUsage(this.usage, event.usage);
        return false;
      case 'message_stop':
        closingEvents(this.usage, this.stopReason, out);
        return true;
      default:
        return false;
    }
  }

  end(out: AssistantEvent[]): 'done' | 'empty' {
    // A block still open means its text or tool input is cut short: keeping it would corrupt the step.
    if (this.open.size > 0) throw new ModelError('retryable', `${this.provider}: the stream ended inside a content block.`);
    if (!this.useful) return 'empty';
    closingEvents(this.usage, this.stopReason, out);
    return 'done';
  }
}

/** A non-streaming Message as the same events a stream would have produced. */
export function messageToEvents(message: ApiMessage): AssistantEvent[] {
  const out: AssistantEvent[] = [];
  for (const block of message.content) completeBlockEvents(block, out);
  const usage = emptyUsage();
  mergeUsage(usage, message.usage);
  closingEvents(usage, message.stop_reason, out);
  return out;
}

function messageToResponse(message: ApiMessage): ModelResponse {
  const content: AssistantContentBlock[] = [];
  for (const b of message.content) {
    if (b.type === 'text') content.push({ type: 'text', text: b.text });
    else if (b.type === 'thinking') content.push({ type: 'thinking', thinking: b.thinking, signature: b.signature });
    else if (b.type === 'redacted_thinking') content.push({ type: 'redacted_thinking', data: b.data });
    else if (b.type === 'tool_use') content.push({ type: 'tool_use', id: b.id, name: b.name, input: (b.input ?? {}) as Record<string, unknown> });
  }
  const usage = emptyUsage();
  mergeUsage(usage, message.usage);
  return { content, usage, stopReason: message.stop_reason };
}

/** Anthropic's own API: a key from the options or ANTHROPIC_API_KEY. */
function anthropicHost(options: AnthropicClientOptions): ClaudeHost {
  const env = resolveAnthropicEnv();
  const apiKey = options.apiKey || env.apiKey;
  // Without a key the SDK would go looking for credential profiles on disk; we report 'auth' instead so the host can ask for one.
  const sdk = apiKey
    ? new Anthropic({
        apiKey,
        baseURL: options.baseURL || env.baseURL || undefined,
        // S6: we own retries, so each one is reported and a partial step is reset.
        maxRetries: 0,
        ...(options.headers ? { defaultHeaders: options.headers } : {}),
      })
    : undefined;
  return {
    provider: PROVIDER,
    sdk: async () => {
      if (!sdk) throw new ModelError('auth', 'No Anthropic API key: set ANTHROPIC_API_KEY or store one with "Turnstone: Set API Key".');
      return sdk;
    },
  };
}

type TimingOptions = Pick<AnthropicClientOptions, 'stallTimeoutMs' | 'idleTimeoutMs' | 'retry' | 'requestTimeoutMs'>;

export class AnthropicModelClient implements ModelClient {
  private readonly host: ClaudeHost;
  private readonly timing: StepTiming;
  private readonly requestTimeoutMs: number;

  constructor(options: AnthropicClientOptions = {}, host?: ClaudeHost) {
    this.host = host ?? anthropicHost(options);
    this.timing = timingOf(options);
    this.requestTimeoutMs = options.requestTimeoutMs ?? DEFAULT_REQUEST_TIMEOUT_MS;
  }

  stream(request: ModelRequest, signal: AbortSignal): AsyncIterable<AssistantEvent> {
    return runStep(this.source(request), request.afterToolResults, signal, this.timing);
  }

  async complete(request: ModelRequest, signal: AbortSignal, options: CompleteOptions = {}): Promise<ModelResponse> {
    const params = this.params(request);
    const message = await withRetries(this.host.provider, signal, this.timing.retry, (s) => this.createNonStreaming(params, s), options.beforeRetry);
    return messageToResponse(message);
  }

  private params(request: ModelRequest): AnthropicParams {
    const params = toAnthropicParams(request);
    return this.host.modelId ? { ...params, model: this.host.modelId(params.model) } : params;
  }

  /** A host's own reading of a failure first (a missing AWS credential is not a lost connection). */
  private explained(err: unknown): unknown {
    return this.host.explain?.(err) ?? err;
  }

  private async createNonStreaming(params: AnthropicParams, signal: AbortSignal): Promise<ApiMessage> {
    try {
      const sdk = await this.host.sdk();
      // An explicit timeout: without one the SDK refuses large max_tokens on non-streaming requests.
      return (await sdk.messages.create({ ...params, stream: false }, { signal, timeout: this.requestTimeoutMs })) as ApiMessage;
    } catch (err) {
      throw this.explained(err);
    }
  }

  private source(request: ModelRequest): StepSource<SseFrame> {
    let params: AnthropicParams | undefined;
    const getParams = () => (params ??= this.params(request));
    const provider = this.host.provider;
    return {
      provider,
      open: async (signal) => {
        try {
          const sdk = await this.host.sdk();
          // The SDK sends the request and turns error statuses into APIErrors; we read the 200 body's frames
          // (the Bedrock SDK has already turned AWS's binary event stream into the same SSE frames).
          const response = await sdk.messages.create({ ...getParams(), stream: true }, { signal }).asResponse();
          const requestId = response.headers.get('request-id') ?? response.headers.get('x-amzn-requestid') ?? response.headers.get('x-request-id') ?? undefined;
          return { batches: sseBatches(response), requestId };
        } catch (err) {
          throw this.explained(err);
        }
      },
      normaliser: () => new AnthropicNormaliser(provider),
      fallback: async (signal) => messageToEvents(await this.createNonStreaming(getParams(), signal)),
    };
  }
}

function timingOf(options: TimingOptions): StepTiming {
  return {
    stallTimeoutMs: options.stallTimeoutMs ?? DEFAULT_STALL_TIMEOUT_MS,
    idleTimeoutMs: options.idleTimeoutMs ?? DEFAULT_IDLE_TIMEOUT_MS,
    retry: resolveRetry(options.retry),
  };
}
