// Spend caps (contracts.md "Context and spend"): before each request the loop
// asks whether sending it could pass the turn's or the session's cap; if so the
// turn ends cleanly (history valid) with kind `budget` and the figures.
import { type ModelPrice } from './usage';

export interface SpendCaps {
  /** `turnstone.maxCostPerTurnUsd` / CLI `--max-cost-usd`; 0 or absent = no cap. */
  perTurnUsd?: number | undefined;
  /** `turnstone.maxCostPerSessionUsd`; 0 or absent = no cap. */
  perSessionUsd?: number | undefined;
}

export interface SpendSoFar {
  turnUsd: number;
  sessionUsd: number;
  /** What the next request is expected to cost. */
  nextUsd: number;
}

/**
 * The expected cost of the next request: the part of the context the last
 * request already sent is read from the prompt cache, the rest is written to
 * it, and the reply is assumed as long as the last one.
 */
export function estimateNextRequestUsd(price: ModelPrice | undefined, cachedTokens: number, newTokens: number, outputTokens: number): number {
  if (!price) return 0;
  const write = price.cacheWritePerMTok ?? price.inputPerMTok * 1.25;
  const read = price.cacheReadPerMTok ?? price.inputPerMTok * 0.1;
  return (cachedTokens * read + newTokens * write + outputTokens * price.outputPerMTok) / 1_000_000;
}

export const usd = (n: number) => `$${n < 0.01 ? n.toFixed(4) : n.toFixed(2)}`;

/** Which cap stopped a turn and the figures behind it: a UI words its own card from these. */
export interface SpendCapStop {
  cap: 'turn' | 'session';
  capUsd: number;
  /** What the turn (cap `turn`) or the session (cap `session`) has cost so far. */
  spentUsd: number;
  /** The estimate of the request that was not sent. */
  nextUsd: number;
}

/** The cap the next request would pass (with a message naming it and the figures), or undefined when it may go. */
export function budgetExceeded(caps: SpendCaps, spent: SpendSoFar): (SpendCapStop & { message: string }) | undefined {
  const turnCap = caps.perTurnUsd;
  if (turnCap !== undefined && turnCap > 0 && spent.turnUsd + spent.nextUsd > turnCap) {
    return {
      cap: 'turn',
      capUsd: turnCap,
      spentUsd: spent.turnUsd,
      nextUsd: spent.nextUsd,
      message: `Stopped: this turn has cost ${usd(spent.turnUsd)} and the next request (about ${usd(spent.nextUsd)}) would pass the per-turn cap of ${usd(turnCap)}. Raise the cap (turnstone.maxCostPerTurnUsd or --max-cost-usd) or continue with a new prompt.`,
    };
  }
  const sessionCap = caps.perSessionUsd;
  if (sessionCap !== undefined && sessionCap > 0 && spent.sessionUsd + spent.nextUsd > sessionCap) {
    return {
      cap: 'session',
      capUsd: sessionCap,
      spentUsd: spent.sessionUsd,
      nextUsd: spent.nextUsd,
      message: `Stopped: this session has cost ${usd(spent.sessionUsd)} and the next request (about ${usd(spent.nextUsd)}) would pass the per-session cap of ${usd(sessionCap)}. Raise turnstone.maxCostPerSessionUsd or start a new session.`,
    };
  }
  return undefined;
}
