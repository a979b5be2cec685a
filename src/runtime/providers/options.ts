// Options of the model clients. Kept apart from the provider modules so the host can
// name them without loading an SDK (the SDKs are imported lazily, see index.ts).
import { type RetryOptions } from './retry';

/** An API key, or a function asked before every request (lets the host refresh a key from SecretStorage, T6). */
export type ApiKeySource = string | (() => Promise<string>);

interface CommonOptions {
  /** Empty/undefined: the provider's environment variable (see resolve*Env), else the provider default. */
  baseURL?: string;
  apiKey?: ApiKeySource;
  /** S6 retry budget and backoff. */
  retry?: RetryOptions;
  /** S4: first-event deadline after tool results (default 10 000 ms). */
  stallTimeoutMs?: number;
  /** A stream silent this long mid-reply is treated as a lost connection and retried (default 180 000 ms). */
  idleTimeoutMs?: number;
  /** Timeout of a non-streaming request (S5 fallback, `complete`); the SDK refuses large max_tokens without one (default 600 000 ms). */
  requestTimeoutMs?: number;
  /** Extra headers on every request (gateways, proxies). */
  headers?: Record<string, string>;
}

export type AnthropicClientOptions = CommonOptions;

export interface OpenAICompatibleOptions extends CommonOptions {
  /** Ask the server for a trailing usage chunk (`stream_options.include_usage`); turn off for servers that reject it. Default true. */
  includeUsage?: boolean;
}

/** OpenAI's Responses API (`openai`): key OPENAI_API_KEY, base URL OPENAI_BASE_URL (default https://api.openai.com/v1). */
export type OpenAIResponsesOptions = CommonOptions;

/** Claude on Amazon Bedrock: signed with AWS's credential chain, never a key of ours (cloud-config.ts resolves the rest). */
export interface BedrockClientOptions extends Omit<CommonOptions, 'apiKey'> {
  /** turnstone.bedrock.region; empty: AWS_REGION, then AWS_DEFAULT_REGION. */
  region?: string;
}

/** Claude on Google Vertex AI: Google's application default credentials. */
export interface VertexClientOptions extends Omit<CommonOptions, 'apiKey'> {
  /** turnstone.vertex.region; empty: CLOUD_ML_REGION, then GOOGLE_CLOUD_LOCATION. */
  region?: string;
  /** turnstone.vertex.projectId; empty: ANTHROPIC_VERTEX_PROJECT_ID, GOOGLE_CLOUD_PROJECT, GCLOUD_PROJECT, then the credentials' own project. */
  projectId?: string;
}

export type ModelClientOptions =
  | ({ provider: 'anthropic' } & AnthropicClientOptions)
  | ({ provider: 'openai-compatible' } & OpenAICompatibleOptions)
  | ({ provider: 'openai' } & OpenAIResponsesOptions)
  | ({ provider: 'bedrock' } & BedrockClientOptions)
  | ({ provider: 'vertex' } & VertexClientOptions);

export type ProviderName = ModelClientOptions['provider'];

type Env = Record<string, string | undefined>;

const nonEmpty = (v: string | undefined) => (v && v.trim() !== '' ? v.trim() : undefined);

/** The contract's environment defaults for Anthropic: ANTHROPIC_BASE_URL, ANTHROPIC_API_KEY. */
export function resolveAnthropicEnv(env: Env = process.env): { baseURL?: string; apiKey?: string } {
  const baseURL = nonEmpty(env['ANTHROPIC_BASE_URL']);
  const apiKey = nonEmpty(env['ANTHROPIC_API_KEY']);
  return { ...(baseURL ? { baseURL } : {}), ...(apiKey ? { apiKey } : {}) };
}

/** The contract's environment defaults for OpenAI and OpenAI-compatible servers: OPENAI_BASE_URL, OPENAI_API_KEY. */
export function resolveOpenAIEnv(env: Env = process.env): { baseURL?: string; apiKey?: string } {
  const baseURL = nonEmpty(env['OPENAI_BASE_URL']);
  const apiKey = nonEmpty(env['OPENAI_API_KEY']);
  return { ...(baseURL ? { baseURL } : {}), ...(apiKey ? { apiKey } : {}) };
}

export const DEFAULT_STALL_TIMEOUT_MS = 10_000;
export const DEFAULT_IDLE_TIMEOUT_MS = 180_000;
export const DEFAULT_REQUEST_TIMEOUT_MS = 600_000;
