// C5 "undo turn": show every file the last turn changed as one multi-file diff
// (current → restored), ask, then restore each file's content from before the
// turn. A file the user changed since the turn is named in the question.
// Restoring goes through the same atomic write as the tools and keeps the
// file's encoding (UTF-16, BOM), so undo never half-writes or re-encodes.
import * as fs from 'node:fs/promises';
import * as path from 'node:path';
import * as vscode from 'vscode';
import { type FileChange } from '../runtime/types';
import { type TextEncodingName } from '../tools/text';
import { showChangePreview } from './change-preview';
import { loadCore } from './load-core';
import { type OriginalContentProvider } from './proposal-documents';

export interface UndoResult {
  restored: string[];
  skipped: string[];
}

interface CurrentFile {
  text: string;
  encoding: TextEncodingName;
}

async function readOrNull(file: string): Promise<CurrentFile | null> {
  try {
    const bytes = await fs.readFile(file);
    // From the lazily loaded core (a turn has run, so it is loaded): keeps activation's bundle small.
    const { decodeText, detectEncoding } = loadCore();
    return { text: decodeText(bytes).text, encoding: detectEncoding(bytes) };
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
    void vscode.window.showInformationMessage(vscode.l10n.t('Turnstone: the last turn changed no files.'));
    return undefined;
  }
  const current = await Promise.all(changes.map((c) => readOrNull(c.path)));
  const changedSince = changes.filter((c, i) => (current[i]?.text ?? null) !== c.after).map((c) => c.path);

  // Left: the file now; right: what undo would restore.
  const preview = options.confirm
    ? await showChangePreview(vscode.l10n.t('Undo last Turnstone turn (now ↔ after undo)'), changes.map((c, i) => ({ file: vscode.Uri.file(c.path), now: current[i]?.text, after: c.before ?? undefined })), originals)
    : undefined;
  try {
    if (options.confirm) {
      const names = changes.map((c) => vscode.workspace.asRelativePath(c.path)).join(', ');
      const warning = changedSince.length > 0 ? `\n\n${vscode.l10n.t('Changed since the turn (your edits there will be lost): {0}', changedSince.map((p) => vscode.workspace.asRelativePath(p)).join(', '))}` : '';
      const undo = vscode.l10n.t('Undo Changes');
      const choice = await vscode.window.showWarningMessage(
        changes.length === 1 ? vscode.l10n.t("Undo the last turn's changes to 1 file?") : vscode.l10n.t("Undo the last turn's changes to {0} files?", changes.length),
        { modal: true, detail: `${names}${warning}` },
        undo,
      );
      if (choice !== undo) return undefined;
    }
    const result: UndoResult = { restored: [], skipped: [] };
    const core = loadCore();
    const workspace = new core.VsCodeWorkspace();
    for (const [i, c] of changes.entries()) {
      try {
        if (c.before === null) await fs.rm(c.path, { force: true });
        else {
          await fs.mkdir(path.dirname(c.path), { recursive: true });
          // Edits keep a file's encoding, so the file as it is now tells the encoding of its before.
          await workspace.writeFile(c.path, core.encodeText(c.before, current[i]?.encoding ?? 'utf8'));
        }
        result.restored.push(c.path);
      } catch {
        result.skipped.push(c.path);
      }
    }
    return result;
  } finally {
    await preview?.close();
  }
}
