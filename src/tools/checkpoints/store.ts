// Checkpoints of one session: a scan of the workspace at the start and end of
// every turn (scan.ts), kept in the extension's storage as content-addressed
// objects plus one JSONL manifest, never in the user's .git. Restoring compares
// the checkpoint with the files as they are now and writes back only what
// differs, atomically per file and byte for byte (so encodings and line endings
// come back as they were). Hand edits made between the agent's turns are
// conflicts the caller resolves; nothing of the user's is overwritten silently.
import { mkdirSync, readFileSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { copyFile, link, lstat, mkdir, open, readdir, readFile, rename, rm, truncate, writeFile } from 'node:fs/promises';
import * as path from 'node:path';
import { type Workspace } from '../ports';
import { RuntimeError } from '../../runtime/errors';
import { cutHead } from '../../runtime/text-cut';
import { blobId, captureFile, commitListing, type FileState, type FileWalker, type GitRunner, listingId, type ObjectSink, parsePlainListing, PrivateIndex, type Scan, scanGit, scanPlain } from './scan';

export type CheckpointKind = 'turn-start' | 'turn-end' | 'before-restore';

export interface Checkpoint extends Scan {
  id: string;
  kind: CheckpointKind;
  /** Turn number in the session (1-based); the user message that started it is history[messageIndex]. */
  turn: number;
  messageIndex: number;
  /** The first words of the user's message, for pickers. */
  prompt: string;
  at: number;
}

export interface CheckpointStoreOptions {
  /** This session's checkpoint folder (in the extension's storage). */
  dir: string;
  /** The workspace folder whose files are checkpointed. */
  root: string;
  /** git in `root` when it is a repository's top folder; otherwise plain scans. */
  git?: GitRunner;
  /** Files to stat in plain mode, honouring .gitignore. */
  walk: FileWalker;
  maxFileBytes: number;
}

export interface RestoreEntry {
  /** Relative, posix. */
  path: string;
  now: FileState;
  target: FileState;
  /** Changed by hand (between the agent's turns or since the last one) after the checkpoint. */
  conflict: boolean;
}

export interface RestorePlan {
  checkpoint: Checkpoint;
  /** Files to write or delete. */
  entries: RestoreEntry[];
  /** Files that changed since the checkpoint but whose earlier content is not known, with why. */
  unrestorable: RestoreEntry[];
}

export interface RestoreResult {
  restored: string[];
  keptMine: string[];
  failed: Array<{ path: string; error: string }>;
  /** The checkpoint taken just before restoring, so the restore itself can be undone. */
  undo: Checkpoint;
}

/** Same content; outside git a copied file and a stat-only record of it are the same when their size:mtime are. */
function sameState(a: FileState, b: FileState): boolean {
  if (a.kind === 'blob' && b.kind === 'blob') return a.id === b.id;
  if (a.kind === 'absent' || b.kind === 'absent') return a.kind === b.kind;
  return a.sig !== undefined && a.sig === b.sig;
}

const ABSENT: FileState = { kind: 'absent' };

/**
 * The manifest's lines. A checkpoint stores only how its overlay differs from the previous checkpoint's
 * (null: back to the base), so 50 turns that each touch 10 files cost about 500 entries, not 50 copies
 * of everything that differs from HEAD.
 */
type ManifestLine =
  /** `prev`: the checkpoint the delta is from (absent in manifests written before it was recorded). */
  | ({ t: 'cp'; delta: Record<string, FileState | null>; prev?: string | null } & Omit<Checkpoint, 'overlay'>)
  | { t: 'patch'; id: string; path: string; state: FileState };

function overlayDelta(from: Record<string, FileState>, to: Record<string, FileState>): Record<string, FileState | null> {
  const delta: Record<string, FileState | null> = {};
  for (const [p, state] of Object.entries(to)) if (!from[p] || !sameState(from[p], state)) delta[p] = state;
  for (const p of Object.keys(from)) if (!(p in to)) delta[p] = null;
  return delta;
}

/** An object is trusted only if its bytes are what its id says (a crash, a full disk or a hand edit can leave others). */
const intact = (id: string, bytes: Uint8Array) => blobId(bytes) === id || listingId(bytes) === id;

/** Written beside and renamed over: a crash leaves the old file or the new one, never half of one. */
async function writeAtomically(file: string, bytes: Uint8Array | string): Promise<void> {
  const tmp = `${file}.${process.pid}.tmp`;
  try {
    await writeFile(tmp, bytes);
    await rename(tmp, file);
  } catch (error) {
    await rm(tmp, { force: true }).catch(() => undefined);
    throw error;
  }
}

/** writeAtomically, done before it returns (its own temp name: an asynchronous write of the same file may be under way). */
function writeAtomicallyNow(file: string, bytes: Uint8Array): void {
  const tmp = `${file}.${process.pid}.now.tmp`;
  try {
    writeFileSync(tmp, bytes);
    renameSync(tmp, file);
  } catch (error) {
    rmSync(tmp, { force: true });
    throw error;
  }
}

export class CheckpointStore implements ObjectSink {
  private readonly checkpoints: Checkpoint[] = [];
  /** Base listings (a commit's tree, or the plain base listing) by id, parsed once. */
  private readonly bases = new Map<string, Promise<Map<string, string>>>();
  private readonly stored = new Set<string>();
  private readonly writing = new Map<string, Promise<void>>();
  readonly seen = new Map<string, { sig: string; id: string }>();
  /** The manifest's length up to its last whole line: a failed append is cut back to it. */
  private manifestBytes = 0;

  /** git mode: the scans' own index (stat and untracked caches), in the store's folder; remade at each open. */
  private readonly gitIndex: PrivateIndex | undefined;

  private constructor(private readonly options: CheckpointStoreOptions) {
    this.gitIndex = options.git ? new PrivateIndex(path.join(options.dir, 'git-index')) : undefined;
  }

  /**
   * Each checkpoint line is a delta from the one before, so a line lost in the middle would make every later
   * checkpoint restore the wrong files. A torn last line (a crash mid-append) is cut off; a checkpoint whose
   * `prev` is not the checkpoint before it (a line lost in the middle) is dropped with every one after it,
   * never rebuilt on the wrong base; and the manifest is then rewritten whole, atomically, from what was kept.
   */
  static async open(options: CheckpointStoreOptions): Promise<CheckpointStore> {
    const store = new CheckpointStore(options);
    await mkdir(path.join(options.dir, 'objects'), { recursive: true });
    const text = await readFile(store.manifest, 'utf8').catch(() => '');
    const kept: string[] = [];
    let damaged = false;
    let broken = false;
    for (const line of text.split('\n')) {
      if (!line.trim()) continue;
      let record: ManifestLine;
      try {
        record = JSON.parse(line) as ManifestLine;
      } catch {
        damaged = true; // a line cut by a crash: left out
        continue;
      }
      if (broken) continue;
      if (record.t === 'patch') {
        const target = store.checkpoints.find((c) => c.id === record.id);
        if (target) target.overlay[record.path] = record.state;
        kept.push(line);
        continue;
      }
      const { t: _t, delta, prev, ...meta } = record;
      const before = store.checkpoints.at(-1);
      if (prev !== undefined && prev !== (before?.id ?? null)) {
        damaged = broken = true;
        continue;
      }
      const overlay: Record<string, FileState> = { ...(before?.overlay ?? {}) };
      for (const [p, state] of Object.entries(delta)) {
        if (state === null) delete overlay[p];
        else overlay[p] = state;
      }
      store.checkpoints.push({ ...meta, overlay });
      kept.push(line);
    }
    const whole = kept.map((l) => `${l}\n`).join('');
    if (damaged || (text !== '' && !text.endsWith('\n'))) await writeAtomically(store.manifest, whole);
    store.manifestBytes = Buffer.byteLength(whole);
    return store;
  }

  private get manifest(): string {
    return path.join(this.options.dir, 'checkpoints.jsonl');
  }

  /** One whole line or nothing: an append that fails part way is cut back, so the next line starts clean. */
  private async append(line: ManifestLine): Promise<void> {
    const text = `${JSON.stringify(line)}\n`;
    const handle = await open(this.manifest, 'a');
    try {
      await handle.appendFile(text);
      this.manifestBytes += Buffer.byteLength(text);
    } catch (error) {
      await truncate(this.manifest, this.manifestBytes).catch(() => undefined);
      throw error;
    } finally {
      await handle.close().catch(() => undefined);
    }
  }

  private async appendCheckpoint(checkpoint: Checkpoint, previous: Checkpoint | undefined): Promise<void> {
    const { overlay, ...meta } = checkpoint;
    await this.append({ t: 'cp', ...meta, prev: previous?.id ?? null, delta: overlayDelta(previous?.overlay ?? {}, overlay) });
  }

  get mode(): 'git' | 'plain' {
    return this.options.git ? 'git' : 'plain';
  }

  /** The turn-start checkpoints, oldest first: what a user can go back to. */
  turns(): Checkpoint[] {
    return this.checkpoints.filter((c) => c.kind === 'turn-start');
  }

  all(): readonly Checkpoint[] {
    return this.checkpoints;
  }

  async take(meta: { kind: CheckpointKind; turn: number; messageIndex: number; prompt: string }, signal?: AbortSignal): Promise<Checkpoint> {
    const scan = await this.scanNow(signal);
    const { root, maxFileBytes } = this.options;
    if (meta.kind === 'turn-end') {
      // Files the turn's tools wrote that a scan cannot see by content (ignored by git, or outside git):
      // record what the agent left, so a later hand edit is told apart from the agent's.
      const start = this.checkpoints.findLast((c) => c.kind === 'turn-start');
      for (const rel of Object.keys(start?.overlay ?? {})) {
        if (scan.overlay[rel]?.kind !== 'blob') scan.overlay[rel] = await captureFile(path.join(root, rel), this, maxFileBytes);
      }
    }
    return this.record({ ...scan, ...meta });
  }

  private async record(state: Scan & { kind: CheckpointKind; turn: number; messageIndex: number; prompt: string }): Promise<Checkpoint> {
    const checkpoint: Checkpoint = { ...state, prompt: cutHead(state.prompt, 200), id: `${Date.now().toString(36)}-${this.checkpoints.length}`, at: Date.now() };
    await this.appendCheckpoint(checkpoint, this.checkpoints.at(-1));
    this.checkpoints.push(checkpoint);
    return checkpoint;
  }

  /**
   * Called before a tool writes, deletes or renames `absolute`: when the running turn's checkpoint does not
   * know the file's content (outside git, or ignored by git), copy it now, while it is still as it was.
   */
  async beforeWrite(absolute: string): Promise<void> {
    const current = this.checkpoints.at(-1);
    if (!current || current.kind !== 'turn-start') return;
    const rel = this.relative(absolute);
    if (rel === undefined || rel in current.overlay) return;
    const known = (await this.stateIn(current, rel)).kind;
    if (known === 'blob') return;
    const state = await captureFile(absolute, this, this.options.maxFileBytes);
    current.overlay[rel] = state;
    await this.append({ t: 'patch', id: current.id, path: rel, state });
  }

  /** The folder the checkpoints cover. */
  get root(): string {
    return this.options.root;
  }

  /**
   * Every file as a scan sees it now (those that differ from the base: HEAD's tree in git mode), without taking
   * a checkpoint: two snapshots tell which files changed between them, whatever changed them.
   */
  async snapshot(signal?: AbortSignal): Promise<Readonly<Record<string, FileState>>> {
    return (await this.scanNow(signal)).overlay;
  }

  /** What restoring `checkpointId` would change, file by file. */
  async plan(checkpointId: string): Promise<RestorePlan> {
    const index = this.checkpoints.findIndex((c) => c.id === checkpointId);
    const checkpoint = this.checkpoints[index];
    if (!checkpoint) throw new RuntimeError('invalid_request', `no checkpoint ${checkpointId} in this session`);
    const now = await this.scanNow();
    const later = this.checkpoints.slice(index + 1);
    const paths = new Set<string>([...(await this.pathsOf(checkpoint, now)), ...later.flatMap((c) => Object.keys(c.overlay))]);
    const entries: RestoreEntry[] = [];
    const unrestorable: RestoreEntry[] = [];
    for (const rel of [...paths].sort()) {
      const target = await this.stateIn(checkpoint, rel);
      let current = await this.stateIn(now, rel);
      // A scan that cannot see the file's content (ignored by git, or outside git): look at the file itself.
      if (current.kind !== 'blob' && target.kind !== 'absent') current = await captureFile(path.join(this.options.root, rel), this, this.options.maxFileBytes);
      if (sameState(current, target)) continue;
      const entry: RestoreEntry = { path: rel, now: current, target, conflict: await this.changedByHand(rel, index, current) };
      if (target.kind === 'unrestorable') unrestorable.push(entry);
      else entries.push(entry);
    }
    return { checkpoint, entries, unrestorable };
  }

  /**
   * Restores the plan's files through `workspace` (its writes are atomic). Conflicting files are overwritten
   * only when listed in `takeCheckpointFor`; the others keep the user's version.
   */
  async apply(plan: RestorePlan, workspace: Workspace, takeCheckpointFor: ReadonlySet<string>): Promise<RestoreResult> {
    const last = this.checkpoints.at(-1);
    const undo = await this.take({ kind: 'before-restore', turn: last?.turn ?? 0, messageIndex: last?.messageIndex ?? 0, prompt: `before restoring turn ${plan.checkpoint.turn}` });
    const result: RestoreResult = { restored: [], keptMine: [], failed: [], undo };
    const contents = await this.readMany(plan.entries.flatMap((e) => (e.target.kind === 'blob' ? [e.target.id] : [])));
    for (const entry of plan.entries) {
      if (entry.conflict && !takeCheckpointFor.has(entry.path)) {
        result.keptMine.push(entry.path);
        continue;
      }
      const absolute = path.join(this.options.root, entry.path);
      try {
        await assertNoLinkOnTheWay(this.options.root, entry.path);
        if (entry.target.kind === 'absent') await workspace.delete(absolute);
        else if (entry.target.kind === 'blob') {
          await workspace.mkdir(path.dirname(absolute));
          const bytes = contents.get(entry.target.id);
          if (!bytes) throw new RuntimeError('invalid_request', `its content ${entry.target.id.slice(0, 12)} is no longer available (removed by git gc?)`);
          await workspace.writeFile(absolute, bytes);
        }
        result.restored.push(entry.path);
      } catch (error) {
        result.failed.push({ path: entry.path, error: error instanceof Error ? error.message : String(error) });
      }
    }
    // The restored files are the agent's doing, not hand edits a later restore should protect: recorded as a
    // turn end built from what was written, without another scan.
    const overlay = { ...undo.overlay };
    const base = await this.baseListing(undo);
    for (const entry of plan.entries) {
      if (!result.restored.includes(entry.path)) continue;
      const listed = base.get(entry.path);
      const atBase: FileState = listed === undefined ? ABSENT : undo.mode === 'git' ? { kind: 'blob', id: listed } : { kind: 'unrestorable', why: 'not in git and not copied', sig: listed };
      if (sameState(atBase, entry.target)) delete overlay[entry.path];
      else overlay[entry.path] = entry.target;
    }
    await this.record({ mode: undo.mode, base: undo.base, overlay, kind: 'turn-end', turn: undo.turn, messageIndex: undo.messageIndex, prompt: `restored turn ${plan.checkpoint.turn}` });
    return result;
  }

  /**
   * Starts a forked session's checkpoints in `dir` with this session's checkpoints before `checkpointId`, so the
   * fork can go back further too. Objects are hard-linked where the file system allows (they never change).
   */
  async forkInto(dir: string, checkpointId: string): Promise<void> {
    const index = this.checkpoints.findIndex((c) => c.id === checkpointId);
    const kept = index < 0 ? [] : this.checkpoints.slice(0, index);
    const lines = kept.map((c, i) => {
      const { overlay, ...meta } = c;
      return JSON.stringify({ t: 'cp', ...meta, prev: kept[i - 1]?.id ?? null, delta: overlayDelta(kept[i - 1]?.overlay ?? {}, overlay) } satisfies ManifestLine);
    });
    const from = path.join(this.options.dir, 'objects');
    for (const sub of await readdir(from).catch(() => [] as string[])) {
      await mkdir(path.join(dir, 'objects', sub), { recursive: true });
      for (const name of await readdir(path.join(from, sub))) {
        if (name.endsWith('.tmp')) continue;
        const src = path.join(from, sub, name);
        const dst = path.join(dir, 'objects', sub, name);
        // A copy goes aside first: the fork never holds a torn object under a valid id.
        await link(src, dst).catch(async () => {
          await copyFile(src, `${dst}.${process.pid}.tmp`);
          await rename(`${dst}.${process.pid}.tmp`, dst);
        });
      }
    }
    await writeAtomically(path.join(dir, 'checkpoints.jsonl'), lines.map((l) => `${l}\n`).join(''));
  }

  /** Our copy of an object, if it is there and intact. */
  private async ownObject(id: string): Promise<Uint8Array | undefined> {
    const own = await readFile(this.objectPath(id)).catch(() => undefined);
    return own && intact(id, own) ? own : undefined;
  }

  /** A stored or git object's bytes. */
  async read(id: string): Promise<Uint8Array> {
    const own = await this.ownObject(id);
    if (own) return own;
    if (this.options.git) {
      try {
        return await this.options.git(['cat-file', 'blob', id]);
      } catch {
        /* pruned by git gc */
      }
    }
    throw new RuntimeError('invalid_request', `the content ${id.slice(0, 12)} of this checkpoint is no longer available (removed by git gc?)`);
  }

  /** Many objects at once: ours from the store, the rest from git through one `cat-file --batch`. */
  async readMany(ids: readonly string[]): Promise<Map<string, Uint8Array>> {
    const found = new Map<string, Uint8Array>();
    const fromGit: string[] = [];
    for (const id of new Set(ids)) {
      const own = await this.ownObject(id);
      if (own) found.set(id, own);
      else fromGit.push(id);
    }
    if (fromGit.length > 0 && this.options.git) {
      const out = await this.options.git(['cat-file', '--batch'], { input: `${fromGit.join('\n')}\n` });
      let at = 0;
      while (at < out.length) {
        const eol = out.indexOf(0x0a, at);
        if (eol < 0) break;
        const [id, type, size] = out.subarray(at, eol).toString('utf8').split(' ');
        at = eol + 1;
        if (type !== 'blob' || size === undefined) continue; // "<id> missing": pruned by git gc
        found.set(id!, out.subarray(at, at + Number(size)));
        at += Number(size) + 1;
      }
    }
    return found;
  }

  async put(id: string, bytes: Uint8Array): Promise<void> {
    if (this.stored.has(id)) return;
    // Scans copy files side by side: two files with the same content share one write (and one temp name).
    let writing = this.writing.get(id);
    if (!writing) {
      writing = this.writeObject(id, bytes).finally(() => this.writing.delete(id));
      this.writing.set(id, writing);
    }
    await writing;
  }

  /** put, written before it returns: for the small files a scan copies (see captureFileNow). */
  putNow(id: string, bytes: Uint8Array): void {
    if (this.stored.has(id)) return;
    const file = this.objectPath(id);
    // As in writeObject: an object already there is kept only when whole. One being written by put() at this
    // moment is written whole by both (each through its own temp file and rename), so either is the object.
    let own: Uint8Array | undefined;
    try {
      own = readFileSync(file);
    } catch {
      own = undefined;
    }
    if (!own || !intact(id, own)) {
      // Its folder is made only when missing (a failed write says so): a mkdir of one that exists costs as much.
      try {
        writeAtomicallyNow(file, bytes);
      } catch (error) {
        if ((error as NodeJS.ErrnoException).code !== 'ENOENT') throw error;
        mkdirSync(path.dirname(file), { recursive: true });
        writeAtomicallyNow(file, bytes);
      }
    }
    this.stored.add(id);
  }

  private async writeObject(id: string, bytes: Uint8Array): Promise<void> {
    const file = this.objectPath(id);
    // "Already stored" means stored whole: an object a crash or a full disk left short is written again.
    if (!(await this.ownObject(id))) {
      await mkdir(path.dirname(file), { recursive: true });
      await writeAtomically(file, bytes);
    }
    this.stored.add(id);
  }

  private objectPath(id: string): string {
    return path.join(this.options.dir, 'objects', id.slice(0, 2), id.slice(2));
  }

  private relative(absolute: string): string | undefined {
    const rel = path.relative(this.options.root, absolute);
    if (!rel || rel.startsWith('..') || path.isAbsolute(rel)) return undefined;
    return rel.split(path.sep).join('/');
  }

  private baseListing(scan: Scan): Promise<Map<string, string>> {
    const key = `${scan.mode}:${scan.base}`;
    let listing = this.bases.get(key);
    if (!listing) {
      const git = this.options.git;
      listing = scan.mode === 'git' && git ? commitListing(git, scan.base) : this.read(scan.base).then(parsePlainListing);
      this.bases.set(key, listing);
    }
    return listing;
  }

  private async stateIn(scan: Scan, rel: string): Promise<FileState> {
    const over = scan.overlay[rel];
    if (over) return over;
    const listed = (await this.baseListing(scan)).get(rel);
    if (listed === undefined) return ABSENT;
    return scan.mode === 'git' ? { kind: 'blob', id: listed } : { kind: 'unrestorable', why: 'not in git and not copied', sig: listed };
  }

  private async pathsOf(a: Scan, b: Scan): Promise<string[]> {
    const paths = new Set([...Object.keys(a.overlay), ...Object.keys(b.overlay)]);
    if (a.base !== b.base) {
      // A commit in between: every path whose committed content changed.
      const [la, lb] = await Promise.all([this.baseListing(a), this.baseListing(b)]);
      for (const [p, v] of la) if (lb.get(p) !== v) paths.add(p);
      for (const p of lb.keys()) if (!la.has(p)) paths.add(p);
    }
    return [...paths];
  }

  private async scanNow(signal?: AbortSignal): Promise<Scan> {
    const { git, root, maxFileBytes, walk } = this.options;
    if (git) return scanGit(git, root, this, { maxFileBytes, signal, index: this.gitIndex });
    const first = this.checkpoints[0];
    const base = first ? { id: first.base, sigs: await this.baseListing(first) } : undefined;
    return scanPlain(root, walk, { maxFileBytes, signal }, base, this, this.checkpoints.at(-1)?.overlay);
  }

  /** Whether `rel` changed outside the agent's turns after checkpoint `fromIndex`: between a turn's end and the next start, or since the last end. */
  private async changedByHand(rel: string, fromIndex: number, now: FileState): Promise<boolean> {
    let endState: FileState | undefined;
    for (const c of this.checkpoints.slice(fromIndex)) {
      if (c.kind === 'turn-end') endState = await this.stateIn(c, rel);
      else if (c.kind === 'turn-start' && endState) {
        if (!sameState(endState, await this.stateIn(c, rel))) return true;
        endState = undefined;
      }
    }
    return endState !== undefined && !sameState(endState, now);
  }
}

/**
 * A restore writes (or deletes) `rel` only through real folders: a folder on the way replaced by a link since
 * the checkpoint (by a command, or by hand) would take the write wherever the link points, outside the
 * workspace or into `.git`. Such an entry fails with the reason; the rest of the restore goes on.
 */
async function assertNoLinkOnTheWay(root: string, rel: string): Promise<void> {
  const parts = rel.split(/[\\/]/).filter((p) => p !== '' && p !== '.');
  if (parts.includes('..')) throw new RuntimeError('invalid_request', `${rel} leads outside the workspace`);
  let at = root;
  for (const part of parts.slice(0, -1)) {
    at = path.join(at, part);
    const st = await lstat(at).catch(() => undefined);
    if (!st) return; // the rest is created as real folders
    if (st.isSymbolicLink()) throw new RuntimeError('invalid_request', `${path.relative(root, at)} is a link now; restoring through it could write outside the workspace, so ${rel} was not restored`);
    if (!st.isDirectory()) throw new RuntimeError('invalid_request', `${path.relative(root, at)} is not a folder now, so ${rel} was not restored`);
  }
}
