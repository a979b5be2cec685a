// Which document a tab edits, for code that must find every tab showing a file:
// a plain text tab, or a diff whose modified (right) side it is.
import * as vscode from 'vscode';

/** The document a tab edits: a text tab's file, or a diff's modified side; undefined for other tabs. */
export function editedUri(tab: vscode.Tab): vscode.Uri | undefined {
  if (tab.input instanceof vscode.TabInputText) return tab.input.uri;
  if (tab.input instanceof vscode.TabInputTextDiff) return tab.input.modified;
  return undefined;
}

/** Every tab, in every group, that edits `uri`. */
export function tabsEditing(uri: vscode.Uri): vscode.Tab[] {
  const key = uri.toString();
  return vscode.window.tabGroups.all.flatMap((g) => g.tabs).filter((t) => editedUri(t)?.toString() === key);
}
