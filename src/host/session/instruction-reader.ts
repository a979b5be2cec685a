// The editor's reader for project instructions: reads through
// vscode.workspace.fs (so virtual and remote workspaces work), and for local
// folders resolves symlinks with realpath, which workspace.fs cannot do, so a
// link leading out of the workspace is refused like in the CLI.
import { promises as fs } from 'node:fs';
import * as path from 'node:path';
import * as vscode from 'vscode';
import { type InstructionEntry, type InstructionReader } from '../../runtime/context/instructions';

export function workspaceInstructionReader(root: vscode.Uri): InstructionReader {
  const local = root.scheme === 'file';
  const p = local ? path : path.posix;
  const toUri = (s: string) => (local ? vscode.Uri.file(s) : root.with({ path: s }));
  return {
    async stat(s: string): Promise<InstructionEntry | undefined> {
      let st: vscode.FileStat;
      try {
        st = await vscode.workspace.fs.stat(toUri(s));
      } catch {
        return undefined;
      }
      const type = st.type & vscode.FileType.File ? 'file' : st.type & vscode.FileType.Directory ? 'dir' : 'other';
      // Without a local file system there is no link to follow outside vscode.workspace.fs.
      const realPath = local ? await fs.realpath(s).catch(() => s) : s;
      return { type, realPath };
    },
    readFile: (s) => Promise.resolve(vscode.workspace.fs.readFile(toUri(s))),
    readDir: async (s) => (await vscode.workspace.fs.readDirectory(toUri(s))).map(([name]) => name),
    join: (...parts) => p.join(...parts),
    isWithin(r, s) {
      const rel = p.relative(r, s);
      return rel === '' || (rel !== '..' && !rel.startsWith(`..${p.sep}`) && !p.isAbsolute(rel));
    },
  };
}

/** The workspace root as the reader names it. */
export function readerRootPath(root: vscode.Uri): string {
  return root.scheme === 'file' ? root.fsPath : root.path;
}
