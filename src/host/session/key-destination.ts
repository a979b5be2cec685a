// The API key goes only where the user chose. A base URL from the user's own
// settings or environment is their choice; one a workspace sets (its
// .vscode/settings.json, which a repository can ship and the agent can write)
// is not, until the user allows it once for that URL. Remembered in the
// extension's global state, which no workspace file can change.
import * as vscode from 'vscode';
import { ModelError } from '../../runtime/types';

const STATE_KEY = 'turnstone.allowedBaseUrls';

/** Where `turnstone.baseUrl`'s value comes from: the workspace (or one of its folders), or the user. */
export function baseUrlFromWorkspace(): string | undefined {
  const i = vscode.workspace.getConfiguration('turnstone').inspect<string>('baseUrl');
  const value = (i?.workspaceFolderValue ?? i?.workspaceValue)?.trim();
  return value ? value : undefined;
}

export class KeyDestinations {
  private asking: Promise<boolean> | undefined;

  constructor(
    private readonly state: vscode.Memento,
    private readonly confirm: (url: string) => Thenable<boolean> = confirmDestination,
  ) {}

  /** True when requests may carry the key to this URL without asking (the model picker lists models only then). */
  allowedWithoutAsking(baseUrl: string | undefined): boolean {
    const fromWorkspace = baseUrlFromWorkspace();
    return !baseUrl || !fromWorkspace || baseUrl !== fromWorkspace || this.state.get<string[]>(STATE_KEY, []).includes(baseUrl);
  }

  /** Throws a clear error when requests would carry the key to a workspace-chosen URL the user has not allowed. */
  async check(baseUrl: string | undefined): Promise<void> {
    const fromWorkspace = baseUrlFromWorkspace();
    if (!baseUrl || !fromWorkspace || baseUrl !== fromWorkspace) return;
    const allowed = this.state.get<string[]>(STATE_KEY, []);
    if (allowed.includes(baseUrl)) return;
    // One question at a time: steps and the model picker may ask at once.
    this.asking ??= Promise.resolve(this.confirm(baseUrl)).finally(() => (this.asking = undefined));
    if (await this.asking) {
      if (!this.state.get<string[]>(STATE_KEY, []).includes(baseUrl)) await this.state.update(STATE_KEY, [...this.state.get<string[]>(STATE_KEY, []), baseUrl]);
      return;
    }
    throw new ModelError(
      'invalid_request',
      vscode.l10n.t("This workspace's settings send requests, with your API key, to {0} (turnstone.baseUrl in .vscode/settings.json), and you have not allowed that. Remove the setting, set it in your user settings, or send again and allow it.", baseUrl),
    );
  }
}

function confirmDestination(url: string): Thenable<boolean> {
  const allow = vscode.l10n.t('Allow');
  return vscode.window
    .showWarningMessage(
      vscode.l10n.t("Send Turnstone's requests and your API key to {0}?", url),
      {
        modal: true,
        detail: vscode.l10n.t("This workspace's settings (.vscode/settings.json) set turnstone.baseUrl to {0}. A repository can ship that file, and the agent can write it: allow it only for a server you trust. Your answer is remembered for this URL.", url),
      },
      allow,
    )
    .then((choice) => choice === allow);
}
