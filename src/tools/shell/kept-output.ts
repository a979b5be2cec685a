// Command output Turnstone keeps on disk: a foreground command's spilled full
// output (bash) and a background command's log. Both go through CappedLog,
// which caps the file as the output streams in (default 64 MB,
// turnstone.bash.outputCapMB): up to the cap the file is the output byte for
// byte; past it the file keeps the head and the latest tail, with one line
// marking the cut. Nothing holds the whole output: a 1 GB flood costs at most
// the cap on disk, and in memory what the disk has not taken yet, bounded too
// (output that the tail has already moved past is dropped before it is
// written). Files are created exclusively (0600, never through a link) in a
// private folder (0700).
//
// The folder of kept output outlives the process (the user's cache folder or
// the editor's storage): pruneKeptOutput removes files older than 7 days and
// keeps the total under 512 MB, oldest first, once per process (and again
// after the process itself kept that much), never touching a file still being
// written.
import { constants } from 'node:fs';
import { chmod, lstat, mkdir, open, readdir, rename, rm, stat, type FileHandle } from 'node:fs/promises';
import * as path from 'node:path';

const MB = 1024 * 1024;

/** turnstone.bash.outputCapMB's default: bytes kept on disk per command. */
export const DEFAULT_KEPT_OUTPUT_BYTES = 64 * MB;
/** Kept output older than this is removed (at the first command of a process). */
export const KEPT_OUTPUT_MAX_AGE_MS = 7 * 24 * 60 * 60 * 1000;
/** The kept output of all processes together stays under this, oldest removed first. */
export const KEPT_OUTPUT_MAX_TOTAL_BYTES = 512 * MB;
/**
 * Files changed this recently are never removed to meet the total: another process may still be writing one
 * (a foreground command runs at most 10 minutes), and the model was just told where to read it.
 */
export const KEPT_OUTPUT_RECENT_MS = 15 * 60 * 1000;
/** Caps below this are raised to it: the file must hold a head, the marker line and a tail. */
export const MIN_KEPT_OUTPUT_BYTES = 16 * 1024;

/** Bytes reserved for the marker line: its count grows as the output does, so it is rewritten in place. */
const MARKER_BYTES = 160;
/** Reads and moves go through a buffer of this size. */
const IO_CHUNK = 1024 * 1024;
/** Contiguous queued output is written in one call up to this size. */
const WRITE_BATCH = 1 * MB;
/** How far back (head) or forward (tail) a cut looks for a line break to land on. */
const ALIGN_WINDOW = 4096;

/** Paths CappedLog is writing in this process: pruning never removes them. */
const live = new Set<string>();

/** "64 MB" for whole megabytes, else bytes. */
export function capLabel(bytes: number): string {
  return bytes % MB === 0 ? `${bytes / MB} MB` : `${bytes} bytes`;
}

/** The cap a limit asks for, as CappedLog applies it: Infinity or a positive number of bytes, at least the minimum. */
export function effectiveCap(bytes: number | undefined): number {
  if (bytes === undefined || Number.isNaN(bytes)) return DEFAULT_KEPT_OUTPUT_BYTES;
  if (bytes === Infinity) return Infinity;
  return Math.max(MIN_KEPT_OUTPUT_BYTES, Math.floor(bytes));
}

interface DataItem {
  kind: 'data';
  /** Logical offset (bytes of output before it). */
  start: number;
  buf: Buffer;
}

interface ReadItem {
  kind: 'read';
  from: number;
  to: number;
  onBytes: (bytes: Buffer) => void;
  onCut: (bytes: number) => void;
  done: (error?: unknown) => void;
}

interface FlushItem {
  kind: 'flush';
  done: () => void;
}

/** Marks the cut one last time and closes the file (reads after it open the file again). */
interface FinishItem {
  kind: 'finish';
  done: () => void;
}

type Item = DataItem | ReadItem | FlushItem | FinishItem;

/** Contiguous queued output taken together. */
interface Batch {
  start: number;
  parts: Buffer[];
  size: number;
}

export interface CappedLogSummary {
  /** Bytes of output handed to the log in all. */
  totalBytes: number;
  /** Bytes of it the file does not hold (the cut middle); 0 when the output fit under the cap. */
  cutBytes: number;
}

/**
 * One command's output on disk, capped as it streams. write() never blocks and never throws; a failed disk makes
 * `failed` true and the rest is dropped. Offsets are logical: bytes of the output as printed. read() gives a range
 * of them back, telling which part the cap removed.
 */
export class CappedLog {
  readonly cap: number;
  private readonly headMax: number;
  private readonly tailMax: number;
  private fh: FileHandle | undefined;
  private readonly queue: Item[] = [];
  private queuedBytes = 0;
  private pumping = false;
  private closing: Promise<CappedLogSummary> | undefined;
  private error: unknown;
  private accepted = 0;
  /** Logical bytes processed (written, or dropped by the cap). */
  private written = 0;
  private fileSize = 0;
  private cut = false;
  /** Head bytes in the file (once cut: where the marker starts). */
  private headLen = 0;
  private markerNewline = false;
  /** Logical offset of the first tail byte in the file. */
  private tailStart = 0;
  private tailLen = 0;
  private readonly opened: Promise<void>;

  /** Starts creating `file` (its folder too, 0700); the file is new (0600) or the log fails. */
  constructor(
    readonly file: string,
    capBytes?: number,
  ) {
    this.cap = effectiveCap(capBytes);
    const room = this.cap - MARKER_BYTES;
    this.headMax = Math.floor(room / 2);
    this.tailMax = room - this.headMax;
    live.add(file);
    this.opened = (async () => {
      await mkdir(path.dirname(file), { recursive: true, mode: 0o700 });
      // A new file (0600), never through a link or over something already there (as createExclusive, but
      // read-write: the cap moves the tail within the file, and reads are served from it).
      this.fh = await open(file, constants.O_RDWR | constants.O_CREAT | constants.O_EXCL | constants.O_NOFOLLOW, 0o600);
    })().catch((error: unknown) => this.fail(error));
  }

  /** Bytes handed to the log so far. */
  get acceptedBytes(): number {
    return this.accepted;
  }

  get failed(): boolean {
    return this.error !== undefined;
  }

  get failure(): string | undefined {
    return this.error === undefined ? undefined : this.error instanceof Error ? this.error.message : String(this.error);
  }

  /** Bytes of output the file no longer holds, so far. */
  get cutBytes(): number {
    return this.cut ? this.tailStart - this.headLen : 0;
  }

  /** Bytes waiting in memory for the disk (bounded: see dropDoomed). */
  get pendingBytes(): number {
    return this.queuedBytes;
  }

  write(chunk: string | Uint8Array): void {
    if (this.error !== undefined || this.closing) return;
    const buf = typeof chunk === 'string' ? Buffer.from(chunk, 'utf8') : Buffer.from(chunk.buffer, chunk.byteOffset, chunk.byteLength);
    if (buf.length === 0) return;
    this.queue.push({ kind: 'data', start: this.accepted, buf });
    this.accepted += buf.length;
    this.queuedBytes += buf.length;
    // Only once the output is sure to be cut, and only when the disk has fallen behind.
    if (this.accepted > this.cap && this.queuedBytes > this.tailMax) this.dropDoomed();
    this.kick();
  }

  /** Settles once everything written before the call is on disk (or dropped by the cap). */
  flush(): Promise<void> {
    if (this.error !== undefined) return Promise.resolve();
    return new Promise((resolve) => {
      this.queue.push({ kind: 'flush', done: resolve });
      this.kick();
    });
  }

  /**
   * The output from logical offset `from` to `to` (at most what was written before the call), streamed in order:
   * bytes the file holds go to onBytes, a run the cap removed is reported to onCut (its length) where it falls.
   */
  read(from: number, to: number, onBytes: (bytes: Buffer) => void, onCut: (bytes: number) => void): Promise<void> {
    if (this.error !== undefined) return Promise.reject(new Error(this.failure));
    const end = Math.min(to, this.accepted);
    if (end <= from) return Promise.resolve();
    return new Promise((resolve, reject) => {
      this.queue.push({ kind: 'read', from, to: end, onBytes, onCut, done: (error) => (error === undefined ? resolve() : reject(error instanceof Error ? error : new Error(String(error)))) });
      this.kick();
    });
  }

  /** Writes what is queued, marks the cut, closes the file. Safe to call twice. */
  close(): Promise<CappedLogSummary> {
    return (this.closing ??= (async () => {
      await this.opened;
      if (this.error === undefined) {
        await new Promise<void>((resolve) => {
          this.queue.push({ kind: 'finish', done: resolve });
          this.kick();
        });
      }
      await this.fh?.close().catch(() => undefined);
      this.fh = undefined;
      live.delete(this.file);
      return { totalBytes: this.accepted, cutBytes: this.cutBytes };
    })());
  }

  private fail(error: unknown): void {
    this.error ??= error ?? new Error('write failed');
    this.queuedBytes = 0;
    for (const item of this.queue.splice(0)) {
      if (item.kind === 'read') item.done(this.error);
      else if (item.kind !== 'data') item.done();
    }
  }

  /**
   * Queued output that lies wholly between the head and the last tailMax bytes accepted can never reach the file:
   * it is dropped before it is written, so a command printing faster than the disk takes it costs no more memory
   * than a cap's worth.
   */
  private dropDoomed(): void {
    const doomedEnd = this.accepted - this.tailMax;
    let kept = 0;
    for (let i = 0; i < this.queue.length; i++) {
      const item = this.queue[i]!;
      if (item.kind !== 'data') {
        this.queue[kept++] = item;
        continue;
      }
      if (item.start >= this.headMax && item.start + item.buf.length <= doomedEnd) {
        this.queuedBytes -= item.buf.length;
        continue;
      }
      this.queue[kept++] = item;
    }
    this.queue.length = kept;
  }

  private kick(): void {
    if (this.pumping) return;
    this.pumping = true;
    void this.pump().finally(() => {
      this.pumping = false;
      if (this.queue.length > 0 && this.error === undefined) this.kick();
    });
  }

  private async pump(): Promise<void> {
    await this.opened;
    while (this.queue.length > 0 && this.error === undefined) {
      const item = this.queue.shift()!;
      try {
        if (item.kind === 'flush') item.done();
        else if (item.kind === 'finish') await this.finish(item);
        else if (item.kind === 'read') await this.serveRead(item);
        else await this.take(this.batch(item));
      } catch (error) {
        if (item.kind === 'read') {
          item.done(error);
          continue;
        }
        this.fail(error);
      }
    }
  }

  /** `first` and the contiguous data right behind it, to be written in one call of up to WRITE_BATCH bytes. */
  private batch(first: DataItem): Batch {
    this.queuedBytes -= first.buf.length;
    const parts = [first.buf];
    let size = first.buf.length;
    while (size < WRITE_BATCH && parts.length < 1024) {
      const next = this.queue[0];
      if (next?.kind !== 'data' || next.start !== first.start + size) break;
      this.queue.shift();
      this.queuedBytes -= next.buf.length;
      parts.push(next.buf);
      size += next.buf.length;
    }
    return { start: first.start, parts, size };
  }

  private async take(batch: Batch): Promise<void> {
    const fh = this.fh!;
    let start = batch.start;
    const size = batch.size;
    // Behind the latest tailMax bytes accepted: it would be cut anyway.
    if (this.accepted > this.cap && start >= this.headMax && start + size <= this.accepted - this.tailMax) return;
    // The common cases append as they are (no copy into one buffer).
    if (!this.cut && start === this.written && this.written + size <= this.cap) {
      await writevAll(fh, batch.parts, this.written);
      this.written += size;
      this.fileSize = this.headLen = this.written;
      return;
    }
    if (this.cut && start === this.written && this.tailLen + size <= this.tailMax) {
      await writevAll(fh, batch.parts, this.headLen + MARKER_BYTES + this.tailLen);
      this.tailLen += size;
      this.written += size;
      this.fileSize = Math.max(this.fileSize, this.headLen + MARKER_BYTES + this.tailLen);
      return;
    }
    let buf = batch.parts.length === 1 ? batch.parts[0]! : Buffer.concat(batch.parts, size);
    if (!this.cut) {
      // Over the cap: finish the head, then cut.
      if (start === this.written && this.written < this.headMax) {
        const part = buf.subarray(0, this.headMax - this.written);
        await writeAll(fh, part, this.written);
        this.written += part.length;
        this.fileSize = this.headLen = this.written;
        start += part.length;
        buf = buf.subarray(part.length);
      }
      await this.enterCut(start, buf);
      return;
    }
    const tailPos = this.headLen + MARKER_BYTES;
    // A gap (dropped output): what the file's tail holds is older than anything the final tail keeps.
    if (start !== this.written) await this.compact(tailPos, 0, start, start, buf);
    else await this.compact(tailPos, this.tailLen, this.tailStart, start, buf);
    this.written = start + buf.length;
  }

  /** The file holds the output so far, up to the cap; `buf` (at `start`) goes past it. */
  private async enterCut(start: number, buf: Buffer): Promise<void> {
    const fh = this.fh!;
    // The head ends at a line break near headMax, else on a character boundary.
    const h0 = Math.min(this.headMax, this.written);
    const lookStart = Math.max(0, h0 - ALIGN_WINDOW);
    const look = await readAt(fh, lookStart, h0 - lookStart);
    const nl = look.lastIndexOf(0x0a);
    const h = nl >= 0 ? lookStart + nl + 1 : lookStart + completeChars(look);
    this.headLen = h;
    this.markerNewline = h > 0 && look[h - 1 - lookStart] !== 0x0a;
    this.cut = true;
    const contiguous = start === this.written;
    // The bytes after the head go to the tail (the last of them), then the marker takes their place.
    await this.compact(h + MARKER_BYTES, contiguous ? this.written - h : 0, contiguous ? h : start, start, buf, h);
    this.written = start + buf.length;
  }

  /**
   * Makes the tail (at file position `tailPos`) the last tailMax/2 bytes of: `regionLen` bytes of the file at
   * `regionPos` (logical offset `regionStart`), followed by `buf` (logical `start`). The kept part starts on a line.
   */
  private async compact(tailPos: number, regionLen: number, regionStart: number, start: number, buf: Buffer, regionPos = tailPos): Promise<void> {
    const fh = this.fh!;
    const total = regionLen + buf.length;
    const keep = Math.floor(this.tailMax / 2);
    let from = Math.max(0, total - keep);
    if (from > 0) {
      // Land on the start of a line when one begins soon, else on a character boundary.
      const fileLook = from < regionLen ? await readAt(fh, regionPos + from, Math.min(ALIGN_WINDOW, regionLen - from)) : Buffer.alloc(0);
      const bufFrom = Math.max(0, from - regionLen);
      const look = Buffer.concat([fileLook, buf.subarray(bufFrom, bufFrom + ALIGN_WINDOW - fileLook.length)]);
      const nl = look.indexOf(0x0a);
      if (nl >= 0 && nl + 1 < look.length) from += nl + 1;
      else for (let i = 0; i < look.length && isContinuation(look[i]!); i++) from++;
    }
    const fileKeep = Math.max(0, regionLen - from);
    if (fileKeep > 0 && regionPos + from !== tailPos) await move(fh, regionPos + from, tailPos, fileKeep);
    const bufKeep = buf.subarray(Math.max(0, from - regionLen));
    await writeAll(fh, bufKeep, tailPos + fileKeep);
    this.tailStart = (regionLen > 0 ? regionStart : start) + from;
    this.tailLen = fileKeep + bufKeep.length;
    const end = tailPos + this.tailLen;
    if (end < this.fileSize) await fh.truncate(end);
    this.fileSize = end;
    await this.writeMarker();
  }

  private async writeMarker(): Promise<void> {
    const text = `${this.markerNewline ? '\n' : ''}[… ${this.cutBytes} bytes cut by Turnstone: output over the ${capLabel(this.cap)} cap …]`;
    const bytes = Buffer.from(text, 'utf8');
    const line = Buffer.alloc(MARKER_BYTES, 0x20);
    bytes.copy(line, 0, 0, Math.min(bytes.length, MARKER_BYTES - 1));
    line[MARKER_BYTES - 1] = 0x0a;
    await writeAll(this.fh!, line, this.headLen);
  }

  private async finish(item: FinishItem): Promise<void> {
    try {
      if (this.cut) await this.writeMarker();
    } finally {
      const fh = this.fh;
      this.fh = undefined;
      await fh?.close().catch(() => undefined);
      item.done();
    }
  }

  private async serveRead(item: ReadItem): Promise<void> {
    // Closed: the command ended, its log is still read (never through a link put in its place).
    const fh = this.fh ?? (await open(this.file, constants.O_RDONLY | constants.O_NOFOLLOW));
    try {
      await this.readInto(fh, item);
    } finally {
      if (fh !== this.fh) await fh.close().catch(() => undefined);
    }
  }

  private async readInto(fh: FileHandle, item: ReadItem): Promise<void> {
    const { from, to } = item;
    const w = this.written;
    // What the file holds: [0, head) at the same position; once cut, [tailStart, written) after the marker.
    const head = this.cut ? this.headLen : w;
    if (from < Math.min(to, head)) await streamAt(fh, from, Math.min(to, head) - from, item.onBytes);
    if (this.cut) {
      const gapFrom = Math.max(from, this.headLen);
      const gapTo = Math.min(to, this.tailStart);
      if (gapTo > gapFrom) item.onCut(gapTo - gapFrom);
      const tailFrom = Math.max(from, this.tailStart);
      const tailTo = Math.min(to, w);
      if (tailTo > tailFrom) await streamAt(fh, this.headLen + MARKER_BYTES + (tailFrom - this.tailStart), tailTo - tailFrom, item.onBytes);
    }
    // Output dropped on its way to the disk (the tail already moved past it) and not yet followed by more.
    if (to > Math.max(from, w)) item.onCut(to - Math.max(from, w));
    item.done();
  }
}

const isContinuation = (byte: number) => (byte & 0xc0) === 0x80;

/** How many bytes of `bytes` end on a character boundary: a trailing incomplete UTF-8 sequence is left out. */
function completeChars(bytes: Buffer): number {
  for (let i = bytes.length - 1; i >= Math.max(0, bytes.length - 4); i--) {
    const b = bytes[i]!;
    if (isContinuation(b)) continue;
    const need = b < 0x80 ? 1 : b >= 0xf0 ? 4 : b >= 0xe0 ? 3 : b >= 0xc0 ? 2 : 1;
    return i + need <= bytes.length ? bytes.length : i;
  }
  return bytes.length;
}

async function writeAll(fh: FileHandle, buf: Buffer, position: number): Promise<void> {
  let done = 0;
  while (done < buf.length) {
    const { bytesWritten } = await fh.write(buf, done, buf.length - done, position + done);
    done += bytesWritten;
  }
}

async function writevAll(fh: FileHandle, parts: Buffer[], position: number): Promise<void> {
  if (parts.length === 1) return writeAll(fh, parts[0]!, position);
  const size = parts.reduce((n, p) => n + p.length, 0);
  const { bytesWritten } = await fh.writev(parts, position);
  // A short write (rare on a file): the rest the plain way.
  if (bytesWritten < size) await writeAll(fh, Buffer.concat(parts, size).subarray(bytesWritten), position + bytesWritten);
}

async function readAt(fh: FileHandle, position: number, length: number): Promise<Buffer> {
  const buf = Buffer.alloc(Math.max(0, length));
  let done = 0;
  while (done < buf.length) {
    const { bytesRead } = await fh.read(buf, done, buf.length - done, position + done);
    if (bytesRead === 0) break;
    done += bytesRead;
  }
  return buf.subarray(0, done);
}

async function streamAt(fh: FileHandle, position: number, length: number, onBytes: (bytes: Buffer) => void): Promise<void> {
  for (let done = 0; done < length; ) {
    const chunk = await readAt(fh, position + done, Math.min(IO_CHUNK, length - done));
    if (chunk.length === 0) break;
    onBytes(chunk);
    done += chunk.length;
  }
}

/** Copies `length` bytes within the file from `from` to `to`; the ranges may overlap. One buffer, reused. */
async function move(fh: FileHandle, from: number, to: number, length: number): Promise<void> {
  const scratch = Buffer.allocUnsafe(Math.min(IO_CHUNK, length));
  const copy = async (offset: number, size: number) => {
    let got = 0;
    while (got < size) {
      const { bytesRead } = await fh.read(scratch, got, size - got, from + offset + got);
      if (bytesRead === 0) throw new Error('the log file shrank while its tail was moved');
      got += bytesRead;
    }
    await writeAll(fh, scratch.subarray(0, size), to + offset);
  };
  if (to < from) {
    for (let done = 0; done < length; done += scratch.length) await copy(done, Math.min(scratch.length, length - done));
    return;
  }
  for (let left = length; left > 0; ) {
    const size = Math.min(scratch.length, left);
    left -= size;
    await copy(left, size);
  }
}

/**
 * Caps a kept file that some shell wrote whole (the terminal's capture): past `capBytes` it is rewritten as head,
 * marker and tail. The bytes the file no longer holds, 0 when it was under the cap; undefined when it could not be done.
 */
export async function capKeptFile(file: string, capBytes: number | undefined): Promise<number | undefined> {
  try {
    const size = (await stat(file)).size;
    if (size <= effectiveCap(capBytes)) return 0;
    const tmp = path.join(path.dirname(file), `.${path.basename(file)}.capping`);
    await rm(tmp, { force: true });
    const log = new CappedLog(tmp, capBytes);
    const source = await open(file, constants.O_RDONLY | constants.O_NOFOLLOW);
    try {
      for (let position = 0; position < size; ) {
        const chunk = await readAt(source, position, IO_CHUNK);
        if (chunk.length === 0) break;
        log.write(chunk);
        position += chunk.length;
        // The file is read as fast as the log takes it: never more than a few chunks in memory.
        if (log.pendingBytes > 8 * IO_CHUNK) await log.flush();
      }
    } finally {
      await source.close();
    }
    const summary = await log.close();
    if (log.failed) {
      await rm(tmp, { force: true });
      return undefined;
    }
    await rename(tmp, file);
    return summary.cutBytes;
  } catch {
    return undefined;
  }
}

export interface PruneOptions {
  now?: number;
  maxAgeMs?: number;
  maxTotalBytes?: number;
  recentMs?: number;
}

/** Names of kept output in the folder: bash's spilled output (outputFileName) and what capping left behind. */
const KEPT_NAME = /^\.?bash-.+\.log(\.capping)?$/;

/**
 * Removes kept output older than maxAgeMs, then the oldest until the rest is under maxTotalBytes; never a file
 * this process is writing, nor (for the total) one changed in the last recentMs. Makes the folder private (0700)
 * if an older version left it open. Returns the paths removed.
 */
export async function pruneKeptOutput(dir: string, options: PruneOptions = {}): Promise<string[]> {
  const now = options.now ?? Date.now();
  const maxAge = options.maxAgeMs ?? KEPT_OUTPUT_MAX_AGE_MS;
  const maxTotal = options.maxTotalBytes ?? KEPT_OUTPUT_MAX_TOTAL_BYTES;
  const recent = options.recentMs ?? KEPT_OUTPUT_RECENT_MS;
  let names: string[];
  try {
    const st = await lstat(dir);
    if (!st.isDirectory()) return [];
    if ((st.mode & 0o777) !== 0o700 && st.uid === process.getuid?.()) await chmod(dir, 0o700).catch(() => undefined);
    names = await readdir(dir);
  } catch {
    return [];
  }
  const files: Array<{ file: string; size: number; mtimeMs: number }> = [];
  for (const name of names) {
    if (!KEPT_NAME.test(name)) continue;
    const file = path.join(dir, name);
    try {
      const st = await lstat(file);
      if (st.isFile()) files.push({ file, size: st.size, mtimeMs: st.mtimeMs });
    } catch {
      // Gone meanwhile.
    }
  }
  const removed: string[] = [];
  const remove = async (file: string) => {
    if (live.has(file)) return false;
    try {
      await rm(file, { force: true });
      removed.push(file);
      return true;
    } catch {
      return false;
    }
  };
  files.sort((a, b) => a.mtimeMs - b.mtimeMs);
  let total = 0;
  const kept: typeof files = [];
  for (const f of files) {
    if (now - f.mtimeMs > maxAge && (await remove(f.file))) continue;
    kept.push(f);
    total += f.size;
  }
  for (const f of kept) {
    if (total <= maxTotal) break;
    if (now - f.mtimeMs < recent) break;
    if (await remove(f.file)) total -= f.size;
  }
  return removed;
}

const pruning = new Map<string, { done: Promise<string[]>; keptSince: number }>();

/**
 * The once-per-process prune of `dir` (the first command that may keep output starts it); the promise it returns
 * settles when that prune is done. A process that goes on to keep more than half the bound prunes again.
 */
export function pruneKeptOutputOnce(dir: string, options?: PruneOptions): Promise<string[]> {
  let state = pruning.get(dir);
  if (!state) {
    state = { done: pruneKeptOutput(dir, options), keptSince: 0 };
    pruning.set(dir, state);
  }
  return state.done;
}

/** Counts `bytes` newly kept in `dir`; past half the total bound since the last prune, prunes again. */
export function noteKeptOutput(dir: string, bytes: number, options?: PruneOptions): void {
  const state = pruning.get(dir);
  if (!state) return void pruneKeptOutputOnce(dir, options);
  state.keptSince += bytes;
  if (state.keptSince <= (options?.maxTotalBytes ?? KEPT_OUTPUT_MAX_TOTAL_BYTES) / 2) return;
  state.keptSince = 0;
  state.done = state.done.then(() => pruneKeptOutput(dir, options));
}

/** Whether CappedLog is writing `file` in this process (pruning skips it). */
export function isLiveKeptFile(file: string): boolean {
  return live.has(file);
}
