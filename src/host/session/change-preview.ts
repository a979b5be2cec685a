// The multi-file preview shown before files are put back (restore checkpoint,
// undo turn): one changes editor, each file "now" on the left and "after" on
// the right. Both sides carry the file's own path (they differ only by query),
// so the editor shows the file's name and no rename badge; a side that does not
// exist is left out, which it shows as the file being added or deleted. The
// tab's title names the sides (the editor has no per-side labels), and the tab
// is closed once the user has answered.
import * as vscode from 'vscode';
import { type OriginalContentProvider, ORIGINAL_SCHEME } from '../approvals/proposal-documents';

export interface PreviewFile {
  /** The file on disk. */
  file: vscode.Uri;
  /** Its content now, and after the operation; undefined: it does not exist then. */
  now: string | undefined;
  after: string | undefined;
}

export interface ChangePreview {
  /** Closes the preview's tab and forgets its contents. */
  close(): Promise<void>;
}

export async function showChangePreview(title: string, files: readonly PreviewFile[], originals: OriginalContentProvider): Promise<ChangePreview> {
  const stamp = Date.now();
  const shown: vscode.Uri[] = [];
  const side = (file: vscode.Uri, text: string | undefined, which: 'now' | 'after') => {
    if (text === undefined) return undefined;
    const uri = vscode.Uri.from({ scheme: ORIGINAL_SCHEME, path: file.path, query: `preview-${stamp}-${which}` });
    originals.set(uri, text);
    shown.push(uri);
    return uri;
  };
  const resources = files.map((f) => [f.file, side(f.file, f.now, 'now'), side(f.file, f.after, 'after')] as const);
  if (resources.length > 0) await vscode.commands.executeCommand('vscode.changes', title, resources).then(undefined, () => undefined);
  return {
    async close() {
      // The editor adds the count to the title: "… (2 files)".
      const tabs = vscode.window.tabGroups.all.flatMap((g) => g.tabs).filter((t) => t.label === title || t.label.startsWith(`${title} (`));
      if (tabs.length > 0) await vscode.window.tabGroups.close(tabs, true).then(undefined, () => undefined);
      for (const uri of shown) originals.delete(uri);
    },
  };
}
