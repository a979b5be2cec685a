// A unified diff of an edit computed only around the replaced regions: they
// (plus context) are all the model needs to see, and a whole 5 MB file would
// be diffed for a one-line change.
import { FILE_HEADERS_ONLY, type StructuredPatchHunk, formatPatch } from 'diff';
import { patchHunks } from '../../runtime/line-diff';

export interface EditSummary {
  diff: string;
  /** 1-based inclusive line ranges in the new file. */
  changedLines: Array<{ start: number; end: number }>;
}

function newlines(s: string): number {
  let n = 0;
  for (let i = s.indexOf('\n'); i !== -1; i = s.indexOf('\n', i + 1)) n++;
  return n;
}

function lineStart(text: string, pos: number): number {
  return pos <= 0 ? 0 : text.lastIndexOf('\n', pos - 1) + 1;
}

function nextLineStart(text: string, pos: number): number {
  const i = text.indexOf('\n', pos);
  return i === -1 ? text.length : i + 1;
}

export function summarizeEdit(
  oldText: string,
  newText: string,
  positions: number[],
  oldString: string,
  newString: string,
  fileName: string,
  options: { context?: number; maxDiffLines?: number } = {},
): EditSummary {
  const context = options.context ?? 3;
  const maxDiffLines = options.maxDiffLines ?? 120;
  const oldLen = oldString.length;
  const growth = newString.length - oldLen;
  const lineGrowth = newlines(newString) - newlines(oldString);
  const spanned = Math.max(0, newlines(newString) - (newString.endsWith('\n') ? 1 : 0));

  // Line of every occurrence, counted incrementally so the scan is one pass.
  const oldLines: number[] = [];
  let line = 0;
  let scanned = 0;
  for (const pos of positions) {
    for (let i = oldText.indexOf('\n', scanned); i !== -1 && i < pos; i = oldText.indexOf('\n', i + 1)) line++;
    scanned = pos;
    oldLines.push(line);
  }

  const changedLines = positions.map((_, i) => {
    const start = oldLines[i]! + i * lineGrowth + 1;
    return { start, end: start + spanned };
  });

  interface Region {
    startOff: number;
    endOff: number;
    startLine: number;
    first: number;
    last: number;
  }
  const regions: Region[] = [];
  for (let i = 0; i < positions.length; i++) {
    const pos = positions[i]!;
    let startOff = lineStart(oldText, pos);
    let stepped = 0;
    while (stepped < context && startOff > 0) {
      startOff = lineStart(oldText, startOff - 1);
      stepped++;
    }
    let endOff = pos + oldLen;
    if (!(endOff === 0 || oldText.charCodeAt(endOff - 1) === 10)) endOff = nextLineStart(oldText, endOff);
    for (let c = 0; c < context && endOff < oldText.length; c++) endOff = nextLineStart(oldText, endOff);
    const prev = regions[regions.length - 1];
    if (prev && startOff <= prev.endOff) {
      prev.endOff = Math.max(prev.endOff, endOff);
      prev.last = i;
    } else {
      regions.push({ startOff, endOff, startLine: oldLines[i]! - stepped, first: i, last: i });
    }
  }

  const hunks: StructuredPatchHunk[] = [];
  let diffLines = 0;
  let omittedRegions = 0;
  for (const r of regions) {
    if (diffLines >= maxDiffLines) {
      omittedRegions++;
      continue;
    }
    const oldSlice = oldText.slice(r.startOff, r.endOff).replace(/\r\n/g, '\n');
    const newSlice = newText.slice(r.startOff + r.first * growth, r.endOff + (r.last + 1) * growth).replace(/\r\n/g, '\n');
    const newStartLine = r.startLine + r.first * lineGrowth;
    for (const h of patchHunks(oldSlice, newSlice, context)) {
      hunks.push({ ...h, oldStart: h.oldStart + r.startLine, newStart: h.newStart + newStartLine });
      diffLines += h.lines.length;
    }
  }
  let diff = hunks.length
    ? formatPatch({ oldFileName: fileName, newFileName: fileName, oldHeader: '', newHeader: '', hunks }, FILE_HEADERS_ONLY)
    : '';
  // Only the patch's own last newline goes: a blank context line at a hunk's end is a line of it (" "), and
  // trimming it would leave the hunk one line short of its header.
  if (diff.endsWith('\n')) diff = diff.slice(0, -1);
  const lines = diff.split('\n');
  if (lines.length > maxDiffLines + 2) diff = `${lines.slice(0, maxDiffLines + 2).join('\n')}\n… (diff cut at ${maxDiffLines} lines)`;
  else if (omittedRegions) diff = `${diff}\n… (${omittedRegions} more changed region${omittedRegions === 1 ? '' : 's'} not shown)`;
  return { diff, changedLines };
}
