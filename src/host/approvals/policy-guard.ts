// The permission policy a session runs with may change mid-session only with
// the user's say when the change comes from the workspace and loosens it.
// A workspace's .vscode/settings.json is a file the agent can write (the user
// approves that write as "a settings file", not as "run everything from now
// on"), so a mode, rule, hook, sandbox, MCP server, provider or base URL change
// read from it that grants more is held back and the user asked. Changes that
// tighten, and changes in the user's own settings (outside every workspace),
// apply at once. A declined change stays declined until the file changes again.
// What counts as granting more is policy-changes.ts (no vscode there, so it is unit-tested).
import * as vscode from 'vscode';
import { readMcpServerSettings, readSettings, type TurnstoneSettings } from '../settings';
import { changedPolicyKeys, loosenings, type PolicySettings } from './policy-changes';

export { loosenings, type PolicySettings } from './policy-changes';

const POLICY_KEYS = ['permissionMode', 'permissions.allow', 'permissions.deny', 'permissions.ask', 'permissions.sensitiveFiles', 'hooks', 'sandbox', 'sandbox.network', 'sandbox.hideSecrets', 'provider', 'baseUrl', 'mcpServers', 'webFetch.allowPrivateNetwork', 'bash.env.passthrough'];

export function policyOf(s: TurnstoneSettings, mcpServers: PolicySettings['mcpServers'] = readMcpServerSettings()): PolicySettings {
  return {
    permissionMode: s.permissionMode,
    allow: s.allow,
    deny: s.deny,
    ask: s.ask,
    sensitiveFiles: s.sensitiveFiles,
    hooks: s.hooks,
    sandbox: s.sandbox,
    sandboxNetwork: s.sandboxNetwork,
    sandboxHideSecrets: s.sandboxHideSecrets,
    provider: s.provider,
    baseUrl: s.baseUrl,
    webFetchAllowPrivateNetwork: s.webFetchAllowPrivateNetwork,
    bashEnvPassthrough: s.bashEnvPassthrough,
    mcpServers,
  };
}

/** Each policy setting's value in the workspace and its folders, as JSON, by key. */
export type WorkspacePolicyValues = Record<string, string>;

function workspaceValues(): WorkspacePolicyValues {
  const c = vscode.workspace.getConfiguration('turnstone');
  return Object.fromEntries(POLICY_KEYS.map((k) => [k, JSON.stringify([c.inspect(k)?.workspaceValue, c.inspect(k)?.workspaceFolderValue])]));
}

const changedKeys = (a: WorkspacePolicyValues, b: WorkspacePolicyValues) => Object.keys({ ...a, ...b }).filter((k) => a[k] !== b[k]);

export class PolicyGuard {
  private accepted: PolicySettings | undefined;
  /** The workspace values the accepted policy was read with, by key. */
  private acceptedWorkspace: WorkspacePolicyValues;
  private asking = false;
  /** Workspace values the user declined, by key: not asked about again until they change. */
  private declined: WorkspacePolicyValues = {};
  /** Our own writes to settings (an "Always allow" rule, the mode switch): the user made them in our UI. */
  private ownChanges = 0;

  constructor(
    private readonly confirm: (changes: string[]) => Thenable<boolean>,
    private readonly log: (message: string) => void,
    private readonly readWorkspace: () => WorkspacePolicyValues = workspaceValues,
  ) {
    this.acceptedWorkspace = readWorkspace();
  }

  /**
   * The policy the session runs with: the settings, less what a workspace change granted without consent.
   * Judged whenever the policy is read, not only on change events, so no event order can let one through.
   */
  effective(current: PolicySettings, onDecided: () => void = () => undefined): PolicySettings {
    if (!this.accepted) return this.accept(current);
    if (this.ownChanges > 0) return this.accepted;
    const more = loosenings(this.accepted, current, vscode.l10n.t);
    const values = this.readWorkspace();
    const fromWorkspace = changedKeys(values, this.acceptedWorkspace);
    // Nothing grants more, or only the user's own settings changed: apply.
    if (more.length === 0 || fromWorkspace.length === 0) return this.accept(current);
    const undecided = fromWorkspace.filter((k) => this.declined[k] !== values[k]);
    if (!this.asking && undecided.length > 0) {
      this.log(`workspace settings would loosen the permission policy (${more.join('; ')}): held until the user agrees`);
      this.asking = true;
      void Promise.resolve(this.confirm(more))
        .then((yes) => {
          if (!yes) {
            for (const k of fromWorkspace) this.declined[k] = values[k]!;
            return;
          }
          this.accept(current);
          this.log('the user applied the workspace permission settings');
          onDecided();
        })
        .finally(() => (this.asking = false));
    }
    return this.accepted;
  }

  private accept(current: PolicySettings): PolicySettings {
    this.accepted = current;
    this.acceptedWorkspace = this.readWorkspace();
    this.declined = {};
    return current;
  }

  /**
   * Marks the next settings change as made through Turnstone's own UI. Only what that write changed becomes
   * accepted: a change the user declined before stays held back (an "Always allow" click must not apply a
   * declined switch to bypassPermissions along with its rule).
   */
  async ownChange<T>(write: () => Thenable<T>, read: () => PolicySettings = () => policyOf(readSettings())): Promise<T> {
    const before = read();
    const workspaceBefore = this.readWorkspace();
    this.ownChanges++;
    try {
      return await write();
    } finally {
      const after = read();
      const merged = { ...(this.accepted ?? before) } as Record<keyof PolicySettings, unknown>;
      for (const key of changedPolicyKeys(before, after)) merged[key] = after[key];
      this.accepted = merged as unknown as PolicySettings;
      const workspaceAfter = this.readWorkspace();
      for (const k of changedKeys(workspaceAfter, workspaceBefore)) this.acceptedWorkspace[k] = workspaceAfter[k]!;
      this.ownChanges--;
    }
  }

  /** Settings changed: judge them now (asking the user if needed); `onDecided` runs once a held change is accepted. */
  onSettingsChanged(current: PolicySettings, onDecided: () => void): void {
    this.effective(current, onDecided);
  }
}

export async function confirmLoosening(changes: string[]): Promise<boolean> {
  const apply = vscode.l10n.t('Apply to This Session');
  const choice = await vscode.window.showWarningMessage(
    vscode.l10n.t("This workspace's settings now give Turnstone more permissions. Apply them?"),
    {
      modal: true,
      detail: `${changes.join('\n')}\n\n${vscode.l10n.t("These came from the workspace's settings (.vscode/settings.json), a file the agent can write. Until you apply them, the session keeps the permissions it had.")}`,
    },
    apply,
  );
  return choice === apply;
}

let installed: PolicyGuard | undefined;

/** The window's one guard (set at activation); without it, settings apply as read. */
export function installPolicyGuard(guard: PolicyGuard): PolicyGuard {
  installed = guard;
  return guard;
}

/** The settings with the permission policy the session has accepted (see PolicyGuard). */
export function readGuardedSettings(): TurnstoneSettings {
  const s = readSettings();
  if (!installed) return s;
  const { mcpServers: _, ...policy } = installed.effective(policyOf(s));
  return { ...s, ...policy };
}

/** turnstone.mcpServers as the session has accepted it: a workspace change that adds or changes a server waits for consent. */
export function readGuardedMcpServerSettings(): PolicySettings['mcpServers'] {
  const m = readMcpServerSettings();
  return installed ? installed.effective(policyOf(readSettings(), m)).mcpServers : m;
}

/** Runs a settings write made through Turnstone's own UI, which needs no second confirmation. */
export function ownSettingsChange<T>(write: () => Thenable<T>): Promise<T> {
  return installed ? installed.ownChange(write) : Promise.resolve(write());
}
