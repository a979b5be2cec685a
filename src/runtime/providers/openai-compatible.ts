// S8: OpenAI-compatible chat/completions (Ollama, LM Studio, vLLM, xAI, OpenRouter)
// through the `openai` package, normalised to the same AssistantEvents as the
// Anthropic provider so the loop cannot tell them apart. Loaded lazily by index.ts.
import { randomBytes } from 'node:crypto';
import OpenAI from 'openai';
import type {
  ChatCompletion,
  ChatCompletionChunk,
  ChatCompletionContentPart,
  ChatCompletionCreateParamsBase,
  ChatCompletionMessageParam,
  ChatCompletionTool,
} from 'openai/resources/chat/completions/completions';
import type { CompletionUsage } from 'openai/resources/completions';
import {
  type AssistantEvent,
  type CompleteOptions,
  emptyUsage,
  type ImageBlock,
  type Message,
  type ModelClient,
  ModelError,
  type ModelRequest,
  type ModelResponse,
  type StopReason,
  type Usage,
} from '../types';
import { DEFAULT_IDLE_TIMEOUT_MS, DEFAULT_REQUEST_TIMEOUT_MS, DEFAULT_STALL_TIMEOUT_MS, type OpenAICompatibleOptions, resolveOpenAIEnv } from './options';
import { argumentsCut, resolveRetry, streamErrorFromData } from './retry';
import { type SseFrame, sseBatches } from './sse';
import { eventsToResponse } from './events-to-response';
import { runStep, type StepNormaliser, type StepSource, type StepTiming, withRetries } from './step';

const PROVIDER = 'openai-compatible';

type Params = Omit<ChatCompletionCreateParamsBase, 'stream' | 'stream_options'>;

/** Servers that expose reasoning send it beside `content` under one of these names. */
interface ReasoningFields {
  reasoning_content?: string | null;
  reasoning?: string | null;
}

function mapStopReason(finish: string | null): StopReason | null {
  switch (finish) {
    case null:
      return null;
    case 'stop':
      return 'end_turn';
    case 'tool_calls':
    case 'function_call':
      return 'tool_use';
    case 'length':
      return 'max_tokens';
    case 'content_filter':
      return 'refusal';
    default:
      return finish;
  }
}

/** Cache fields proxies in front of the Messages API (LiteLLM) add to the OpenAI usage object. */
interface ProxyUsageFields {
  cache_read_input_tokens?: number | null;
  cache_creation_input_tokens?: number | null;
}

/**
 * OpenAI counts cached tokens inside prompt_tokens; Anthropic's input_tokens
 * excludes cache reads. We use the latter's meaning. Proxies report cache reads
 * as `cache_read_input_tokens` (also inside prompt_tokens) and cache writes as
 * `cache_creation_input_tokens` (outside prompt_tokens); every field is read.
 */
export function mapUsage(u: CompletionUsage): Usage {
  const proxy = u as CompletionUsage & ProxyUsageFields;
  const cached = Math.max(u.prompt_tokens_details?.cached_tokens ?? 0, proxy.cache_read_input_tokens ?? 0);
  return {
    input_tokens: Math.max(0, u.prompt_tokens - cached),
    output_tokens: u.completion_tokens,
    cache_read_input_tokens: cached,
    cache_creation_input_tokens: Math.max(0, proxy.cache_creation_input_tokens ?? 0),
  };
}

/** `alreadySaid`: the usage event went out when its chunk arrived; it is not repeated. */
function closingEvents(usage: Usage, stopReason: StopReason | null, out: AssistantEvent[], alreadySaid = false): void {
  if (!alreadySaid) out.push({ type: 'usage', usage });
  if (usage.cache_read_input_tokens > 0 || usage.cache_creation_input_tokens > 0) {
    out.push({ type: 'prompt_cache', cacheReadInputTokens: usage.cache_read_input_tokens, cacheCreationInputTokens: usage.cache_creation_input_tokens });
  }
  out.push({ type: 'message_stop', stopReason });
}

interface PendingCall {
  id: string;
  name: string;
  args: string;
  started: boolean;
}

/** For servers that send no call id: unique across the session, so results never pair with another step's call. */
const madeUpId = () => `call_${randomBytes(9).toString('base64url')}`;

export class OpenAINormaliser implements StepNormaliser<SseFrame> {
  // Parallel calls arrive interleaved. A call is named by its id when the server sends one (a new id is a
  // new call, even at an index already used: Ollama numbers every call 0); by its index otherwise
  // (fragments after the first often carry only the index); Gemini sends neither index nor fragments.
  private readonly calls: PendingCall[] = [];
  private readonly byId = new Map<string, PendingCall>();
  private readonly byIndex = new Map<number, PendingCall>();
  private thinking = '';
  private hasText = false;
  private finish: string | null = null;
  private usage: Usage | undefined;

  push(frame: SseFrame, out: AssistantEvent[]): boolean {
    if (frame.data === '') return false;
    // Nothing useful by [DONE]: not complete, so the step falls back to a non-streaming request (S5).
    if (frame.data === '[DONE]') return this.end(out) === 'done';
    const parsed = JSON.parse(frame.data) as ChatCompletionChunk & { error?: unknown };
    // Servers report failures mid-stream as a chunk carrying `error` (sometimes as an `error` event).
    if (parsed.error !== undefined || frame.event === 'error') throw streamErrorFromData(PROVIDER, frame.data);
    return this.pushChunk(parsed, out);
  }

  pushChunk(chunk: ChatCompletionChunk, out: AssistantEvent[]): boolean {
    if (chunk.usage) {
      this.usage = mapUsage(chunk.usage);
      // Said at once: if this attempt fails after all, what it was billed for is still charged (C4).
      out.push({ type: 'usage', usage: this.usage });
    }
    const choice = chunk.choices?.[0];
    if (!choice) return false;
    const delta = choice.delta ?? {};
    const r = delta as ReasoningFields;
    const reasoning = r.reasoning_content ?? r.reasoning;
    if (reasoning) {
      this.thinking += reasoning;
      out.push({ type: 'thinking_delta', thinking: reasoning });
    }
    if (delta.content) {
      this.flushThinking(out);
      this.hasText = true;
      out.push({ type: 'text_delta', text: delta.content });
    }
    if (delta.tool_calls) {
      this.flushThinking(out);
      for (const tc of delta.tool_calls) {
        const call = this.callFor(tc.id ?? undefined, (tc as { index?: number }).index, tc.function?.name ?? undefined);
        if (tc.function?.name && !call.name) call.name = tc.function.name;
        if (tc.function?.arguments) call.args += tc.function.arguments;
        if (!call.started && call.name) {
          call.started = true;
          out.push({ type: 'tool_use_start', id: call.id, name: call.name });
        }
      }
    }
    if (choice.finish_reason) this.finish = choice.finish_reason;
    // Not complete yet even at finish_reason: the usage chunk follows it.
    return false;
  }

  private callFor(id: string | undefined, index: number | undefined, name: string | undefined): PendingCall {
    let call = id ? this.byId.get(id) : index !== undefined ? this.byIndex.get(index) : undefined;
    // Neither id nor index: a fragment without a name continues the last call; a named one starts a call.
    if (!call && !id && index === undefined && !name) call = this.calls[this.calls.length - 1];
    if (!call) {
      call = { id: id || madeUpId(), name: '', args: '', started: false };
      this.calls.push(call);
      if (id) this.byId.set(id, call);
    }
    if (index !== undefined) this.byIndex.set(index, call);
    return call;
  }

  end(out: AssistantEvent[]): 'done' | 'empty' {
    this.flushThinking(out);
    if (!this.hasText && this.calls.length === 0 && this.finish === null) return 'empty';
    // Arguments that do not parse mean the stream was cut. At the output limit (finish_reason length) that is
    // the reply, as with the Anthropic provider: the tool use goes to the loop, which answers it with an
    // error saying the input was cut off. Otherwise (a proxy may end a cut upstream stream with `stop`) running
    // truncated JSON would corrupt the step, so it is retried.
    if (this.finish !== 'length' && this.calls.some((c) => argumentsCut(c.args))) {
      throw new ModelError('retryable', `${PROVIDER}: the stream ended inside tool call arguments.`);
    }
    for (const call of this.calls) {
      if (!call.started) out.push({ type: 'tool_use_start', id: call.id, name: call.name });
      out.push({ type: 'tool_use', id: call.id, name: call.name, inputJson: call.args });
    }
    const stop = mapStopReason(this.finish) ?? (this.calls.length > 0 ? 'tool_use' : null);
    closingEvents(this.usage ?? emptyUsage(), stop, out, this.usage !== undefined);
    return 'done';
  }

  /** Reasoning has no signature on these servers; it becomes a thinking block once something else starts. */
  private flushThinking(out: AssistantEvent[]): void {
    if (this.thinking === '') return;
    out.push({ type: 'thinking', thinking: this.thinking, signature: '' });
    this.thinking = '';
  }
}

/** Our Anthropic-shaped history → chat messages. Tool results become role 'tool' messages right after the call. */
export function toChatMessages(system: string, messages: Message[]): ChatCompletionMessageParam[] {
  const out: ChatCompletionMessageParam[] = [];
  if (system) out.push({ role: 'system', content: system });
  for (const m of messages) {
    if (m.role === 'assistant') {
      const text = m.content.flatMap((b) => (b.type === 'text' ? [b.text] : [])).join('');
      const toolCalls = m.content.flatMap((b) =>
        b.type === 'tool_use' ? [{ id: b.id, type: 'function' as const, function: { name: b.name, arguments: b.unparsedInput ?? JSON.stringify(b.input) } }] : [],
      );
      // Thinking is not sent back: these servers neither need nor verify it.
      out.push({ role: 'assistant', content: text === '' ? null : text, ...(toolCalls.length > 0 ? { tool_calls: toolCalls } : {}) });
      continue;
    }
    const texts: string[] = [];
    const images: ImageBlock[] = [];
    // A 'tool' message carries text only, so a tool result's images follow the
    // results in one user message that says which call they came from.
    const resultImages: ChatCompletionContentPart[] = [];
    for (const b of m.content) {
      if (b.type === 'tool_result') {
        out.push({ role: 'tool', tool_call_id: b.tool_use_id, content: b.is_error ? `Error: ${b.content}` : b.content });
        if (b.images?.length) {
          resultImages.push({ type: 'text', text: `Image${b.images.length > 1 ? 's' : ''} returned by tool call ${b.tool_use_id}:` });
          resultImages.push(...b.images.map(imageUrlPart));
        }
      } else if (b.type === 'text' && b.text !== '') texts.push(b.text);
      else if (b.type === 'image') images.push(b);
    }
    if (images.length === 0 && resultImages.length === 0) {
      if (texts.length > 0) out.push({ role: 'user', content: texts.join('\n\n') });
      continue;
    }
    const parts: ChatCompletionContentPart[] = [...resultImages];
    if (texts.length > 0) parts.push({ type: 'text', text: texts.join('\n\n') });
    parts.push(...images.map(imageUrlPart));
    out.push({ role: 'user', content: parts });
  }
  return out;
}

function imageUrlPart(image: ImageBlock): ChatCompletionContentPart {
  return { type: 'image_url', image_url: { url: `data:${image.mediaType};base64,${image.data}` } };
}

export function toOpenAIParams(request: ModelRequest): Params {
  const tools: ChatCompletionTool[] = request.tools.map((t) => ({
    type: 'function',
    function: { name: t.name, description: t.description, parameters: t.input_schema },
  }));
  return {
    model: request.model,
    messages: toChatMessages(request.system, request.messages),
    max_tokens: request.maxTokens,
    ...(tools.length > 0 ? { tools } : {}),
  };
}

export function completionToEvents(completion: ChatCompletion): AssistantEvent[] {
  const out: AssistantEvent[] = [];
  const choice = completion.choices[0];
  const message = choice?.message;
  const reasoning = (message as (ReasoningFields & object) | undefined)?.reasoning_content ?? (message as ReasoningFields | undefined)?.reasoning;
  if (reasoning) out.push({ type: 'thinking', thinking: reasoning, signature: '' });
  if (message?.content) out.push({ type: 'text_delta', text: message.content });
  for (const call of message?.tool_calls ?? []) {
    if (call.type !== 'function') continue;
    const id = call.id || madeUpId();
    out.push({ type: 'tool_use_start', id, name: call.function.name });
    out.push({ type: 'tool_use', id, name: call.function.name, inputJson: call.function.arguments });
  }
  const stop = mapStopReason(choice?.finish_reason ?? null);
  closingEvents(completion.usage ? mapUsage(completion.usage) : emptyUsage(), stop, out);
  return out;
}

export class OpenAICompatibleModelClient implements ModelClient {
  private readonly sdk: OpenAI;
  private readonly timing: StepTiming;
  private readonly requestTimeoutMs: number;
  private readonly includeUsage: boolean;

  constructor(options: OpenAICompatibleOptions = {}) {
    const env = resolveOpenAIEnv();
    this.timing = {
      stallTimeoutMs: options.stallTimeoutMs ?? DEFAULT_STALL_TIMEOUT_MS,
      idleTimeoutMs: options.idleTimeoutMs ?? DEFAULT_IDLE_TIMEOUT_MS,
      retry: resolveRetry(options.retry),
    };
    this.requestTimeoutMs = options.requestTimeoutMs ?? DEFAULT_REQUEST_TIMEOUT_MS;
    this.includeUsage = options.includeUsage ?? true;
    this.sdk = new OpenAI({
      // Local servers (Ollama, LM Studio) need no key, but the SDK refuses to start without one.
      apiKey: options.apiKey || env.apiKey || 'not-needed',
      baseURL: options.baseURL || env.baseURL || undefined,
      maxRetries: 0,
      timeout: this.requestTimeoutMs,
      ...(options.headers ? { defaultHeaders: options.headers } : {}),
    });
  }

  stream(request: ModelRequest, signal: AbortSignal): AsyncIterable<AssistantEvent> {
    return runStep(this.source(request), request.afterToolResults, signal, this.timing);
  }

  async complete(request: ModelRequest, signal: AbortSignal, options: CompleteOptions = {}): Promise<ModelResponse> {
    const params = toOpenAIParams(request);
    return eventsToResponse(completionToEvents(await withRetries(PROVIDER, signal, this.timing.retry, (s) => this.createNonStreaming(params, s), options.beforeRetry)));
  }

  private createNonStreaming(params: Params, signal: AbortSignal): Promise<ChatCompletion> {
    return this.sdk.chat.completions.create({ ...params, stream: false }, { signal, timeout: this.requestTimeoutMs });
  }

  private source(request: ModelRequest): StepSource<SseFrame> {
    let params: Params | undefined;
    const getParams = () => (params ??= toOpenAIParams(request));
    return {
      provider: PROVIDER,
      open: async (signal) => {
        const response = await this.sdk.chat.completions
          .create({ ...getParams(), stream: true, ...(this.includeUsage ? { stream_options: { include_usage: true } } : {}) }, { signal })
          .asResponse();
        return { batches: sseBatches(response), requestId: response.headers.get('x-request-id') ?? undefined };
      },
      normaliser: () => new OpenAINormaliser(),
      fallback: async (signal) => completionToEvents(await this.createNonStreaming(getParams(), signal)),
    };
  }
}
