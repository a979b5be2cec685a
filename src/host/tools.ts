// The tool executor for this window: files through vscode.workspace.fs (so
// remote and virtual workspaces work), commands in the "Turnstone" terminal the
// user can watch. No shell in Restricted Mode or in virtual workspaces.
import * as path from 'node:path';
import * as vscode from 'vscode';
import { type ToolExecutor } from '../runtime/types';
import { createToolExecutor } from '../tools/registry';
import { type TurnstoneSettings } from './settings';
import { TerminalShell } from './terminal-shell';
import { VsCodeWorkspace, vscodeRipgrepPath } from './vscode-workspace';

/** One terminal for the whole window, whichever session runs. */
let terminal: TerminalShell | undefined;

function sharedTerminal(context: vscode.ExtensionContext, log: (m: string) => void): TerminalShell {
  if (!terminal) {
    terminal = new TerminalShell({ log });
    const created = terminal;
    context.subscriptions.push(created, { dispose: () => (terminal = terminal === created ? undefined : terminal) });
  }
  return terminal;
}

export function createHostTools(context: vscode.ExtensionContext, settings: TurnstoneSettings, log: (m: string) => void): ToolExecutor {
  const folders = (vscode.workspace.workspaceFolders ?? []).map((f) => f.uri);
  const workspace = new VsCodeWorkspace(folders.length > 0 ? folders : [vscode.Uri.file(context.globalStorageUri.fsPath)]);
  const local = folders[0]?.scheme === 'file';
  const outputDir = path.join((context.storageUri ?? context.globalStorageUri).fsPath, 'tool-output');
  const ripgrepPath = vscodeRipgrepPath();
  return createToolExecutor(
    { workspace, ...(vscode.workspace.isTrusted && local ? { shell: sharedTerminal(context, log) } : {}) },
    { ...(ripgrepPath ? { ripgrepPath } : {}), outputDir, limits: { bashDefaultTimeoutMs: settings.bashTimeoutMs }, sensitiveFiles: settings.sensitiveFiles },
  );
}
