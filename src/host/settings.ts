// The `turnstone.*` settings (contracts.md) read from VS Code's configuration into
// the one settings type of agent/settings.ts. Read fresh on every turn so changes
// apply live without a reload.
import * as vscode from 'vscode';
import { NOTIFICATIONS_SETTINGS, type NotificationsSetting } from './attention';
import { type ApprovalDialog, type ProviderName, type TurnstoneSettings } from '../agent/settings';
import { type HooksConfig } from '../runtime/policy/hooks';
import { type PermissionMode } from '../runtime/policy/permissions';

// Spelled out rather than imported so reading settings does not load the policy code at activation.
const PERMISSION_MODES: readonly PermissionMode[] = ['plan', 'ask', 'acceptEdits', 'bypassPermissions'];

export type { ApprovalDialog, ProviderName, TurnstoneSettings } from '../agent/settings';

const APPROVAL_DIALOGS: readonly ApprovalDialog[] = ['modal', 'notification', 'panel'];

const strings = (v: unknown): string[] => (Array.isArray(v) ? v.filter((x): x is string => typeof x === 'string') : []);

// Spelled out like PERMISSION_MODES (agent/settings' PROVIDER_NAMES, which the manifest test checks, lists the same).
const HOST_PROVIDERS: readonly ProviderName[] = ['anthropic', 'openai', 'openai-compatible', 'bedrock', 'vertex', 'vscode-lm'];
const providerOf = (v: string | undefined): ProviderName => (HOST_PROVIDERS as readonly (string | undefined)[]).includes(v) ? (v as ProviderName) : 'anthropic';

export function readSettings(): TurnstoneSettings {
  const c = vscode.workspace.getConfiguration('turnstone');
  const mode = c.get<string>('permissionMode', 'ask');
  return {
    provider: providerOf(c.get<string>('provider')),
    model: c.get<string>('model', '').trim() || 'claude-sonnet-5-5',
    baseUrl: c.get<string>('baseUrl', '').trim(),
    bedrockRegion: c.get<string>('bedrock.region', '').trim(),
    vertexRegion: c.get<string>('vertex.region', '').trim(),
    vertexProjectId: c.get<string>('vertex.projectId', '').trim(),
    maxIterations: c.get<number>('maxIterations', 50),
    loopGuardRepeats: Math.max(0, c.get<number>('loopGuard.repeats', 3)),
    editsReview: c.get<string>('edits.review', 'beforeWrite') === 'afterTurn' ? 'afterTurn' : 'beforeWrite',
    permissionMode: (PERMISSION_MODES as readonly string[]).includes(mode) ? (mode as PermissionMode) : 'ask',
    allow: strings(c.get('permissions.allow')),
    deny: strings(c.get('permissions.deny')),
    ask: strings(c.get('permissions.ask')),
    sensitiveFiles: strings(c.get('permissions.sensitiveFiles')),
    autoCompactInputTokens: explicitlySet(c, 'autoCompactInputTokens') ? c.get<number>('autoCompactInputTokens') : undefined,
    autoCompactPercent: c.get<number>('autoCompactPercent', 85),
    contextWindow: c.get<number>('contextWindow', 0),
    maxOutputTokens: c.get<number>('maxOutputTokens', 0),
    maxCostPerTurnUsd: c.get<number>('maxCostPerTurnUsd', 0),
    maxCostPerSessionUsd: c.get<number>('maxCostPerSessionUsd', 0),
    modelPrices: c.get<unknown>('modelPrices'),
    thinkingBudgetTokens: c.get<number>('thinkingBudgetTokens', 0),
    hooks: (c.get<HooksConfig>('hooks') ?? {}) as HooksConfig,
    bashTimeoutMs: c.get<number>('bash.timeoutMs', 120_000),
    bashMaxBackground: Math.max(0, c.get<number>('bash.maxBackground', 4)),
    bashOutputCapMB: Math.max(1, c.get<number>('bash.outputCapMB', 64)),
    bashEnvPassthrough: strings(c.get('bash.env.passthrough')),
    ...readSandboxSettings(c),
    mcpCallTimeoutMs: c.get<number>('mcp.callTimeoutMs', 60_000),
    mcpStartTimeoutMs: c.get<number>('mcp.startTimeoutMs', 30_000),
    approvalDialog: readApprovalDialog(c.get<string>('approvalDialog', 'panel')),
    checkpointsMaxFileSizeMB: Math.max(0, c.get<number>('checkpoints.maxFileSizeMB', 5)),
    checkpointsKeepSessions: Math.max(1, c.get<number>('checkpoints.keepSessions', 50)),
    webFetchAllowPrivateNetwork: c.get<unknown>('webFetch.allowPrivateNetwork') === true,
    browserExecutablePath: (c.get<string>('browser.executablePath', '') ?? '').trim(),
    browserHeadless: c.get<boolean>('browser.headless', true) !== false,
    diagnosticsAfterEdit: c.get<boolean>('diagnostics.afterEdit', true) !== false,
    diagnosticsWaitMs: Math.max(0, c.get<number>('diagnostics.waitMs', 2000)),
    agentsMaxParallel: Math.max(1, c.get<number>('agents.maxParallel', 4)),
    sessionsMaxParallel: Math.max(1, c.get<number>('sessions.maxParallel', 4)),
    agentsModel: (c.get<string>('agents.model', '') ?? '').trim(),
    memoryEnabled: c.get<boolean>('memory.enabled', true) !== false,
    memoryDir: (c.get<string>('memory.dir', '') ?? '').trim(),
    worktreesDir: (c.get<string>('worktrees.dir', '') ?? '').trim(),
    pluginsEnabled: strings(c.get('plugins.enabled')),
  };
}

/** Only the globs of `turnstone.permissions.sensitiveFiles` (read where the whole settings object is not needed). */
export function readSensitiveGlobs(): string[] {
  return strings(vscode.workspace.getConfiguration('turnstone').get('permissions.sensitiveFiles'));
}

function explicitlySet(c: vscode.WorkspaceConfiguration, key: string): boolean {
  const i = c.inspect(key);
  return i !== undefined && (i.globalValue !== undefined || i.workspaceValue !== undefined || i.workspaceFolderValue !== undefined);
}

/**
 * `turnstone.sandbox` is a leaf and `turnstone.sandbox.network` its child, which
 * VS Code's configuration tree cannot hold at once: a value for the child alone
 * turns `turnstone.sandbox` into the object `{ network }` in that scope, and a
 * scope that sets the leaf hides the child set in another. So each is resolved
 * here scope by scope (folder, workspace, user), in both shapes; anything but an
 * explicit 'off' / 'deny' keeps the safer choice.
 */
function readSandboxSettings(c: vscode.WorkspaceConfiguration): Pick<TurnstoneSettings, 'sandbox' | 'sandboxNetwork' | 'sandboxHideSecrets'> {
  const leaf = c.inspect<unknown>('sandbox');
  const children = { network: c.inspect<unknown>('sandbox.network'), hideSecrets: c.inspect<unknown>('sandbox.hideSecrets') };
  const scopes = ['workspaceFolderValue', 'workspaceValue', 'globalValue'] as const;
  let mode: unknown;
  let network: unknown;
  let hideSecrets: unknown;
  for (const scope of scopes) {
    const value = leaf?.[scope];
    const nested = value && typeof value === 'object' ? (value as { network?: unknown; hideSecrets?: unknown }) : {};
    if (mode === undefined && typeof value === 'string') mode = value;
    network ??= children.network?.[scope] ?? nested.network;
    hideSecrets ??= children.hideSecrets?.[scope] ?? nested.hideSecrets;
  }
  return { sandbox: mode === 'off' ? 'off' : 'auto', sandboxNetwork: network === 'deny' ? 'deny' : 'allow', sandboxHideSecrets: hideSecrets !== false };
}

/**
 * `turnstone.mcpServers` split by who defined it: the user's own settings, or
 * the workspace's (.vscode/settings.json), which counts as workspace-defined
 * and starts only in a trusted workspace.
 */
export function readMcpServerSettings(): { user: unknown; workspace: unknown[] } {
  const i = vscode.workspace.getConfiguration('turnstone').inspect<unknown>('mcpServers');
  return { user: i?.globalValue, workspace: [i?.workspaceValue, i?.workspaceFolderValue].filter((v) => v !== undefined) };
}

/**
 * Adds a rule to the workspace's `turnstone.permissions.allow` ("Always allow").
 * Workspace scope: a rule granted for one project must not follow the user into others.
 */
export async function addAllowRule(rule: string): Promise<void> {
  const c = vscode.workspace.getConfiguration('turnstone');
  const current = strings(c.inspect('permissions.allow')?.workspaceValue);
  if (current.includes(rule)) return;
  await c.update('permissions.allow', [...current, rule], vscode.ConfigurationTarget.Workspace);
}

export async function setModel(model: string): Promise<void> {
  await vscode.workspace.getConfiguration('turnstone').update('model', model, vscode.ConfigurationTarget.Global);
}

/** The provider and server a model picked from another source runs on (a preset's), in the user's settings as the model is. */
export async function setServer(provider: string, baseUrl: string | undefined): Promise<void> {
  const c = vscode.workspace.getConfiguration('turnstone');
  await c.update('provider', provider, vscode.ConfigurationTarget.Global);
  await c.update('baseUrl', baseUrl ?? '', vscode.ConfigurationTarget.Global);
}

function readApprovalDialog(v: string): ApprovalDialog {
  // Issue 47: the card beside the diff is the default; a modal that covers the diff is opt-in.
  return (APPROVAL_DIALOGS as readonly string[]).includes(v) ? (v as ApprovalDialog) : 'panel';
}

/** turnstone.notifications, read when a signal is due (a change applies at once). */
export function notificationsSetting(): NotificationsSetting {
  const value = vscode.workspace.getConfiguration('turnstone').get<string>('notifications', 'whenHidden');
  return (NOTIFICATIONS_SETTINGS as readonly string[]).includes(value) ? (value as NotificationsSetting) : 'whenHidden';
}
