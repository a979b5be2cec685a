// Every file and folder of the workspace, for the `@` picker. Listed once
// with VS Code's own search (vscode.workspace.findFiles: ripgrep, remote-aware)
// and kept in memory: a keystroke then ranks an array instead of searching
// the disk, so the first results come back in milliseconds even for 50k files.
// The exclusions are the user's: files.exclude and search.exclude (findFiles
// applies only the first unless told), and the .gitignore files it finds
// (findFiles2's useIgnoreFiles is still a proposed API in VS Code 1.100).
// A file system watcher marks the list stale when files come and go; it is
// listed again only when the picker next asks (a build or `npm install`
// churning files never makes it relist in the background).
import ignore, { type Ignore } from 'ignore';
import * as vscode from 'vscode';
import { type IndexedPath } from './fuzzy';

const MAX_FILES = 200_000;

/** What the picker asks of the index (the extension holds it as a LazyWorkspaceIndex until the panel opens). */
export interface PathIndex {
  list(): Promise<readonly IndexedPath[]>;
  warm(): void;
}

export class WorkspaceIndex implements PathIndex, vscode.Disposable {
  private entries: IndexedPath[] = [];
  private building: Promise<IndexedPath[]> | undefined;
  private stale = true;
  private readonly subs: vscode.Disposable[] = [];
  /** For the benchmark and the log: how long the last listing took and what it found. */
  lastBuild: { ms: number; files: number; folders: number; truncated: boolean } | undefined;

  constructor(private readonly log?: vscode.LogOutputChannel) {
    const watcher = vscode.workspace.createFileSystemWatcher('**/*');
    const changed = (uri: vscode.Uri) => {
      if (uri.path.includes('/.git/')) return;
      this.invalidate();
    };
    const deleted = (uri: vscode.Uri) => {
      // Gone at once from the picker; the rebuild catches anything under it.
      const rel = this.relative(uri);
      if (rel !== undefined) this.entries = this.entries.filter((e) => e.path !== rel && !e.path.startsWith(`${rel}/`));
      changed(uri);
    };
    this.subs.push(
      watcher,
      watcher.onDidCreate(changed),
      watcher.onDidDelete(deleted),
      // Only a changed .gitignore alters the list; content edits of other files do not.
      watcher.onDidChange((uri) => {
        if (uri.path.endsWith('/.gitignore')) changed(uri);
      }),
      vscode.workspace.onDidChangeConfiguration((e) => {
        if (e.affectsConfiguration('files.exclude') || e.affectsConfiguration('search.exclude')) this.invalidate();
      }),
      vscode.workspace.onDidChangeWorkspaceFolders(() => this.invalidate()),
    );
  }

  /** The current list; the first call waits for the listing, later ones get the cached list while a refresh runs in the background. */
  async list(): Promise<readonly IndexedPath[]> {
    if (this.stale && !this.building) this.rebuild();
    if (this.lastBuild === undefined && this.building) return this.building;
    return this.entries;
  }

  /** Starts listing in the background (the panel opened), so the first `@` finds it ready. */
  warm(): void {
    void this.list().catch((e: unknown) => this.log?.warn(`workspace index: ${String(e)}`));
  }

  dispose(): void {
    for (const s of this.subs) s.dispose();
  }

  private invalidate(): void {
    this.stale = true;
  }

  private rebuild(): void {
    this.stale = false;
    const started = Date.now();
    const building = this.build().then(
      (entries) => {
        this.entries = entries;
        const files = entries.filter((e) => e.kind === 'file').length;
        this.lastBuild = { ms: Date.now() - started, files, folders: entries.length - files, truncated: files >= MAX_FILES };
        this.log?.info(`workspace index: ${files} files, ${entries.length - files} folders in ${this.lastBuild.ms} ms`);
        return entries;
      },
      (error: unknown) => {
        this.stale = true;
        throw error;
      },
    );
    this.building = building;
    void building
      .finally(() => {
        if (this.building === building) this.building = undefined;
      })
      .catch(() => undefined);
  }

  private async build(): Promise<IndexedPath[]> {
    const uris = await vscode.workspace.findFiles('**/*', excludeGlob(), MAX_FILES);
    const rels: string[] = [];
    for (const uri of uris) {
      const rel = this.relative(uri);
      if (rel !== undefined) rels.push(rel);
    }
    const ignores = await loadGitignores(rels.filter((r) => r === '.gitignore' || r.endsWith('/.gitignore')));
    const files = rels.filter((r) => !isGitIgnored(ignores, r)).sort();
    const folders = new Set<string>();
    for (const f of files) {
      for (let i = f.lastIndexOf('/'); i > 0; i = f.lastIndexOf('/', i - 1)) {
        const dir = f.slice(0, i);
        if (folders.has(dir)) break;
        folders.add(dir);
      }
    }
    return [
      ...[...folders].sort().map((p): IndexedPath => ({ path: p, kind: 'folder', lower: p.toLowerCase() })),
      ...files.map((p): IndexedPath => ({ path: p, kind: 'file', lower: p.toLowerCase() })),
    ];
  }

  /** Relative to the first folder (how attachments name paths); absolute for other folders. */
  private relative(uri: vscode.Uri): string | undefined {
    const folders = vscode.workspace.workspaceFolders ?? [];
    const first = folders[0];
    if (!first) return undefined;
    const base = first.uri.path.endsWith('/') ? first.uri.path : `${first.uri.path}/`;
    if (uri.scheme === first.uri.scheme && uri.path.startsWith(base)) return uri.path.slice(base.length);
    return folders.some((f) => uri.path.startsWith(`${f.uri.path}/`)) ? uri.fsPath : undefined;
  }
}

/** files.exclude and search.exclude patterns that are on, plus .git. */
export function excludeGlob(): string {
  const patterns = new Set<string>(['**/.git']);
  for (const section of ['files.exclude', 'search.exclude']) {
    const value = vscode.workspace.getConfiguration().get<Record<string, unknown>>(section) ?? {};
    for (const [glob, on] of Object.entries(value)) if (on === true && !glob.includes('{') && !glob.includes(',')) patterns.add(glob);
  }
  return `{${[...patterns].join(',')}}`;
}

interface IgnoreLevel {
  /** '' for the root. */
  dir: string;
  ig: Ignore;
}

async function loadGitignores(files: string[]): Promise<Map<string, Ignore>> {
  const root = vscode.workspace.workspaceFolders?.[0]?.uri;
  const out = new Map<string, Ignore>();
  if (!root) return out;
  await Promise.all(
    files.map(async (rel) => {
      try {
        const text = new TextDecoder().decode(await vscode.workspace.fs.readFile(vscode.Uri.joinPath(root, rel)));
        out.set(rel.includes('/') ? rel.slice(0, rel.lastIndexOf('/')) : '', ignore().add(text));
      } catch {
        /* unreadable: it excludes nothing */
      }
    }),
  );
  return out;
}

function isGitIgnored(ignores: Map<string, Ignore>, rel: string): boolean {
  if (ignores.size === 0 || rel.startsWith('/')) return false;
  // Deepest .gitignore first: a nested file may re-include what a parent excluded.
  const levels: IgnoreLevel[] = [];
  for (let i = rel.lastIndexOf('/'); ; i = rel.lastIndexOf('/', i - 1)) {
    const dir = i > 0 ? rel.slice(0, i) : '';
    const ig = ignores.get(dir);
    if (ig) levels.push({ dir, ig });
    if (i <= 0) break;
  }
  for (const level of levels) {
    const sub = level.dir ? rel.slice(level.dir.length + 1) : rel;
    const result = level.ig.test(sub);
    if (result.ignored) return true;
    if (result.unignored) return false;
  }
  return false;
}
