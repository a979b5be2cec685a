// `turnstone.modelPrices` / CLI `--model-prices <file>` (contracts.md "Prices"):
// `{ "<model id>": {"input", "output", "cacheRead", "cacheWrite"} }` in US
// dollars per million tokens, overriding the built-in table (usage.ts). Local
// and third-party models have no built-in price; without one a spend cap cannot
// be enforced and the cost is reported as unknown.
import { z } from 'zod';
import { type PriceTable } from './usage';

const Dollars = z.number().finite().nonnegative();

const PriceEntry = z.strictObject({
  input: Dollars,
  output: Dollars,
  cacheRead: Dollars.optional(),
  cacheWrite: Dollars.optional(),
});

export interface ParsedPrices {
  prices: PriceTable;
  /** One line per entry that was left out, saying why. */
  problems: string[];
}

/** Reads the setting's value; a bad entry is left out with a problem naming it, the others still apply. */
export function parseModelPrices(value: unknown, source = 'turnstone.modelPrices'): ParsedPrices {
  const prices: PriceTable = {};
  const problems: string[] = [];
  if (value === undefined || value === null) return { prices, problems };
  if (typeof value !== 'object' || Array.isArray(value)) {
    return { prices, problems: [`${source} must be an object of model ids, e.g. {"gpt-4o": {"input": 2.5, "output": 10}}`] };
  }
  for (const [model, entry] of Object.entries(value)) {
    const parsed = PriceEntry.safeParse(entry);
    if (!parsed.success) {
      const issue = parsed.error.issues[0];
      const where = issue?.path.length ? ` (${issue.path.join('.')})` : '';
      problems.push(`${source}: the price of ${model} was left out${where}: ${issue?.message ?? 'not a price'}; give {"input": n, "output": n, "cacheRead"?: n, "cacheWrite"?: n} in US dollars per million tokens`);
      continue;
    }
    const p = parsed.data;
    prices[model] = {
      inputPerMTok: p.input,
      outputPerMTok: p.output,
      ...(p.cacheRead !== undefined ? { cacheReadPerMTok: p.cacheRead } : {}),
      ...(p.cacheWrite !== undefined ? { cacheWritePerMTok: p.cacheWrite } : {}),
    };
  }
  return { prices, problems };
}
