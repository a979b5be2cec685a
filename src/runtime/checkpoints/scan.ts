// What the workspace's files are at one moment, without copying the tree.
//
// In a git repository the index already holds every tracked file's content
// (by blob id), so a scan records the index listing (stored once while it does
// not change) and copies only what differs from it: modified, added and
// untracked files that .gitignore does not exclude. Clean files come back from
// git's own object store when restored (read only; nothing is written to .git).
// Outside git a scan records each file's size and mtime; content is known only
// where it was copied before a write (see CheckpointStore.beforeWrite), so a
// file a command changed there is detected but reported as not restorable.
import { execFile } from 'node:child_process';
import { createHash } from 'node:crypto';
import { lstat, readFile, stat } from 'node:fs/promises';
import * as path from 'node:path';

/** One file's state in a scan: known content (git blob id), absent, or known only to have changed. */
export type FileState =
  | { kind: 'blob'; id: string }
  | { kind: 'absent' }
  | { kind: 'unrestorable'; why: 'too large' | 'not in git and not copied' | 'a symbolic link' | 'unreadable'; sig?: string };

export interface ScanOptions {
  /** Files larger than this are recorded as not restorable instead of copied. */
  maxFileBytes: number;
  signal?: AbortSignal;
}

export interface ObjectSink {
  /** Stores content under its git blob id (no-op when already stored). */
  put(id: string, bytes: Uint8Array): Promise<void>;
}

export interface Scan {
  mode: 'git' | 'plain';
  /**
   * git: object id of the index listing (`<blob> <path>\0` per tracked file).
   * plain: object id of the stat listing (JSON `{path: "size:mtime"}`).
   */
  listing: string;
  /** Paths whose state differs from the listing's (git), or whose content was copied (plain). Relative, posix. */
  overlay: Record<string, FileState>;
}

/** Git's id for a blob: content-addressed the same way as the repository, so both stores share one key. */
export function blobId(bytes: Uint8Array): string {
  return createHash('sha1').update(`blob ${bytes.byteLength}\0`).update(bytes).digest('hex');
}

export function listingId(bytes: Uint8Array): string {
  return createHash('sha1').update('listing\0').update(bytes).digest('hex');
}

export interface GitRunner {
  (args: string[], options?: { input?: string; maxBuffer?: number }): Promise<Buffer>;
}

/**
 * Runs git in `root` through an absolute program path (never a relative PATH entry or one inside the
 * workspace), with optional locks off so a scan never rewrites the user's index.
 */
export function gitRunner(root: string, gitPath: string): GitRunner {
  return (args, options = {}) =>
    new Promise((resolve, reject) => {
      const child = execFile(
        gitPath,
        ['-C', root, '--no-optional-locks', '-c', 'core.quotepath=off', ...args],
        { encoding: 'buffer', maxBuffer: options.maxBuffer ?? 512 * 1024 * 1024, env: gitEnv() },
        (error, stdout) => (error ? reject(error) : resolve(stdout)),
      );
      if (options.input !== undefined) child.stdin?.end(options.input);
    });
}

/** The environment without variables that would point git at another repository or work tree. */
function gitEnv(): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = { ...process.env, GIT_OPTIONAL_LOCKS: '0', LC_ALL: 'C' };
  for (const name of ['GIT_DIR', 'GIT_WORK_TREE', 'GIT_INDEX_FILE', 'GIT_OBJECT_DIRECTORY', 'GIT_CEILING_DIRECTORIES']) delete env[name];
  return env;
}

/** An absolute `git` found on PATH outside the workspace, or undefined. */
export async function findGit(workspaceRoot: string, pathEnv = process.env.PATH ?? ''): Promise<string | undefined> {
  const root = path.resolve(workspaceRoot);
  for (const dir of pathEnv.split(path.delimiter)) {
    if (!dir || !path.isAbsolute(dir)) continue;
    const resolved = path.resolve(dir);
    if (resolved === root || resolved.startsWith(root + path.sep)) continue;
    const candidate = path.join(resolved, process.platform === 'win32' ? 'git.exe' : 'git');
    const s = await stat(candidate).catch(() => undefined);
    if (s?.isFile()) return candidate;
  }
  return undefined;
}

/** The repository's top folder when `root` is the top of a git work tree, else undefined. */
export async function gitTopLevel(git: GitRunner, root: string): Promise<string | undefined> {
  try {
    const top = (await git(['rev-parse', '--show-toplevel'])).toString('utf8').trim();
    return path.resolve(top) === path.resolve(root) ? top : undefined;
  } catch {
    return undefined;
  }
}

/** `path\0` records of `git status --porcelain -z`, renames off: every path that differs from HEAD or the index. */
function parseStatus(out: Buffer): string[] {
  const paths: string[] = [];
  for (const rec of out.toString('utf8').split('\0')) {
    if (rec.length > 3) paths.push(rec.slice(3));
  }
  return paths;
}

/** Stage-0 entries of `git ls-files -s -z` as `<blob> <path>\0`, regular files and links only (no submodules). */
function indexListing(out: Buffer): Buffer {
  const parts: string[] = [];
  for (const rec of out.toString('utf8').split('\0')) {
    const m = /^(\d{6}) ([0-9a-f]{40,64}) (\d)\t(.*)$/s.exec(rec);
    if (!m || m[3] !== '0' || m[1] === '160000') continue;
    parts.push(`${m[2]} ${m[4]}\0`);
  }
  return Buffer.from(parts.join(''), 'utf8');
}

export function parseIndexListing(bytes: Uint8Array): Map<string, string> {
  const map = new Map<string, string>();
  for (const rec of Buffer.from(bytes).toString('utf8').split('\0')) {
    const space = rec.indexOf(' ');
    if (space > 0) map.set(rec.slice(space + 1), rec.slice(0, space));
  }
  return map;
}

/** Reads one workspace file into a FileState, copying its content into the sink. */
export async function captureFile(absolute: string, sink: ObjectSink, maxFileBytes: number): Promise<FileState> {
  const s = await lstat(absolute).catch(() => undefined);
  if (!s) return { kind: 'absent' };
  if (s.isDirectory()) return { kind: 'absent' };
  // A link is restored by nobody: writing its target's bytes would replace the link with a copy.
  if (s.isSymbolicLink()) return { kind: 'unrestorable', why: 'a symbolic link', sig: statSig(s) };
  if (s.size > maxFileBytes) return { kind: 'unrestorable', why: 'too large', sig: statSig(s) };
  try {
    const bytes = await readFile(absolute);
    const id = blobId(bytes);
    await sink.put(id, bytes);
    return { kind: 'blob', id };
  } catch {
    return { kind: 'unrestorable', why: 'unreadable' };
  }
}

const statSig = (s: { size: number; mtimeMs: number }) => `${s.size}:${Math.floor(s.mtimeMs)}`;

export interface ScanResult {
  scan: Scan;
  /** The listing's bytes, for the caller to store under scan.listing. */
  listingBytes: Uint8Array;
}

export async function scanGit(git: GitRunner, root: string, sink: ObjectSink, options: ScanOptions): Promise<ScanResult> {
  const [ls, status] = await Promise.all([git(['ls-files', '-s', '-z']), git(['status', '--porcelain', '-z', '--untracked-files=all', '--no-renames'])]);
  const listingBytes = indexListing(ls);
  const overlay: Record<string, FileState> = {};
  for (const rel of parseStatus(status)) {
    options.signal?.throwIfAborted();
    overlay[rel] = await captureFile(path.join(root, rel), sink, options.maxFileBytes);
  }
  return { scan: { mode: 'git', listing: listingId(listingBytes), overlay }, listingBytes };
}

/** Visits the workspace's files (relative, posix), honouring .gitignore. */
export type FileWalker = (visit: (rel: string) => Promise<void>) => Promise<void>;

/** Outside git: every file's size and mtime (skipping what `walk` skips), so a later scan sees what changed. */
export async function scanPlain(root: string, walk: FileWalker, options: ScanOptions): Promise<ScanResult> {
  const sigs: Record<string, string> = {};
  await walk(async (rel) => {
    options.signal?.throwIfAborted();
    const s = await stat(path.join(root, rel)).catch(() => undefined);
    if (s?.isFile()) sigs[rel] = statSig(s);
  });
  const listingBytes = Buffer.from(JSON.stringify(sigs), 'utf8');
  return { scan: { mode: 'plain', listing: listingId(listingBytes), overlay: {} }, listingBytes };
}

export function parsePlainListing(bytes: Uint8Array): Map<string, string> {
  return new Map(Object.entries(JSON.parse(Buffer.from(bytes).toString('utf8')) as Record<string, string>));
}
