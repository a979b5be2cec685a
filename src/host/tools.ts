// Picks the tool adapters for this window. The extension host runs where the
// files are (extensionKind "workspace"), so Node's fs and child processes reach
// the workspace directly, on local and remote (SSH, WSL, containers) alike.
import * as os from 'node:os';
import * as path from 'node:path';
import * as vscode from 'vscode';
import { type ToolExecutor } from '../runtime/types';
import { NodeShell, NodeWorkspace } from '../tools/node-adapter';
import { createToolExecutor } from '../tools/registry';
import { type TurnstoneSettings } from './settings';
import { bundledRipgrep } from './ripgrep';

export function createHostTools(context: vscode.ExtensionContext, settings: TurnstoneSettings): ToolExecutor {
  const roots = (vscode.workspace.workspaceFolders ?? []).filter((f) => f.uri.scheme === 'file').map((f) => f.uri.fsPath);
  const workspace = new NodeWorkspace(roots.length > 0 ? roots : [os.homedir()]);
  const outputDir = path.join((context.storageUri ?? context.globalStorageUri).fsPath, 'tool-output');
  return createToolExecutor(
    { workspace, ...(vscode.workspace.isTrusted ? { shell: new NodeShell() } : {}) },
    { ripgrepPath: bundledRipgrep(), outputDir, limits: { bashDefaultTimeoutMs: settings.bashTimeoutMs } },
  );
}
