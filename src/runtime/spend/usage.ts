// C4: token usage per step and cumulative, and an estimated cost from a price
// table keyed by model family. Prices are estimates for display; a host may
// override any family (or an exact model id) from settings.
import { emptyUsage, type Usage } from '../types';

/** US dollars per million tokens. Cache prices default to 1.25× (write) and 0.1× (read) of input. */
export interface ModelPrice {
  inputPerMTok: number;
  outputPerMTok: number;
  cacheWritePerMTok?: number;
  cacheReadPerMTok?: number;
}

export type ModelFamily = 'opus' | 'sonnet' | 'haiku';

/** Keys are families (`opus`, `sonnet`, `haiku`) or exact model ids; an exact id wins. */
export type PriceTable = Record<string, ModelPrice>;

export const DEFAULT_PRICES: Readonly<Record<ModelFamily, ModelPrice>> = {
  opus: { inputPerMTok: 5, outputPerMTok: 25 },
  sonnet: { inputPerMTok: 3, outputPerMTok: 15 },
  haiku: { inputPerMTok: 1, outputPerMTok: 5 },
};

export function modelFamily(model: string): ModelFamily | undefined {
  const id = model.toLowerCase();
  if (id.includes('opus')) return 'opus';
  if (id.includes('sonnet')) return 'sonnet';
  if (id.includes('haiku')) return 'haiku';
  return undefined;
}

/** Undefined when nothing is known about the model (local models): its cost is then unknown, not 0. */
export function priceFor(model: string, overrides: PriceTable = {}): ModelPrice | undefined {
  const exact = overrides[model];
  if (exact) return exact;
  const family = modelFamily(model);
  if (!family) return undefined;
  return overrides[family] ?? DEFAULT_PRICES[family];
}

export function costUsd(usage: Usage, price: ModelPrice | undefined): number {
  if (!price) return 0;
  const write = price.cacheWritePerMTok ?? price.inputPerMTok * 1.25;
  const read = price.cacheReadPerMTok ?? price.inputPerMTok * 0.1;
  return (
    (usage.input_tokens * price.inputPerMTok +
      usage.output_tokens * price.outputPerMTok +
      usage.cache_creation_input_tokens * write +
      usage.cache_read_input_tokens * read) /
    1_000_000
  );
}

export function addUsage(a: Usage, b: Usage): Usage {
  return {
    input_tokens: a.input_tokens + b.input_tokens,
    output_tokens: a.output_tokens + b.output_tokens,
    cache_creation_input_tokens: a.cache_creation_input_tokens + b.cache_creation_input_tokens,
    cache_read_input_tokens: a.cache_read_input_tokens + b.cache_read_input_tokens,
  };
}

export function subtractUsage(a: Usage, b: Usage): Usage {
  return {
    input_tokens: a.input_tokens - b.input_tokens,
    output_tokens: a.output_tokens - b.output_tokens,
    cache_creation_input_tokens: a.cache_creation_input_tokens - b.cache_creation_input_tokens,
    cache_read_input_tokens: a.cache_read_input_tokens - b.cache_read_input_tokens,
  };
}

/** Everything the model read as input in one request, cached or not. */
export const promptTokens = (u: Usage) => u.input_tokens + u.cache_creation_input_tokens + u.cache_read_input_tokens;

export interface UsageRecord {
  step: Usage;
  cumulative: Usage;
  /** This request's cost at its own model's price; null when no price is known for that model. */
  stepCostUsd: number | null;
  /** The session's cost so far: the sum of what each priced request cost. */
  costUsd: number;
  /** Requests of the session whose model had no price: while any, `costUsd` is not the whole cost. */
  unpricedRequests: number;
}

/** What a session file says it cost, and at which cumulative usage that was said (see loadSession). */
export interface SavedCost {
  usd: number;
  unpricedRequests: number;
  /** The cumulative usage the cost belongs to; usage recorded after it (an older file) is priced on resume. */
  usage: Usage;
}

const isZero = (u: Usage) => u.input_tokens + u.output_tokens + u.cache_creation_input_tokens + u.cache_read_input_tokens === 0;

/**
 * C4: costs are facts. Each request is priced once, at its own model's price,
 * when it is recorded; the session's cost is the sum, carried across a resume
 * as it was saved (resuming on another model must not re-price the past).
 */
export class UsageTracker {
  private readonly total: Usage;
  private totalCost = 0;
  private unpriced = 0;
  private model: string;

  constructor(
    model: string,
    private prices: PriceTable = {},
    initial: Usage = emptyUsage(),
    saved?: SavedCost,
  ) {
    this.model = model;
    this.total = { ...initial };
    // Usage the file has no cost for (a session written before costs were saved, or after the last saved cost).
    const unsaved = saved ? subtractUsage(initial, saved.usage) : initial;
    const price = priceFor(model, prices);
    this.totalCost = (saved?.usd ?? 0) + costUsd(unsaved, price);
    this.unpriced = (saved?.unpricedRequests ?? 0) + (!price && !isZero(unsaved) ? 1 : 0);
  }

  /** A turn's model and prices (its context); what was already charged keeps the price it had. */
  configure(model: string, prices: PriceTable = {}): void {
    this.model = model;
    this.prices = prices;
  }

  /** Prices a request at `model`'s price (default: the session's current model). */
  record(step: Usage, model: string = this.model): UsageRecord {
    const price = priceFor(model, this.prices);
    const stepCostUsd = price ? costUsd(step, price) : null;
    const t = this.total;
    t.input_tokens += step.input_tokens;
    t.output_tokens += step.output_tokens;
    t.cache_creation_input_tokens += step.cache_creation_input_tokens;
    t.cache_read_input_tokens += step.cache_read_input_tokens;
    if (stepCostUsd === null) this.unpriced++;
    else this.totalCost += stepCostUsd;
    return { step, cumulative: { ...t }, stepCostUsd, costUsd: this.totalCost, unpricedRequests: this.unpriced };
  }

  /** What `usage` would cost at `model`'s price; undefined when no price is known. */
  costOf(usage: Usage, model: string = this.model): number | undefined {
    const price = priceFor(model, this.prices);
    return price ? costUsd(usage, price) : undefined;
  }

  priceOf(model: string = this.model): ModelPrice | undefined {
    return priceFor(model, this.prices);
  }

  get cumulative(): Usage {
    return { ...this.total };
  }

  get costUsd(): number {
    return this.totalCost;
  }

  get unpricedRequests(): number {
    return this.unpriced;
  }
}
