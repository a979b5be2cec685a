// Keeps the panel's instruction chip current between turns: a created, edited
// or deleted instruction file refreshes it (the prompt itself is re-read at
// the start of every turn regardless).
import * as vscode from 'vscode';

const GLOB = '{AGENTS.md,CLAUDE.md,.github/copilot-instructions.md,.clinerules,.clinerules/*,.roorules,.roo/rules/*}';

export function watchInstructionFiles(refresh: () => void): vscode.Disposable {
  const folder = vscode.workspace.workspaceFolders?.[0];
  if (!folder) return new vscode.Disposable(() => undefined);
  const watcher = vscode.workspace.createFileSystemWatcher(new vscode.RelativePattern(folder, GLOB));
  let timer: ReturnType<typeof setTimeout> | undefined;
  // A save often arrives as several events; one refresh after they settle.
  const schedule = () => {
    if (timer) clearTimeout(timer);
    timer = setTimeout(() => {
      timer = undefined;
      refresh();
    }, 150);
  };
  const subs = [watcher, watcher.onDidChange(schedule), watcher.onDidCreate(schedule), watcher.onDidDelete(schedule)];
  return new vscode.Disposable(() => {
    if (timer) clearTimeout(timer);
    for (const s of subs) s.dispose();
  });
}
