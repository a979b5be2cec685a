// The line diff every place that shows a change uses: the review's hunks (agent/review-hunks.ts), the panel's
// edit cards and approval counts (webview/tool-view.ts diffStats), the diff a user's own edit of a proposal sends
// the model, the edit tools' result diffs (tools/files/edit-diff.ts) and the CLI's json `changes`. One diff, so
// every count agrees, and one that stays cheap: a plain Myers diff costs O(N·D), and a 1 MB file rewritten whole
// took a minute of the extension host's thread (three under load) just to count its lines. It imports nothing of
// Turnstone and no Node module, so the panel's host side may take it (a named leaf in test/unit/architecture.test.ts).
import { diffArrays, formatPatch, type StructuredPatch, type StructuredPatchHunk } from 'diff';

/** One changed region, 0-based: `base` lines [baseStart, baseStart+baseCount) became `current` lines [currentStart, …+currentCount). */
export interface Hunk {
  baseStart: number;
  baseCount: number;
  currentStart: number;
  currentCount: number;
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
  for (const run of lineRuns(splitLines(base), splitLines(current))) {
    if (run.kind === 'same') {
      open = undefined;
      b += run.count;
      c += run.count;
      continue;
    }
    if (!open) {
      open = { baseStart: b, baseCount: 0, currentStart: c, currentCount: 0 };
      hunks.push(open);
    }
    if (run.kind === 'removed') {
      open.baseCount += run.count;
      b += run.count;
    } else {
      open.currentCount += run.count;
      c += run.count;
    }
  }
  return hunks;
}

interface LineRun {
  kind: 'same' | 'removed' | 'added';
  count: number;
}

/**
 * The Myers diff costs O(N·D), about D² when the sides share little: a file rewritten whole (D ≈ 2N) took 730 ms
 * at 2 000 lines and a minute at 23 000, on the extension host's thread. D counts lines in and out (a changed line
 * is two). Past this budget it gives up, and the lines found once on each side anchor the rest (patience diff),
 * each gap between anchors diffed the same way.
 */
const MAX_EDITS = 400;
/**
 * A gap without anchors that shares enough lines (many small edits between repeated lines: `}`, a JSON array of
 * alike records) gets this budget before lines are paired in place or made one hunk: a failed run costs about a
 * second on a loaded 2-core machine, and 600 records changed in a 3 000-line array count as 600.
 */
const GAP_MAX_EDITS = 2000;
/**
 * Anchoring a gap's gaps again finds lines unique only there; each level costs a failed Myers run, and a file
 * built to nest one level per line would run for minutes and overflow the stack. Past this depth a gap is diffed
 * as one without anchors.
 */
const MAX_ANCHOR_DEPTH = 3;

/** The runs of equal, removed and added lines that turn `a` into `b`. */
function lineRuns(a: readonly string[], b: readonly string[]): LineRun[] {
  const out: LineRun[] = [];
  const push = (kind: LineRun['kind'], count: number) => {
    if (count === 0) return;
    const last = out[out.length - 1];
    if (last?.kind === kind) last.count += count;
    else out.push({ kind, count });
  };
  /** The Myers diff of `x` and `y` pushed, unless it needs more than `budget` lines in and out. */
  const myers = (x: string[], y: string[], budget: number): boolean => {
    const parts = diffArrays(x, y, { maxEditLength: budget });
    if (!parts) return false;
    for (const part of parts) push(part.added ? 'added' : part.removed ? 'removed' : 'same', part.count ?? part.value.length);
    return true;
  };
  /**
   * `x` replaced by `y` where no diff within budget was found. As many lines on each side, most of them equal
   * where they stand, are lines edited in place (a replace_all, a flag flipped in every record): they pair up by
   * position, as a minimal diff would pair them, in one pass. Otherwise one hunk, as a file rewritten whole
   * reads best.
   */
  const replaced = (x: readonly string[], y: readonly string[]) => {
    const inPlace = x.length === y.length && x.filter((line, k) => line === y[k]).length * 2 >= x.length;
    if (!inPlace) {
      push('removed', x.length);
      push('added', y.length);
      return;
    }
    for (let k = 0; k < x.length; k++) {
      if (x[k] === y[k]) push('same', 1);
      else {
        push('removed', 1);
        push('added', 1);
      }
    }
  };
  function gap(x: readonly string[], y: readonly string[], depth: number): void {
    let head = 0;
    while (head < x.length && head < y.length && x[head] === y[head]) head++;
    let tail = 0;
    while (tail < x.length - head && tail < y.length - head && x[x.length - 1 - tail] === y[y.length - 1 - tail]) tail++;
    push('same', head);
    const xs = x.slice(head, x.length - tail);
    const ys = y.slice(head, y.length - tail);
    if (xs.length === 0 || ys.length === 0) replaced(xs, ys);
    else if (!myers(xs, ys, MAX_EDITS)) {
      const anchors = depth < MAX_ANCHOR_DEPTH ? uniqueAnchors(xs, ys) : [];
      let i = 0;
      let j = 0;
      for (const [ai, bj] of anchors) {
        gap(xs.slice(i, ai), ys.slice(j, bj), depth + 1);
        push('same', 1);
        i = ai + 1;
        j = bj + 1;
      }
      if (anchors.length > 0) gap(xs.slice(i), ys.slice(j), depth + 1);
      else if (!(sharesLines(xs, ys) && myers(xs, ys, GAP_MAX_EDITS))) replaced(xs, ys);
    }
    push('same', tail);
  }
  gap(a, b, 0);
  return out;
}

/**
 * Whether a quarter or more of the shorter side's lines occur on the other side too (wherever they are): a gap
 * worth a finer diff. A gap rewritten whole shares next to none, and the second Myers run would be wasted.
 */
function sharesLines(a: readonly string[], b: readonly string[]): boolean {
  const left = new Map<string, number>();
  for (const line of a) left.set(line, (left.get(line) ?? 0) + 1);
  let common = 0;
  for (const line of b) {
    const n = left.get(line);
    if (n) {
      left.set(line, n - 1);
      common++;
    }
  }
  return common * 4 >= Math.min(a.length, b.length);
}

/**
 * The longest run of lines that occur exactly once in each of `a` and `b`, in the same order on both sides:
 * pairs of indices, increasing on both (patience sorting, O(n log n)).
 */
function uniqueAnchors(a: readonly string[], b: readonly string[]): [number, number][] {
  const seen = new Map<string, { inA: number; at: number; inB: number; bAt: number }>();
  a.forEach((line, i) => {
    const e = seen.get(line);
    if (e) e.inA++;
    else seen.set(line, { inA: 1, at: i, inB: 0, bAt: -1 });
  });
  b.forEach((line, j) => {
    const e = seen.get(line);
    if (!e) return;
    e.inB++;
    e.bAt = j;
  });
  const pairs: [number, number][] = [];
  for (const e of seen.values()) if (e.inA === 1 && e.inB === 1) pairs.push([e.at, e.bAt]);
  pairs.sort((p, q) => p[0] - q[0]);
  // Piles' tops (by index into pairs), and for each pair the one before it in its best chain.
  const tops: number[] = [];
  const prev = new Array<number>(pairs.length).fill(-1);
  pairs.forEach(([, j], k) => {
    let lo = 0;
    let hi = tops.length;
    while (lo < hi) {
      const mid = (lo + hi) >> 1;
      if (pairs[tops[mid]!]![1] < j) lo = mid + 1;
      else hi = mid;
    }
    if (lo > 0) prev[k] = tops[lo - 1]!;
    tops[lo] = k;
  });
  const chain: [number, number][] = [];
  for (let k = tops.length > 0 ? tops[tops.length - 1]! : -1; k >= 0; k = prev[k]!) chain.push(pairs[k]!);
  return chain.reverse();
}

export interface LineCounts {
  added: number;
  removed: number;
}

/** The lines a patch's hunks add and remove (its headers and "\\ No newline" markers are not lines of the file). */
export function countHunkLines(patch: Pick<StructuredPatch, 'hunks'>): LineCounts {
  let added = 0;
  let removed = 0;
  for (const hunk of patch.hunks) {
    for (const line of hunk.lines) {
      if (line.startsWith('+')) added++;
      else if (line.startsWith('-')) removed++;
    }
  }
  return { added, removed };
}

/** Lines added and removed between two contents (null: the file did not exist). */
export function lineCounts(before: string | null, after: string | null): LineCounts {
  let added = 0;
  let removed = 0;
  for (const h of hunksOf(before ?? '', after ?? '')) {
    added += h.currentCount;
    removed += h.baseCount;
  }
  return { added, removed };
}

/**
 * The unified diff's hunks from `before` to `after` with `context` lines around each change, as the `diff`
 * package's structuredPatch shapes them (lines without their endings, "\\ No newline at end of file" after a
 * last line without one), over this module's bounded diff.
 */
export function patchHunks(before: string, after: string, context: number): StructuredPatchHunk[] {
  const a = splitLines(before);
  const b = splitLines(after);
  const hunks: StructuredPatchHunk[] = [];
  let open: StructuredPatchHunk | undefined;
  // Where the open hunk's lines end on each side (0-based, exclusive).
  let aEnd = 0;
  let bEnd = 0;
  const take = (lines: readonly string[], mark: string, hunk: StructuredPatchHunk) => {
    for (const line of lines) {
      if (line.endsWith('\n')) hunk.lines.push(mark + line.slice(0, -1));
      else hunk.lines.push(mark + line, '\\ No newline at end of file');
    }
  };
  for (const h of hunksOf(before, after)) {
    // A change whose leading context would meet the open hunk's trailing context joins it.
    if (!open || h.baseStart - aEnd > 2 * context) {
      if (open) close(open);
      const lead = Math.min(context, h.baseStart);
      open = { oldStart: h.baseStart - lead + 1, oldLines: 0, newStart: h.currentStart - lead + 1, newLines: 0, lines: [] };
      hunks.push(open);
      aEnd = h.baseStart - lead;
      bEnd = h.currentStart - lead;
    }
    take(a.slice(aEnd, h.baseStart), ' ', open);
    take(a.slice(h.baseStart, h.baseStart + h.baseCount), '-', open);
    take(b.slice(h.currentStart, h.currentStart + h.currentCount), '+', open);
    aEnd = h.baseStart + h.baseCount;
    bEnd = h.currentStart + h.currentCount;
  }
  if (open) close(open);
  return hunks;

  function close(hunk: StructuredPatchHunk): void {
    const trail = Math.min(context, a.length - aEnd);
    take(a.slice(aEnd, aEnd + trail), ' ', hunk);
    hunk.oldLines = aEnd + trail - (hunk.oldStart - 1);
    hunk.newLines = bEnd + trail - (hunk.newStart - 1);
  }
}

/** A unified diff of two texts with `context` lines, headed by the two names (what `diff`'s createTwoFilesPatch writes). */
export function unifiedDiff(oldName: string, newName: string, before: string, after: string, context: number): string {
  return formatPatch({ oldFileName: oldName, newFileName: newName, oldHeader: undefined, newHeader: undefined, hunks: patchHunks(before, after, context) });
}
