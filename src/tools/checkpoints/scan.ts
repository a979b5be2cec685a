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
import { copyFile, lstat, readFile, rename, rm, stat, utimes } from 'node:fs/promises';
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
  /** git: the store's own index, in place of the repository's (see PrivateIndex). */
  index?: PrivateIndex;
}

export interface ObjectSink {
  /** Stores content under its git blob id (no-op when already stored). */
  put(id: string, bytes: Uint8Array): Promise<void>;
  /** The same, written before it returns (for small files, see captureFileNow). */
  putNow?(id: string, bytes: Uint8Array): void;
  /**
   * Blob ids of files already read, by absolute path and size, mtime, ctime and inode, so a file that stays
   * modified across many turns is read and hashed once, not at every scan (see remember).
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
  (
    args: string[],
    options?: {
      input?: string;
      maxBuffer?: number;
      /**
       * An index file of our own that git reads and may rewrite (its stat and untracked caches) in place of the
       * repository's, which is then neither read nor written. Without it optional locks are off: nothing is written.
       */
      index?: string;
    },
  ): Promise<Buffer>;
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
        ['-C', root, ...(options.index === undefined ? ['--no-optional-locks'] : []), '-c', 'core.quotepath=off', ...NO_REPOSITORY_PROGRAMS, ...args],
        { encoding: 'buffer', maxBuffer: options.maxBuffer ?? 512 * 1024 * 1024, env: gitEnv(options.index) },
        (error, stdout) => (error ? reject(error) : resolve(stdout)),
      );
      // git that exits before reading its input (the repository was deleted meanwhile) closes the pipe: its exit
      // status says what failed, and the write's EPIPE must not surface as an uncaught error in the host.
      child.stdin?.on('error', () => undefined);
      if (options.input !== undefined) child.stdin?.end(options.input);
    });
  return async (args, options) => {
    // Of the commands used here only status reads file content (to compare a racily-clean file), and so does any
    // command that writes an index (it checks racily-clean entries before writing them), so only they can run a
    // clean filter; the repository's drivers are read first and emptied by name.
    if (args[0] !== 'status' && options?.index === undefined) return run(args, options);
    const drivers = await run([...FILTER_DRIVERS_QUERY]).catch(() => Buffer.alloc(0));
    return run([...filterOverrides(drivers.toString('utf8')), ...args], options);
  };
}

/** The environment without variables that would point git at another repository, work tree or program. */
function gitEnv(index?: string): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = { ...process.env, GIT_OPTIONAL_LOCKS: '0', LC_ALL: 'C' };
  for (const name of GIT_ENV_REMOVED) delete env[name];
  if (index !== undefined) {
    env.GIT_INDEX_FILE = index;
    delete env.GIT_OPTIONAL_LOCKS;
  }
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
  const statAt = Date.now();
  const s = await lstat(absolute).catch(() => undefined);
  const known = judgeStat(absolute, s, sink, maxFileBytes);
  if (known || !s) return known ?? { kind: 'absent' };
  const sig = statSig(s);
  try {
    const bytes = await readFile(absolute);
    const id = blobId(bytes);
    await sink.put(id, bytes);
    remember(sink, absolute, s, statAt, id);
    return { kind: 'blob', id, sig };
  } catch {
    return { kind: 'unrestorable', why: 'unreadable' };
  }
}

const statSig = (s: { size: number; mtimeMs: number }) => `${s.size}:${Math.floor(s.mtimeMs)}`;

/**
 * What a file's lstat alone decides, for captureFile and captureFileNow alike: absent (none, or a folder), not
 * restorable (a link: writing its target's bytes would replace the link with a copy; or too large), or the copy
 * already stored when its size, mtime, ctime and inode are those last read. Undefined: the file must be read.
 */
function judgeStat(absolute: string, s: Stats | undefined, sink: ObjectSink, maxFileBytes: number): FileState | undefined {
  if (!s || s.isDirectory()) return { kind: 'absent' };
  if (s.isSymbolicLink()) return { kind: 'unrestorable', why: 'a symbolic link', sig: statSig(s) };
  if (s.size > maxFileBytes) return { kind: 'unrestorable', why: 'too large', sig: statSig(s) };
  const seen = sink.seen?.get(absolute);
  if (seen?.sig === seenSig(s)) return { kind: 'blob', id: seen.id, sig: statSig(s) };
  return undefined;
}

/** What a file read before must still show to be taken as unchanged: ctime too, which no one can set back. */
const seenSig = (s: Stats) => `${s.size}:${s.mtimeMs}:${s.ctimeMs}:${s.ino}`;

/**
 * Records the blob id of a file just read, unless it is racily new (git's racy-clean case): a write in the same
 * clock tick as the one before leaves size, mtime and ctime as they were, so a file whose times are not older than
 * the stat by more than the file system's granularity is read again at the next scan. Times in whole seconds
 * suggest a file system that keeps no finer ones (up to 2 s on FAT); others tick in milliseconds.
 */
function remember(sink: ObjectSink, absolute: string, s: Stats, statAt: number, id: string): void {
  const coarse = s.mtimeMs % 1000 === 0 || s.ctimeMs % 1000 === 0;
  if (Math.max(s.mtimeMs, s.ctimeMs) < statAt - (coarse ? 2000 : 50)) sink.seen?.set(absolute, { sig: seenSig(s), id });
  else sink.seen?.delete(absolute);
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
  const statAt = Date.now();
  try {
    s = lstatSync(absolute, { throwIfNoEntry: false });
  } catch {
    return undefined;
  }
  const known = judgeStat(absolute, s, sink, maxFileBytes);
  if (known || !s) return known ?? { kind: 'absent' };
  const sig = statSig(s);
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
    remember(sink, absolute, s, statAt, id);
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

// One process: the HEAD commit, then every path whose index or work-tree state differs from it, with the
// index's blob id. Only work-tree changes and untracked files are read and copied.
// --no-ahead-behind: the branch line's counts against the upstream (a walk of the history) are not used.
const STATUS = ['status', '--porcelain=v2', '-z', '--branch', '--no-ahead-behind', '--untracked-files=all', '--no-renames', '--ignore-submodules=all'];

/** The HEAD commit a porcelain v2 status names ('' before the first commit). */
function statusHead(out: string): string {
  const at = out.indexOf('# branch.oid ');
  if (at < 0) return '';
  const oid = out.slice(at + '# branch.oid '.length, out.indexOf('\0', at));
  return /^[0-9a-f]{40,64}$/.test(oid) ? oid : '';
}

/**
 * On our own index: its untracked cache kept for `--untracked-files=all` (without this configuration git drops it
 * in that mode), and the file always written whole (a split index would write its shared part into the repository).
 */
const OWN_INDEX_CONFIG = ['-c', 'core.untrackedCache=true', '-c', 'status.showUntrackedFiles=all', '-c', 'core.splitIndex=false'];

/**
 * The store's own git index: HEAD's tree with the stat data of the files as last seen, and git's untracked cache.
 * `git status --no-optional-locks` on the repository's index lstats every tracked file and reads every folder of
 * the work tree at each scan (in a 20 000-file repository about 30 and 16 ms); on this index, which git may
 * rewrite, the folders are read only where their mtime changed. It starts as a copy of the repository's index
 * (whose stat data spares hashing every file once), put on HEAD's tree (before the first commit it stays as it
 * was), and follows HEAD when a commit moves it.
 * The repository's own index is never written. git's racy-clean rule keeps it exact: an entry whose mtime is not
 * older than the index file is compared by content, and git marks such entries before rewriting the file; the
 * copy is dated a second before the original so that no entry of the original becomes less racy in it.
 * Any failure drops it for the store's lifetime: scans then go back to the repository's index, read only.
 */
export class PrivateIndex {
  /** The HEAD commit the entries were read from; undefined: to be made (again) from the repository's index. */
  private head: string | undefined;
  private failed = false;
  private queue: Promise<unknown> = Promise.resolve();

  constructor(readonly file: string) {}

  /** `git status` (STATUS) on this index, or undefined when it cannot be used. */
  status(git: GitRunner, root: string): Promise<string | undefined> {
    if (this.failed) return Promise.resolve(undefined);
    // One git at a time: a second writer would fail to lock the file.
    const run = this.queue.then(async () => {
      try {
        if (this.head === undefined) this.head = await this.make(git, root);
        let out = (await git([...OWN_INDEX_CONFIG, ...STATUS], { index: this.file })).toString('utf8');
        // A commit (or a checkout) moved HEAD: its tree goes in, and status again, so that no path of HEAD is
        // missing from the index (a tracked file that is also ignored would look deleted).
        for (let tries = 0; tries < 3 && statusHead(out) !== this.head; tries++) {
          this.head = undefined;
          const head = statusHead(out);
          await this.readTree(git, this.file, head);
          this.head = head;
          out = (await git([...OWN_INDEX_CONFIG, ...STATUS], { index: this.file })).toString('utf8');
        }
        return out;
      } catch {
        this.failed = true;
        this.head = undefined;
        await rm(this.file, { force: true }).catch(() => undefined);
        return undefined;
      }
    });
    this.queue = run;
    return run;
  }

  /** HEAD's tree into `index`, keeping the stat data of entries whose content it already has. */
  private async readTree(git: GitRunner, index: string, head: string): Promise<void> {
    // --reset: -m (stat data kept where the blob is the same) that also drops unmerged entries instead of failing.
    await git([...OWN_INDEX_CONFIG, 'read-tree', ...(head ? ['--reset', head] : ['--empty'])], { index });
  }

  private async make(git: GitRunner, root: string): Promise<string> {
    await rm(`${this.file}.lock`, { force: true }); // left by a git that was stopped
    const theirs = path.resolve(root, (await git(['rev-parse', '--git-path', 'index'])).toString('utf8').trim());
    const head = (await git(['rev-parse', '-q', '--verify', 'HEAD^{commit}']).catch(() => Buffer.alloc(0))).toString('utf8').trim();
    const tmp = `${this.file}.${process.pid}.new`;
    const s = await stat(theirs).catch(() => undefined);
    try {
      if (s) {
        await copyFile(theirs, tmp);
        const older = Math.floor(s.mtimeMs / 1000) - 1;
        await utimes(tmp, older, older);
      }
      // Before the first commit the repository's index is kept as it is: what was staged is known by blob id.
      if (head) await this.readTree(git, tmp, head);
      if (s || head) await rename(tmp, this.file);
      else await rm(this.file, { force: true }); // no index and no commit: git starts from an empty one
    } finally {
      await rm(tmp, { force: true }).catch(() => undefined);
    }
    return head;
  }
}

export async function scanGit(git: GitRunner, root: string, sink: ObjectSink, options: ScanOptions): Promise<Scan> {
  const out = (await options.index?.status(git, root)) ?? (await git(STATUS)).toString('utf8');
  options.signal?.throwIfAborted();
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
