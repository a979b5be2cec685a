// T12: what the runtime tells a UI or CLI. One discriminated union, rendered by
// the webview, printed by the CLI (stream-json), asserted by tests.
import { type SpendCapStop } from './spend/budget';
import { type ContextInfo } from './context/context-window';
import { type LoopStop, type RuntimeErrorKind } from './errors';
import { type PermissionDecision, type PermissionRequest } from './policy/permissions';
import { type QueuedInput } from './loop/steering';
import { type Plan } from './plan';
import { type AssistantMessage, type CommandExit, type ToolCounts, type FileChange, type ImageBlock, type StopReason, type SubagentReport, type ToolResultFacts, type Usage } from './types';

export interface ToolResultRecord extends ToolResultFacts {
  toolUseId: string;
  name: string;
  isError: boolean;
  content: string;
}

/** One subagent of a turn: the `agent` tool use that ran it, and its report. */
export interface SubagentRun {
  agentId: string;
  agent: string;
  description: string;
  model: string;
  report: SubagentReport;
}

export interface CompactionEvent {
  trigger: 'auto' | 'manual' | 'context_overflow';
  removedMessageCount: number;
  summarySource: 'model' | 'local';
  /** Tool results shrunk in place so the context fits (T6). */
  shrunkToolResults?: number;
  /** Older images replaced by a note, oldest first, before anything else was compacted. */
  droppedImages?: number;
}

/** T4 */
export interface TurnSummary {
  turnId: string;
  outcome: 'completed' | 'failed' | 'aborted';
  assistantMessages: AssistantMessage[];
  toolResults: ToolResultRecord[];
  promptCacheEvents: Array<{ cacheReadInputTokens: number; cacheCreationInputTokens: number }>;
  iterations: number;
  /** Cumulative for the session. */
  usage: Usage;
  /** Cumulative for the session: the sum of what each priced request cost (C4). */
  costUsd: number;
  /** Requests of the session whose model had no price: while any, the session's cost is unknown (json cost_usd null). */
  unpricedRequests: number;
  /** The turn's own usage. */
  turnUsage: Usage;
  autoCompaction: CompactionEvent | undefined;
  /** C1: the context the next request would carry, against the model's window. */
  context: ContextInfo;
  /** Text of the last assistant message (the CLI's "result"). */
  finalText: string;
  /** C5: files this turn changed, before its first change and after its last. */
  fileChanges: FileChange[];
  /** The session's plan (todo_write) as the turn left it. */
  todos: Plan;
  /** The subagents the turn ran (the `agent` tool): each one's usage and cost are already in the turn's. */
  subagents: SubagentRun[];
  /** `requestId`: the provider's id of the failed request, what a user quotes to support. */
  error?: { kind: RuntimeErrorKind; message: string; requestId?: string; spendCap?: SpendCapStop; loop?: LoopStop };
}

export type WarningKind = 'session_write' | 'compaction_fallback' | 'stop_hook_cap' | 'hook' | 'prompt_blocked' | 'max_tokens';

export type RuntimeEvent =
  | { type: 'turn_started'; turnId: string; input: string }
  | { type: 'step_started'; turnId: string; step: number }
  | { type: 'text_delta'; text: string }
  | { type: 'thinking_delta'; thinking: string }
  | { type: 'thinking_done'; chars: number; ms: number }
  | { type: 'tool_use_started'; id: string; name: string }
  | { type: 'tool_use_ready'; id: string; name: string; input: Record<string, unknown> }
  | { type: 'permission_requested'; request: PermissionRequest }
  | { type: 'permission_decided'; toolUseId: string; toolName: string; decision: PermissionDecision['kind']; reason: string; scope?: 'once' | 'session' }
  | { type: 'tool_progress'; id: string; chunk: string }
  | { type: 'tool_finished'; id: string; name: string; isError: boolean; content: string; fileChange?: FileChange; images?: ImageBlock[]; exit?: CommandExit; background?: { id: string }; counts?: ToolCounts; aborted?: true }
  /** `stepCostUsd` is null when the request's model has no price; `costUsd` then leaves it out (`unpricedRequests` counts them). */
  | { type: 'usage'; step: Usage; cumulative: Usage; stepCostUsd: number | null; costUsd: number; unpricedRequests: number; context: ContextInfo }
  | { type: 'prompt_cache'; cacheReadInputTokens: number; cacheCreationInputTokens: number }
  | ({ type: 'compaction'; context: ContextInfo } & CompactionEvent)
  /** `reason` is one line (status, kind, request id); `detail` is the provider's full message, for logs only. */
  | { type: 'retrying'; attempt: number; maxAttempts: number; delayMs: number; reason: string; detail?: string }
  /** The step's reply is complete and kept: what it showed will not be discarded any more. */
  | { type: 'step_finished'; step: number; stopReason: StopReason | null }
  /** The provider restarted the step (S6): drop the partial output shown for it. */
  | { type: 'step_discarded'; step: number }
  | { type: 'interjection_applied'; text: string }
  /** The session's plan changed (todo_write): the whole list. */
  | { type: 'plan_updated'; todos: Plan }
  /** T7: what waits for the next turn changed. */
  | { type: 'queue_changed'; items: QueuedInput[] }
  | { type: 'warning'; kind: WarningKind; message: string }
  /** A subagent began (the `agent` tool use `agentId`); its own events follow wrapped in `subagent_event`. */
  | { type: 'subagent_started'; agentId: string; agent: string; description: string; model: string }
  /** An event of a subagent's conversation: never one of the parent's own (its text is not the parent's reply). */
  | { type: 'subagent_event'; agentId: string; event: RuntimeEvent }
  | { type: 'subagent_finished'; agentId: string; report: SubagentReport }
  | { type: 'turn_ended'; summary: TurnSummary }
  /** `spendCap`: kind `budget`, which cap stopped the turn and the figures. */
  | { type: 'turn_failed'; turnId: string; kind: RuntimeErrorKind; message: string; requestId?: string; spendCap?: SpendCapStop; loop?: LoopStop; summary: TurnSummary }
  | { type: 'turn_aborted'; turnId: string; summary: TurnSummary };

export type RuntimeEventListener = (event: RuntimeEvent) => void;

/** Listeners are isolated: one that throws cannot break the turn or starve the others. */
export class EventEmitter<E> {
  private listeners: Array<(event: E) => void> = [];

  constructor(private readonly onListenerError: (error: unknown) => void = () => undefined) {}

  subscribe(listener: (event: E) => void): () => void {
    this.listeners = [...this.listeners, listener];
    return () => {
      this.listeners = this.listeners.filter((l) => l !== listener);
    };
  }

  emit(event: E): void {
    for (const listener of this.listeners) {
      try {
        listener(event);
      } catch (error) {
        this.onListenerError(error);
      }
    }
  }
}
