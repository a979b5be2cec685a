// Live model lists (issue 31): what a provider says it serves, with the context
// window and price where it reports them. Plain fetch, not the SDKs: a list is
// one GET (Ollama: one more POST per model), and the picker must not pay for
// loading an SDK. Every reply is parsed with a schema; a model the reply does
// not describe well enough is left out, never guessed.
import { z } from 'zod';
import { ModelError } from '../types';
import { type ModelPrice } from '../spend/usage';
import { displayUrl, type ModelListSource } from './presets';

export { displayUrl, type ModelListSource } from './presets';

export interface ListedModel {
  id: string;
  /** A display name when the provider gives one that differs from the id. */
  name?: string;
  /** Tokens, as the provider reports it. */
  contextWindow?: number;
  /** US dollars per million tokens, as the provider reports it. */
  price?: ModelPrice;
}


export interface FetchListOptions {
  apiKey?: string | undefined;
  signal?: AbortSignal;
  /** The whole list, Ollama's per-model requests included (default 15 000 ms). */
  timeoutMs?: number;
}

const DEFAULT_ANTHROPIC_URL = 'https://api.anthropic.com';
const OLLAMA_SHOW_PARALLEL = 4;

const Tokens = z.number().int().positive();

const OpenAIList = z.object({
  data: z.array(
    z.object({
      id: z.string().min(1),
      // Servers that say how long a context they serve: vLLM, Groq, Mistral, and some gateways.
      max_model_len: Tokens.optional().catch(undefined),
      context_window: Tokens.optional().catch(undefined),
      max_context_length: Tokens.optional().catch(undefined),
      context_length: Tokens.optional().catch(undefined),
    }),
  ),
});

// Prices are decimal strings of dollars per token; "-1" marks a router whose price depends on the model it picks.
const PerToken = z.union([z.string(), z.number()]).transform((v) => Number(v)).pipe(z.number().finite().nonnegative());

const OpenRouterList = z.object({
  data: z.array(
    z.object({
      id: z.string().min(1),
      name: z.string().optional(),
      context_length: Tokens.optional().catch(undefined),
      pricing: z
        .object({
          prompt: PerToken,
          completion: PerToken,
          input_cache_read: PerToken.optional().catch(undefined),
          input_cache_write: PerToken.optional().catch(undefined),
        })
        .optional()
        .catch(undefined),
    }),
  ),
});

const AnthropicPage = z.object({
  data: z.array(z.object({ id: z.string().min(1), display_name: z.string().optional(), max_input_tokens: Tokens.optional().catch(undefined) })),
  has_more: z.boolean().optional(),
  last_id: z.string().nullish(),
});

const OllamaTags = z.object({ models: z.array(z.object({ name: z.string().min(1) })) });
const OllamaShow = z.object({ model_info: z.record(z.string(), z.unknown()).optional(), parameters: z.string().optional() });

const join = (base: string, path: string) => `${base.replace(/\/+$/, '')}${path}`;
const perMillion = (perToken: number) => Math.round(perToken * 1e12) / 1e6;

async function getJson(url: string, init: RequestInit, signal: AbortSignal): Promise<unknown> {
  let res: Response;
  try {
    res = await fetch(url, { ...init, signal });
  } catch (error) {
    if (signal.aborted) throw new ModelError('retryable', `the model list from ${displayUrl(url)} took too long or was cancelled`, { cause: error });
    throw new ModelError('retryable', `cannot reach ${displayUrl(url)} for the model list (${error instanceof Error ? error.message : String(error)})`, { cause: error });
  }
  if (res.status === 401 || res.status === 403) {
    await res.body?.cancel();
    throw new ModelError('auth', `${displayUrl(url)} refused the model list (${res.status}): check the API key`, { status: res.status });
  }
  if (!res.ok) {
    await res.body?.cancel();
    throw new ModelError(res.status >= 500 || res.status === 429 ? 'retryable' : 'invalid_request', `${displayUrl(url)} answered ${res.status} to the model list request`, { status: res.status });
  }
  try {
    return await res.json();
  } catch (error) {
    throw new ModelError('protocol', `${displayUrl(url)} sent a model list that is not JSON`, { cause: error });
  }
}

function parse<T>(schema: z.ZodType<T>, json: unknown, url: string): T {
  const parsed = schema.safeParse(json);
  if (!parsed.success) throw new ModelError('protocol', `${displayUrl(url)} sent a model list of an unknown shape (${parsed.error.issues[0]?.message ?? 'invalid'})`);
  return parsed.data;
}

const bearer = (key: string | undefined): Record<string, string> => (key ? { authorization: `Bearer ${key}` } : {});

async function listOpenAI(baseUrl: string, key: string | undefined, signal: AbortSignal): Promise<ListedModel[]> {
  const url = join(baseUrl, '/models');
  const list = parse(OpenAIList, await getJson(url, { headers: bearer(key) }, signal), url);
  return list.data.map((m) => {
    const window = m.max_model_len ?? m.context_window ?? m.max_context_length ?? m.context_length;
    return { id: m.id, ...(window ? { contextWindow: window } : {}) };
  });
}

async function listOpenRouter(baseUrl: string, key: string | undefined, signal: AbortSignal): Promise<ListedModel[]> {
  const url = join(baseUrl, '/models');
  const list = parse(OpenRouterList, await getJson(url, { headers: bearer(key) }, signal), url);
  return list.data.map((m) => {
    const p = m.pricing;
    const price: ModelPrice | undefined = p
      ? {
          inputPerMTok: perMillion(p.prompt),
          outputPerMTok: perMillion(p.completion),
          ...(p.input_cache_read !== undefined ? { cacheReadPerMTok: perMillion(p.input_cache_read) } : {}),
          ...(p.input_cache_write !== undefined ? { cacheWritePerMTok: perMillion(p.input_cache_write) } : {}),
        }
      : undefined;
    return { id: m.id, ...(m.name && m.name !== m.id ? { name: m.name } : {}), ...(m.context_length ? { contextWindow: m.context_length } : {}), ...(price ? { price } : {}) };
  });
}

async function listAnthropic(baseUrl: string | undefined, key: string | undefined, signal: AbortSignal): Promise<ListedModel[]> {
  const headers: Record<string, string> = { 'anthropic-version': '2023-06-01', ...(key ? { 'x-api-key': key } : {}) };
  const models: ListedModel[] = [];
  let after: string | undefined;
  // Pages of up to 1000; the loop ends on the last page (or one that makes no progress).
  for (let page = 0; page < 20; page++) {
    const url = join(baseUrl || DEFAULT_ANTHROPIC_URL, `/v1/models?limit=1000${after ? `&after_id=${encodeURIComponent(after)}` : ''}`);
    const body = parse(AnthropicPage, await getJson(url, { headers }, signal), url);
    for (const m of body.data) {
      models.push({ id: m.id, ...(m.display_name && m.display_name !== m.id ? { name: m.display_name } : {}), ...(m.max_input_tokens ? { contextWindow: m.max_input_tokens } : {}) });
    }
    if (!body.has_more || !body.last_id || body.last_id === after) break;
    after = body.last_id;
  }
  return models;
}

/** Ollama's native API lives at the server's root, beside the `/v1` it serves OpenAI's shape on. */
export function ollamaRoot(baseUrl: string): string {
  return baseUrl.replace(/\/+$/, '').replace(/\/v1$/, '');
}

/**
 * The window Ollama runs a model with: `num_ctx` when the model's parameters set it (the server cuts
 * the prompt there), else the model's own `<architecture>.context_length`.
 */
function ollamaWindow(show: z.infer<typeof OllamaShow>): number | undefined {
  const numCtx = /(?:^|\n)\s*num_ctx\s+(\d+)/.exec(show.parameters ?? '')?.[1];
  if (numCtx && Number(numCtx) > 0) return Number(numCtx);
  for (const [key, value] of Object.entries(show.model_info ?? {})) {
    if (key.endsWith('.context_length') && typeof value === 'number' && Number.isInteger(value) && value > 0) return value;
  }
  return undefined;
}

async function listOllama(baseUrl: string, key: string | undefined, signal: AbortSignal): Promise<ListedModel[]> {
  const root = ollamaRoot(baseUrl);
  const tagsUrl = `${root}/api/tags`;
  const tags = parse(OllamaTags, await getJson(tagsUrl, { headers: bearer(key) }, signal), tagsUrl);
  const models: ListedModel[] = tags.models.map((m) => ({ id: m.name }));
  // A model whose details cannot be read is still listed, without a window.
  let next = 0;
  const worker = async () => {
    while (next < models.length) {
      const model = models[next++]!;
      const showUrl = `${root}/api/show`;
      try {
        const show = parse(OllamaShow, await getJson(showUrl, { method: 'POST', headers: { 'content-type': 'application/json', ...bearer(key) }, body: JSON.stringify({ model: model.id }) }, signal), showUrl);
        const window = ollamaWindow(show);
        if (window) model.contextWindow = window;
      } catch (error) {
        if (signal.aborted) throw error;
      }
    }
  };
  await Promise.all(Array.from({ length: Math.min(OLLAMA_SHOW_PARALLEL, models.length) }, worker));
  return models;
}

/** The provider's list now; a ModelError (kind auth, retryable, invalid_request or protocol) when it cannot be had. */
export async function fetchModelList(source: ModelListSource, options: FetchListOptions = {}): Promise<ListedModel[]> {
  const timeout = AbortSignal.timeout(options.timeoutMs ?? 15_000);
  const signal = options.signal ? AbortSignal.any([options.signal, timeout]) : timeout;
  switch (source.shape) {
    case 'anthropic':
      return listAnthropic(source.baseUrl, options.apiKey, signal);
    case 'openai':
      return listOpenAI(source.baseUrl, options.apiKey, signal);
    case 'openrouter':
      return listOpenRouter(source.baseUrl, options.apiKey, signal);
    case 'ollama':
      return listOllama(source.baseUrl, options.apiKey, signal);
  }
}
