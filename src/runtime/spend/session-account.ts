// What the session has spent, and the one place a request is charged (C4) or held to a cap (issue 26):
// the loop says when a request happened; this says what it cost and whether the next one may go.
import { budgetExceeded, hasCap, unpricedCapRefusal, worstCaseUsd, type SpendCaps, type SpendEstimate } from './budget';
import { estimateTextTokens, requestChars, type ContextMeter } from '../context/context-window';
import { RuntimeError } from '../errors';
import { type RuntimeEvent } from '../events';
import { maxTokensOf } from '../request-limits';
import { type CostRecord, type Transcript } from '../session/transcript';
import { spendGated, type ReleaseSpend } from './spend-gate';
import { type ModelClient, type ModelRequest, type Usage } from '../types';
import { costUsd, promptTokens, UsageTracker, type PriceTable, type SavedCost } from './usage';

/** The session's cumulative usage and cost, as saved records carry them. */
export interface CostTotals {
  cumulative: Usage;
  costUsd: number;
  unpricedRequests: number;
}

/** What the account reads of the context window: a step is costed from what the API last counted. */
export interface AccountContext {
  readonly meter: ContextMeter;
  /** How many tokens the next request's context would be. */
  tokens(): number;
}

export interface AccountPorts {
  transcript: Transcript;
  context: AccountContext;
  emit(event: RuntimeEvent): void;
  /** What the session had spent when the running turn started; undefined between turns. */
  turnCostAtStart(): number | undefined;
}

/** The configuration the account prices and caps by (a subset of ConversationConfig). */
export interface AccountConfig {
  model: string;
  prices?: PriceTable;
  maxCostPerTurnUsd?: number;
  maxCostPerSessionUsd?: number;
}

export class SessionAccount {
  private readonly usage: UsageTracker;
  private model: string;
  private caps: SpendCaps = {};
  /** The step just charged is saved with its assistant message. */
  private stepToSave = false;
  /** The worst cases of requests let through and not yet over (a fan-out of subagents sends several at once). */
  private reservedUsd = 0;

  constructor(
    private readonly ports: AccountPorts,
    config: AccountConfig,
    resumeUsage?: Usage,
    resumeCost?: SavedCost,
  ) {
    this.model = config.model;
    this.usage = new UsageTracker(config.model, config.prices, resumeUsage, resumeCost);
  }

  get cumulative(): Usage {
    return this.usage.cumulative;
  }
  get costUsd(): number {
    return this.usage.costUsd;
  }
  get unpricedRequests(): number {
    return this.usage.unpricedRequests;
  }
  get saved(): SavedCost {
    return { usd: this.usage.costUsd, unpricedRequests: this.usage.unpricedRequests, usage: this.usage.cumulative };
  }
  get totals(): CostTotals {
    return { cumulative: this.usage.cumulative, costUsd: this.usage.costUsd, unpricedRequests: this.usage.unpricedRequests };
  }

  /** Between turns: a new model or price table, new caps. Returns the client every request must go through. */
  configure(config: AccountConfig, client: ModelClient): ModelClient {
    this.model = config.model;
    this.usage.configure(config.model, config.prices);
    this.caps = { perTurnUsd: config.maxCostPerTurnUsd, perSessionUsd: config.maxCostPerSessionUsd };
    return this.gate(client);
  }

  /** `client` held to this session's caps: the session's own requests, and those of the subagents it starts. */
  gate(client: ModelClient): ModelClient {
    return hasCap(this.caps) ? spendGated(client, this.authorize) : client;
  }

  /**
   * The one gate of every request (issue 26): steps, retries (with what their failed attempts were billed),
   * continuations and compaction summaries. The request is costed at its worst, its whole reply limit at
   * its model's output price; the per-session cap counts it too, and so do the worst cases of the requests
   * still in flight. A model without a price cannot be held to a cap: its request is refused (issue 42), never
   * sent uncounted.
   */
  private readonly authorize = (request: ModelRequest, billed?: Usage): ReleaseSpend => {
    const caps = this.caps;
    const price = this.usage.priceOf(request.model);
    if (!price) throw new RuntimeError('unpriced', unpricedCapRefusal(request.model, caps));
    const estimate = this.estimate(request);
    const turnCostAtStart = this.ports.turnCostAtStart();
    const turnUsd = turnCostAtStart !== undefined ? this.usage.costUsd - turnCostAtStart : 0;
    const nextUsd = worstCaseUsd(price, estimate) + (billed ? costUsd(billed, price) : 0);
    const reserved = this.reservedUsd;
    const stop = budgetExceeded(caps, { turnUsd: turnUsd + reserved, sessionUsd: this.usage.costUsd + reserved, nextUsd, maxOutputTokens: estimate.maxOutputTokens });
    if (stop) {
      const { message, ...spendCap } = stop;
      throw new RuntimeError('budget', message, { spendCap });
    }
    this.reservedUsd += nextUsd;
    let held = true;
    return () => {
      if (!held) return;
      held = false;
      this.reservedUsd = Math.max(0, this.reservedUsd - nextUsd);
    };
  };

  /** A step carries the live history (measured by the API last time); anything else (a summary) is estimated whole. */
  private estimate(request: ModelRequest): SpendEstimate {
    const maxOutputTokens = maxTokensOf(request);
    if (request.messages === this.ports.transcript.messages) {
      const tokens = this.ports.context.tokens();
      const cached = Math.min(tokens, this.ports.context.meter.countedTokens ?? 0);
      return { model: request.model, cachedTokens: cached, newTokens: tokens - cached, maxOutputTokens };
    }
    return { model: request.model, cachedTokens: 0, newTokens: estimateTextTokens(requestChars(request.system, request.tools, request.messages)), maxOutputTokens };
  }

  /** A step's usage: `lastAttempt` is what its last attempt sent (the context); `usage` includes discarded attempts. */
  chargeStep(usage: Usage, lastAttempt: Usage, charsAtRequest: number): void {
    this.ports.context.meter.measured(promptTokens(lastAttempt), charsAtRequest);
    // Persisted with the step's assistant message (one record a step), not as a record of its own.
    this.charge(usage, promptTokens(lastAttempt) + lastAttempt.output_tokens, false);
    this.stepToSave = true;
  }

  /** The record the step just charged is saved with, once; undefined when the step was not charged. */
  takeStepRecord(): CostRecord | undefined {
    const record = this.stepToSave ? { usage: this.usage.cumulative, costUsd: this.usage.costUsd, unpricedRequests: this.usage.unpricedRequests } : undefined;
    this.stepToSave = false;
    return record;
  }

  /** C4: every request is charged (steps, retried attempts, summaries) and persisted at once, so a crash loses none. */
  charge(usage: Usage | undefined, contextTokens?: number, persist = true): void {
    this.record(usage, this.model, contextTokens, persist);
  }

  /** A subagent's request, charged to this session at the subagent's model (it may run a faster one). */
  chargeDelegated(usage: Usage, model: string): void {
    this.record(usage, model, undefined, true);
  }

  private record(usage: Usage | undefined, model: string, contextTokens: number | undefined, persist: boolean): void {
    if (!usage || promptTokens(usage) + usage.output_tokens === 0) return;
    // Priced once, here, at the model that served it: the saved figure is what a resume sums (C4).
    const record = this.usage.record(usage, model);
    const cost = { stepCostUsd: record.stepCostUsd, costUsd: record.costUsd, unpricedRequests: record.unpricedRequests };
    if (persist) this.ports.transcript.event('usage', { step: record.step, cumulative: record.cumulative, model, ...cost });
    const context = this.ports.context.meter.info(contextTokens ?? this.ports.context.tokens());
    this.ports.emit({ type: 'usage', step: record.step, cumulative: record.cumulative, ...cost, context });
  }
}
