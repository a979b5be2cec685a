// Subagents: a tool use of the parent's turn runs a conversation of its own (the same loop, a fresh
// history, its own prompt, model, tools and compaction) and hands back its final text. What it
// shares with its parent is what must not be split: the permission policy (one mode, one set of
// rules and "allow for this session" answers), the tool hooks, the spend (each request passes the
// parent's cap first and is charged to the parent's turn and session), the user's attention (its
// approvals queue with the parent's and name it) and the session file (its records nested there).
import { type ConversationConfig, type ConversationPorts } from './conversation-types';
import { type RuntimeEvent, type TurnSummary } from '../events';
import { NO_HOOK_RESULT, type HookEventName, type HookRunner } from '../policy/hooks';
import { type PermissionPolicy, type PermissionPrompter } from '../policy/permissions';
import { type SessionRecord, type SessionStore } from '../session/session';
import { type PromptQueue } from './tool-dispatch';
import { type ModelClient, type SubagentReport, type SubagentSpec, type Usage } from '../types';

/** What a subagent's conversation needs of its parent's, for one turn of the parent. */
export interface SubagentParent {
  policy: PermissionPolicy;
  hooks: HookRunner;
  config: ConversationConfig;
  ports: Pick<ConversationPorts, 'clock' | 'log' | 'session'>;
  /** The provider client (not held to any cap yet). */
  provider: ModelClient;
  /** The parent's spend gate around a client. */
  gate(client: ModelClient): ModelClient;
  /** Charges a subagent's request to the parent's turn and session. */
  charge(usage: Usage, model: string): void;
  emit(event: RuntimeEvent): void;
  prompter: PermissionPrompter | undefined;
  /** The parent turn's prompt queue: one question at a time, whoever asks. */
  prompts: PromptQueue;
  /** A subagent stopped at a spend cap: the parent's turn stops there too. */
  onSpendCap(error: NonNullable<TurnSummary['error']>): void;
  /** Builds the subagent's conversation (the parent's class: kept as a port to avoid an import cycle). */
  spawn(ports: ConversationPorts, config: ConversationConfig, policy: PermissionPolicy): SubagentConversation;
}

/** The part of a conversation a parent drives. */
export interface SubagentConversation {
  subscribe(listener: (event: RuntimeEvent) => void): () => void;
  runTurn(input: string, options: { signal?: AbortSignal; prompter?: PermissionPrompter }): Promise<TurnSummary>;
}

/** Hooks a subagent runs: the tool hooks (a policy set by hooks must hold for its tool uses), not the prompt and stop hooks of a user's turn. */
const SUBAGENT_HOOKS: ReadonlySet<HookEventName> = new Set<HookEventName>(['PreToolUse', 'PostToolUse', 'PostToolUseFailure']);

function toolHooksOnly(hooks: HookRunner): HookRunner {
  return {
    has: (event) => SUBAGENT_HOOKS.has(event) && hooks.has?.(event) !== false,
    run: (event, payload, signal) => (SUBAGENT_HOOKS.has(event) ? hooks.run(event, payload, signal) : Promise.resolve(NO_HOOK_RESULT)),
  };
}

/** The subagent's records go into the parent's file, wrapped and linked to the tool use that started it. */
function nestedStore(store: SessionStore | undefined, agentId: string, now: () => number): SessionStore | undefined {
  if (!store) return undefined;
  return {
    path: store.path,
    append: (record: SessionRecord) => {
      if (record.type === 'subagent') return Promise.reject(new Error('a subagent cannot start subagents'));
      return store.append({ type: 'subagent', ts: now(), agentId, record });
    },
    flush: () => store.flush(),
  };
}

/** The subagent's configuration: the parent's limits and rules, its own model, prompt and no caps of its own (the parent's gate holds it). */
function subagentConfig(parent: ConversationConfig, spec: SubagentSpec, policy: PermissionPolicy): ConversationConfig {
  const sameModel = spec.model === parent.model;
  return {
    model: spec.model,
    systemPrompt: spec.systemPrompt,
    permissionMode: policy.mode,
    ...(parent.permissionRules ? { permissionRules: parent.permissionRules } : {}),
    ...(parent.deniedTools ? { deniedTools: parent.deniedTools } : {}),
    ...(parent.maxIterations !== undefined ? { maxIterations: parent.maxIterations } : {}),
    ...(parent.loopGuardRepeats !== undefined ? { loopGuardRepeats: parent.loopGuardRepeats } : {}),
    ...(parent.thinkingBudgetTokens !== undefined ? { thinkingBudgetTokens: parent.thinkingBudgetTokens } : {}),
    ...(parent.autoCompactPercent !== undefined ? { autoCompactPercent: parent.autoCompactPercent } : {}),
    // The window and output overrides are the user's for their model; another model keeps its own.
    ...(sameModel && parent.contextWindow ? { contextWindow: parent.contextWindow } : {}),
    ...(sameModel && parent.maxTokens ? { maxTokens: parent.maxTokens } : {}),
    ...(parent.prices ? { prices: parent.prices } : {}),
    ...(parent.env ? { env: parent.env } : {}),
  };
}

/** Runs one subagent to the end of its single turn; its tool use's signal stops it (the parent's Stop). */
export async function runSubagent(parent: SubagentParent, agentId: string, spec: SubagentSpec, signal: AbortSignal): Promise<SubagentReport> {
  const now = () => (parent.ports.clock ?? Date).now();
  const store = nestedStore(parent.ports.session, agentId, now);
  const ports: ConversationPorts = {
    model: parent.gate(parent.provider),
    tools: spec.tools,
    hooks: toolHooksOnly(parent.hooks),
    ...(store ? { session: store } : {}),
    ...(parent.ports.clock ? { clock: parent.ports.clock } : {}),
    ...(parent.ports.log ? { log: parent.ports.log } : {}),
  };
  const conversation = parent.spawn(ports, subagentConfig(parent.config, spec, parent.policy), parent.policy);
  const named = { id: agentId, name: spec.agent, description: spec.description };
  const prompter: PermissionPrompter | undefined = parent.prompter && {
    request: (request, s) => parent.prompts.run(() => parent.prompter!.request({ ...request, agent: named }, s)),
  };
  parent.emit({ type: 'subagent_started', agentId, agent: spec.agent, description: spec.description, model: spec.model });
  const unsubscribe = conversation.subscribe((event) => {
    if (event.type === 'usage') parent.charge(event.step, spec.model);
    parent.emit({ type: 'subagent_event', agentId, event });
  });
  let summary: TurnSummary;
  try {
    summary = await conversation.runTurn(spec.prompt, { signal, ...(prompter ? { prompter } : {}) });
  } finally {
    unsubscribe();
  }
  if (summary.error?.kind === 'budget') parent.onSpendCap(summary.error);
  const report: SubagentReport = {
    outcome: summary.outcome,
    finalText: summary.finalText,
    usage: summary.usage,
    costUsd: summary.costUsd,
    unpricedRequests: summary.unpricedRequests,
    iterations: summary.iterations,
    toolUses: summary.toolResults.length,
    ...(summary.error ? { error: { kind: summary.error.kind, message: summary.error.message } } : {}),
  };
  parent.emit({ type: 'subagent_finished', agentId, report });
  return report;
}
