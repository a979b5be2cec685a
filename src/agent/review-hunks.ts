// Reviewing an agent's edits hunk by hunk (issue 44): a file's *base* (what it was at the last review point)
// against what it is now. Keeping a hunk moves the base forward over it; undoing one puts the base's lines
// back in the file and leaves every other line alone, the user's own later edits included. Lines keep their
// line endings, so a CRLF file stays CRLF. Pure text in, text out: the editor applies the result. Also the
// vscode-free half of listing the changed files: decoding a file as the editor does, a cache of what was read
// keyed by the file's (mtime, size), the listing itself, and refreshes that never pile up.
import { type Hunk, hunksOf, splitLines } from '../runtime/line-diff';
import { decodeText } from '../tools/files/text';

// The diff itself is the runtime's, shared with every other place that shows a change.
export { type Hunk, hunksOf, splitLines };

/** VS Code's LineChange (1-based; an end of 0 means no lines on that side, after the start line). */
export interface LineChange {
  originalStartLineNumber: number;
  originalEndLineNumber: number;
  modifiedStartLineNumber: number;
  modifiedEndLineNumber: number;
}

/** A hunk as VS Code's quick diff names it (the gutter's peek passes these to its actions). */
export function hunkOfLineChange(change: LineChange): Hunk {
  const side = (start: number, end: number) => (end === 0 ? { start, count: 0 } : { start: start - 1, count: end - start + 1 });
  const base = side(change.originalStartLineNumber, change.originalEndLineNumber);
  const current = side(change.modifiedStartLineNumber, change.modifiedEndLineNumber);
  return { baseStart: base.start, baseCount: base.count, currentStart: current.start, currentCount: current.count };
}

/** The base with this hunk kept: its lines as they are now. */
export function keepHunk(base: string, current: string, hunk: Hunk): string {
  const b = splitLines(base);
  const c = splitLines(current);
  return joinAt(b, hunk.baseStart, hunk.baseCount, c.slice(hunk.currentStart, hunk.currentStart + hunk.currentCount));
}

/** The file with this hunk undone: its lines as the base had them; nothing else changes. */
export function undoHunk(base: string, current: string, hunk: Hunk): string {
  const b = splitLines(base);
  const c = splitLines(current);
  return joinAt(c, hunk.currentStart, hunk.currentCount, b.slice(hunk.baseStart, hunk.baseStart + hunk.baseCount));
}

/**
 * Replaces `count` lines at `start` with `lines`. A last line without a line ending that gets lines after it
 * takes the ending the file uses, so two lines never run together.
 */
function joinAt(into: string[], start: number, count: number, lines: string[]): string {
  const out = [...into.slice(0, start), ...lines, ...into.slice(start + count)];
  const eol = into.find((l) => l.endsWith('\n'))?.endsWith('\r\n') || lines.find((l) => l.endsWith('\n'))?.endsWith('\r\n') ? '\r\n' : '\n';
  for (let i = 0; i < out.length - 1; i++) if (!out[i]!.endsWith('\n')) out[i] = `${out[i]}${eol}`;
  return out.join('');
}

/** Whether a text can be split into hunks: binary content is listed, never split. */
export function isReviewableText(text: string): boolean {
  return !text.slice(0, 8192).includes('\0');
}

/**
 * A file's bytes as the review compares them: decoded by its byte-order mark (UTF-8, UTF-8 with BOM, UTF-16 LE
 * or BE; no BOM: UTF-8) with the BOM dropped, which is the text the editor's document and the file tools (the
 * edits' `before`) give, so a BOM alone never makes a file look changed.
 */
export function reviewText(bytes: Uint8Array): string {
  return decodeText(bytes).text;
}

/** What a file's stat says, enough to know it was not written since it was read. */
export interface FileStamp {
  mtime: number;
  size: number;
}

/** Where a cache reads files: `stat` gives null (or throws) when the file does not exist. */
export interface FileSource {
  stat(file: string): Promise<FileStamp | null>;
  read(file: string): Promise<Uint8Array>;
}

/**
 * A file's stamp that is this close (ms) to the moment it was taken may hide a second write in the same clock
 * tick with the same size (git's "racily clean" entries): such a read is not reused. 2 s covers the coarsest
 * common mtime granularity (FAT).
 */
const RACY_MS = 2000;

/**
 * The text of files on disk, each read again only when its (mtime, size) changed since it was read (or when
 * forgotten: a tool's write or a save says so before any stamp could). A refresh after one edit reads one file.
 */
export class FileTextCache {
  private readonly entries = new Map<string, FileStamp & { text: string; at: number }>();

  constructor(
    private readonly source: FileSource,
    private readonly now: () => number = Date.now,
  ) {}

  /** The file's text (decoded as `reviewText` does), or null when it does not exist or cannot be read. */
  async read(file: string): Promise<string | null> {
    const at = this.now();
    const stamp = await this.source.stat(file).catch(() => null);
    if (!stamp) {
      this.entries.delete(file);
      return null;
    }
    const known = this.entries.get(file);
    if (known && known.mtime === stamp.mtime && known.size === stamp.size && known.mtime + RACY_MS < known.at) return known.text;
    let bytes: Uint8Array;
    try {
      bytes = await this.source.read(file);
    } catch {
      this.entries.delete(file);
      return null;
    }
    // The stamp taken before the read: a write after it changes the stamp (or is racy), so it is read again.
    const text = reviewText(bytes);
    this.entries.set(file, { mtime: stamp.mtime, size: stamp.size, text, at });
    return text;
  }

  /** The file may have changed: its next read goes to the disk. */
  forget(file: string): void {
    this.entries.delete(file);
  }

  /** Drops every file but these (the ones still under review). */
  retain(files: ReadonlySet<string> | ReadonlyMap<string, unknown>): void {
    for (const file of this.entries.keys()) if (!files.has(file)) this.entries.delete(file);
  }
}

/** A file with changes left to review, and how many hunks it has (1 for a created, deleted or binary file). */
export interface ChangedFile {
  path: string;
  /** null: the file did not exist at the review point. */
  base: string | null;
  hunks: number;
}

/** The last count of a file's hunks, reused while neither side changed. */
export interface HunkCount {
  base: string | null;
  current: string | null;
  hunks: number;
}

/**
 * The files whose text (`read`, all asked at once) differs from their review point, in the order of `bases`.
 * `counts` keeps each file's hunk count between listings, so a file nobody touched is not diffed again.
 */
export async function changedFiles(
  bases: ReadonlyMap<string, string | null>,
  read: (file: string) => Promise<string | null> | string | null,
  counts?: Map<string, HunkCount>,
): Promise<ChangedFile[]> {
  const entries = [...bases];
  const currents = await Promise.all(entries.map(([file]) => read(file)));
  if (counts) for (const file of counts.keys()) if (!bases.has(file)) counts.delete(file);
  const out: ChangedFile[] = [];
  entries.forEach(([file, base], i) => {
    const current = currents[i]!;
    if (current === base) return;
    const known = counts?.get(file);
    let hunks: number;
    if (known && known.base === base && known.current === current) hunks = known.hunks;
    else {
      hunks = base !== null && current !== null && isReviewableText(base) && isReviewableText(current) ? hunksOf(base, current).length : 1;
      counts?.set(file, { base, current, hunks });
    }
    out.push({ path: file, base, hunks });
  });
  return out;
}

/**
 * Runs tasks one at a time, and at most one more after the running one: calls while one runs share the next run,
 * which does the latest task given. For refreshes fired and not awaited, several in a row: one runs, one waits.
 */
export function coalescing(): (task: () => Promise<void>) => Promise<void> {
  let running: Promise<void> | undefined;
  let queued: Promise<void> | undefined;
  let nextTask: (() => Promise<void>) | undefined;
  const run = (task: () => Promise<void>): Promise<void> => {
    if (!running) {
      running = task().finally(() => {
        running = undefined;
      });
      return running;
    }
    nextTask = task;
    const next = () => {
      queued = undefined;
      const t = nextTask!;
      nextTask = undefined;
      return run(t);
    };
    queued ??= running.then(next, next);
    return queued;
  };
  return run;
}
