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
import { closeSync, constants, fstatSync, lstatSync, openSync, readFileSync, type Stats } from 'node:fs';
import { lstat, readFile, stat } from 'node:fs/promises';
import * as path from 'node:path';
import { FILTER_DRIVERS_QUERY, filterOverrides, GIT_ENV_REMOVED, NO_REPOSITORY_PROGRAMS } from '../../runtime/policy/safe-git';

/** One file's state in a scan: known content (git blob id), absent, or known only to have changed. */
export type FileState =
  /** `sig` (size:mtime) where it was read from disk: outside git it ties the content to later stat-only scans. */
  | { kind: 'blob'; id: string; sig?: string }
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
  /** The same, written before it returns (for small files, see captureFileNow). */
  putNow?(id: string, bytes: Uint8Array): void;
  /**
   * Blob ids of files already read, by absolute path and size:mtime, so a file that stays modified across
   * many turns is read and hashed once, not at every scan.
   */
  readonly seen?: Map<string, { sig: string; id: string }>;
}

export interface Scan {
  mode: 'git' | 'plain';
  /**
   * git: the HEAD commit ('' before the first commit); plain: object id of the first scan's stat listing
   * (JSON `{path: "size:mtime"}`).
   */
  base: string;
  /** Every path whose state differs from the base's. Relative, posix. */
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
 * workspace), with optional locks off so a scan never rewrites the user's index, and with every program the
 * repository's configuration could name switched off (safe-git.ts): looking at the work tree runs nothing.
 */
export function gitRunner(root: string, gitPath: string): GitRunner {
  const run: GitRunner = (args, options = {}) =>
    new Promise((resolve, reject) => {
      const child = execFile(
        gitPath,
        ['-C', root, '--no-optional-locks', '-c', 'core.quotepath=off', ...NO_REPOSITORY_PROGRAMS, ...args],
        { encoding: 'buffer', maxBuffer: options.maxBuffer ?? 512 * 1024 * 1024, env: gitEnv() },
        (error, stdout) => (error ? reject(error) : resolve(stdout)),
      );
      if (options.input !== undefined) child.stdin?.end(options.input);
    });
  return async (args, options) => {
    // Of the commands used here only status reads file content (to compare a racily-clean file), so only it can
    // run a clean filter; the repository's drivers are read first and emptied by name.
    if (args[0] !== 'status') return run(args, options);
    const drivers = await run([...FILTER_DRIVERS_QUERY]).catch(() => Buffer.alloc(0));
    return run([...filterOverrides(drivers.toString('utf8')), ...args], options);
  };
}

/** The environment without variables that would point git at another repository, work tree or program. */
function gitEnv(): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = { ...process.env, GIT_OPTIONAL_LOCKS: '0', LC_ALL: 'C' };
  for (const name of GIT_ENV_REMOVED) delete env[name];
  return env;
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

/**
 * The tree of a commit as `path → blob id` (regular files and links; no submodules). The commit is the
 * checkpoint's base: clean files need no copy, git keeps them.
 */
export async function commitListing(git: GitRunner, commit: string): Promise<Map<string, string>> {
  const map = new Map<string, string>();
  if (!commit) return map; // no commit yet: everything is in the overlay
  for (const rec of (await git(['ls-tree', '-r', '-z', '--full-tree', commit])).toString('utf8').split('\0')) {
    const m = /^(\d{6}) blob ([0-9a-f]{40,64})\t(.*)$/s.exec(rec);
    if (m) map.set(m[3]!, m[2]!);
  }
  return map;
}

export function parsePlainListing(bytes: Uint8Array): Map<string, string> {
  return new Map(Object.entries(JSON.parse(Buffer.from(bytes).toString('utf8')) as Record<string, string>));
}

/** Reads one workspace file into a FileState, copying its content into the sink. */
export async function captureFile(absolute: string, sink: ObjectSink, maxFileBytes: number): Promise<FileState> {
  const s = await lstat(absolute).catch(() => undefined);
  const known = judgeStat(absolute, s, sink, maxFileBytes);
  if (known || !s) return known ?? { kind: 'absent' };
  const sig = statSig(s);
  const seenKey = `${s.size}:${s.mtimeMs}:${s.ino}`;
  try {
    const bytes = await readFile(absolute);
    const id = blobId(bytes);
    await sink.put(id, bytes);
    sink.seen?.set(absolute, { sig: seenKey, id });
    return { kind: 'blob', id, sig };
  } catch {
    return { kind: 'unrestorable', why: 'unreadable' };
  }
}

const statSig = (s: { size: number; mtimeMs: number }) => `${s.size}:${Math.floor(s.mtimeMs)}`;

/**
 * What a file's lstat alone decides, for captureFile and captureFileNow alike: absent (none, or a folder), not
 * restorable (a link: writing its target's bytes would replace the link with a copy; or too large), or the copy
 * already stored when its size, mtime and inode are those last read. Undefined: the file must be read.
 */
function judgeStat(absolute: string, s: Stats | undefined, sink: ObjectSink, maxFileBytes: number): FileState | undefined {
  if (!s || s.isDirectory()) return { kind: 'absent' };
  if (s.isSymbolicLink()) return { kind: 'unrestorable', why: 'a symbolic link', sig: statSig(s) };
  if (s.size > maxFileBytes) return { kind: 'unrestorable', why: 'too large', sig: statSig(s) };
  const seen = sink.seen?.get(absolute);
  if (seen?.sig === `${s.size}:${s.mtimeMs}:${s.ino}`) return { kind: 'blob', id: seen.id, sig: statSig(s) };
  return undefined;
}

/** Files up to this size are read and copied by captureFileNow; larger ones through the thread pool (captureFile). */
const READ_NOW_BYTES = 256 * 1024;

/**
 * captureFile without a round trip through the thread pool per call: one lstat, and for a file not read before
 * (by size:mtime:inode) that is small, one read and one write. Each is a few microseconds on a local disk, while
 * each await of the asynchronous version waits for the event loop and a pool thread, which on a busy machine
 * costs milliseconds. Undefined for a file to read through captureFile (large, or a sink that writes only later).
 */
export function captureFileNow(absolute: string, sink: ObjectSink, maxFileBytes: number): FileState | undefined {
  let s: Stats | undefined;
  try {
    s = lstatSync(absolute, { throwIfNoEntry: false });
  } catch {
    return undefined;
  }
  const known = judgeStat(absolute, s, sink, maxFileBytes);
  if (known || !s) return known ?? { kind: 'absent' };
  const sig = statSig(s);
  const seenKey = `${s.size}:${s.mtimeMs}:${s.ino}`;
  // Only a regular file is read here: a read of a FIFO or a device could wait for ever, and must not hold the event loop.
  if (!s.isFile() || s.size > READ_NOW_BYTES || !sink.putNow) return undefined;
  try {
    // Opened without following a link and without waiting: a file swapped for a FIFO since the lstat above is
    // read as nothing rather than holding the event loop, and is checked to be the regular file it was.
    const fd = openSync(absolute, constants.O_RDONLY | constants.O_NONBLOCK | constants.O_NOFOLLOW);
    let bytes: Buffer;
    try {
      const opened = fstatSync(fd);
      if (!opened.isFile() || opened.ino !== s.ino) return undefined;
      bytes = readFileSync(fd);
    } finally {
      closeSync(fd);
    }
    const id = blobId(bytes);
    sink.putNow(id, bytes);
    sink.seen?.set(absolute, { sig: seenKey, id });
    return { kind: 'blob', id, sig };
  } catch {
    return { kind: 'unrestorable', why: 'unreadable' };
  }
}

/** In git mode content is compared by blob id alone: the size:mtime of a copy would only make the manifest larger. */
const withoutSig = (state: FileState): FileState => (state.kind === 'blob' ? { kind: 'blob', id: state.id } : state);

/** Files read and copied at once by a scan (bounded: a turn that touched thousands must not open them all together). */
const CAPTURE_BATCH = 16;
/** The longest a scan holds the event loop between two yields while it looks at changed files. */
const SLICE_MS = 8;

export async function scanGit(git: GitRunner, root: string, sink: ObjectSink, options: ScanOptions): Promise<Scan> {
  // One process: the HEAD commit, then every path whose index or work-tree state differs from it, with the
  // index's blob id. Only work-tree changes and untracked files are read and copied.
  // --no-ahead-behind: the branch line's counts against the upstream (a walk of the history) are not used.
  const out = (await git(['status', '--porcelain=v2', '-z', '--branch', '--no-ahead-behind', '--untracked-files=all', '--no-renames', '--ignore-submodules=all'])).toString('utf8');
  let head = '';
  const overlay: Record<string, FileState> = {};
  const toCapture: string[] = [];
  for (const rec of out.split('\0')) {
    options.signal?.throwIfAborted();
    if (rec.startsWith('# branch.oid ')) {
      const oid = rec.slice('# branch.oid '.length);
      head = /^[0-9a-f]{40,64}$/.test(oid) ? oid : '';
    } else if (rec.startsWith('1 ')) {
      // 1 XY sub mH mI mW hH hI path
      const f = rec.split(' ');
      const rel = f.slice(8).join(' ');
      const [y, sub, mI, hI] = [f[1]![1], f[2]!, f[4]!, f[7]!];
      if (sub !== 'N...') continue; // submodules are their own repositories
      if (y === '.') overlay[rel] = mI === '000000' ? { kind: 'absent' } : { kind: 'blob', id: hI };
      else if (y === 'D') overlay[rel] = { kind: 'absent' };
      else toCapture.push(rel);
    } else if (rec.startsWith('? ') || rec.startsWith('u ')) {
      toCapture.push(rec.startsWith('? ') ? rec.slice(2) : rec.split(' ').slice(10).join(' '));
    }
  }
  // A take should cost little more than the `git status` above. Most changed files were read at an earlier scan
  // and are unchanged since (a file stays modified across many turns), and the others are mostly small: both are
  // looked at here directly (captureFileNow), in slices that hand the event loop back every SLICE_MS. Large
  // files are read and copied side by side afterwards.
  const later: string[] = [];
  let slice = performance.now();
  for (const rel of toCapture) {
    if (performance.now() - slice > SLICE_MS) {
      await new Promise((resolve) => setImmediate(resolve));
      options.signal?.throwIfAborted();
      slice = performance.now();
    }
    const state = captureFileNow(path.join(root, rel), sink, options.maxFileBytes);
    if (state) overlay[rel] = withoutSig(state);
    else later.push(rel);
  }
  for (let i = 0; i < later.length; i += CAPTURE_BATCH) {
    options.signal?.throwIfAborted();
    const batch = later.slice(i, i + CAPTURE_BATCH);
    const states = await Promise.all(batch.map((rel) => captureFile(path.join(root, rel), sink, options.maxFileBytes)));
    batch.forEach((rel, k) => (overlay[rel] = withoutSig(states[k]!)));
  }
  return { mode: 'git', base: head, overlay };
}

/** Visits the workspace's files (relative, posix), honouring .gitignore. */
export type FileWalker = (visit: (rel: string) => Promise<void>) => Promise<void>;

/**
 * Outside git: every file's size and mtime (skipping what `walk` skips). The first scan's listing is the
 * store's base; later scans record only what differs from it, so a large folder costs one listing.
 */
export async function scanPlain(
  root: string,
  walk: FileWalker,
  options: ScanOptions,
  base: { id: string; sigs: Map<string, string> } | undefined,
  sink: ObjectSink,
  /** The previous checkpoint's overlay: content copied then is still known while the file's size:mtime is unchanged. */
  previous: Record<string, FileState> = {},
): Promise<Scan> {
  const sigs = new Map<string, string>();
  await walk(async (rel) => {
    options.signal?.throwIfAborted();
    const s = await stat(path.join(root, rel)).catch(() => undefined);
    if (s?.isFile()) sigs.set(rel, statSig(s));
  });
  if (!base) {
    const bytes = Buffer.from(JSON.stringify(Object.fromEntries(sigs)), 'utf8');
    const id = listingId(bytes);
    await sink.put(id, bytes);
    return { mode: 'plain', base: id, overlay: {} };
  }
  const overlay: Record<string, FileState> = {};
  for (const [rel, sig] of sigs) {
    if (base.sigs.get(rel) === sig) continue;
    const known = previous[rel];
    overlay[rel] = known?.kind === 'blob' && known.sig === sig ? known : { kind: 'unrestorable', why: 'not in git and not copied', sig };
  }
  for (const rel of base.sigs.keys()) if (!sigs.has(rel)) overlay[rel] = { kind: 'absent' };
  return { mode: 'plain', base: base.id, overlay };
}
