// `turnstone.mcp.showServers`: each MCP server with its status, tools and last
// error, and what can be done about it (restart, trust the folder, read the log).
import * as vscode from 'vscode';
import { type ServerInfo } from '../runtime/mcp/manager';
import { type HostMcp, oneLine } from './mcp';

const ICON: Record<ServerInfo['status'], string> = {
  idle: '$(circle-outline)',
  starting: '$(loading~spin)',
  running: '$(pass-filled)',
  failed: '$(error)',
  crashed: '$(error)',
  skipped: '$(shield)',
  stopped: '$(circle-slash)',
};

function statusText(status: ServerInfo['status']): string {
  switch (status) {
    case 'idle':
      return vscode.l10n.t('not started yet (starts with the next turn)');
    case 'starting':
      return vscode.l10n.t('starting…');
    case 'running':
      return vscode.l10n.t('running');
    case 'failed':
      return vscode.l10n.t('failed to start');
    case 'crashed':
      return vscode.l10n.t('stopped unexpectedly (restarted on a later step)');
    case 'skipped':
      return vscode.l10n.t('skipped: Restricted Mode');
    case 'stopped':
      return vscode.l10n.t('stopped');
  }
}

export async function showMcpServers(mcp: HostMcp, log: vscode.LogOutputChannel): Promise<void> {
  const manager = mcp.current ?? (await mcp.prepare());
  const servers = manager.status();
  if (servers.length === 0) {
    const open = vscode.l10n.t('Open Settings');
    const choice = await vscode.window.showInformationMessage(
      vscode.l10n.t('Turnstone: no MCP servers are configured. Add them to .vscode/mcp.json ({"servers": …}), .mcp.json ({"mcpServers": …}) or the setting turnstone.mcpServers.'),
      open,
    );
    if (choice === open) await vscode.commands.executeCommand('workbench.action.openSettings', 'turnstone.mcpServers');
    return;
  }
  const picked = await vscode.window.showQuickPick(
    servers.map((s) => ({
      label: `${ICON[s.status]} ${s.name}`,
      description: `${statusText(s.status)} · ${s.tools.length === 1 ? vscode.l10n.t('1 tool') : vscode.l10n.t('{0} tools', s.tools.length)} · ${s.summary}`,
      detail: (s.lastError && oneLine(s.lastError)) ?? (s.tools.length > 0 ? s.tools.map((t) => t.tool).join(', ') : undefined),
      server: s,
    })),
    { title: vscode.l10n.t('Turnstone: MCP Servers'), placeHolder: vscode.l10n.t('Pick a server to restart it, see its tools or its last error') },
  );
  if (!picked) return;
  const s = picked.server;
  const RESTART = s.status === 'idle' || s.status === 'stopped' ? `$(play) ${vscode.l10n.t('Start')}` : `$(debug-restart) ${vscode.l10n.t('Restart')}`;
  const TOOLS = `$(tools) ${vscode.l10n.t('Show Tools')}`;
  const ERROR = `$(output) ${vscode.l10n.t('Show Last Error in the Log')}`;
  const TRUST = `$(shield) ${vscode.l10n.t('Manage Workspace Trust')}`;
  const actions = s.status === 'skipped' ? [TRUST] : [RESTART, ...(s.tools.length > 0 ? [TOOLS] : []), ...(s.lastError ? [ERROR] : [])];
  const action = await vscode.window.showQuickPick(actions, { title: vscode.l10n.t('MCP server {0}: {1}', s.name, statusText(s.status)) });
  if (action === RESTART) {
    await vscode.window.withProgress({ location: vscode.ProgressLocation.Notification, title: vscode.l10n.t('Starting MCP server {0}…', s.name) }, () => manager.restart(s.name));
    const now = manager.status().find((x) => x.name === s.name);
    if (now?.status === 'running') void vscode.window.showInformationMessage(vscode.l10n.t('MCP server {0} is running with {1} tool(s).', s.name, now.tools.length));
    else void vscode.window.showErrorMessage(vscode.l10n.t('MCP server {0}: {1}', s.name, now?.lastError ? oneLine(now.lastError) : vscode.l10n.t('did not start')));
  } else if (action === TOOLS) {
    await vscode.window.showQuickPick(
      s.tools.map((t) => ({ label: t.name, detail: t.description })),
      { title: vscode.l10n.t('Tools of MCP server {0} (permission rules: {1}, mcp__…__*, or the server)', s.name, s.tools[0]?.name ?? ''), matchOnDetail: true },
    );
  } else if (action === ERROR) {
    log.error(`MCP server ${s.name}: ${s.lastError ?? ''}`);
    log.show(true);
  } else if (action === TRUST) await vscode.commands.executeCommand('workbench.trust.manage');
}
