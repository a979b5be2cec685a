// The turn loop (T1–T11). One user input → steps until a reply has no tool
// use: build the request, stream the reply, record usage, push the message,
// maybe compact, run the tools, push their results, loop. Recoverable model
// errors (context overflow, expired credentials) are branches of the loop, not
// exits (T6); an interrupt at any await leaves a valid history (T8).
import { AssistantMessageBuilder, consumeStep, type StepResult } from './assistant-message';
import { type ContextInfo } from '../context/context-window';
import { ContextKeeper } from './context-keeper';
import { systemClock, type Clock, type ConversationConfig, type ConversationHistory, type ConversationPorts, type RunTurnOptions, type TurnContext } from './conversation-types';
import { isAbortedError, TurnCancellation } from '../cancellation';
import { errorMessage, MAX_ITERATIONS_MESSAGE, RuntimeError, type RuntimeErrorKind } from '../errors';
import { EventEmitter, type CompactionEvent, type RuntimeEvent, type RuntimeEventListener, type TurnSummary } from '../events';
import { abortedResult, TURN_ABORTED_NOTE, unansweredToolUses } from '../session/history';
import { noHooks } from '../policy/hooks';
import { PermissionPolicy, type PermissionMode, type PermissionPrompter } from '../policy/permissions';
import { buildRequest } from './request';
import { SessionAccount } from '../spend/session-account';
import { SteeringQueue, type QueuedInput } from './steering';
import { dispatchToolUses, PromptQueue, type DispatchContext } from './tool-dispatch';
import { runSubagent, type SubagentParent } from './subagents';
import { applyInterjections, stopHookSendsBack, submitInput, type TurnInputPorts } from './turn-input';
import { type HistoryMark, Transcript } from '../session/transcript';
import { ToolUseIds } from './tool-use-ids';
import { loopStopMessage } from './loop-guard';
import { type ActiveTurnContext, newTurn, recordFileChange, textOf, turnSummary, type TurnState } from './turn-state';
import { ModelError, presentFacts, type Message, type Usage, type UserContentBlock } from '../types';
import { EMPTY_PLAN, reducePlan, type Plan } from '../plan';
import { type SavedCost } from '../spend/usage';

/** Sent once when a reply stops at the output limit (stop_reason max_tokens). */
export const CONTINUE_AFTER_MAX_TOKENS = 'Your previous reply was cut off at the output token limit. Continue exactly where you stopped, without repeating anything.';

export { systemClock, type Clock, type ConversationConfig, type ConversationHistory, type ConversationPorts, type RunTurnOptions, type TurnContext } from './conversation-types';

export class ConversationRuntime {
  /** The session's messages, and their record in the session file. */
  private readonly transcript: Transcript;
  private readonly events = new EventEmitter<RuntimeEvent>();
  private readonly policy: PermissionPolicy;
  /** What the session has spent, and the spend caps every request is held to. */
  private readonly account: SessionAccount;
  /** How full the window is, and compaction when it would overflow. */
  private readonly contextKeeper: ContextKeeper;
  /** The last turn's context (the constructor's before any turn): what the next turn runs with unless it brings its own. */
  private lastContext: ActiveTurnContext;
  private readonly clock: Clock;
  private readonly steering: SteeringQueue;
  private active: TurnState | undefined;
  /** Issue 47 item 5: the history before the last turn's input, when that turn failed before any reply. */
  private unanswered: HistoryMark | undefined;
  private turnCounter = 0;
  /** T9: tool use ids stay unique in the session, whatever the server sends. */
  private readonly toolUseIds: ToolUseIds;
  /** A subagent's conversation: it shares its parent's policy and cannot start subagents of its own (depth 1). */
  private readonly isSubagent: boolean;
  /** The model's plan (todo_write): session state, saved as `plan_updated` records. */
  private currentPlan: Plan = EMPTY_PLAN;
  private readonly emitFn = (event: RuntimeEvent) => this.events.emit(event);
  private readonly nowFn = () => this.clock.now();

  constructor(
    private readonly ports: ConversationPorts,
    config: ConversationConfig,
    resume: ConversationHistory = {},
    /** A subagent's: its parent's policy, shared (one mode, one set of rules and session answers). */
    sharedPolicy?: PermissionPolicy,
  ) {
    this.clock = ports.clock ?? systemClock;
    this.isSubagent = sharedPolicy !== undefined;
    this.transcript = new Transcript(resume.messages ?? [], ports.session, () => this.clock.now(), (message) => this.emit({ type: 'warning', kind: 'session_write', message }));
    this.toolUseIds = new ToolUseIds(this.transcript.messages);
    this.policy = sharedPolicy ?? new PermissionPolicy();
    const { transcript, emitFn: emit } = this;
    this.contextKeeper = new ContextKeeper({ transcript, emit, log: ports.log, charge: (usage) => this.account.charge(usage), plan: () => this.currentPlan });
    this.account = new SessionAccount({ transcript, emit, context: this.contextKeeper, turnCostAtStart: () => this.active?.costAtStart }, config, resume.usage, resume.cost);
    this.lastContext = this.resolve({ model: ports.model, tools: ports.tools, ...(ports.hooks ? { hooks: ports.hooks } : {}), config });
    this.steering = new SteeringQueue((items) => this.emit({ type: 'queue_changed', items: [...items] }), resume.queued);
    if (resume.plan) this.currentPlan = reducePlan(EMPTY_PLAN, { type: 'restore', todos: resume.plan });
  }

  get messages(): readonly Message[] {
    return this.transcript.messages;
  }
  get isRunning(): boolean {
    return this.active !== undefined;
  }
  /** T7: input waiting for the next turn (the host shows it and starts that turn with runQueued()). */
  get queued(): readonly QueuedInput[] {
    return this.steering.pending;
  }
  /** C1: how full the window would be with the next request. */
  get context(): ContextInfo {
    return this.contextKeeper.info;
  }
  get cumulativeUsage(): Usage {
    return this.account.cumulative;
  }
  get costUsd(): number {
    return this.account.costUsd;
  }
  /** Requests of the session whose model had no price (their cost is unknown). */
  get unpricedRequests(): number {
    return this.account.unpricedRequests;
  }
  /** The session's cost as a fact to hand to a rebuilt runtime. */
  get savedCost(): SavedCost {
    return this.account.saved;
  }
  /** The session's plan (todo_write), as the model last wrote it. */
  get plan(): Plan {
    return this.currentPlan;
  }
  get permissionMode(): PermissionMode {
    return this.policy.mode;
  }
  /** What "allow for this session" answers have remembered so far. */
  get sessionRules(): readonly string[] {
    return this.policy.sessionRules;
  }
  /** The user switched the mode: it applies at once, to the tool uses the running turn has not yet decided. */
  setPermissionMode(mode: PermissionMode): void {
    this.policy.mode = mode;
  }

  /**
   * Between turns only: every step of a turn sends a byte-identical system prefix (S7), and a model with a
   * smaller window is compacted for before its first request (C1 runs before sampling). The policy, the
   * account and the context keeper are the session's, set up here for the turn about to run.
   */
  private resolve(context: TurnContext): ActiveTurnContext {
    const config = { ...context.config };
    this.policy.configure(config.permissionMode ?? 'ask', config.permissionRules, config.deniedTools);
    const model = this.account.configure(config, context.model);
    this.contextKeeper.use(config, context.tools, model);
    return { config, tools: context.tools, hooks: context.hooks ?? noHooks, notes: context.notes ?? (() => []), model, provider: context.model };
  }

  subscribe(listener: RuntimeEventListener): () => void {
    return this.events.subscribe(listener);
  }

  /**
   * T7: lands in the running turn after the current step's tool results. Once
   * the loop has made its last check (or with no turn running) it waits for the
   * next turn instead, which runQueued() starts.
   */
  steer(text: string): 'steered' | 'queued' {
    if (!this.active || this.active.closing) {
      this.steering.enqueue(text, 'steer');
      return 'queued';
    }
    this.steering.steerCurrent(text);
    return 'steered';
  }

  /** "Queue for next turn": held until the next turn; runTurn sends queued inputs ahead of its own. */
  queue(text: string, label?: string): QueuedInput {
    return this.steering.enqueue(text, 'queue', label);
  }

  unqueue(id: string): boolean {
    return this.steering.remove(id);
  }

  /** Runs a turn on the queued input, if any and no turn is running: steering that missed a turn needs no second prompt. */
  async runQueued(options: RunTurnOptions = {}): Promise<TurnSummary | undefined> {
    if (this.active || this.steering.pending.length === 0) return undefined;
    return this.runTurn('', options);
  }

  async runTurn(input: string, options: RunTurnOptions = {}): Promise<TurnSummary> {
    if (this.active) throw new RuntimeError('busy', 'a turn is already running: steer() or queue() instead');
    if (options.context) this.lastContext = this.resolve(options.context);
    const turn = newTurn(`turn-${++this.turnCounter}-${this.clock.now()}`, this.lastContext, this.account, options.signal);
    this.active = turn;
    this.transcript.newTurn();
    const queued = this.steering.takeNext();
    const texts = [...queued.map((q) => q.text), input].filter((t) => t.trim() !== '');
    // Issue 47 item 5: new input after a turn that failed before any reply replaces that turn's input (never merged
    // into one user message with it); no new input (Retry) sends the history as it is.
    if (this.unanswered && (texts.length > 0 || (options.images?.length ?? 0) > 0)) this.transcript.retract(this.unanswered);
    this.unanswered = undefined;
    const mark = this.transcript.mark();
    this.emit({ type: 'turn_started', turnId: turn.id, input: texts.join('\n\n') });
    this.transcript.event('turn_started', { turnId: turn.id });
    let summary: TurnSummary;
    try {
      await submitInput(this.inputPorts(turn), queued, input, options.images ?? [], turn.cancellation, this.transcript.messages.at(-1)?.role);
      await this.loop(turn, options.prompter);
      summary = this.finish(turn, 'completed');
    } catch (error) {
      if (turn.cancellation.cancelled || isAbortedError(error)) summary = this.finishAborted(turn);
      else {
        const kind: RuntimeErrorKind = error instanceof RuntimeError || error instanceof ModelError ? error.kind : 'internal';
        const requestId = error instanceof ModelError ? error.details.requestId : undefined;
        const spendCap = error instanceof RuntimeError ? error.spendCap : undefined;
        const loop = error instanceof RuntimeError ? error.loop : undefined;
        if (this.transcript.unansweredSince(mark)) this.unanswered = mark;
        summary = this.finish(turn, 'failed', { kind, message: errorMessage(error), ...(requestId ? { requestId } : {}), ...(spendCap ? { spendCap } : {}), ...(loop ? { loop } : {}) });
      }
    }
    turn.cancellation.dispose();
    await this.transcript.flush();
    return summary;
  }

  /** C1 by command, between turns. Undefined when there was nothing to compact. */
  async compact(signal?: AbortSignal): Promise<CompactionEvent | undefined> {
    if (this.active) throw new RuntimeError('busy', 'cannot compact while a turn is running');
    const cancellation = new TurnCancellation(signal);
    const event = await this.contextKeeper.compact('manual', cancellation).finally(() => cancellation.dispose());
    await this.transcript.flush();
    return event;
  }

  // ---------------------------------------------------------------------------

  private async loop(turn: TurnState, prompter: PermissionPrompter | undefined): Promise<void> {
    const prompts = new PromptQueue();
    const { config, tools, hooks } = turn.context;
    const dispatch: DispatchContext = {
      tools,
      hooks,
      policy: this.policy,
      prompter,
      prompts,
      emit: this.emitFn,
      onFileChange: (c) => {
        recordFileChange(turn.fileChanges, c);
        turn.loopGuard.reset();
      },
      onPlan: (todos) => this.updatePlan(todos),
      cancellation: turn.cancellation,
      ...(this.isSubagent ? {} : { runSubagent: this.subagentRunner(turn, prompter, prompts) }),
    };
    for (;;) {
      turn.cancellation.throwIfCancelled();
      turn.iterations++;
      if (turn.iterations > (config.maxIterations ?? 50)) throw new RuntimeError('max_iterations', MAX_ITERATIONS_MESSAGE);
      this.emit({ type: 'step_started', turnId: turn.id, step: turn.iterations });

      const step = await this.sampleStep(turn);
      // The step just charged is saved with its assistant message (one record a step).
      this.transcript.appendAssistant(step.message, this.account.takeStepRecord());
      turn.assistantMessages.push(step.message);

      const text = textOf(step.message);
      if (step.toolUses.length === 0) {
        if (this.continueAfterMaxTokens(turn, step)) {
          turn.replyPrefix += text;
          continue;
        }
        // The reply is the reply: what was cut at the output limit and its continuation, together.
        turn.finalText = turn.replyPrefix + text;
        turn.replyPrefix = '';
        if (await stopHookSendsBack(this.inputPorts(turn), step.message, turn.cancellation, turn.stopBlocks, config.maxStopHookBlocks ?? 3)) {
          turn.stopBlocks++;
          continue;
        }
        if (this.steering.hasCurrent && (await applyInterjections(this.inputPorts(turn), turn.cancellation))) continue;
        // The last check, after the last await: input steered from here on starts the next turn (T7).
        turn.closing = true;
        return;
      }

      turn.replyPrefix = '';
      // C3: the tool uses are on disk before any of them acts, so a crash mid-tool leaves a session that
      // names what was running (and a resume can clean up after an interrupted write).
      await this.transcript.flush();
      const results = await dispatchToolUses(step.toolUses, dispatch);
      turn.toolResults.push(...results);
      const blocks: UserContentBlock[] = results.map((r): UserContentBlock =>
        ({ type: 'tool_result', tool_use_id: r.toolUseId, content: r.content, ...(r.isError ? { is_error: true } : {}), ...presentFacts(r) }),
      );
      // The results go into the history before anything else can wait (a steered text's hook): a Stop from
      // here on keeps them, and never leaves a tool use without its result.
      this.appendUser(blocks);
      turn.cancellation.throwIfCancelled();
      if (turn.spendCapStop) throw new RuntimeError('budget', turn.spendCapStop.message, { ...(turn.spendCapStop.spendCap ? { spendCap: turn.spendCapStop.spendCap } : {}) });
      // Before another request: the results are kept, so Continue (a new turn) picks up from here.
      const loop = turn.loopGuard.record(step.toolUses, results);
      if (loop) throw new RuntimeError('loop', loopStopMessage(loop), { loop });
      if (this.steering.hasCurrent) await applyInterjections(this.inputPorts(turn), turn.cancellation);
    }
  }

  /**
   * One step: probe after a compaction (C2), compact first if the request would
   * fill the window (C1), stop at a spend cap, then sample. Resubmitted after a
   * context overflow (shrinking what compaction cannot) or a credential refresh (T6).
   */
  private async sampleStep(turn: TurnState): Promise<StepResult> {
    const { cancellation, context } = turn;
    let overflows = 0;
    let refreshedAuth = false;
    for (;;) {
      if (this.contextKeeper.probePending) await this.contextKeeper.healthProbe(cancellation);
      if (context.tools.prepareStep) await cancellation.race(context.tools.prepareStep(cancellation.signal));
      const notes = context.notes();
      if (notes.length > 0) this.appendUser([{ type: 'text', text: notes.join('\n') }]);
      if (this.contextKeeper.full) turn.autoCompaction = (await this.contextKeeper.compact('auto', cancellation)) ?? turn.autoCompaction;
      const request = buildRequest({ ...context.config, maxTokens: this.contextKeeper.limits.maxOutputTokens }, this.transcript.messages, context.tools.definitions());
      const charsAtRequest = this.transcript.chars;
      const builder = new AssistantMessageBuilder(this.emitFn, this.nowFn, turn.iterations, this.toolUseIds);
      const sampling = cancellation.child();
      try {
        const step = await consumeStep(context.model.stream(request, sampling.signal), builder, sampling);
        this.recordUsage(turn, step, charsAtRequest);
        this.emit({ type: 'step_finished', step: turn.iterations, stopReason: step.stopReason });
        return step;
      } catch (error) {
        // A request that failed after the API counted it was still billed (C4).
        this.account.charge(builder.billedUsage());
        cancellation.throwIfCancelled();
        if (!(error instanceof ModelError)) throw error;
        if (error.kind === 'context_overflow' && overflows < 2) {
          overflows++;
          this.emit({ type: 'step_discarded', step: turn.iterations });
          turn.autoCompaction = (await this.contextKeeper.recoverOverflow(error, overflows, cancellation)) ?? turn.autoCompaction;
          continue;
        }
        if (error.kind === 'auth' && !refreshedAuth && this.ports.onAuthError) {
          refreshedAuth = true;
          this.emit({ type: 'step_discarded', step: turn.iterations });
          if (await cancellation.race(this.ports.onAuthError(error, cancellation.signal))) continue;
        }
        throw error;
      } finally {
        sampling.dispose();
      }
    }
  }

  /** Runs the turn's subagents (see subagents.ts), each kept in the turn's summary. */
  private subagentRunner(turn: TurnState, prompter: PermissionPrompter | undefined, prompts: PromptQueue): NonNullable<DispatchContext['runSubagent']> {
    const parent = this.subagentParent(turn, prompter, prompts);
    return async (agentId, spec, signal) => {
      const report = await runSubagent(parent, agentId, spec, signal);
      turn.subagents.push({ agentId, agent: spec.agent, description: spec.description, model: spec.model, report });
      return report;
    };
  }

  private subagentParent(turn: TurnState, prompter: PermissionPrompter | undefined, prompts: PromptQueue): SubagentParent {
    return {
      policy: this.policy,
      hooks: turn.context.hooks,
      config: turn.context.config,
      ports: this.ports,
      provider: turn.context.provider,
      gate: (client) => this.account.gate(client),
      charge: (usage, model) => this.account.chargeDelegated(usage, model),
      emit: this.emitFn,
      prompter,
      prompts,
      onSpendCap: (error) => (turn.spendCapStop ??= error),
      spawn: (ports, config, policy) => new ConversationRuntime(ports, config, {}, policy),
    };
  }

  /** T2-style stop_reason handling: a reply cut at the output limit is continued once, then the user is told. */
  private continueAfterMaxTokens(turn: TurnState, step: StepResult): boolean {
    if (step.stopReason !== 'max_tokens') return false;
    if (turn.continuedAfterMaxTokens) {
      this.emit({ type: 'warning', kind: 'max_tokens', message: `the reply was cut off at the output limit (${this.contextKeeper.limits.maxOutputTokens} tokens) again; it may be incomplete` });
      return false;
    }
    turn.continuedAfterMaxTokens = true;
    this.appendUser([{ type: 'text', text: CONTINUE_AFTER_MAX_TOKENS }]);
    return true;
  }

  /** What the turn's input and hooks (turn-input.ts) act on: this turn's hooks. */
  private inputPorts(turn: TurnState): TurnInputPorts {
    return { hooks: turn.context.hooks, steering: this.steering, emit: this.emitFn, appendUser: (blocks) => this.appendUser(blocks) };
  }

  private recordUsage(turn: TurnState, step: StepResult, charsAtRequest: number): void {
    turn.promptCacheEvents.push(...step.promptCache);
    // The discarded attempts of a retried step were billed too; the context is what the last one sent.
    if (step.usage) this.account.chargeStep(step.usage, step.attemptUsage ?? step.usage, charsAtRequest);
  }

  private finish(turn: TurnState, outcome: 'completed' | 'failed', error?: TurnSummary['error']): TurnSummary {
    // Steering that never reached the model starts the next turn, never lost.
    this.steering.carryOver();
    this.active = undefined;
    const summary = turnSummary(turn, outcome, this.account, this.context, this.currentPlan, error);
    this.transcript.event('turn_ended', { turnId: turn.id, outcome, iterations: turn.iterations, ...this.account.totals, ...(error ? { error } : {}) });
    if (error) {
      const { kind, message, requestId, spendCap, loop } = error;
      this.emit({ type: 'turn_failed', turnId: turn.id, kind, message, ...(requestId ? { requestId } : {}), ...(spendCap ? { spendCap } : {}), ...(loop ? { loop } : {}), summary });
    }
    else this.emit({ type: 'turn_ended', summary });
    return summary;
  }

  /** T8: answer every unanswered tool use with "aborted" and leave a note, so history stays valid. */
  private finishAborted(turn: TurnState): TurnSummary {
    this.steering.carryOver();
    const pending = unansweredToolUses(this.transcript.messages);
    this.appendUser([...pending.map((u) => abortedResult(u.id)), { type: 'text', text: TURN_ABORTED_NOTE }]);
    this.transcript.repairTail();
    this.active = undefined;
    const summary = turnSummary(turn, 'aborted', this.account, this.context, this.currentPlan);
    this.transcript.event('turn_ended', { turnId: turn.id, outcome: 'aborted', iterations: turn.iterations, ...this.account.totals });
    this.emit({ type: 'turn_aborted', turnId: turn.id, summary });
    return summary;
  }

  /** Saved as it changes, so a resumed session (CLI or editor) shows the plan the model last wrote. */
  private updatePlan(todos: Plan): void {
    this.currentPlan = reducePlan(this.currentPlan, { type: 'write', todos });
    this.transcript.event('plan_updated', { todos: this.currentPlan });
    this.emit({ type: 'plan_updated', todos: this.currentPlan });
  }

  private appendUser(blocks: UserContentBlock[]): void {
    this.transcript.appendUser(blocks);
  }

  private emit(event: RuntimeEvent): void {
    this.events.emit(event);
  }
}
