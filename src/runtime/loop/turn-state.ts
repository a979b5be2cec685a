// One turn's running record: what the loop gathers while it steps (replies, tool results, changed files),
// and the summary the host is handed when the turn ends, however it ends.
import { TurnCancellation } from '../cancellation';
import { type ContextInfo } from '../context/context-window';
import { type CompactionEvent, type SubagentRun, type TurnSummary } from '../events';
import { type Plan } from '../plan';
import { type SessionAccount } from '../spend/session-account';
import { type ConversationConfig } from './conversation-types';
import { DEFAULT_LOOP_GUARD_REPEATS, LoopGuard } from './loop-guard';
import { type HookRunner } from '../policy/hooks';
import { subtractUsage } from '../spend/usage';
import { type AssistantMessage, type FileChange, type ModelClient, type ToolExecutor, type Usage } from '../types';

/**
 * What a turn runs with, resolved once at its start: its configuration, tools, hooks, notes, and the model
 * client twice — as the requests go (through the spend gate) and as the provider gave it (what a subagent's
 * own gate wraps). A settings change made during the turn reaches the next one (S7: one system prefix a turn).
 */
export interface ActiveTurnContext {
  config: ConversationConfig;
  tools: ToolExecutor;
  hooks: HookRunner;
  notes: () => string[];
  model: ModelClient;
  provider: ModelClient;
}

export interface TurnState {
  id: string;
  /** What this turn runs with (see ActiveTurnContext). */
  context: ActiveTurnContext;
  iterations: number;
  assistantMessages: AssistantMessage[];
  toolResults: TurnSummary['toolResults'];
  promptCacheEvents: TurnSummary['promptCacheEvents'];
  /** Cumulative usage when the turn started: the turn's own usage is the difference. */
  usageAtStart: Usage;
  costAtStart: number;
  /** Set once the loop made its last check for steered text: later steering waits for the next turn (T7). */
  closing: boolean;
  continuedAfterMaxTokens: boolean;
  /** The text of replies cut at the output limit and continued: the final reply starts with it (json `result`). */
  replyPrefix: string;
  /** The final reply's whole text, once the loop has it. */
  finalText: string | undefined;
  autoCompaction: CompactionEvent | undefined;
  stopBlocks: number;
  /** C5: one before/after per file the turn changed (before its first change, after its last). */
  fileChanges: Map<string, FileChange>;
  /** The turn's one cancellation (from the host's signal); each request and tool use runs under a child (T8). */
  cancellation: TurnCancellation;
  /** A subagent of this turn stopped at a spend cap: the turn ends there, once the step's results are kept. */
  spendCapStop?: NonNullable<TurnSummary['error']>;
  /** The subagents this turn ran, in the order they finished. */
  subagents: SubagentRun[];
  loopGuard: LoopGuard;
}

export function newTurn(id: string, context: ActiveTurnContext, account: SessionAccount, signal: AbortSignal | undefined): TurnState {
  return {
    id,
    context,
    iterations: 0,
    assistantMessages: [],
    toolResults: [],
    promptCacheEvents: [],
    usageAtStart: account.cumulative,
    costAtStart: account.costUsd,
    closing: false,
    continuedAfterMaxTokens: false,
    replyPrefix: '',
    finalText: undefined,
    autoCompaction: undefined,
    stopBlocks: 0,
    fileChanges: new Map(),
    cancellation: new TurnCancellation(signal),
    subagents: [],
    loopGuard: new LoopGuard(context.config.loopGuardRepeats ?? DEFAULT_LOOP_GUARD_REPEATS),
  };
}

/** C5: the first change to a file keeps its "before", the last its "after". */
export function recordFileChange(changes: Map<string, FileChange>, change: FileChange): void {
  const seen = changes.get(change.path);
  if (seen) seen.after = change.after;
  else changes.set(change.path, { path: change.path, before: change.before, after: change.after });
}

export const textOf = (message: AssistantMessage): string => message.content.map((b) => (b.type === 'text' ? b.text : '')).join('');

export function turnSummary(turn: TurnState, outcome: TurnSummary['outcome'], account: SessionAccount, context: ContextInfo, todos: Plan, error?: TurnSummary['error']): TurnSummary {
  const last = turn.assistantMessages[turn.assistantMessages.length - 1];
  return {
    turnId: turn.id,
    outcome,
    assistantMessages: turn.assistantMessages,
    toolResults: turn.toolResults,
    promptCacheEvents: turn.promptCacheEvents,
    iterations: turn.iterations,
    usage: account.cumulative,
    costUsd: account.costUsd,
    unpricedRequests: account.unpricedRequests,
    turnUsage: subtractUsage(account.cumulative, turn.usageAtStart),
    autoCompaction: turn.autoCompaction,
    context,
    finalText: turn.finalText ?? (last ? textOf(last) : ''),
    fileChanges: [...turn.fileChanges.values()].filter((c) => c.before !== c.after),
    todos,
    subagents: turn.subagents,
    ...(error ? { error } : {}),
  };
}
