// Whether a path the webview sent lies inside a workspace folder: the panel's
// links, @-mentions and attachments open or read nothing outside it.
import * as fs from 'node:fs/promises';
import * as path from 'node:path';
import * as vscode from 'vscode';

/** Resolves a path the webview sent; undefined unless it is inside a workspace folder (lexically: no symlinks are followed). */
export function insideWorkspace(p: string): string | undefined {
  const folders = vscode.workspace.workspaceFolders ?? [];
  const root = folders[0]?.uri.fsPath;
  if (!root) return undefined;
  const abs = path.resolve(root, p);
  return folders.some((f) => isWithin(f.uri.fsPath, abs)) ? abs : undefined;
}

function isWithin(folder: string, abs: string): boolean {
  const rel = path.relative(folder, abs);
  return rel === '' || (!rel.startsWith('..') && !path.isAbsolute(rel));
}

/**
 * Like insideWorkspace, but also after following symlinks: a link inside the
 * workspace pointing outside it does not pass. Resolves the real path (the one
 * to open or read), or undefined (also when the path does not exist).
 */
export async function realInsideWorkspace(p: string): Promise<string | undefined> {
  const abs = insideWorkspace(p);
  if (!abs) return undefined;
  try {
    const real = await fs.realpath(abs);
    const roots = await Promise.all((vscode.workspace.workspaceFolders ?? []).map((f) => fs.realpath(f.uri.fsPath).catch(() => f.uri.fsPath)));
    return roots.some((r) => isWithin(r, real)) ? real : undefined;
  } catch {
    return undefined;
  }
}
