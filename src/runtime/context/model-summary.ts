// One line about a model for pickers: its context window and price, from the
// same tables the runtime budgets and charges with (context-window.ts, usage.ts).
import { knownModelLimits } from './context-window';
import { priceFor } from '../spend/usage';

const dollars = (n: number) => `$${Number.isInteger(n) ? n : n.toFixed(2)}`;

/** "200k context · $3 / $15 per M tokens (in / out)"; what is unknown (local models) is left out or said. */
export function modelSummary(model: string): string {
  const limits = knownModelLimits(model);
  const price = priceFor(model);
  const window = limits ? `${Math.round(limits.contextWindow / 1000)}k context` : 'context window unknown';
  return price ? `${window} · ${dollars(price.inputPerMTok)} / ${dollars(price.outputPerMTok)} per M tokens (in / out)` : window;
}
