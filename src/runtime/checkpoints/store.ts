// Checkpoints of one session: a scan of the workspace at the start and end of
// every turn (scan.ts), kept in the extension's storage as content-addressed
// objects plus one JSONL manifest, never in the user's .git. Restoring compares
// the checkpoint with the files as they are now and writes back only what
// differs, atomically per file and byte for byte (so encodings and line endings
// come back as they were). Hand edits made between the agent's turns are
// conflicts the caller resolves; nothing of the user's is overwritten silently.
import { appendFile, copyFile, link, mkdir, readdir, readFile, rename, writeFile } from 'node:fs/promises';
import * as path from 'node:path';
import { type Workspace } from '../../tools/ports';
import { RuntimeError } from '../errors';
import {
  captureFile,
  type FileState,
  type FileWalker,
  type GitRunner,
  type ObjectSink,
  parseIndexListing,
  parsePlainListing,
  type Scan,
  scanGit,
  scanPlain,
} from './scan';

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

const sameState = (a: FileState, b: FileState) =>
  a.kind === b.kind && (a.kind !== 'blob' || a.id === (b as { id: string }).id) && (a.kind !== 'unrestorable' || a.sig === (b as { sig?: string }).sig);

const ABSENT: FileState = { kind: 'absent' };

export class CheckpointStore implements ObjectSink {
  private readonly checkpoints: Checkpoint[] = [];
  private readonly listings = new Map<string, Map<string, string>>();
  private readonly stored = new Set<string>();

  private constructor(private readonly options: CheckpointStoreOptions) {}

  static async open(options: CheckpointStoreOptions): Promise<CheckpointStore> {
    const store = new CheckpointStore(options);
    await mkdir(path.join(options.dir, 'objects'), { recursive: true });
    const text = await readFile(path.join(options.dir, 'checkpoints.jsonl'), 'utf8').catch(() => '');
    for (const line of text.split('\n')) {
      if (!line.trim()) continue;
      try {
        store.checkpoints.push(JSON.parse(line) as Checkpoint);
      } catch {
        // A line cut by a crash: the checkpoints before it are intact.
      }
    }
    return store;
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
    const { git, root, maxFileBytes, walk } = this.options;
    const { scan, listingBytes } = git ? await scanGit(git, root, this, { maxFileBytes, signal }) : await scanPlain(root, walk, { maxFileBytes, signal });
    await this.put(scan.listing, listingBytes);
    if (meta.kind === 'turn-end') {
      // Files the turn's tools wrote that a scan cannot see by content (ignored by git, or outside git):
      // record what the agent left, so a later hand edit is told apart from the agent's.
      const start = this.checkpoints.findLast((c) => c.kind === 'turn-start');
      for (const rel of Object.keys(start?.overlay ?? {})) {
        if (!(rel in scan.overlay)) scan.overlay[rel] = await captureFile(path.join(root, rel), this, maxFileBytes);
      }
    }
    const checkpoint: Checkpoint = { ...scan, ...meta, prompt: meta.prompt.slice(0, 200), id: `${Date.now().toString(36)}-${this.checkpoints.length}`, at: Date.now() };
    await appendFile(path.join(this.options.dir, 'checkpoints.jsonl'), `${JSON.stringify(checkpoint)}\n`);
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
    await appendFile(path.join(this.options.dir, 'checkpoints.jsonl'), `${JSON.stringify({ ...current, overlay: current.overlay })}\n`);
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
    for (const entry of plan.entries) {
      if (entry.conflict && !takeCheckpointFor.has(entry.path)) {
        result.keptMine.push(entry.path);
        continue;
      }
      const absolute = path.join(this.options.root, entry.path);
      try {
        if (entry.target.kind === 'absent') await workspace.delete(absolute);
        else if (entry.target.kind === 'blob') {
          await workspace.mkdir(path.dirname(absolute));
          await workspace.writeFile(absolute, await this.read(entry.target.id));
        }
        result.restored.push(entry.path);
      } catch (error) {
        result.failed.push({ path: entry.path, error: error instanceof Error ? error.message : String(error) });
      }
    }
    // The restored files are the agent's doing, not hand edits a later restore should protect.
    await this.take({ kind: 'turn-end', turn: undo.turn, messageIndex: undo.messageIndex, prompt: `restored turn ${plan.checkpoint.turn}` });
    return result;
  }

  /**
   * Starts a forked session's checkpoints in `dir` with this session's checkpoints before `checkpointId`, so the
   * fork can go back further too. Objects are hard-linked where the file system allows (they never change).
   */
  async forkInto(dir: string, checkpointId: string): Promise<void> {
    const index = this.checkpoints.findIndex((c) => c.id === checkpointId);
    const kept = index < 0 ? [] : this.checkpoints.slice(0, index);
    const from = path.join(this.options.dir, 'objects');
    for (const sub of await readdir(from).catch(() => [] as string[])) {
      await mkdir(path.join(dir, 'objects', sub), { recursive: true });
      for (const name of await readdir(path.join(from, sub))) {
        const src = path.join(from, sub, name);
        const dst = path.join(dir, 'objects', sub, name);
        await link(src, dst).catch(() => copyFile(src, dst));
      }
    }
    await writeFile(path.join(dir, 'checkpoints.jsonl'), kept.map((c) => `${JSON.stringify(c)}\n`).join(''));
  }

  /** A stored or git object's bytes. */
  async read(id: string): Promise<Uint8Array> {
    const own = await readFile(this.objectPath(id)).catch(() => undefined);
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

  async put(id: string, bytes: Uint8Array): Promise<void> {
    if (this.stored.has(id)) return;
    const file = this.objectPath(id);
    const exists = await readFile(file).then(
      () => true,
      () => false,
    );
    if (!exists) {
      await mkdir(path.dirname(file), { recursive: true });
      // Written aside and renamed, so a crash never leaves a truncated object under a valid id.
      const tmp = `${file}.${process.pid}.tmp`;
      await writeFile(tmp, bytes);
      await rename(tmp, file);
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

  private async listing(id: string): Promise<Map<string, string>> {
    let map = this.listings.get(id);
    if (!map) {
      const bytes = await readFile(this.objectPath(id));
      map = this.mode === 'git' ? parseIndexListing(bytes) : parsePlainListing(bytes);
      this.listings.set(id, map);
    }
    return map;
  }

  private async stateIn(scan: Scan, rel: string): Promise<FileState> {
    const over = scan.overlay[rel];
    if (over) return over;
    const listed = (await this.listing(scan.listing)).get(rel);
    if (listed === undefined) return ABSENT;
    return scan.mode === 'git' ? { kind: 'blob', id: listed } : { kind: 'unrestorable', why: 'not in git and not copied', sig: listed };
  }

  private async pathsOf(a: Scan, b: Scan): Promise<string[]> {
    const [la, lb] = await Promise.all([this.listing(a.listing), this.listing(b.listing)]);
    const paths = new Set([...Object.keys(a.overlay), ...Object.keys(b.overlay)]);
    for (const [p, v] of la) if (lb.get(p) !== v) paths.add(p);
    for (const p of lb.keys()) if (!la.has(p)) paths.add(p);
    return [...paths];
  }

  private async scanNow(): Promise<Scan> {
    const { git, root, maxFileBytes, walk } = this.options;
    const { scan, listingBytes } = git ? await scanGit(git, root, this, { maxFileBytes }) : await scanPlain(root, walk, { maxFileBytes });
    await this.put(scan.listing, listingBytes);
    return scan;
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
