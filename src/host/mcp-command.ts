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

const STATUS_TEXT: Record<ServerInfo['status'], string> = {
  idle: 'not started yet (starts with the next turn)',
  starting: 'starting…',
  running: 'running',
  failed: 'failed to start',
  crashed: 'stopped unexpectedly (restarted on a later step)',
  skipped: 'skipped: Restricted Mode',
  stopped: 'stopped',
};

export async function showMcpServers(mcp: HostMcp, log: vscode.LogOutputChannel): Promise<void> {
  const manager = mcp.current ?? (await mcp.prepare());
  const servers = manager.status();
  if (servers.length === 0) {
    const open = 'Open Settings';
    const choice = await vscode.window.showInformationMessage(
      'Turnstone: no MCP servers are configured. Add them to .vscode/mcp.json ({"servers": …}), .mcp.json ({"mcpServers": …}) or the setting turnstone.mcpServers.',
      open,
    );
    if (choice === open) await vscode.commands.executeCommand('workbench.action.openSettings', 'turnstone.mcpServers');
    return;
  }
  const picked = await vscode.window.showQuickPick(
    servers.map((s) => ({
      label: `${ICON[s.status]} ${s.name}`,
      description: `${STATUS_TEXT[s.status]} · ${s.tools.length} tool${s.tools.length === 1 ? '' : 's'} · ${s.summary}`,
      detail: (s.lastError && oneLine(s.lastError)) ?? (s.tools.length > 0 ? s.tools.map((t) => t.tool).join(', ') : undefined),
      server: s,
    })),
    { title: 'Turnstone: MCP Servers', placeHolder: 'Pick a server to restart it, see its tools or its last error' },
  );
  if (!picked) return;
  const s = picked.server;
  const RESTART = s.status === 'idle' || s.status === 'stopped' ? '$(play) Start' : '$(debug-restart) Restart';
  const TOOLS = '$(tools) Show Tools';
  const ERROR = '$(output) Show Last Error in the Log';
  const TRUST = '$(shield) Manage Workspace Trust';
  const actions = s.status === 'skipped' ? [TRUST] : [RESTART, ...(s.tools.length > 0 ? [TOOLS] : []), ...(s.lastError ? [ERROR] : [])];
  const action = await vscode.window.showQuickPick(actions, { title: `MCP server ${s.name}: ${STATUS_TEXT[s.status]}` });
  if (action === RESTART) {
    await vscode.window.withProgress({ location: vscode.ProgressLocation.Notification, title: `Starting MCP server ${s.name}…` }, () => manager.restart(s.name));
    const now = manager.status().find((x) => x.name === s.name);
    if (now?.status === 'running') void vscode.window.showInformationMessage(`MCP server ${s.name} is running with ${now.tools.length} tool(s).`);
    else void vscode.window.showErrorMessage(`MCP server ${s.name}: ${now?.lastError ? oneLine(now.lastError) : 'did not start'}`);
  } else if (action === TOOLS) {
    await vscode.window.showQuickPick(
      s.tools.map((t) => ({ label: t.name, detail: t.description })),
      { title: `Tools of MCP server ${s.name} (permission rules: ${s.tools[0]?.name ?? ''}, mcp__…__*, or the server)`, matchOnDetail: true },
    );
  } else if (action === ERROR) {
    log.error(`MCP server ${s.name}: ${s.lastError ?? ''}`);
    log.show(true);
  } else if (action === TRUST) await vscode.commands.executeCommand('workbench.trust.manage');
}
