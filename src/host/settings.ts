// Typed view of the `turnstone.*` settings (contracts.md). Read fresh on every
// turn so changes apply live without a reload.
import * as vscode from 'vscode';
import { type HooksConfig } from '../runtime/hooks';
import { type PermissionMode } from '../runtime/permissions';

// Spelled out rather than imported so reading settings does not load the policy code at activation.
const PERMISSION_MODES: readonly PermissionMode[] = ['plan', 'ask', 'acceptEdits', 'bypassPermissions'];

export type ProviderName = 'anthropic' | 'openai-compatible';

export interface TurnstoneSettings {
  provider: ProviderName;
  model: string;
  baseUrl: string;
  maxIterations: number;
  permissionMode: PermissionMode;
  allow: string[];
  deny: string[];
  ask: string[];
  autoCompactInputTokens: number;
  thinkingBudgetTokens: number;
  hooks: HooksConfig;
  bashTimeoutMs: number;
  /** How a permission request asks: a modal (default), a notification, or only the panel and the diff editor. */
  approvalDialog: ApprovalDialog;
}

export type ApprovalDialog = 'modal' | 'notification' | 'panel';
const APPROVAL_DIALOGS: readonly ApprovalDialog[] = ['modal', 'notification', 'panel'];

const strings = (v: unknown): string[] => (Array.isArray(v) ? v.filter((x): x is string => typeof x === 'string') : []);

export function readSettings(): TurnstoneSettings {
  const c = vscode.workspace.getConfiguration('turnstone');
  const mode = c.get<string>('permissionMode', 'ask');
  return {
    provider: c.get<string>('provider') === 'openai-compatible' ? 'openai-compatible' : 'anthropic',
    model: c.get<string>('model', '').trim() || 'claude-sonnet-5-5',
    baseUrl: c.get<string>('baseUrl', '').trim(),
    maxIterations: c.get<number>('maxIterations', 50),
    permissionMode: (PERMISSION_MODES as readonly string[]).includes(mode) ? (mode as PermissionMode) : 'ask',
    allow: strings(c.get('permissions.allow')),
    deny: strings(c.get('permissions.deny')),
    ask: strings(c.get('permissions.ask')),
    autoCompactInputTokens: c.get<number>('autoCompactInputTokens', 100_000),
    thinkingBudgetTokens: c.get<number>('thinkingBudgetTokens', 0),
    hooks: (c.get<HooksConfig>('hooks') ?? {}) as HooksConfig,
    bashTimeoutMs: c.get<number>('bash.timeoutMs', 120_000),
    approvalDialog: readApprovalDialog(c.get<string>('approvalDialog', 'modal')),
  };
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

function readApprovalDialog(v: string): ApprovalDialog {
  return (APPROVAL_DIALOGS as readonly string[]).includes(v) ? (v as ApprovalDialog) : 'modal';
}
