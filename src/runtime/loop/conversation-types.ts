// What a session and each of its turns are built from: the configuration, the ports and a resumed
// session's state. Apart from the loop so callers (agent, host, CLI) read the contract without the engine.
import { type HookRunner } from '../policy/hooks';
import { type PermissionMode, type PermissionPrompter, type PermissionRules } from '../policy/permissions';
import { type SessionStore } from '../session/session';
import { type QueuedInput } from './steering';
import { type ImageBlock, type Message, type ModelClient, type ModelError, type ToolExecutor, type Usage } from '../types';
import { type Plan } from '../plan';
import { type PriceTable, type SavedCost } from '../spend/usage';

export interface Clock {
  now(): number;
}

export const systemClock: Clock = { now: () => Date.now() };

export interface ConversationConfig {
  model: string;
  systemPrompt: string;
  /** Most steps one turn may make (T2). Default 50. */
  maxIterations?: number;
  /** Cap on output tokens per request; default (0 or absent) the model's own limit (context-window.ts). */
  maxTokens?: number;
  /** `turnstone.contextWindow`: overrides the model table's window; 0 or absent = the table's. */
  contextWindow?: number;
  /** C1: compact before a request whose context would exceed this share of the window. Default 85. */
  autoCompactPercent?: number;
  /** Spend caps in US dollars (0 or absent = none): reaching one ends the turn with kind `budget`. */
  maxCostPerTurnUsd?: number;
  maxCostPerSessionUsd?: number;
  thinkingBudgetTokens?: number;
  permissionMode?: PermissionMode;
  permissionRules?: PermissionRules;
  /** Tools refused outright, whatever the rules say. */
  deniedTools?: string[];
  /** C1 absolute override of autoCompactPercent, in tokens; TURNSTONE_AUTO_COMPACT_INPUT_TOKENS in `env` overrides it. */
  autoCompactInputTokens?: number;
  /** Messages kept verbatim by compaction. Default 4. */
  keepRecent?: number;
  prices?: PriceTable;
  /** The loop guard: one tool call meeting one outcome this many times in a turn stops it. Default 3; 0 turns it off. */
  loopGuardRepeats?: number;
  /** T10: how many times in one turn a Stop hook may send the model back to work. Default 3. */
  maxStopHookBlocks?: number;
  /** Defaults to process.env; tests pass their own. */
  env?: Record<string, string | undefined>;
}

/**
 * What one turn runs with (made fresh for each turn by agent/turn-context.ts): the model client, the tools,
 * the hooks and the configuration (model, prompt, limits, caps, permission mode and rules). The session
 * itself (history, usage, queue, store, "allow for this session" answers) outlives it.
 */
export interface TurnContext {
  model: ModelClient;
  tools: ToolExecutor;
  hooks?: HookRunner;
  config: ConversationConfig;
  /** One-line notes of what happened outside any tool use (a background command exited), taken before each request and sent with it. */
  notes?: () => string[];
}

/** The session's ports, plus the context its first turn (and a compaction before any turn) runs with. */
export interface ConversationPorts {
  model: ModelClient;
  tools: ToolExecutor;
  hooks?: HookRunner;
  session?: SessionStore;
  clock?: Clock;
  /** T6: credentials were rejected; resolve true once the host has a new key, and the step is resubmitted once. */
  onAuthError?: (error: ModelError, signal: AbortSignal) => Promise<boolean>;
  /** Diagnostics for the host's log (never shown as a warning): e.g. an unknown model's assumed limits. */
  log?: (message: string) => void;
}

/** A resumed session's state (see loadSession). */
export interface ConversationHistory {
  messages?: Message[];
  usage?: Usage;
  /** What the session cost as saved (C4: costs are facts, never re-priced at the current model). */
  cost?: SavedCost;
  /** T7: input waiting for the next turn. */
  queued?: readonly QueuedInput[];
  /** The plan (todo_write) as last saved. */
  plan?: Plan;
}

export interface RunTurnOptions {
  signal?: AbortSignal;
  /** Absent in non-interactive use: anything that would ask is denied with a reason. */
  prompter?: PermissionPrompter;
  /** Images attached to the prompt (the composer, `--image`): sent after its text. */
  images?: ImageBlock[];
  /** What this turn runs with; absent: the last turn's (or the constructor's). */
  context?: TurnContext;
}
