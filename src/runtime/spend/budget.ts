// Spend caps (contracts.md "Context and spend", issue 26): before every request
// the engine makes, the loop asks whether sending it could take the turn or the
// session past its cap. "Could": the request is costed at its worst, the whole
// reply limit (max_tokens) at the model's output price, so no reply can carry
// the spend past a cap. If it could, the turn ends cleanly (history valid) with
// kind `budget` and the figures.
import { type ModelPrice } from './usage';

export interface SpendCaps {
  /** `turnstone.maxCostPerTurnUsd` / CLI `--max-cost-usd`; 0 or absent = no cap. */
  perTurnUsd?: number | undefined;
  /** `turnstone.maxCostPerSessionUsd`; 0 or absent = no cap. */
  perSessionUsd?: number | undefined;
}

export const hasCap = (caps: SpendCaps) => (caps.perTurnUsd ?? 0) > 0 || (caps.perSessionUsd ?? 0) > 0;

/** What a request will carry: its input, split by whether the prompt cache already holds it, and its reply limit. */
export interface SpendEstimate {
  model: string;
  /** Input the last request already sent: read from the prompt cache. */
  cachedTokens: number;
  /** Input not yet cached: written to the cache (the dearer rate, to err high). */
  newTokens: number;
  /** The request's max_tokens: reserved in full. */
  maxOutputTokens: number;
}

export interface SpendSoFar {
  turnUsd: number;
  sessionUsd: number;
  /** The worst case of the request about to go (plus what its failed attempts were billed, for a retry). */
  nextUsd: number;
  /** The reply limit that worst case counts, for the message. */
  maxOutputTokens: number;
}

/** The most a request can cost: its input at the cache prices and its whole reply limit at the output price. */
export function worstCaseUsd(price: ModelPrice, estimate: SpendEstimate): number {
  const write = price.cacheWritePerMTok ?? price.inputPerMTok * 1.25;
  const read = price.cacheReadPerMTok ?? price.inputPerMTok * 0.1;
  return (estimate.cachedTokens * read + estimate.newTokens * write + estimate.maxOutputTokens * price.outputPerMTok) / 1_000_000;
}

export const usd = (n: number) => `$${n < 0.01 ? n.toFixed(4) : n.toFixed(2)}`;

/** Which cap stopped a turn and the figures behind it: a UI words its own card from these. */
export interface SpendCapStop {
  cap: 'turn' | 'session';
  capUsd: number;
  /** What the turn (cap `turn`) or the session (cap `session`) has cost so far. */
  spentUsd: number;
  /** The worst case of the request that was not sent. */
  nextUsd: number;
}

/** The cap the next request could pass (with a message naming it and the figures), or undefined when it may go. */
export function budgetExceeded(caps: SpendCaps, spent: SpendSoFar): (SpendCapStop & { message: string }) | undefined {
  const next = `the next request (up to about ${usd(spent.nextUsd)}, counting its ${spent.maxOutputTokens}-token reply limit)`;
  const lower = 'a lower turnstone.maxOutputTokens makes each request\'s reserve smaller';
  const turnCap = caps.perTurnUsd;
  if (turnCap !== undefined && turnCap > 0 && spent.turnUsd + spent.nextUsd > turnCap) {
    return {
      cap: 'turn',
      capUsd: turnCap,
      spentUsd: spent.turnUsd,
      nextUsd: spent.nextUsd,
      message: `Stopped: this turn has cost ${usd(spent.turnUsd)} and ${next} could pass the per-turn cap of ${usd(turnCap)}. Raise the cap (turnstone.maxCostPerTurnUsd or --max-cost-usd) or continue with a new prompt; ${lower}.`,
    };
  }
  const sessionCap = caps.perSessionUsd;
  if (sessionCap !== undefined && sessionCap > 0 && spent.sessionUsd + spent.nextUsd > sessionCap) {
    return {
      cap: 'session',
      capUsd: sessionCap,
      spentUsd: spent.sessionUsd,
      nextUsd: spent.nextUsd,
      message: `Stopped: this session has cost ${usd(spent.sessionUsd)} and ${next} could pass the per-session cap of ${usd(sessionCap)}. Raise turnstone.maxCostPerSessionUsd or start a new session; ${lower}.`,
    };
  }
  return undefined;
}

/** Why a request to a model without a price is refused while a cap is set: a cap it cannot count is no cap. */
export function unpricedCapRefusal(model: string, caps: SpendCaps): string {
  const which = [caps.perTurnUsd ? `${usd(caps.perTurnUsd)} per turn` : '', caps.perSessionUsd ? `${usd(caps.perSessionUsd)} per session` : ''].filter(Boolean).join(', ');
  return `Nothing was sent: no price is known for the model ${model}, so the spend cap (${which}) could not be held. Give its price in turnstone.modelPrices (CLI: --model-prices <file>), e.g. {"${model}": {"input": 2.5, "output": 10}} in US dollars per million tokens, or remove the cap.`;
}
