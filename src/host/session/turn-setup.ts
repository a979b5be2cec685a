// What the editor gives the shared turn-context factory (agent/turn-context.ts)
// for each turn: the settings as the policy guard accepted them, the mode the
// workspace's trust allows, a model client that reads the key and base URL at
// each request, the window's tools, MCP servers and checkpoints, and hooks only
// in a trusted workspace.
import { type AgentDefinition } from '../../agent/subagents/agents';
import * as vscode from 'vscode';
import { type TurnCheckpoints } from '../../agent/turn-checkpoints';
import { type CommandClaims } from '../../agent/command-claims';
import { type TurnstoneSettings } from '../../agent/settings';
import { type TurnContext } from '../../runtime/loop/conversation';
import { type PermissionMode } from '../../runtime/policy/permissions';
import { type BackgroundCommands } from '../../tools/shell/background';
import { type KeyDestinations } from './key-destination';
import { loadCore } from './load-core';
import { type HostMcp } from '../mcp';
import { readGuardedSettings } from '../approvals/policy-guard';
import { type ApiKeys } from '../secrets';
import { includedPrices } from '../language-model/lm-cost';
import { baseUrlInUse, liveModelFacts, presetInUse } from '../model-lists';
import { missingKeyMessage } from '../../runtime/providers/key-hints';
import { ModelError } from '../../runtime/types';
import { type PathScopedInstructions } from '../../runtime/context/path-scoped';
import { hostPlugins } from '../context/plugins';
import { type Workspace, WorkspaceError } from '../../tools/ports';

export interface HostTurnDeps {
  context: vscode.ExtensionContext;
  keys: ApiKeys;
  mcp: HostMcp;
  log: vscode.LogOutputChannel;
  checkpoints: TurnCheckpoints;
  /** Where the key may go (a workspace-set base URL only once the user allowed it). */
  destinations: KeyDestinations;
  /** The chat session's background commands. */
  background?: BackgroundCommands;
  /** Why the session may not write a file now (another running session changed it); see claimGuarded. */
  claimProblem?(file: string): string | undefined;
  /** Other sessions in the same folder: the files this session's commands change are claimed through it. */
  commandClaims?: CommandClaims;
  /** The session's own folder (its worktree, issue 43): the tools, commands and hooks work there. */
  root?: vscode.Uri;
}

/** Restricted Mode: only plan mode, whatever the settings say (trust granted later applies at once). */
export function effectiveMode(s: TurnstoneSettings): PermissionMode {
  if (!vscode.workspace.isTrusted) return 'plan';
  // Issue 44: reviewed after the turn, edits are written as they come (what acceptEdits does); commands still ask.
  return s.editsReview === 'afterTurn' && s.permissionMode === 'ask' ? 'acceptEdits' : s.permissionMode;
}

export async function hostTurnContext(deps: HostTurnDeps, turn: { systemPrompt: string; caps: { perTurnUsd: number; perSessionUsd: number }; customAgents: readonly AgentDefinition[]; pathScoped?: PathScopedInstructions | undefined }): Promise<TurnContext> {
  const core = loadCore();
  const s = readGuardedSettings();
  const liveModel = await liveModelFacts(deps.context, s.provider, baseUrlInUse(s), s.model);
  const root = deps.root ?? vscode.workspace.workspaceFolders?.[0]?.uri;
  // Enabled plugins' hooks after the settings' own (none in an untrusted workspace, where no hook runs at all).
  const pluginHooks = core.pluginParts(await hostPlugins(deps.log)).hooks;
  return core.createTurnContext({
    settings: { ...s, hooks: core.mergeHooks(s.hooks, pluginHooks) },
    permissionMode: effectiveMode(s),
    model: core.createSettingsAwareModelClient(async () => {
      // Provider and base URL as the policy guard accepted them, and the key only to a URL the user chose.
      const now = readGuardedSettings();
      if (now.provider === 'vscode-lm') return { provider: now.provider, baseURL: undefined, apiKey: undefined };
      if (now.provider === 'bedrock' || now.provider === 'vertex') {
        // No key of ours: the cloud's credential chain signs, and its provider reads its own base URL variable.
        await deps.destinations.check(now.baseUrl || undefined);
        const region = now.provider === 'bedrock' ? now.bedrockRegion : now.vertexRegion;
        return { provider: now.provider, baseURL: now.baseUrl || undefined, apiKey: undefined, region, projectId: now.vertexProjectId };
      }
      const baseURL = baseUrlInUse(now);
      await deps.destinations.check(now.baseUrl || undefined);
      // A preset's server (OpenRouter, Groq, …) has a key of its own; local servers accept any key, and the SDK insists on one.
      const preset = presetInUse(now);
      const key = await deps.keys.get(now.provider, preset);
      if (!key && preset?.keyVariable) throw new ModelError('auth', missingKeyMessage(now.provider, preset));
      const apiKey = key ?? (now.provider === 'openai-compatible' ? 'not-needed' : undefined);
      return { provider: now.provider, baseURL, apiKey };
    }),
    // Subagents on the editor's models (turnstone.agents.model) are included too.
    ...(s.provider === 'vscode-lm' ? { prices: includedPrices(...[s.model, s.agentsModel].filter(Boolean)) } : {}),
    // The claim check comes before the checkpoint's: a write it refuses is not one the checkpoint needs to keep.
    builtInTools: (wrapWorkspace) => core.createHostTools(deps.context, s, (m) => deps.log.info(m), (w) => claimGuarded(wrapWorkspace(w), deps.claimProblem), deps.background, deps.root),
    background: deps.background,
    mcp: deps.mcp.ensure(),
    checkpoints: deps.checkpoints,
    commandClaims: deps.commandClaims,
    systemPrompt: turn.systemPrompt,
    // A workspace's hooks are commands: they run only once the user trusts it.
    hooksCwd: vscode.workspace.isTrusted && root ? root.fsPath : undefined,
    caps: turn.caps,
    customAgents: turn.customAgents,
    pathScoped: turn.pathScoped,
    // The memory tool's notes: per workspace in the extension's global storage (turnstone.memory.dir overrides).
    memoryBase: deps.context.globalStorageUri.fsPath,
    liveModel,
    warn: (m) => deps.log.warn(m),
  });
}

/**
 * The workspace, refusing to write, delete or rename a file another running session of the window changed
 * (issue 43): the tool gets a permission error that says why and what to do, and the file stays as it is.
 */
export function claimGuarded(workspace: Workspace, problem: ((file: string) => string | undefined) | undefined): Workspace {
  if (!problem) return workspace;
  const check = (...files: string[]) => {
    for (const file of files) {
      const why = problem(file);
      if (why) throw new WorkspaceError('permission', why, file);
    }
  };
  // A proxy, as the checkpoint's capture is: whatever else the workspace has passes through untouched.
  return new Proxy(workspace, {
    get(target, prop, receiver) {
      const value = Reflect.get(target, prop, receiver) as unknown;
      if (typeof value !== 'function') return value;
      if (prop === 'writeFile' || prop === 'delete' || prop === 'rename') {
        return async (...args: unknown[]) => {
          check(...(prop === 'rename' ? args.slice(0, 2) : args.slice(0, 1)).map(String));
          return (value as (...a: unknown[]) => unknown).apply(target, args);
        };
      }
      return (value as (...a: unknown[]) => unknown).bind(target);
    },
  });
}

/**
 * "Continue (+$x)" past a spend cap (issue 25.6): allowed on top of the settings, which stay as they are.
 * Past the session cap, for the rest of this session; past the turn cap, for the one turn that goes on.
 */
export class SpendAllowance {
  private extraSessionUsd = 0;
  private nextTurnCapUsd: number | undefined;

  allow(cap: 'turn' | 'session', usd: number): void {
    if (cap === 'session') this.extraSessionUsd += usd;
    else this.nextTurnCapUsd = usd;
  }

  /** The caps the next turn runs with: the settings', plus what the user allowed. */
  capsForNextTurn(s: TurnstoneSettings = readGuardedSettings()): { perTurnUsd: number; perSessionUsd: number } {
    const perTurnUsd = this.nextTurnCapUsd ?? s.maxCostPerTurnUsd;
    this.nextTurnCapUsd = undefined;
    return { perTurnUsd, perSessionUsd: s.maxCostPerSessionUsd > 0 ? s.maxCostPerSessionUsd + this.extraSessionUsd : 0 };
  }

  reset(): void {
    this.extraSessionUsd = 0;
    this.nextTurnCapUsd = undefined;
  }
}
