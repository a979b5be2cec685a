// A model's context window and price for a turn, from three places in order:
// the user's settings (`turnstone.contextWindow`, `turnstone.modelPrices`, the
// CLI's --model-prices), then what the provider's live list reports, then the
// built-in tables (context-window.ts, usage.ts), which the loop consults for
// whatever is still unset.
import { modelFamily, type PriceTable } from '../spend/usage';
import { type ListedModel } from './model-lists';

export interface TurnModelFacts {
  /** 0: the built-in table's window (or the unknown-model default). */
  contextWindow: number;
  prices: PriceTable;
}

export function withLiveFacts(model: string, live: ListedModel | undefined, settings: TurnModelFacts): TurnModelFacts {
  const contextWindow = settings.contextWindow > 0 ? settings.contextWindow : (live?.contextWindow ?? 0);
  // A settings price for the model or for its family (`sonnet`) is the user's word, above any list.
  const family = modelFamily(model);
  const priced = settings.prices[model] !== undefined || (family !== undefined && settings.prices[family] !== undefined);
  const prices = live?.price && !priced ? { ...settings.prices, [model]: live.price } : settings.prices;
  return { contextWindow, prices };
}
