// Reviewing an agent's edits hunk by hunk (issue 44): a file's *base* (what it was at the last review point)
// against what it is now. Keeping a hunk moves the base forward over it; undoing one puts the base's lines
// back in the file and leaves every other line alone, the user's own later edits included. Lines keep their
// line endings, so a CRLF file stays CRLF. Pure text in, text out: the editor applies the result.
import { diffArrays } from 'diff';

/** One changed region, 0-based: `base` lines [baseStart, baseStart+baseCount) became `current` lines [currentStart, …+currentCount). */
export interface Hunk {
  baseStart: number;
  baseCount: number;
  currentStart: number;
  currentCount: number;
}

/** VS Code's LineChange (1-based; an end of 0 means no lines on that side, after the start line). */
export interface LineChange {
  originalStartLineNumber: number;
  originalEndLineNumber: number;
  modifiedStartLineNumber: number;
  modifiedEndLineNumber: number;
}

/** The text's lines, each with its own line ending (the last may have none). */
export function splitLines(text: string): string[] {
  return text.match(/[^\n]*\n|[^\n]+$/g) ?? [];
}

/** The hunks between `base` and `current`, in order; adjacent removals and additions make one hunk. */
export function hunksOf(base: string, current: string): Hunk[] {
  const hunks: Hunk[] = [];
  let b = 0;
  let c = 0;
  let open: Hunk | undefined;
  for (const part of diffArrays(splitLines(base), splitLines(current))) {
    const n = part.count ?? part.value.length;
    if (!part.added && !part.removed) {
      open = undefined;
      b += n;
      c += n;
      continue;
    }
    if (!open) {
      open = { baseStart: b, baseCount: 0, currentStart: c, currentCount: 0 };
      hunks.push(open);
    }
    if (part.removed) {
      open.baseCount += n;
      b += n;
    } else {
      open.currentCount += n;
      c += n;
    }
  }
  return hunks;
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
