// C5 "undo turn": show every file the last turn changed as one multi-file diff
// (current → restored), ask, then restore each file's content from before the
// turn. A file the user changed since the turn is named in the question.
import * as fs from 'node:fs/promises';
import * as path from 'node:path';
import * as vscode from 'vscode';
import { type FileChange } from '../runtime/types';
import { type OriginalContentProvider, ORIGINAL_SCHEME } from './proposal-documents';

export interface UndoResult {
  restored: string[];
  skipped: string[];
}

async function readOrNull(file: string): Promise<string | null> {
  try {
    return await fs.readFile(file, 'utf8');
  } catch {
    return null;
  }
}

export async function undoTurn(
  changes: FileChange[],
  originals: OriginalContentProvider,
  options: { confirm: boolean },
): Promise<UndoResult | undefined> {
  if (changes.length === 0) {
    void vscode.window.showInformationMessage('Turnstone: the last turn changed no files.');
    return undefined;
  }
  const current = await Promise.all(changes.map((c) => readOrNull(c.path)));
  const changedSince = changes.filter((c, i) => current[i] !== c.after).map((c) => c.path);

  // Left: the file now; right: what undo would restore.
  const stamp = Date.now();
  const resources = changes.map((c, i) => {
    const now = vscode.Uri.from({ scheme: ORIGINAL_SCHEME, path: `/undo-${stamp}/now/${path.basename(c.path)}`, query: c.path });
    const restored = vscode.Uri.from({ scheme: ORIGINAL_SCHEME, path: `/undo-${stamp}/restored/${path.basename(c.path)}`, query: c.path });
    originals.set(now, current[i] ?? '');
    originals.set(restored, c.before ?? '');
    return [vscode.Uri.file(c.path), now, restored] as const;
  });
  try {
    if (options.confirm) {
      await vscode.commands.executeCommand('vscode.changes', 'Undo last Turnstone turn', resources).then(undefined, () => undefined);
      const names = changes.map((c) => vscode.workspace.asRelativePath(c.path)).join(', ');
      const warning = changedSince.length > 0 ? `\n\nChanged since the turn (your edits there will be lost): ${changedSince.map((p) => vscode.workspace.asRelativePath(p)).join(', ')}` : '';
      const choice = await vscode.window.showWarningMessage(
        `Undo the last turn's changes to ${changes.length} file${changes.length === 1 ? '' : 's'}?`,
        { modal: true, detail: `${names}${warning}` },
        'Undo Changes',
      );
      if (choice !== 'Undo Changes') return undefined;
    }
    const result: UndoResult = { restored: [], skipped: [] };
    for (const c of changes) {
      try {
        if (c.before === null) await fs.rm(c.path, { force: true });
        else {
          await fs.mkdir(path.dirname(c.path), { recursive: true });
          await fs.writeFile(c.path, c.before, 'utf8');
        }
        result.restored.push(c.path);
      } catch {
        result.skipped.push(c.path);
      }
    }
    return result;
  } finally {
    for (const [, now, restored] of resources) {
      originals.delete(now);
      originals.delete(restored);
    }
  }
}
