// The Workspace port on vscode.workspace.fs, so the tools work in remote and
// virtual workspaces too. Paths crossing the port stay strings: OS paths for
// `file:` folders (what the Node adapter uses) and URI paths for virtual ones.
import * as fs from 'node:fs';
import * as path from 'node:path';
import * as vscode from 'vscode';
import { type DirEntry, type EntryType, type FileStat, type Workspace, WorkspaceError, type WorkspaceErrorKind } from '../tools/ports';
import { atomicTempPath, removeInterruptedWrites } from '../tools/files/interrupted-writes';

const FS_ERROR_KINDS: Record<string, WorkspaceErrorKind> = {
  FileNotFound: 'not_found',
  EntryNotFound: 'not_found',
  FileExists: 'exists',
  EntryExists: 'exists',
  FileIsADirectory: 'is_directory',
  EntryIsADirectory: 'is_directory',
  FileNotADirectory: 'not_directory',
  EntryNotADirectory: 'not_directory',
  NoPermissions: 'permission',
};

const ERRNO_KINDS: Record<string, WorkspaceErrorKind> = {
  ENOENT: 'not_found',
  ENOTDIR: 'not_directory',
  EACCES: 'permission',
  EPERM: 'permission',
};

function toWorkspaceError(error: unknown, p: string): WorkspaceError {
  if (error instanceof WorkspaceError) return error;
  if (error instanceof vscode.FileSystemError) return new WorkspaceError(FS_ERROR_KINDS[error.code] ?? 'io', error.message, p);
  const code = (error as NodeJS.ErrnoException | undefined)?.code;
  return new WorkspaceError((code && ERRNO_KINDS[code]) || 'io', (error as Error | undefined)?.message ?? String(error), p);
}

function entryType(type: vscode.FileType): EntryType {
  // readDirectory reports links as File|SymbolicLink or Directory|SymbolicLink: the link bit wins so walkers never follow it.
  if (type & vscode.FileType.SymbolicLink) return 'symlink';
  if (type & vscode.FileType.Directory) return 'directory';
  if (type & vscode.FileType.File) return 'file';
  return 'other';
}

export class VsCodeWorkspace implements Workspace {
  readonly roots: readonly string[];
  private readonly folders: readonly vscode.Uri[];

  /** `folders`: the workspace folders' URIs, first one first (default: the open workspace's folders). */
  constructor(folders: readonly vscode.Uri[] = (vscode.workspace.workspaceFolders ?? []).map((f) => f.uri)) {
    if (folders.length === 0) throw new Error('VsCodeWorkspace needs at least one workspace folder');
    this.folders = folders;
    this.roots = folders.map((u) => (u.scheme === 'file' ? u.fsPath : u.path));
  }

  /** Maps a port path back to a URI of the folder's scheme and authority (remote and virtual folders keep theirs). */
  toUri(p: string): vscode.Uri {
    for (let i = 0; i < this.folders.length; i++) {
      const root = this.roots[i]!;
      const rel = path.relative(root, p);
      if (rel === '' || (!rel.startsWith('..') && !path.isAbsolute(rel))) {
        const folder = this.folders[i]!;
        return folder.scheme === 'file' ? vscode.Uri.file(p) : folder.with({ path: p });
      }
    }
    const first = this.folders[0]!;
    return first.scheme === 'file' ? vscode.Uri.file(p) : first.with({ path: p });
  }

  async realpath(p: string): Promise<string> {
    const uri = this.toUri(p);
    if (uri.scheme === 'file') {
      try {
        return await fs.promises.realpath(p);
      } catch (error) {
        throw toWorkspaceError(error, p);
      }
    }
    // Virtual file systems expose no link targets: the path is as real as it gets, once it exists.
    try {
      await vscode.workspace.fs.stat(uri);
    } catch (error) {
      throw toWorkspaceError(error, p);
    }
    return p;
  }

  async stat(p: string): Promise<FileStat | undefined> {
    const uri = this.toUri(p);
    // node:fs for local folders, as readdir: glob_search stats every match for its newest-first order
    // (1 000 matches: 40-90 ms through workspace.fs in the extension host, a few ms with node:fs).
    if (uri.scheme === 'file') {
      try {
        const s = await fs.promises.stat(p);
        return { type: s.isDirectory() ? 'directory' : s.isFile() ? 'file' : 'other', size: s.size, mtimeMs: s.mtimeMs };
      } catch (error) {
        const e = toWorkspaceError(error, p);
        if (e.kind === 'not_found' || e.kind === 'not_directory') return undefined;
        throw e;
      }
    }
    try {
      const s = await vscode.workspace.fs.stat(uri);
      const type: EntryType = s.type & vscode.FileType.Directory ? 'directory' : s.type & vscode.FileType.File ? 'file' : 'other';
      return { type, size: s.size, mtimeMs: s.mtime };
    } catch (error) {
      const e = toWorkspaceError(error, p);
      if (e.kind === 'not_found' || e.kind === 'not_directory') return undefined;
      throw e;
    }
  }

  async readFile(p: string): Promise<Uint8Array> {
    try {
      return await vscode.workspace.fs.readFile(this.toUri(p));
    } catch (error) {
      throw toWorkspaceError(error, p);
    }
  }

  async writeFile(p: string, data: Uint8Array): Promise<void> {
    const target = this.toUri(p);
    // Temp file beside the target, then rename: a crash leaves the old file or the new one, never half of one.
    const tmpPath = atomicTempPath(p);
    const tmp = this.toUri(tmpPath);
    try {
      await vscode.workspace.fs.writeFile(tmp, data);
      if (target.scheme === 'file') copyModeBestEffort(p, tmpPath);
      await vscode.workspace.fs.rename(tmp, target, { overwrite: true });
      if (target.scheme === 'file') await removeInterruptedWrites(p);
    } catch (error) {
      await Promise.resolve(vscode.workspace.fs.delete(tmp, { useTrash: false })).catch(() => undefined);
      throw toWorkspaceError(error, p);
    }
  }

  async mkdir(p: string): Promise<void> {
    try {
      await vscode.workspace.fs.createDirectory(this.toUri(p));
    } catch (error) {
      throw toWorkspaceError(error, p);
    }
  }

  async readdir(p: string): Promise<DirEntry[]> {
    const uri = this.toUri(p);
    // Local folders are listed with node:fs, as realpath does: each workspace.fs.readDirectory costs ~5 ms in the
    // extension host, and glob_search and the grep fallback list every folder (100k files in 1 010 folders:
    // 9-10 s against ~0.1 s; bench/scale-search.bench.ts). The host runs where `file:` folders are, remote included.
    if (uri.scheme === 'file') {
      try {
        const entries = await fs.promises.readdir(p, { withFileTypes: true });
        return entries.map((e) => ({ name: e.name, type: e.isSymbolicLink() ? 'symlink' : e.isDirectory() ? 'directory' : e.isFile() ? 'file' : 'other' }));
      } catch (error) {
        throw toWorkspaceError(error, p);
      }
    }
    try {
      const entries = await vscode.workspace.fs.readDirectory(uri);
      return entries.map(([name, type]) => ({ name, type: entryType(type) }));
    } catch (error) {
      throw toWorkspaceError(error, p);
    }
  }

  async rename(from: string, to: string): Promise<void> {
    try {
      await vscode.workspace.fs.rename(this.toUri(from), this.toUri(to), { overwrite: true });
    } catch (error) {
      throw toWorkspaceError(error, from);
    }
  }

  async delete(p: string): Promise<void> {
    try {
      await vscode.workspace.fs.delete(this.toUri(p), { recursive: true, useTrash: false });
    } catch (error) {
      throw toWorkspaceError(error, p);
    }
  }
}

/** An executable script must stay executable after an edit; vscode.workspace.fs has no chmod. */
function copyModeBestEffort(from: string, to: string): void {
  try {
    fs.chmodSync(to, fs.statSync(from).mode & 0o7777);
  } catch {
    // New file, or a file system without modes.
  }
}

/** VS Code ships ripgrep; its location moved between packaging layouts, so try both. */
export function vscodeRipgrepPath(appRoot: string = vscode.env.appRoot): string | undefined {
  const exe = process.platform === 'win32' ? 'rg.exe' : 'rg';
  for (const modules of ['node_modules', 'node_modules.asar.unpacked']) {
    const candidate = path.join(appRoot, modules, '@vscode', 'ripgrep', 'bin', exe);
    if (fs.existsSync(candidate)) return candidate;
  }
  return undefined;
}
