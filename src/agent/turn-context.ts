// One factory for what a turn runs with, called by the extension and the CLI
// alike: the model client, the limits and caps, the system prompt, the
// permission policy's mode and rules, the tools (built-in, MCP, checkpoints
// around them) and the hooks. The session (history, usage, queue, store,
// "allow for this session" answers) lives on in the runtime; a settings change
// simply reaches the next turn's context.
import { noHooks, ShellHookRunner } from '../runtime/policy/hooks';
import { withCheckpointCapture, afterCheckpoint } from '../tools/checkpoints';
import { type ConversationConfig, type TurnContext } from '../runtime/loop/conversation';
import { type McpManager } from '../runtime/mcp/manager';
import { parseModelPrices } from '../runtime/spend/model-prices';
import { type ListedModel } from '../runtime/providers/model-lists';
import { withLiveFacts } from '../runtime/providers/model-facts';
import { type PermissionMode } from '../runtime/policy/permissions';
import { type ModelClient, type ToolExecutor } from '../runtime/types';
import { type PriceTable } from '../runtime/spend/usage';
import { withMcpTools } from '../tools/mcp-tools';
import { childEnv } from '../tools/node-adapter';
import { type BackgroundCommands } from '../tools/shell/background';
import { type Workspace } from '../tools/ports';
import { type TurnstoneSettings } from './settings';
import { type TurnCheckpoints } from './turn-checkpoints';
import { type CommandClaims, claimingCommandChanges } from './command-claims';
import { type AgentDefinition } from './subagents/agents';
import { withSubagents } from './subagents/agent-tool';
import { type PathScopedInstructions, withPathScopedInstructions } from '../runtime/context/path-scoped';
import { withMemoryGuidance } from '../runtime/context/system-prompt';
import { memoryDirFor } from '../tools/memory/memory-dir';
import { withMemoryTool } from '../tools/memory/memory-tool';

export interface TurnContextParts {
  settings: TurnstoneSettings;
  /** The mode this turn runs in: the settings' own, or plan in an untrusted workspace, or a CLI flag's. */
  permissionMode: PermissionMode;
  model: ModelClient;
  /** The built-in tools, given the workspace they must write through (checkpoints see each write first). */
  builtInTools(wrapWorkspace: (workspace: Workspace) => Workspace): ToolExecutor;
  mcp?: McpManager | undefined;
  /** The session's checkpoints; absent where there are none (no saved session, no local folder). */
  checkpoints?: TurnCheckpoints | undefined;
  /** Other sessions in the same folder (issue 43): what this session's commands change is claimed through it. */
  commandClaims?: CommandClaims | undefined;
  systemPrompt: string;
  /** Where hooks run; undefined runs none (an untrusted workspace: its settings must not run commands). */
  hooksCwd: string | undefined;
  /** Prices on top of `turnstone.modelPrices` (the CLI's --model-prices file). */
  prices?: PriceTable;
  /** What the provider's live list (or its saved copy) says about the settings' model: its window and price count unless a setting gives them. */
  liveModel?: ListedModel | undefined;
  /** The caps of this turn when they differ from the settings' (the user chose to go on past one). */
  caps?: { perTurnUsd: number; perSessionUsd: number };
  /** The session's background commands: their exits become notes of the next request. */
  background?: BackgroundCommands | undefined;
  /** Custom agents (agent files) the `agent` tool offers beside the built-in ones. */
  customAgents?: readonly AgentDefinition[];
  /** The session's path-scoped rules (`.github/instructions`, `.cursor/rules` with globs): added to file tools' results. */
  pathScoped?: PathScopedInstructions | undefined;
  /**
   * The host's own folder for Turnstone's data (the editor's global storage): each workspace's memory lives
   * under it unless turnstone.memory.dir says otherwise. Absent: the user's data folder (the CLI).
   */
  memoryBase?: string | undefined;
  /** Problems with the settings (a malformed price) go here; the turn still runs. */
  warn(message: string): void;
}

export function createTurnContext(parts: TurnContextParts): TurnContext {
  const s = parts.settings;
  const prices = parseModelPrices(s.modelPrices, 'turnstone.modelPrices');
  for (const problem of prices.problems) parts.warn(problem);
  const facts = withLiveFacts(s.model, parts.liveModel, { contextWindow: s.contextWindow, prices: { ...prices.prices, ...parts.prices } });
  const checkpoints = parts.checkpoints;
  // The memory folder is keyed by the workspace the tools work in: its first root, as the tools get it.
  let toolsRoot: string | undefined;
  const builtIn = parts.builtInTools((workspace) => {
    toolsRoot ??= workspace.roots[0];
    return checkpoints ? withCheckpointCapture(workspace, () => checkpoints.current) : workspace;
  });
  const withMcp = parts.mcp ? withMcpTools(builtIn, parts.mcp) : builtIn;
  // Under the subagents: their commands are this session's too.
  const claimed = checkpoints && parts.commandClaims ? claimingCommandChanges(withMcp, () => checkpoints.current, parts.commandClaims) : withMcp;
  // Subagents use the turn's own tools (checkpoints, MCP, sandbox and all), narrowed to what their agent may use.
  const withAgents = withSubagents(claimed, {
    maxParallel: s.agentsMaxParallel,
    model: s.model,
    provider: s.provider,
    agentModel: s.agentsModel,
    systemPrompt: parts.systemPrompt,
    ...(parts.customAgents ? { custom: parts.customAgents } : {}),
  });
  // The main conversation's own notes (tools/memory): beside the subagents' tools, not among them, and the
  // prompt says to use them only when the tool is there.
  const memoryDir = toolsRoot !== undefined ? memoryDirFor(s, toolsRoot, parts.memoryBase) : undefined;
  const withMemory = memoryDir ? withMemoryTool(withAgents, memoryDir) : withAgents;
  const config: ConversationConfig = {
    model: s.model,
    systemPrompt: memoryDir ? withMemoryGuidance(parts.systemPrompt) : parts.systemPrompt,
    maxIterations: s.maxIterations,
    loopGuardRepeats: s.loopGuardRepeats,
    thinkingBudgetTokens: s.thinkingBudgetTokens,
    permissionMode: parts.permissionMode,
    permissionRules: { allow: s.allow, deny: s.deny, ask: s.ask },
    ...(s.autoCompactInputTokens ? { autoCompactInputTokens: s.autoCompactInputTokens } : {}),
    autoCompactPercent: s.autoCompactPercent,
    contextWindow: facts.contextWindow,
    maxTokens: s.maxOutputTokens,
    maxCostPerTurnUsd: parts.caps?.perTurnUsd ?? s.maxCostPerTurnUsd,
    maxCostPerSessionUsd: parts.caps?.perSessionUsd ?? s.maxCostPerSessionUsd,
    prices: facts.prices,
  };
  // Outside the subagents' tools: a rule reaches the conversation whose history keeps it (subagents get the prompt's rules only).
  const withRules = parts.pathScoped ? withPathScopedInstructions(withMemory, parts.pathScoped) : withMemory;
  return {
    model: parts.model,
    tools: checkpoints ? afterCheckpoint(withRules, () => checkpoints.settled()) : withRules,
    hooks: parts.hooksCwd !== undefined ? new ShellHookRunner(s.hooks, { cwd: parts.hooksCwd, env: childEnv(process.env, s.bashEnvPassthrough) }) : noHooks,
    config,
    ...(parts.background ? { notes: () => parts.background!.takeExitNotes() } : {}),
  };
}
