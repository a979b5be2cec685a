// Presets of the OpenAI-compatible provider (issue 31): the servers people
// point it at, each with its base URL, the environment variable its key is read
// from (none for a local server) and the shape of its model list. Declared once:
// the picker offers them, a `turnstone.baseUrl` that matches one picks up its key
// variable and listing, and the README's table is this one.

/**
 * How a server lists its models:
 * - `openai`: `GET {base}/models` (`{data: [{id}]}`; some add a window: vLLM `max_model_len`, Groq `context_window`, Mistral `max_context_length`);
 * - `openrouter`: the same path, each model with `context_length` and `pricing` in US dollars per token;
 * - `ollama`: `GET /api/tags` for the names, `POST /api/show` per model for its context length.
 */
export type ModelListShape = 'openai' | 'openrouter' | 'ollama';

/** Where a list comes from. No key is kept with it: it is given for the fetch only. */
export type ModelListSource = { shape: 'anthropic'; baseUrl?: string | undefined } | { shape: ModelListShape; baseUrl: string };

export interface ProviderPreset {
  id: string;
  label: string;
  /** The OpenAI-compatible root (what `turnstone.baseUrl` holds), without a trailing slash. */
  baseUrl: string;
  /** Where the key is read from besides SecretStorage; undefined: a local server that needs none. */
  keyVariable?: string;
  listing: ModelListShape;
}

export const PROVIDER_PRESETS: readonly ProviderPreset[] = [
  { id: 'openrouter', label: 'OpenRouter', baseUrl: 'https://openrouter.ai/api/v1', keyVariable: 'OPENROUTER_API_KEY', listing: 'openrouter' },
  { id: 'ollama', label: 'Ollama', baseUrl: 'http://localhost:11434/v1', listing: 'ollama' },
  { id: 'lmstudio', label: 'LM Studio', baseUrl: 'http://localhost:1234/v1', listing: 'openai' },
  { id: 'vllm', label: 'vLLM', baseUrl: 'http://localhost:8000/v1', listing: 'openai' },
  { id: 'deepseek', label: 'DeepSeek', baseUrl: 'https://api.deepseek.com/v1', keyVariable: 'DEEPSEEK_API_KEY', listing: 'openai' },
  { id: 'groq', label: 'Groq', baseUrl: 'https://api.groq.com/openai/v1', keyVariable: 'GROQ_API_KEY', listing: 'openai' },
  { id: 'mistral', label: 'Mistral', baseUrl: 'https://api.mistral.ai/v1', keyVariable: 'MISTRAL_API_KEY', listing: 'openai' },
  { id: 'xai', label: 'xAI', baseUrl: 'https://api.x.ai/v1', keyVariable: 'XAI_API_KEY', listing: 'openai' },
  { id: 'gemini', label: 'Gemini (OpenAI endpoint)', baseUrl: 'https://generativelanguage.googleapis.com/v1beta/openai', keyVariable: 'GEMINI_API_KEY', listing: 'openai' },
];

/** A URL for messages: no user name, password or query (they can hold a key). */
export function displayUrl(url: string): string {
  try {
    const u = new URL(url);
    return `${u.protocol}//${u.host}${u.pathname}`;
  } catch {
    return '(an invalid URL)';
  }
}

/** A base URL as compared: no trailing slashes, `localhost` and `127.0.0.1` alike, case-insensitive host. */
export function normalizeBaseUrl(url: string): string {
  const trimmed = url.trim().replace(/\/+$/, '');
  try {
    const u = new URL(trimmed);
    const host = u.hostname === '127.0.0.1' || u.hostname === '[::1]' ? 'localhost' : u.hostname.toLowerCase();
    return `${u.protocol}//${host}${u.port ? `:${u.port}` : ''}${u.pathname.replace(/\/+$/, '')}`;
  } catch {
    return trimmed;
  }
}

/** The preset whose base URL this is (a user's own `turnstone.baseUrl` included), if any. */
export function presetForBaseUrl(baseUrl: string | undefined): ProviderPreset | undefined {
  if (!baseUrl?.trim()) return undefined;
  const url = normalizeBaseUrl(baseUrl);
  return PROVIDER_PRESETS.find((p) => normalizeBaseUrl(p.baseUrl) === url);
}

export function presetById(id: string): ProviderPreset | undefined {
  return PROVIDER_PRESETS.find((p) => p.id === id);
}

/** Where the `openai` provider (the Responses API) sends requests when no base URL is set. */
export const OPENAI_API_BASE_URL = 'https://api.openai.com/v1';

/**
 * Where the provider in use lists its models: Anthropic's list, OpenAI's (or the proxy's the `openai` provider
 * is pointed at), or the OpenAI-compatible server's (a preset's own shape when the base URL is one). Undefined
 * when there is nothing to ask (no server configured, or a provider without a list here yet: a provider added
 * later adds its case).
 */
export function listSourceFor(provider: string, baseUrl: string | undefined): ModelListSource | undefined {
  const base = baseUrl?.trim() || undefined;
  switch (provider) {
    case 'anthropic':
      return { shape: 'anthropic', baseUrl: base };
    case 'openai':
      return { shape: 'openai', baseUrl: base ?? OPENAI_API_BASE_URL };
    case 'openai-compatible':
      return base ? { shape: presetForBaseUrl(base)?.listing ?? 'openai', baseUrl: base } : undefined;
    default:
      return undefined;
  }
}
