// The editor's models are paid by the user's subscription (Copilot's, say), not
// per token: priced at zero so spend caps and the footer know the cost, which the
// panel then shows as "included" rather than $0 or unknown.
import { type PriceTable } from '../../runtime/spend/usage';

export function includedPrices(...models: string[]): PriceTable {
  const zero = { inputPerMTok: 0, outputPerMTok: 0, cacheReadPerMTok: 0, cacheWritePerMTok: 0 };
  return Object.fromEntries(models.map((m) => [m, zero]));
}
