// C4: token usage per step and cumulative, and an estimated cost from a price
// table keyed by model family. Prices are estimates for display; a host may
// override any family (or an exact model id) from settings.
import { emptyUsage, type Usage } from './types';

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

/** Undefined when nothing is known about the model (local models): cost is then reported as 0. */
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
  stepCostUsd: number;
  costUsd: number;
}

export class UsageTracker {
  private readonly total: Usage;
  private totalCost = 0;
  private price_: ModelPrice | undefined;

  constructor(
    model: string,
    private readonly prices: PriceTable = {},
    initial: Usage = emptyUsage(),
  ) {
    this.total = { ...initial };
    this.price_ = priceFor(model, prices);
    this.totalCost = costUsd(initial, this.price_);
  }

  setModel(model: string): void {
    this.price_ = priceFor(model, this.prices);
  }

  record(step: Usage): UsageRecord {
    const stepCostUsd = costUsd(step, this.price_);
    const t = this.total;
    t.input_tokens += step.input_tokens;
    t.output_tokens += step.output_tokens;
    t.cache_creation_input_tokens += step.cache_creation_input_tokens;
    t.cache_read_input_tokens += step.cache_read_input_tokens;
    this.totalCost += stepCostUsd;
    return { step, cumulative: { ...t }, stepCostUsd, costUsd: this.totalCost };
  }

  get cumulative(): Usage {
    return { ...this.total };
  }

  get costUsd(): number {
    return this.totalCost;
  }

  get price(): ModelPrice | undefined {
    return this.price_;
  }
}
