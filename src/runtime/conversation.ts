// The turn loop (T1–T11). One user input → steps until a reply has no tool
// use: build the request, stream the reply, record usage, push the message,
// maybe compact, run the tools, push their results, loop. Recoverable model
// errors (context overflow, expired credentials) are branches of the loop, not
// exits (T6); an interrupt at any await leaves a valid history (T8).
import { AssistantMessageBuilder, consumeStep, type StepResult } from './assistant-message';
import { autoCompactThreshold, compactHistory, DEFAULT_KEEP_RECENT, extractSummary, HEALTH_PROBE_INPUT } from './compaction';
import { abortable, abortedError, AbortScope, errorMessage, isAborted, MAX_ITERATIONS_MESSAGE, RuntimeError, type RuntimeErrorKind } from './errors';
import { EventEmitter, type CompactionEvent, type RuntimeEvent, type RuntimeEventListener, type TurnSummary } from './events';
import { abortedResult, appendUserContent, toolUsesOf, TURN_ABORTED_NOTE } from './history';
import { NO_HOOK_RESULT, noHooks, type HookRunner } from './hooks';
import { PermissionPolicy, type PermissionMode, type PermissionPrompter, type PermissionRules } from './permissions';
import { buildRequest } from './request';
import { type SessionRecord, type SessionStore } from './session';
import { dispatchToolUses, type DispatchContext } from './tool-dispatch';
import { TurnDiff } from './turn-diff';
import { ModelError, type AssistantMessage, type Message, type ModelClient, type ToolExecutor, type Usage, type UserContentBlock } from './types';
import { promptTokens, subtractUsage, UsageTracker, type PriceTable } from './usage';

export interface Clock {
  now(): number;
}

export const systemClock: Clock = { now: () => Date.now() };

export interface ConversationConfig {
  model: string;
  systemPrompt: string;
  /** Most steps one turn may make (T2). Default 50. */
  maxIterations?: number;
  /** Default 8192. */
  maxTokens?: number;
  thinkingBudgetTokens?: number;
  permissionMode?: PermissionMode;
  permissionRules?: PermissionRules;
  /** Tools refused outright, whatever the rules say. */
  deniedTools?: string[];
  /** C1 threshold; TURNSTONE_AUTO_COMPACT_INPUT_TOKENS in `env` overrides it. Default 100000. */
  autoCompactInputTokens?: number;
  /** Messages kept verbatim by compaction. Default 4. */
  keepRecent?: number;
  prices?: PriceTable;
  /** T10: how many times in one turn a Stop hook may send the model back to work. Default 3. */
  maxStopHookBlocks?: number;
  /** Defaults to process.env; tests pass their own. */
  env?: Record<string, string | undefined>;
}

export interface ConversationPorts {
  model: ModelClient;
  tools: ToolExecutor;
  hooks?: HookRunner;
  session?: SessionStore;
  clock?: Clock;
  /** T6: credentials were rejected; resolve true once the host has a new key, and the step is resubmitted once. */
  onAuthError?: (error: ModelError, signal: AbortSignal) => Promise<boolean>;
}

/** A resumed session's state (see loadSession). */
export interface ConversationHistory {
  messages?: Message[];
  usage?: Usage;
  /** "Allow for this session" answers of the runtime this one replaces (a settings rebuild keeps them). */
  sessionRules?: readonly string[];
}

export interface RunTurnOptions {
  signal?: AbortSignal;
  /** Absent in non-interactive use: anything that would ask is denied with a reason. */
  prompter?: PermissionPrompter;
}

interface TurnState {
  id: string;
  iterations: number;
  assistantMessages: AssistantMessage[];
  toolResults: TurnSummary['toolResults'];
  promptCacheEvents: TurnSummary['promptCacheEvents'];
  /** Cumulative usage when the turn started: the turn's own usage is the difference. */
  usageAtStart: Usage;
  autoCompaction: CompactionEvent | undefined;
  stopBlocks: number;
  diff: TurnDiff;
  scope: AbortScope;
}

export class ConversationRuntime {
  private history: Message[];
  private readonly events = new EventEmitter<RuntimeEvent>();
  private readonly policy: PermissionPolicy;
  private readonly usage: UsageTracker;
  private readonly hooks: HookRunner;
  private readonly clock: Clock;
  private readonly compactThreshold: number;
  private promptTokensSinceCompaction = 0;
  private probePending: boolean;
  private interjections: string[] = [];
  private queuedInputs: string[] = [];
  private active: TurnState | undefined;
  private turnCounter = 0;
  private sessionWarned = false;
  private lastDiff: TurnDiff | undefined;
  private readonly emitFn = (event: RuntimeEvent) => this.events.emit(event);
  private readonly nowFn = () => this.clock.now();

  constructor(
    private readonly ports: ConversationPorts,
    private readonly config: ConversationConfig,
    resume: ConversationHistory = {},
  ) {
    this.history = [...(resume.messages ?? [])];
    this.policy = new PermissionPolicy(config.permissionMode ?? 'ask', config.permissionRules, config.deniedTools);
    for (const rule of resume.sessionRules ?? []) this.policy.remember(rule);
    this.usage = new UsageTracker(config.model, config.prices, resume.usage);
    this.hooks = ports.hooks ?? noHooks;
    this.clock = ports.clock ?? systemClock;
    this.compactThreshold = autoCompactThreshold(config.autoCompactInputTokens, config.env ?? process.env);
    // C2: a resumed session that was compacted is probed before its first step, like a fresh compaction.
    this.probePending = extractSummary(this.history).summary !== undefined;
  }

  get messages(): readonly Message[] {
    return this.history;
  }
  get isRunning(): boolean {
    return this.active !== undefined;
  }
  get queued(): readonly string[] {
    return this.queuedInputs;
  }
  get cumulativeUsage(): Usage {
    return this.usage.cumulative;
  }
  get costUsd(): number {
    return this.usage.costUsd;
  }
  get permissionMode(): PermissionMode {
    return this.policy.mode;
  }
  /** What "allow for this session" answers have remembered so far. */
  get sessionRules(): readonly string[] {
    return this.policy.sessionRules;
  }
  /** C5: the last finished turn's file changes, for "undo turn". */
  get lastTurnDiff(): TurnDiff | undefined {
    return this.lastDiff;
  }

  setPermissionMode(mode: PermissionMode): void {
    this.policy.mode = mode;
  }

  setModel(model: string): void {
    this.config.model = model;
    this.usage.setModel(model);
  }

  /**
   * Between turns only (project instructions are re-read per turn): within a
   * turn every step must send a byte-identical system prefix (S7).
   */
  setSystemPrompt(systemPrompt: string): void {
    if (this.active) throw new RuntimeError('busy', 'the system prompt cannot change while a turn is running');
    this.config.systemPrompt = systemPrompt;
  }

  subscribe(listener: RuntimeEventListener): () => void {
    return this.events.subscribe(listener);
  }

  /** T7: lands in the running turn after the current step's tool results; with no turn running it is queued. */
  steer(text: string): 'steered' | 'queued' {
    if (!this.active) {
      this.queuedInputs.push(text);
      return 'queued';
    }
    this.interjections.push(text);
    return 'steered';
  }

  /** Held for the next turn; runTurn sends queued inputs ahead of its own. */
  queue(text: string): void {
    this.queuedInputs.push(text);
  }

  async runTurn(input: string, options: RunTurnOptions = {}): Promise<TurnSummary> {
    if (this.active) throw new RuntimeError('busy', 'a turn is already running: steer() or queue() instead');
    const signal = options.signal ?? new AbortController().signal;
    const turn: TurnState = {
      id: `turn-${++this.turnCounter}-${this.clock.now()}`,
      iterations: 0,
      assistantMessages: [],
      toolResults: [],
      promptCacheEvents: [],
      usageAtStart: this.usage.cumulative,
      autoCompaction: undefined,
      stopBlocks: 0,
      diff: new TurnDiff(),
      scope: new AbortScope(signal),
    };
    this.active = turn;
    this.sessionWarned = false;
    const texts = [...this.queuedInputs.splice(0), input].filter((t) => t.trim() !== '');
    this.emit({ type: 'turn_started', turnId: turn.id, input: texts.join('\n\n') });
    this.persistEvent('turn_started', { turnId: turn.id });
    let summary: TurnSummary;
    try {
      await this.submitInput(texts, turn.scope);
      await this.loop(turn, signal, options.prompter);
      summary = this.finish(turn, 'completed');
    } catch (error) {
      if (signal.aborted || isAborted(error)) summary = this.finishAborted(turn);
      else {
        const kind: RuntimeErrorKind = error instanceof RuntimeError || error instanceof ModelError ? error.kind : 'internal';
        const requestId = error instanceof ModelError ? error.details.requestId : undefined;
        summary = this.finish(turn, 'failed', { kind, message: errorMessage(error), ...(requestId ? { requestId } : {}) });
      }
    }
    turn.scope.dispose();
    await this.ports.session?.flush().catch(() => undefined);
    return summary;
  }

  /** C1 by command, between turns. Undefined when there was nothing to compact. */
  async compact(signal: AbortSignal = new AbortController().signal): Promise<CompactionEvent | undefined> {
    if (this.active) throw new RuntimeError('busy', 'cannot compact while a turn is running');
    const event = await this.compactNow('manual', signal);
    await this.ports.session?.flush().catch(() => undefined);
    return event;
  }

  // ---------------------------------------------------------------------------

  private async loop(turn: TurnState, signal: AbortSignal, prompter: PermissionPrompter | undefined): Promise<void> {
    const dispatch: DispatchContext = {
      tools: this.ports.tools,
      hooks: this.hooks,
      policy: this.policy,
      prompter,
      emit: this.emitFn,
      onFileChange: (c) => turn.diff.record(c),
      signal,
      scope: turn.scope,
    };
    for (;;) {
      if (turn.scope.aborted) throw abortedError();
      turn.iterations++;
      if (turn.iterations > (this.config.maxIterations ?? 50)) throw new RuntimeError('max_iterations', MAX_ITERATIONS_MESSAGE);
      this.emit({ type: 'step_started', turnId: turn.id, step: turn.iterations });

      const step = await this.sampleStep(turn, signal);
      this.recordUsage(turn, step);
      this.appendMessage(step.message);
      turn.assistantMessages.push(step.message);
      if (this.promptTokensSinceCompaction >= this.compactThreshold) {
        turn.autoCompaction = (await this.compactNow('auto', signal)) ?? turn.autoCompaction;
      }

      if (step.toolUses.length === 0) {
        if (await this.stopHookBlocks(turn, step.message, signal)) continue;
        // Checked after the last await: input steered in from here on finds no turn and is queued (T7).
        if (this.applyInterjections([])) continue;
        return;
      }

      const results = await dispatchToolUses(step.toolUses, dispatch);
      turn.toolResults.push(...results);
      const blocks: UserContentBlock[] = results.map((r): UserContentBlock =>
        r.isError ? { type: 'tool_result', tool_use_id: r.toolUseId, content: r.content, is_error: true } : { type: 'tool_result', tool_use_id: r.toolUseId, content: r.content },
      );
      if (turn.scope.aborted) {
        this.appendUser(blocks);
        throw abortedError();
      }
      this.applyInterjections(blocks);
    }
  }

  /** One step, resubmitted after a context-overflow compaction or a credential refresh (T6). */
  private async sampleStep(turn: TurnState, signal: AbortSignal): Promise<StepResult> {
    let compactedForOverflow = false;
    let refreshedAuth = false;
    for (;;) {
      if (this.probePending) await this.healthProbe(signal);
      const request = buildRequest(this.config, this.history, this.ports.tools.definitions());
      const builder = new AssistantMessageBuilder(this.emitFn, this.nowFn, turn.iterations);
      try {
        return await consumeStep(this.ports.model.stream(request, signal), builder, turn.scope);
      } catch (error) {
        if (signal.aborted) throw abortedError();
        if (!(error instanceof ModelError)) throw error;
        if (error.kind === 'context_overflow' && !compactedForOverflow) {
          compactedForOverflow = true;
          this.emit({ type: 'step_discarded', step: turn.iterations });
          const event = await this.compactNow('context_overflow', signal);
          if (!event) throw error;
          turn.autoCompaction = event;
          continue;
        }
        if (error.kind === 'auth' && !refreshedAuth && this.ports.onAuthError) {
          refreshedAuth = true;
          this.emit({ type: 'step_discarded', step: turn.iterations });
          if (await abortable(this.ports.onAuthError(error, signal), signal)) continue;
        }
        throw error;
      }
    }
  }

  private async submitInput(texts: string[], scope: AbortScope): Promise<void> {
    const { signal } = scope;
    if (texts.length === 0) {
      if (this.history[this.history.length - 1]?.role !== 'user') throw new RuntimeError('invalid_request', 'nothing to send: the input is empty');
      return;
    }
    const blocks: UserContentBlock[] = texts.map((text) => ({ type: 'text', text }));
    const hook = this.hooks.has?.('UserPromptSubmit') === false ? NO_HOOK_RESULT : await scope.race(this.hooks.run('UserPromptSubmit', { prompt: texts.join('\n\n') }, signal));
    if (signal.aborted) throw abortedError();
    if (hook.outcome === 'denied') throw new RuntimeError('prompt_blocked', `a UserPromptSubmit hook blocked the prompt${hook.messages.length ? `: ${hook.messages.join('\n')}` : ''}`);
    if (hook.outcome === 'failed') this.emit({ type: 'warning', kind: 'hook', message: hook.messages.join('\n') });
    else if (hook.messages.length > 0) blocks.push({ type: 'text', text: `Hook feedback:\n${hook.messages.join('\n')}` });
    this.appendUser(blocks);
  }

  /** T10: a Stop hook may send the model back to work, a bounded number of times. */
  private async stopHookBlocks(turn: TurnState, message: AssistantMessage, signal: AbortSignal): Promise<boolean> {
    if (this.hooks.has?.('Stop') === false) return false;
    const text = message.content.map((b) => (b.type === 'text' ? b.text : '')).join('');
    const result = await turn.scope.race(this.hooks.run('Stop', { last_assistant_message: text, stop_hook_active: turn.stopBlocks > 0 }, signal));
    if (signal.aborted) throw abortedError();
    if (result.outcome === 'failed') this.emit({ type: 'warning', kind: 'hook', message: result.messages.join('\n') });
    if (result.outcome !== 'denied') return false;
    const maxBlocks = this.config.maxStopHookBlocks ?? 3;
    if (turn.stopBlocks >= maxBlocks) {
      this.emit({ type: 'warning', kind: 'stop_hook_cap', message: `a Stop hook blocked ${maxBlocks} times; ending the turn anyway` });
      return false;
    }
    turn.stopBlocks++;
    this.appendUser([{ type: 'text', text: `Stop hook feedback:\n${result.messages.join('\n') || 'Continue working.'}` }]);
    return true;
  }

  private applyInterjections(blocks: UserContentBlock[]): boolean {
    if (this.interjections.length === 0) {
      this.appendUser(blocks);
      return false;
    }
    const texts = this.interjections.splice(0);
    this.appendUser([...blocks, ...texts.map((text): UserContentBlock => ({ type: 'text', text }))]);
    for (const text of texts) this.emit({ type: 'interjection_applied', text });
    return texts.length > 0;
  }

  private recordUsage(turn: TurnState, step: StepResult): void {
    turn.promptCacheEvents.push(...step.promptCache);
    if (!step.usage) return;
    const record = this.usage.record(step.usage);
    this.promptTokensSinceCompaction += promptTokens(step.usage);
    this.emit({ type: 'usage', step: record.step, cumulative: record.cumulative, stepCostUsd: record.stepCostUsd, costUsd: record.costUsd });
  }

  private async compactNow(trigger: CompactionEvent['trigger'], signal: AbortSignal): Promise<CompactionEvent | undefined> {
    // The summary request is raced too: an interrupt must not wait for a slow summary (T8).
    const outcome = await abortable(
      compactHistory(this.history, { keepRecent: this.config.keepRecent ?? DEFAULT_KEEP_RECENT, client: this.ports.model, model: this.config.model, signal }),
      signal,
    );
    if (!outcome) return undefined;
    this.history = outcome.messages;
    this.persist({ type: 'snapshot', ts: this.clock.now(), reason: 'compaction', messages: outcome.messages });
    this.promptTokensSinceCompaction = 0;
    this.probePending = true;
    const event: CompactionEvent = { trigger, removedMessageCount: outcome.removedMessageCount, summarySource: outcome.summarySource };
    if (outcome.fallbackReason) this.emit({ type: 'warning', kind: 'compaction_fallback', message: `summary written locally: ${outcome.fallbackReason}` });
    this.emit({ type: 'compaction', ...event });
    return event;
  }

  /** C2: after a compaction, check the tools still answer before spending another step. */
  private async healthProbe(signal: AbortSignal): Promise<void> {
    this.probePending = false;
    if (this.ports.tools.isReadOnly('glob_search') === undefined) return;
    let problem: string | undefined;
    try {
      const output = await abortable(this.ports.tools.execute('glob_search', { ...HEALTH_PROBE_INPUT }, { signal }), signal);
      if (output.isError) problem = output.content;
    } catch (error) {
      if (signal.aborted) throw abortedError();
      problem = errorMessage(error);
    }
    if (problem !== undefined) {
      throw new RuntimeError('health_probe_failed', `Session health probe failed after compaction (${problem}). Start a new session instead of continuing on a broken state.`);
    }
  }

  private finish(turn: TurnState, outcome: 'completed' | 'failed', error?: TurnSummary['error']): TurnSummary {
    // Steering that never reached the model is kept for the next turn, never lost.
    this.queuedInputs.push(...this.interjections.splice(0));
    this.active = undefined;
    this.lastDiff = turn.diff;
    const summary = this.summary(turn, outcome, error);
    this.persistEvent('turn_ended', { turnId: turn.id, outcome, iterations: turn.iterations, cumulative: this.usage.cumulative, costUsd: this.usage.costUsd, ...(error ? { error } : {}) });
    if (error) this.emit({ type: 'turn_failed', turnId: turn.id, kind: error.kind, message: error.message, ...(error.requestId ? { requestId: error.requestId } : {}), summary });
    else this.emit({ type: 'turn_ended', summary });
    return summary;
  }

  /** T8: answer every unanswered tool use with "aborted" and leave a note, so history stays valid. */
  private finishAborted(turn: TurnState): TurnSummary {
    this.queuedInputs.push(...this.interjections.splice(0));
    const pending = toolUsesOf(this.history[this.history.length - 1]);
    this.appendUser([...pending.map((u) => abortedResult(u.id)), { type: 'text', text: TURN_ABORTED_NOTE }]);
    this.active = undefined;
    this.lastDiff = turn.diff;
    const summary = this.summary(turn, 'aborted');
    this.persistEvent('turn_ended', { turnId: turn.id, outcome: 'aborted', iterations: turn.iterations, cumulative: this.usage.cumulative, costUsd: this.usage.costUsd });
    this.emit({ type: 'turn_aborted', turnId: turn.id, summary });
    return summary;
  }

  private summary(turn: TurnState, outcome: TurnSummary['outcome'], error?: TurnSummary['error']): TurnSummary {
    const last = turn.assistantMessages[turn.assistantMessages.length - 1];
    return {
      turnId: turn.id,
      outcome,
      assistantMessages: turn.assistantMessages,
      toolResults: turn.toolResults,
      promptCacheEvents: turn.promptCacheEvents,
      iterations: turn.iterations,
      usage: this.usage.cumulative,
      costUsd: this.usage.costUsd,
      turnUsage: subtractUsage(this.usage.cumulative, turn.usageAtStart),
      autoCompaction: turn.autoCompaction,
      finalText: last ? last.content.map((b) => (b.type === 'text' ? b.text : '')).join('') : '',
      fileChanges: turn.diff.changes(),
      ...(error ? { error } : {}),
    };
  }

  private appendMessage(message: AssistantMessage): void {
    this.history.push(message);
    this.persist({ type: 'message', ts: this.clock.now(), message });
  }

  private appendUser(blocks: UserContentBlock[]): void {
    if (blocks.length === 0) return;
    appendUserContent(this.history, blocks);
    this.persist({ type: 'message', ts: this.clock.now(), message: { role: 'user', content: blocks } });
  }

  private persistEvent(name: string, data: Record<string, unknown>): void {
    this.persist({ type: 'event', ts: this.clock.now(), name, data });
  }

  // C3: a disk error must not kill the turn; say so once and carry on in memory.
  private persist(record: SessionRecord): void {
    this.ports.session?.append(record).catch(this.onSessionError);
  }

  private readonly onSessionError = (error: unknown): void => {
    if (this.sessionWarned) return;
    this.sessionWarned = true;
    this.emit({ type: 'warning', kind: 'session_write', message: `could not write the session file (${errorMessage(error)}); continuing in memory` });
  };

  private emit(event: RuntimeEvent): void {
    this.events.emit(event);
  }
}
