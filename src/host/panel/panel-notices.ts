// The notices above the panel's transcript: Restricted Mode, a missing key, no
// OS sandbox for commands, and the MCP servers' troubles. Rebuilt whole on every
// change that can alter one (settings, trust, keys, servers).
import * as vscode from 'vscode';
import { sandboxStatus } from '../../tools/shell/sandbox-probe';
import { type HostEvent, type Notice } from '../../webview/protocol';
import { type HostMcp } from '../mcp';
import { type ApiKeys, needsApiKey } from '../secrets';
import { readSettings } from '../settings';

export class PanelNotices {
  /** The sandbox probe starts a process: it runs once the panel, the only place its notice shows, has opened. */
  private panelShown = false;
  private queued = false;

  constructor(
    private readonly keys: ApiKeys,
    private readonly mcp: HostMcp,
    private readonly post: (event: HostEvent) => void,
  ) {}

  /** The panel said it is ready: the first time, the sandbox is probed (refreshed only when it has something to say). */
  panelReady(): void {
    if (this.panelShown) return;
    this.panelShown = true;
    void sandboxNotice().then((notice) => (notice ? this.refresh() : undefined));
  }

  /** Several changes in a burst (servers starting) make one refresh. */
  refreshSoon(): void {
    if (this.queued) return;
    this.queued = true;
    setTimeout(() => {
      this.queued = false;
      void this.refresh();
    }, 100);
  }

  async refresh(): Promise<void> {
    const notices: Notice[] = [];
    if (!vscode.workspace.isTrusted) {
      notices.push({ id: 'restricted', kind: 'restricted', text: vscode.l10n.t('Restricted Mode: Turnstone can read and search but not edit files or run commands until you trust this folder.'), actions: [{ id: 'trust', label: vscode.l10n.t('Manage Workspace Trust') }] });
    }
    const provider = readSettings().provider;
    if (needsApiKey(provider) && !(await this.keys.get(provider))) {
      // The notice carries the panel's own key field; ANTHROPIC_API_KEY / OPENAI_API_KEY in the environment also works.
      const text = provider === 'openai' ? vscode.l10n.t('Add your OpenAI API key to start.') : vscode.l10n.t('Add your Anthropic API key to start.');
      notices.push({ id: 'no_api_key', kind: 'no_api_key', text, actions: [] });
    }
    const sandbox = this.panelShown ? await sandboxNotice() : undefined;
    if (sandbox) notices.push(sandbox);
    notices.push(...this.mcp.notices());
    this.post({ type: 'notices', notices: notices.slice(0, 20) });
  }
}

/** Said once in the panel (not on every command): where commands could run but no OS sandbox is available. */
async function sandboxNotice(): Promise<Notice | undefined> {
  const local = vscode.workspace.workspaceFolders?.[0]?.uri.scheme === 'file';
  if (!vscode.workspace.isTrusted || !local || readSettings().sandbox === 'off') return undefined;
  const status = await sandboxStatus();
  if (status.available) return undefined;
  return { id: 'sandbox_unavailable', kind: 'warning', text: vscode.l10n.t('No OS sandbox for commands: {0}. Commands run with the permission rules only.', status.reason), actions: [] };
}
