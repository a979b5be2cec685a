// Keeping the conversation inside the model's window (C1, C2, T6): how full it is, compacting when it
// would overflow or the API says it did, and the health probe after. The loop only asks when.
import { autoCompactThreshold, compactHistory, DEFAULT_KEEP_RECENT, extractSummary, HEALTH_PROBE_INPUT, SUMMARY_MAX_TOKENS } from '../context/compaction';
import { compactionThreshold, ContextMeter, estimateTextTokens, historyChars, modelLimits, POST_COMPACTION_PERCENT, requestChars, type ContextInfo, type ModelLimits } from '../context/context-window';
import { dropOldImages, largestUserMessageTokens, shrinkToolResults, unseenFrom } from '../context/overflow';
import { type TurnCancellation } from '../cancellation';
import { type ConversationConfig } from './conversation-types';
import { errorMessage, RuntimeError } from '../errors';
import { type CompactionEvent, type RuntimeEvent } from '../events';
import { planForModel, type Plan } from '../plan';
import { type Transcript } from '../session/transcript';
import { type ModelClient, type ModelError, type ToolExecutor, type Usage } from '../types';

export interface ContextKeeperPorts {
  transcript: Transcript;
  emit(event: RuntimeEvent): void;
  /** Diagnostics for the host's log: an unknown model's assumed limits. */
  log?: (message: string) => void;
  /** C4: a summary request is charged like any other. */
  charge(usage: Usage | undefined): void;
  /** The plan a summary carries forward. */
  plan(): Plan;
}

export class ContextKeeper {
  readonly meter = new ContextMeter(0);
  private config!: ConversationConfig;
  private tools!: ToolExecutor;
  private client!: ModelClient;
  private absoluteCompactTokens: number | undefined;
  private modelLimits!: ModelLimits;
  /** Models the "not in the context-window table" note was logged for. */
  private readonly unknownModelsLogged = new Set<string>();
  private pendingProbe: boolean;

  constructor(private readonly ports: ContextKeeperPorts) {
    // C2: a resumed session that was compacted is probed before its first step, like a fresh compaction.
    this.pendingProbe = extractSummary(ports.transcript.messages).summary !== undefined;
  }

  /** Between turns: a model with a smaller window is compacted for before its first request. */
  use(config: ConversationConfig, tools: ToolExecutor, client: ModelClient): void {
    this.config = config;
    this.tools = tools;
    this.client = client;
    this.absoluteCompactTokens = autoCompactThreshold(config.autoCompactInputTokens, config.env ?? process.env);
    this.modelLimits = this.resolveLimits(config.model);
    this.meter.setWindow(this.modelLimits.contextWindow);
  }

  get limits(): ModelLimits {
    return this.modelLimits;
  }

  /** C1: how full the window would be with the next request. */
  get info(): ContextInfo {
    return this.meter.info(this.tokens());
  }

  /** C2: a compaction happened and the tools have not answered since. */
  get probePending(): boolean {
    return this.pendingProbe;
  }

  /** C1: the next request would fill the window past the compaction threshold. */
  get full(): boolean {
    return this.tokens() > compactionThreshold(this.modelLimits.contextWindow, this.config.autoCompactPercent, this.absoluteCompactTokens);
  }

  tokens(): number {
    return this.meter.estimate(this.ports.transcript.chars, () => requestChars(this.config.systemPrompt, this.tools.definitions(), []));
  }

  private resolveLimits(model: string): ModelLimits {
    const { limits, known } = modelLimits(model, { contextWindow: this.config.contextWindow, maxOutputTokens: this.config.maxTokens });
    if (!known && !this.config.contextWindow && !this.unknownModelsLogged.has(model)) {
      this.unknownModelsLogged.add(model);
      this.ports.log?.(`model ${model} is not in the context-window table: assuming a ${limits.contextWindow}-token window and ${limits.maxOutputTokens} output tokens (set turnstone.contextWindow to change)`);
    }
    return limits;
  }

  /**
   * T6: compaction keeps the recent tail, and oversized tool results there would
   * overflow again; compact also shrinks those, harder on a second overflow.
   * A user message that alone exceeds the window cannot be saved: say so.
   */
  async recoverOverflow(error: ModelError, attempt: number, cancellation: TurnCancellation): Promise<CompactionEvent | undefined> {
    const window = this.modelLimits.contextWindow;
    const largest = largestUserMessageTokens(this.ports.transcript.messages);
    if (largest > window) {
      throw new RuntimeError('context_overflow', `A single message is larger than the model's context window (about ${largest} tokens; the window holds ${window}). Send a shorter message or attach less.`, { cause: error });
    }
    // The API refused what we estimate fits, so the estimate is off (a denser tokenizer, a wrong window
    // setting): aim under 40 % of the window and also well under what we sent, harder on a second refusal.
    const sent = this.tokens();
    const target = Math.min((window * POST_COMPACTION_PERCENT) / 100, sent / 2 ** attempt);
    const event = await this.compact('context_overflow', cancellation, Math.floor(target));
    if (!event) throw error;
    return event;
  }

  /**
   * C1: summarise older history, then (so the context ends at most at
   * `targetTokens`, by default 40 % of the window) shrink oversized tool results the summary
   * kept. Undefined when neither changed anything.
   */
  async compact(trigger: CompactionEvent['trigger'], cancellation: TurnCancellation, targetTokens?: number): Promise<CompactionEvent | undefined> {
    const { transcript } = this.ports;
    const tools = this.tools.definitions();
    const fixed = estimateTextTokens(requestChars(this.config.systemPrompt, tools, []));
    const target = targetTokens ?? Math.floor((this.modelLimits.contextWindow * POST_COMPACTION_PERCENT) / 100);
    // What the model has not seen yet (the newest tool results, the new prompt) is given up last: old images
    // go first, oldest first; when that alone makes room, an automatic compaction keeps every word.
    const images = dropOldImages(transcript.messages, target, fixed, unseenFrom(transcript.messages));
    const start = images?.messages ?? transcript.messages;
    const enough = images !== undefined && trigger !== 'manual' && fixed + estimateTextTokens(historyChars(start)) <= target;
    // A summary is asked for only when what it removes is larger than the summary can be.
    // The summary request is raced too: an interrupt must not wait for a slow summary (T8).
    const outcome = enough
      ? undefined
      : await cancellation.race(
          compactHistory(start, {
            keepRecent: this.config.keepRecent ?? DEFAULT_KEEP_RECENT,
            client: this.client,
            model: this.config.model,
            signal: cancellation.signal,
            protectFrom: unseenFrom(start),
            minRemovedTokens: SUMMARY_MAX_TOKENS,
            plan: planForModel(this.ports.plan()),
          }),
        );
    const summarised = outcome?.messages ?? start;
    // Old tool results shrink first; the unseen ones only if the request still cannot fit (T6).
    const old = shrinkToolResults(summarised, target, fixed, unseenFrom(summarised));
    const unseen = shrinkToolResults(old?.messages ?? summarised, target, fixed);
    const shrunk = old || unseen ? { messages: (unseen ?? old)!.messages, shrunk: (old?.shrunk ?? 0) + (unseen?.shrunk ?? 0) } : undefined;
    if (!outcome && !shrunk && !images) return undefined;
    transcript.replace(shrunk?.messages ?? outcome?.messages ?? start, 'compaction');
    this.meter.reset();
    // Charged after the history is replaced, so the usage event shows the context as it now is.
    this.ports.charge(outcome?.usage);
    this.pendingProbe = true;
    const event: CompactionEvent = {
      trigger,
      removedMessageCount: outcome?.removedMessageCount ?? 0,
      summarySource: outcome?.summarySource ?? 'local',
      ...(shrunk ? { shrunkToolResults: shrunk.shrunk } : {}),
      ...(images ? { droppedImages: images.dropped } : {}),
    };
    if (outcome?.fallbackReason) this.ports.emit({ type: 'warning', kind: 'compaction_fallback', message: `summary written locally: ${outcome.fallbackReason}` });
    this.ports.emit({ type: 'compaction', ...event, context: this.info });
    return event;
  }

  /** C2: after a compaction, check the tools still answer before spending another step. */
  async healthProbe(cancellation: TurnCancellation): Promise<void> {
    // Still pending after a failure: every later turn probes again until one succeeds.
    if (this.tools.isReadOnly('glob_search') === undefined) {
      this.pendingProbe = false;
      return;
    }
    let problem: string | undefined;
    try {
      const output = await cancellation.race(this.tools.execute('glob_search', { ...HEALTH_PROBE_INPUT }, { signal: cancellation.signal }));
      if (output.isError) problem = output.content;
    } catch (error) {
      cancellation.throwIfCancelled();
      problem = errorMessage(error);
    }
    if (problem !== undefined) {
      throw new RuntimeError('health_probe_failed', `Session health probe failed after compaction (${problem}). Start a new session instead of continuing on a broken state.`);
    }
    this.pendingProbe = false;
  }
}
