// C1: how full the model's context window is. The size of the next request is
// the last request's whole input as the API counted it (uncached + cache read +
// cache write) plus an estimate of what was appended since; never a sum over
// past requests. The per-model table gives each model's window and output limit.
import { type Message, type ToolDefinition } from '../types';

export interface ModelLimits {
  contextWindow: number;
  maxOutputTokens: number;
}

export const DEFAULT_AUTO_COMPACT_PERCENT = 85;
/** After a compaction the context should take at most this share of the window. */
export const POST_COMPACTION_PERCENT = 40;

/** What an unknown model (a local server's) is assumed to allow: small, so compaction comes early rather than never. */
export const UNKNOWN_MODEL_LIMITS: ModelLimits = { contextWindow: 32_000, maxOutputTokens: 8_192 };

// First match wins; ids are matched case-insensitively. Windows are the standard
// (non-beta) ones; output limits are the models' own.
const MODEL_TABLE: ReadonlyArray<readonly [RegExp, ModelLimits]> = [
  [/claude-3-opus/, { contextWindow: 200_000, maxOutputTokens: 4_096 }],
  [/claude-3-haiku/, { contextWindow: 200_000, maxOutputTokens: 4_096 }],
  [/claude-3-5-(sonnet|haiku)/, { contextWindow: 200_000, maxOutputTokens: 8_192 }],
  [/claude-3-7-sonnet/, { contextWindow: 200_000, maxOutputTokens: 64_000 }],
  // Opus 4 and 4.1 (with or without a date), not 4.5 and later: `-5` is a version, `-20250514` a date.
  [/claude-opus-4(?!-[2-9](?!\d)|\.[2-9])/, { contextWindow: 200_000, maxOutputTokens: 32_000 }],
  [/claude-(opus|sonnet|haiku)/, { contextWindow: 200_000, maxOutputTokens: 64_000 }],
  [/gpt-4\.1/, { contextWindow: 1_047_576, maxOutputTokens: 32_768 }],
  [/gpt-4o/, { contextWindow: 128_000, maxOutputTokens: 16_384 }],
  [/gpt-5/, { contextWindow: 400_000, maxOutputTokens: 128_000 }],
  [/(^|\/)o[134](-|$)/, { contextWindow: 200_000, maxOutputTokens: 100_000 }],
  [/grok-4/, { contextWindow: 256_000, maxOutputTokens: 32_768 }],
];

/** Undefined for a model the table does not know. */
export function knownModelLimits(model: string): ModelLimits | undefined {
  const id = model.toLowerCase();
  for (const [pattern, limits] of MODEL_TABLE) if (pattern.test(id)) return limits;
  return undefined;
}

export interface LimitOverrides {
  /** `turnstone.contextWindow`: 0 or absent = the table's. */
  contextWindow?: number | undefined;
  /** Cap on output tokens per request: 0 or absent = the model's limit. */
  maxOutputTokens?: number | undefined;
}

export function modelLimits(model: string, overrides: LimitOverrides = {}): { limits: ModelLimits; known: boolean } {
  const known = knownModelLimits(model);
  const base = known ?? UNKNOWN_MODEL_LIMITS;
  const window = positive(overrides.contextWindow) ?? base.contextWindow;
  const cap = positive(overrides.maxOutputTokens);
  // The reply must leave room in the window for at least some input.
  const output = Math.min(cap ?? base.maxOutputTokens, base.maxOutputTokens, Math.floor(window / 2));
  return { limits: { contextWindow: window, maxOutputTokens: output }, known: known !== undefined };
}

function positive(n: number | undefined): number | undefined {
  return n !== undefined && Number.isFinite(n) && n > 0 ? Math.floor(n) : undefined;
}

/** Rough tokens for text the API has not counted yet: ~4 characters a token, rounded up (errs towards compacting early). */
export function estimateTextTokens(chars: number): number {
  return Math.ceil(chars / 4);
}

/** Anthropic's documented cost of an image: width × height / 750 tokens (after its own downscale to ≤ 1568 px). */
export function imageTokens(width: number, height: number): number {
  const scale = Math.min(1, 1568 / Math.max(width, height, 1));
  return Math.ceil((Math.round(width * scale) * Math.round(height * scale)) / 750);
}

// Images count as the characters their tokens would be, so one estimate covers both.
const imageChars = (images: ReadonlyArray<{ width: number; height: number }> | undefined): number =>
  images ? images.reduce((sum, i) => sum + imageTokens(i.width, i.height) * 4, 0) : 0;

export function messageChars(message: Message): number {
  let chars = 0;
  for (const b of message.content) {
    switch (b.type) {
      case 'text':
        chars += b.text.length;
        break;
      case 'image':
        chars += imageChars([b]);
        break;
      case 'tool_result':
        chars += b.content.length + 40 + imageChars(b.images);
        break;
      case 'tool_use':
        chars += JSON.stringify(b.input).length + b.name.length + 40;
        break;
      case 'thinking':
        chars += b.thinking.length + b.signature.length;
        break;
      case 'redacted_thinking':
        chars += b.data.length;
        break;
    }
  }
  return chars + 8;
}

export function historyChars(messages: readonly Message[]): number {
  let chars = 0;
  for (const m of messages) chars += messageChars(m);
  return chars;
}

export function requestChars(system: string, tools: readonly ToolDefinition[], messages: readonly Message[]): number {
  let chars = system.length;
  for (const t of tools) chars += t.name.length + t.description.length + JSON.stringify(t.input_schema).length;
  return chars + historyChars(messages);
}

export interface ContextInfo {
  tokens: number;
  window: number;
  percent: number;
}

/**
 * Measures the context of the next request. `measured()` is told what the API
 * counted for a request and how large the history was then; `estimate()` adds
 * what was appended since. After a compaction there is no measurement until
 * the next request, so the whole request is estimated.
 */
export class ContextMeter {
  private counted: { tokens: number; chars: number } | undefined;

  constructor(private window: number) {}

  /** What the API counted for the last request, if it has been measured since the history last changed shape. */
  get countedTokens(): number | undefined {
    return this.counted?.tokens;
  }

  get contextWindow(): number {
    return this.window;
  }

  setWindow(window: number): void {
    this.window = window;
  }

  /** The API counted `promptTokens` for a request whose history measured `historyCharsAtRequest`. */
  measured(promptTokens: number, historyCharsAtRequest: number): void {
    if (promptTokens > 0) this.counted = { tokens: promptTokens, chars: historyCharsAtRequest };
  }

  /** History was replaced (compaction, shrinking): the last count no longer applies. */
  reset(): void {
    this.counted = undefined;
  }

  /**
   * `chars` is historyChars of the history, which the caller keeps up to date as
   * it appends (no rescan per step); `fixedChars` (system prompt and tools) is
   * only needed when nothing has been counted yet.
   */
  estimate(chars: number, fixedChars: () => number): number {
    if (!this.counted) return estimateTextTokens(fixedChars() + chars);
    const appended = Math.max(0, chars - this.counted.chars);
    return this.counted.tokens + estimateTextTokens(appended);
  }

  info(tokens: number): ContextInfo {
    return { tokens, window: this.window, percent: this.window > 0 ? Math.round((tokens / this.window) * 1000) / 10 : 0 };
  }
}

/** The token count above which the next request compacts first: the absolute override wins, else the share of the window. */
export function compactionThreshold(window: number, percent: number | undefined, absoluteTokens: number | undefined): number {
  if (absoluteTokens !== undefined && Number.isFinite(absoluteTokens) && absoluteTokens > 0) return absoluteTokens;
  const p = percent !== undefined && Number.isFinite(percent) && percent > 0 && percent <= 100 ? percent : DEFAULT_AUTO_COMPACT_PERCENT;
  return Math.floor((window * p) / 100);
}
