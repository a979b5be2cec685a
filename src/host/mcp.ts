// MCP in the editor: reads the server definitions (user setting, workspace
// setting, .vscode/mcp.json, .mcp.json) before every turn and hands them to the
// one McpManager of this window, which lives in dist/core.js and is created on
// the first turn, never at activation. Also the notices the panel shows for
// servers that failed or were skipped in Restricted Mode.
import { existsSync } from 'node:fs';
import * as path from 'node:path';
import * as vscode from 'vscode';
import { type McpManager, type ServerInfo } from '../runtime/mcp/manager';
import { type Notice } from '../webview/protocol';
import { loadCore } from './session/load-core';
import { readGuardedMcpServerSettings } from './approvals/policy-guard';
import { readSettings } from './settings';
import { hostPlugins } from './context/plugins';

export class HostMcp implements vscode.Disposable {
  private manager: McpManager | undefined;
  private unsubscribe: (() => void) | undefined;

  constructor(
    private readonly log: vscode.LogOutputChannel,
    private readonly version: string,
    private readonly onDidChange: () => void,
  ) {}

  /** The window's manager, created empty if no turn has configured it yet (configure happens in prepare). */
  ensure(): McpManager {
    if (!this.manager) {
      const s = readSettings();
      this.manager = new (loadCore().McpManager)(undefined, {
        clientInfo: { name: 'turnstone', version: this.version },
        workspaceTrusted: vscode.workspace.isTrusted,
        startTimeoutMs: s.mcpStartTimeoutMs,
        callTimeoutMs: s.mcpCallTimeoutMs,
        log: (level, message) => this.log[level](message),
      });
      this.unsubscribe = this.manager.onDidChange(() => this.onDidChange());
    }
    return this.manager;
  }

  /** The manager with the configuration as it is now (re-read every turn: files and settings may have changed). */
  async prepare(): Promise<McpManager> {
    const core = loadCore();
    const root = vscode.workspace.workspaceFolders?.[0]?.uri;
    const ctx = { workspaceFolder: root?.scheme === 'file' ? root.fsPath : undefined, env: process.env };
    // As the policy guard accepted them: a server a workspace settings change adds waits for the user's consent.
    const settings = readGuardedMcpServerSettings();
    // Enabled plugins' servers first: a server of the same name defined by the user or the workspace wins.
    const plugins = await hostPlugins(this.log);
    const layers = [
      ...(plugins.plugins.length > 0 ? [core.pluginServerLayer(plugins, ctx)] : []),
      core.parseServerMap(settings.user, 'user', 'user setting turnstone.mcpServers', ctx),
      ...settings.workspace.map((v) => core.parseServerMap(v, 'workspace', 'workspace setting turnstone.mcpServers', ctx)),
      ...(ctx.workspaceFolder ? await core.readWorkspaceServers(ctx.workspaceFolder, ctx) : []),
    ];
    const merged = core.mergeLayers(layers);
    const manager = this.ensure();
    manager.configure(merged, vscode.workspace.isTrusted);
    manager.callTimeoutMs = readSettings().mcpCallTimeoutMs;
    return manager;
  }

  /** Undefined before the first turn: nothing has been read or started yet. */
  get current(): McpManager | undefined {
    return this.manager;
  }

  servers(): ServerInfo[] {
    return this.manager?.status() ?? [];
  }

  /** "mcp__srv__tool" → what the permission request shows about it. */
  describe(toolName: string): { server: string; tool: string; description: string } | undefined {
    const t = this.manager?.lookup(toolName);
    return t && { server: t.server, tool: t.tool, description: t.description };
  }

  notices(): Notice[] {
    const notices: Notice[] = [];
    const servers = this.servers();
    const skipped = servers.filter((s) => s.status === 'skipped').map((s) => s.name);
    if (skipped.length > 0) {
      notices.push({ id: 'mcp_skipped', kind: 'info', text: vscode.l10n.t('MCP servers defined by this workspace were not started in Restricted Mode: {0}. Trust the folder to use them.', skipped.join(', ')).slice(0, 2000), actions: [{ id: 'trust', label: vscode.l10n.t('Manage Workspace Trust') }] });
    } else if (!this.manager && !vscode.workspace.isTrusted) {
      // Before the first turn nothing is parsed (that would load the core at activation): name the files instead.
      const root = vscode.workspace.workspaceFolders?.[0]?.uri;
      const files = root?.scheme === 'file' ? ['.vscode/mcp.json', '.mcp.json'].filter((f) => existsSync(path.join(root.fsPath, f))) : [];
      if (files.length > 0) notices.push({ id: 'mcp_skipped', kind: 'info', text: vscode.l10n.t('MCP servers defined by this workspace ({0}) will not start in Restricted Mode. Trust the folder to use them.', files.join(', ')), actions: [{ id: 'trust', label: vscode.l10n.t('Manage Workspace Trust') }] });
    }
    const failed = servers.filter((s) => s.status === 'failed' || s.status === 'crashed');
    if (failed.length > 0) {
      const text = failed.map((s) => `${s.name}: ${oneLine(s.lastError ?? s.status)}`).join('; ');
      notices.push({ id: 'mcp_failed', kind: 'warning', text: (failed.length > 1 ? vscode.l10n.t('MCP servers not available — {0}', text) : vscode.l10n.t('MCP server not available — {0}', text)).slice(0, 2000), actions: [{ id: 'mcp_servers', label: vscode.l10n.t('Show MCP Servers') }] });
    }
    const problems = this.manager?.configProblems ?? [];
    if (problems.length > 0) {
      const text = problems.map((p) => `${p.server ? vscode.l10n.t('{0} in {1}', p.server, p.source) : p.source}: ${p.message}`).join('; ');
      notices.push({ id: 'mcp_config', kind: 'warning', text: oneLine(vscode.l10n.t('MCP configuration not understood — {0}', text), 600), actions: [{ id: 'mcp_servers', label: vscode.l10n.t('Show MCP Servers') }] });
    }
    return notices;
  }

  dispose(): void {
    this.unsubscribe?.();
    void this.manager?.dispose();
    this.manager = undefined;
  }
}

/** An error with its stderr tail, folded onto one line for a notice. */
export const oneLine = (text: string, max = 400): string => {
  const flat = text.replace(/\s*\n\s*/g, ' ').trim();
  return flat.length > max ? `${flat.slice(0, max - 1)}…` : flat;
};
