// The permission policy a session runs with may change mid-session only with
// the user's say when the change comes from the workspace and loosens it.
// A workspace's .vscode/settings.json is a file the agent can write (the user
// approves that write as "a settings file", not as "run everything from now
// on"), so a mode, rule, hook or sandbox change read from it that grants more
// is held back and the user asked. Changes that tighten, and changes in the
// user's own settings (outside every workspace), apply at once.
import * as vscode from 'vscode';
import { readSettings, type TurnstoneSettings } from './settings';

export type PolicySettings = Pick<TurnstoneSettings, 'permissionMode' | 'allow' | 'deny' | 'ask' | 'sensitiveFiles' | 'hooks' | 'sandbox' | 'sandboxNetwork' | 'sandboxHideSecrets'>;

const MODE_RANK = { plan: 0, ask: 1, acceptEdits: 2, bypassPermissions: 3 } as const;
const POLICY_KEYS = ['permissionMode', 'permissions.allow', 'permissions.deny', 'permissions.ask', 'permissions.sensitiveFiles', 'hooks', 'sandbox', 'sandbox.network', 'sandbox.hideSecrets'];

export function policyOf(s: TurnstoneSettings): PolicySettings {
  return { permissionMode: s.permissionMode, allow: s.allow, deny: s.deny, ask: s.ask, sensitiveFiles: s.sensitiveFiles, hooks: s.hooks, sandbox: s.sandbox, sandboxNetwork: s.sandboxNetwork, sandboxHideSecrets: s.sandboxHideSecrets };
}

const added = (from: readonly string[], to: readonly string[]) => to.filter((r) => !from.includes(r));

/** What `next` grants that `accepted` did not, in words; empty when it grants nothing more. */
export function loosenings(accepted: PolicySettings, next: PolicySettings): string[] {
  const more: string[] = [];
  if (MODE_RANK[next.permissionMode] > MODE_RANK[accepted.permissionMode]) more.push(`permission mode ${accepted.permissionMode} → ${next.permissionMode}`);
  for (const rule of added(accepted.allow, next.allow)) more.push(`allow rule ${rule}`);
  for (const rule of added(next.deny, accepted.deny)) more.push(`deny rule ${rule} removed`);
  for (const rule of added(next.ask, accepted.ask)) more.push(`ask rule ${rule} removed`);
  for (const glob of added(next.sensitiveFiles, accepted.sensitiveFiles)) more.push(`sensitive files ${glob} removed`);
  // A hook is a command Turnstone runs, and can approve tool uses: any change to them grants something.
  if (JSON.stringify(next.hooks) !== JSON.stringify(accepted.hooks)) more.push('hooks changed');
  if (accepted.sandbox !== 'off' && next.sandbox === 'off') more.push('command sandbox off');
  if (accepted.sandboxNetwork === 'deny' && next.sandboxNetwork !== 'deny') more.push('network allowed in the sandbox');
  if (accepted.sandboxHideSecrets && !next.sandboxHideSecrets) more.push('secret files readable in the sandbox');
  return more;
}

/** Whether any policy setting has a value in the workspace or a folder of it that differs from `before`. */
function workspaceValues(): string {
  const c = vscode.workspace.getConfiguration('turnstone');
  return JSON.stringify(POLICY_KEYS.map((k) => [c.inspect(k)?.workspaceValue, c.inspect(k)?.workspaceFolderValue]));
}

export class PolicyGuard {
  private accepted: PolicySettings | undefined;
  private acceptedWorkspace = workspaceValues();
  private asking = false;
  /** The workspace values the user declined: not asked about again until they change. */
  private declined: string | undefined;
  /** Our own writes to settings (an "Always allow" rule, the mode switch): the user made them in our UI. */
  private ownChanges = 0;

  constructor(
    private readonly confirm: (changes: string[]) => Thenable<boolean>,
    private readonly log: (message: string) => void,
  ) {}

  /**
   * The policy the session runs with: the settings, less what a workspace change granted without consent.
   * Judged whenever the policy is read, not only on change events, so no event order can let one through.
   */
  effective(current: PolicySettings, onDecided: () => void = () => undefined): PolicySettings {
    if (!this.accepted || this.ownChanges > 0) return this.accept(current);
    const more = loosenings(this.accepted, current);
    const values = workspaceValues();
    if (more.length === 0 || values === this.acceptedWorkspace) return this.accept(current);
    if (!this.asking && this.declined !== values) {
      this.log(`workspace settings would loosen the permission policy (${more.join('; ')}): held until the user agrees`);
      this.asking = true;
      void Promise.resolve(this.confirm(more))
        .then((yes) => {
          if (!yes) {
            this.declined = values;
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
    this.acceptedWorkspace = workspaceValues();
    return current;
  }

  /** Marks the next settings change as made through Turnstone's own UI. */
  async ownChange<T>(write: () => Thenable<T>): Promise<T> {
    this.ownChanges++;
    try {
      return await write();
    } finally {
      this.accepted = undefined; // re-read: what the user just chose is the policy now
      this.acceptedWorkspace = workspaceValues();
      this.ownChanges--;
    }
  }

  /** Settings changed: judge them now (asking the user if needed); `onDecided` runs once a held change is accepted. */
  onSettingsChanged(current: PolicySettings, onDecided: () => void): void {
    this.effective(current, onDecided);
  }
}

export async function confirmLoosening(changes: string[]): Promise<boolean> {
  const apply = 'Apply to This Session';
  const choice = await vscode.window.showWarningMessage(
    "This workspace's settings now give Turnstone more permissions. Apply them?",
    {
      modal: true,
      detail: `${changes.join('\n')}\n\nThese came from the workspace's settings (.vscode/settings.json), a file the agent can write. Until you apply them, the session keeps the permissions it had.`,
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
  return installed ? { ...s, ...installed.effective(policyOf(s)) } : s;
}

/** Runs a settings write made through Turnstone's own UI, which needs no second confirmation. */
export function ownSettingsChange<T>(write: () => Thenable<T>): Promise<T> {
  return installed ? installed.ownChange(write) : Promise.resolve(write());
}
