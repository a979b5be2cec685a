// S6: the retry policy both providers share. We own retries (the SDKs' own are
// switched off) so that every retry is visible to the loop as an event and a
// retried step can tell the consumer to discard what it already showed.
import { AbortedError } from '../cancellation';
import { ModelError } from '../types';

export interface RetryOptions {
  /** Retries after the first attempt (default 5). */
  maxRetries?: number;
  /** First backoff is drawn from [base, 5×base] ms (default 200: "~200 ms–1 s"), doubling per retry. 0 disables waiting (tests). */
  baseDelayMs?: number;
  /** Upper bound of a computed backoff (default 30 s). */
  maxDelayMs?: number;
  /** A server asking us to wait longer than this is not waited for: the error is thrown with `retryAfterMs` (default 60 s). */
  maxRetryAfterMs?: number;
  /** Injected for deterministic jitter in tests. */
  random?: () => number;
}

export type ResolvedRetry = Required<RetryOptions>;

export function resolveRetry(o: RetryOptions = {}): ResolvedRetry {
  return {
    maxRetries: o.maxRetries ?? 5,
    baseDelayMs: o.baseDelayMs ?? 200,
    maxDelayMs: o.maxDelayMs ?? 30_000,
    maxRetryAfterMs: o.maxRetryAfterMs ?? 60_000,
    random: o.random ?? Math.random,
  };
}

/** Backoff before retry number `attempt` (1-based): exponential with full jitter inside a 1:5 band. */
export function backoffDelay(attempt: number, policy: ResolvedRetry): number {
  const scale = 2 ** (attempt - 1);
  const low = policy.baseDelayMs * scale;
  return Math.min(policy.maxDelayMs, Math.round(low + policy.random() * 4 * low));
}

/** Reads `retry-after-ms`, then `retry-after` (seconds or an HTTP date). Undefined when absent or unparsable. */
export function parseRetryAfter(headers: { get(name: string): string | null } | undefined, now = Date.now()): number | undefined {
  if (!headers) return undefined;
  const ms = headers.get('retry-after-ms');
  if (ms !== null && ms.trim() !== '' && Number.isFinite(Number(ms))) return Math.max(0, Number(ms));
  const value = headers.get('retry-after');
  if (value === null || value.trim() === '') return undefined;
  const seconds = Number(value);
  if (Number.isFinite(seconds)) return Math.max(0, seconds * 1000);
  const date = Date.parse(value);
  return Number.isNaN(date) ? undefined : Math.max(0, date - now);
}

export const REQUEST_ABORTED = 'The request was aborted.';

/** Resolves after `ms`, or rejects with AbortedError as soon as `signal` fires. */
export function sleep(ms: number, signal: AbortSignal): Promise<void> {
  if (signal.aborted) return Promise.reject(new AbortedError(REQUEST_ABORTED));
  if (ms <= 0) return Promise.resolve();
  return new Promise((resolve, reject) => {
    const onAbort = () => {
      clearTimeout(timer);
      reject(new AbortedError(REQUEST_ABORTED));
    };
    const timer = setTimeout(() => {
      signal.removeEventListener('abort', onAbort);
      resolve();
    }, ms);
    signal.addEventListener('abort', onAbort, { once: true });
  });
}

const CONTEXT_OVERFLOW =
  /prompt is too long|context window|context length|context_length|maximum context|too many (input )?tokens|exceeds? (the )?(model'?s? )?(maximum )?context|input is too long/i;

export const looksLikeContextOverflow = (message: string) => CONTEXT_OVERFLOW.test(message);

const RETRYABLE_CODES = new Set([
  'ECONNRESET',
  'ECONNREFUSED',
  'ECONNABORTED',
  'EPIPE',
  'ETIMEDOUT',
  'EAI_AGAIN',
  'ENETUNREACH',
  'EHOSTUNREACH',
  'UND_ERR_SOCKET',
  'UND_ERR_CLOSED',
  'UND_ERR_CONNECT_TIMEOUT',
  'UND_ERR_HEADERS_TIMEOUT',
  'UND_ERR_BODY_TIMEOUT',
]);

/** Network-level failures as Node/undici raise them mid-body (`TypeError: terminated`, ECONNRESET…), looking through `cause`. */
export function isConnectionError(err: unknown): boolean {
  for (let e: unknown = err, depth = 0; e && depth < 5; depth++) {
    const x = e as { name?: unknown; message?: unknown; code?: unknown; cause?: unknown };
    if (typeof x.code === 'string' && RETRYABLE_CODES.has(x.code)) return true;
    if (x.name === 'TypeError' && (x.message === 'terminated' || x.message === 'fetch failed')) return true;
    if (x.name === 'APIConnectionError' || x.name === 'APIConnectionTimeoutError') return true;
    if (x.message === 'other side closed' || x.message === 'socket hang up') return true;
    e = x.cause;
  }
  return false;
}

/** The first system error code (ECONNREFUSED, UND_ERR_SOCKET…) in an error's cause chain. */
function connectionCode(err: unknown): string | undefined {
  for (let e: unknown = err, depth = 0; e && depth < 6; depth++) {
    const x = e as { code?: unknown; cause?: unknown; errors?: unknown };
    if (typeof x.code === 'string' && /^[A-Z][A-Z_]+$/.test(x.code)) return x.code;
    // happy-eyeballs connects fail with an AggregateError of one error per address.
    if (Array.isArray(x.errors) && x.errors.length > 0) e = x.errors[0];
    else e = x.cause;
  }
  return undefined;
}

interface HttpErrorLike {
  status?: number;
  headers?: { get(name: string): string | null };
  message?: string;
  requestID?: string | null;
  request_id?: string | null;
  /** Parsed body: Anthropic `{type:'error', error:{type,message}}`, OpenAI `{message,type,code}`. */
  error?: unknown;
}

function bodyErrorType(body: unknown): string | undefined {
  if (!body || typeof body !== 'object') return undefined;
  const b = body as { type?: unknown; error?: { type?: unknown } };
  if (b.error && typeof b.error.type === 'string') return b.error.type;
  return typeof b.type === 'string' && b.type !== 'error' ? b.type : undefined;
}

/** Where each provider's key comes from, so a rejected key says how to replace it (the CLI has no other hint). */
const KEY_HINTS: Record<string, string> = {
  anthropic: 'check the API key: set ANTHROPIC_API_KEY or store one with "Turnstone: Set API Key"',
  'openai-compatible': 'check the API key: set OPENAI_API_KEY to a key the server accepts',
  openai: 'check the API key: set OPENAI_API_KEY or store one with "Turnstone: Set API Key"',
  bedrock: 'check the AWS credentials (AWS_PROFILE, AWS_ACCESS_KEY_ID / AWS_SECRET_ACCESS_KEY, ~/.aws) and that they may invoke the model in this region',
  vertex: 'check the Google credentials (`gcloud auth application-default login` or GOOGLE_APPLICATION_CREDENTIALS) and that they may use the model in this project',
};

/** 401/403 and auth error events: the message ends with how to set a key. */
export function authError(provider: string, message: string, details: ModelError['details'] = {}): ModelError {
  const hint = KEY_HINTS[provider] ?? 'check the API key';
  return new ModelError('auth', `${message} (${hint})`, details);
}

/** Exception frames of Bedrock's event stream (as its SDK names them) that a later attempt can get past. */
const BEDROCK_TRANSIENT_EXCEPTIONS = new Set(['throttlingException', 'serviceUnavailableException', 'internalServerException', 'modelStreamErrorException']);

const NOT_RETRYABLE_STREAM_ERRORS = new Set(['invalid_request_error', 'authentication_error', 'permission_error', 'not_found_error', 'billing_error']);

/**
 * An `error` event inside a 200 stream (S6): retried, unless its type says a
 * retry cannot help.
 */
export function streamErrorEvent(provider: string, type: string | undefined, message: string, details: ModelError['details'] = {}): ModelError {
  const msg = `${provider}: ${message}`;
  // Bedrock's "Too many tokens, please wait" is a throttle, not an overlong prompt.
  if (type && BEDROCK_TRANSIENT_EXCEPTIONS.has(type)) return new ModelError('retryable', `${provider}: error event in stream: ${message}`, details);
  if (type === 'authentication_error' || type === 'permission_error') return authError(provider, msg, details);
  if (looksLikeContextOverflow(message)) return new ModelError('context_overflow', msg, details);
  if (type && NOT_RETRYABLE_STREAM_ERRORS.has(type)) return new ModelError('invalid_request', msg, details);
  return new ModelError('retryable', `${provider}: error event in stream: ${message}`, details);
}

/** Parses the data of an SSE `error` event ({type:'error', error:{type,message}}) into a ModelError. */
export function streamErrorFromData(provider: string, data: string): ModelError {
  let body: unknown;
  try {
    body = JSON.parse(data);
  } catch {
    body = undefined;
  }
  const error = (body as { error?: { type?: unknown; message?: unknown } } | undefined)?.error;
  const type = typeof error?.type === 'string' ? error.type : undefined;
  const message = typeof error?.message === 'string' ? error.message : data;
  return streamErrorEvent(provider, type, type ? `${type}: ${message}` : message);
}

/**
 * Maps anything an SDK call or stream read can throw to a ModelError whose kind
 * decides what happens next. Status-less API errors are `error` events sent
 * inside a 200 stream.
 */
export function classifyError(err: unknown, provider: string): ModelError {
  if (err instanceof ModelError) return err;
  const e = (err ?? {}) as HttpErrorLike & Error;
  const apiMessage = (e as { apiMessage?: unknown }).apiMessage;
  const rawMessage =
    typeof apiMessage === 'string' && apiMessage !== ''
      ? `${typeof e.status === 'number' ? `${e.status} ` : ''}${apiMessage}`
      : typeof e.message === 'string'
        ? e.message
        : String(err);
  const requestId = (e.requestID ?? e.request_id ?? e.headers?.get?.('request-id') ?? e.headers?.get?.('x-request-id')) || undefined;
  const status = typeof e.status === 'number' ? e.status : undefined;
  const details = { ...(status !== undefined ? { status } : {}), ...(requestId ? { requestId } : {}), cause: err };
  const msg = `${provider}: ${rawMessage}`;

  if (status !== undefined) {
    const retryAfterMs = parseRetryAfter(e.headers);
    const withRetry = retryAfterMs !== undefined ? { ...details, retryAfterMs } : details;
    const shouldRetry = e.headers?.get?.('x-should-retry');
    if (status === 401 || status === 403) return authError(provider, msg, details);
    if ((status === 400 || status === 413) && looksLikeContextOverflow(rawMessage)) return new ModelError('context_overflow', msg, details);
    if (shouldRetry === 'true') return new ModelError('retryable', msg, withRetry);
    if (shouldRetry === 'false') return new ModelError('invalid_request', msg, details);
    if (status === 408 || status === 409 || status === 429 || status >= 500) return new ModelError('retryable', msg, withRetry);
    return new ModelError('invalid_request', msg, details);
  }
  if (e.name === 'APIError' || (e.error !== undefined && e.name !== 'APIConnectionError')) {
    return streamErrorEvent(provider, bodyErrorType(e.error), rawMessage, details);
  }
  if (isConnectionError(err)) {
    // The SDK says only "Connection error."; the system code (ECONNREFUSED, ENOTFOUND…) is what tells a user where to look.
    const code = connectionCode(err);
    const suffix = code && !rawMessage.includes(code) ? ` (${code})` : '';
    return new ModelError('retryable', `${provider}: connection lost: ${rawMessage}${suffix}`, details);
  }
  // A frame that is not JSON means the stream was mangled in transit; a fresh attempt fixes it.
  if (err instanceof SyntaxError) return new ModelError('retryable', `${provider}: malformed stream frame: ${rawMessage}`, details);
  return new ModelError('protocol', msg, details);
}

/**
 * A function call's arguments that do not parse though the model sent some: the stream was cut inside them.
 * Both OpenAI providers retry such a step unless the reply stopped at the output limit (wave 2's rule).
 */
export function argumentsCut(args: string): boolean {
  if (args === '') return false;
  try {
    JSON.parse(args);
    return false;
  } catch {
    return true;
  }
}
