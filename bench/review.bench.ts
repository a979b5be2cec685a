// Reviewing the agent's edits (issue 44), the part the host does without vscode:
// (a) listing and diffing 200 changed files (200–2 000 lines each, a few hunks each): every file read from
//     disk through the review's FileTextCache (cold: stat, read, decode by BOM) and split into hunks by
//     changedFiles, as SessionReview.files() does on its first refresh. Baseline, interleaved run by run:
//     readFile + the `diff` package's structuredPatch of the same pairs. Target < 300 ms.
// (b) Undo of one hunk in a 10 000-line file: undoHunk, then hunksOf on the result (the refresh that
//     follows it). Baseline, interleaved: structuredPatch of the same pair. Target < 50 ms.
// (c) The edit card of a 128 kB file rewritten whole as 1 MB (diffStats: counts and the diff if short enough),
//     on the extension host's thread; the plain Myers diff took 60 s here. Baseline, interleaved: splitting both
//     texts into lines and counting them in a Map, the least any line diff does. Target < 1 000 ms.
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { structuredPatch } from 'diff';
import { changedFiles, FileTextCache, type FileSource, type HunkCount, hunksOf, splitLines, undoHunk } from '../src/agent/review-hunks';
import { diffStats } from '../src/webview/tool-view';
import { round, type BenchResult, type Sampled } from './lib';

const FILES = 200;
const RUNS = 11;
const WARMUP = 2;

function stats(times: number[]): Sampled {
  const t = [...times].sort((x, y) => x - y);
  return { median: t[Math.floor(t.length / 2)]!, min: t[0]!, max: t[t.length - 1]! };
}

/** A small deterministic PRNG, so every run benches the same files. */
function prng(seed: number): () => number {
  let s = seed >>> 0;
  return () => {
    s = (Math.imul(s, 1664525) + 1013904223) >>> 0;
    return s / 2 ** 32;
  };
}

function sourceLines(n: number, id: number, rand: () => number): string[] {
  const out: string[] = [];
  for (let i = 0; i < n; i++) {
    const kind = i % 7;
    if (kind === 0) out.push(`export function handler${id}_${i}(input: Input): Output {\n`);
    else if (kind === 6) out.push('}\n');
    else if (kind === 3) out.push('\n');
    else out.push(`  const value${i} = compute(input, ${Math.floor(rand() * 1e6)}, 'file ${id}'); // line ${i}\n`);
  }
  return out;
}

/** The agent's edits: `hunks` changes spread over the file (a rewritten line, lines added, lines removed). */
function edited(lines: string[], hunks: number, id: number, rand: () => number): string[] {
  const out = [...lines];
  const step = Math.floor(lines.length / (hunks + 1));
  // From the end backwards, so earlier positions stay where they were.
  for (let h = hunks; h >= 1; h--) {
    const at = h * step + Math.floor(rand() * (step / 4));
    const kind = h % 3;
    if (kind === 0) out.splice(at, 1, `  const changed${id}_${h} = rewritten(${h}); // by the agent\n`);
    else if (kind === 1) out.splice(at, 0, `  // added by the agent ${id}.${h}\n`, `  audit(${id}, ${h});\n`);
    else out.splice(at, 2, `  const merged${id}_${h} = both(); // two lines became one\n`);
  }
  return out;
}

const nodeFiles: FileSource = {
  stat: async (file) => {
    const s = await fs.promises.stat(file);
    return { mtime: s.mtimeMs, size: s.size };
  },
  read: (file) => fs.promises.readFile(file),
};

async function listing(root: string): Promise<BenchResult[]> {
  const rand = prng(44);
  const bases = new Map<string, string | null>();
  let expectedHunks = 0;
  let totalLines = 0;
  for (let i = 0; i < FILES; i++) {
    const n = 200 + Math.floor(rand() * 1801);
    const hunks = 2 + Math.floor(rand() * 4);
    const lines = sourceLines(n, i, rand);
    const file = path.join(root, `src/module-${i}.ts`);
    fs.mkdirSync(path.dirname(file), { recursive: true });
    fs.writeFileSync(file, edited(lines, hunks, i, rand).join(''));
    bases.set(file, lines.join(''));
    expectedHunks += hunks;
    totalLines += n;
  }
  const bytes = [...bases.keys()].reduce((n, f) => n + fs.statSync(f).size, 0);

  const ours: number[] = [];
  const base: number[] = [];
  let sink = 0;
  for (let i = 0; i < WARMUP + RUNS; i++) {
    let t = performance.now();
    const cache = new FileTextCache(nodeFiles);
    const listed = await changedFiles(bases, (f) => cache.read(f));
    const oursMs = performance.now() - t;
    const found = listed.reduce((n, f) => n + f.hunks, 0);
    if (listed.length !== FILES || found !== expectedHunks) throw new Error(`listed ${listed.length} files, ${found} hunks; expected ${FILES}, ${expectedHunks}`);

    t = performance.now();
    const currents = await Promise.all([...bases.keys()].map((f) => fs.promises.readFile(f, 'utf8')));
    let j = 0;
    for (const [file, b] of bases) sink += structuredPatch(file, file, b!, currents[j++]!).hunks.length;
    const baseMs = performance.now() - t;
    if (i >= WARMUP) {
      ours.push(oursMs);
      base.push(baseMs);
    }
  }
  if (sink === 0) throw new Error('the baseline found no hunks');

  // A refresh after a listing: nothing changed (every file stat'ed, none read or diffed again), then one file
  // rewritten by a tool (which forgets it): one read and one diff.
  const cache = new FileTextCache(nodeFiles, () => Date.now() + 10_000); // as if read well after the files were written
  const counts = new Map<string, HunkCount>();
  await changedFiles(bases, (f) => cache.read(f), counts);
  const warm: number[] = [];
  const oneChanged: number[] = [];
  const first = [...bases.keys()][0]!;
  const firstText = fs.readFileSync(first, 'utf8');
  for (let i = 0; i < RUNS; i++) {
    let t = performance.now();
    await changedFiles(bases, (f) => cache.read(f), counts);
    warm.push(performance.now() - t);
    fs.writeFileSync(first, i % 2 ? firstText : `// touched ${i}\n${firstText}`);
    cache.forget(first);
    t = performance.now();
    await changedFiles(bases, (f) => cache.read(f), counts);
    oneChanged.push(performance.now() - t);
  }

  const o = stats(ours);
  const b = stats(base);
  return [
    {
      name: 'review: list and diff 200 changed files',
      measured: `changedFiles over ${FILES} files (${totalLines} lines, ${(bytes / 1e6).toFixed(1)} MB, ${expectedHunks} hunks) read cold through FileTextCache (stat, read, decode by BOM) and split by hunksOf, as SessionReview.files() on its first refresh without vscode (baseline: readFile + diff's structuredPatch of the same pairs, interleaved)`,
      unit: 'ms',
      ours: round(o.median),
      baseline: round(b.median),
      ratio: round(o.median / b.median),
      target: '< 300 ms',
      pass: o.median < 300,
      min: round(o.min),
      max: round(o.max),
      extra: { refresh_nothing_changed_ms: round(stats(warm).median), refresh_one_file_changed_ms: round(stats(oneChanged).median), lines: totalLines, hunks: expectedHunks },
    },
  ];
}

function undo(): BenchResult[] {
  const rand = prng(4410);
  const lines = sourceLines(10_000, 0, rand);
  const baseText = lines.join('');
  const current = edited(lines, 3, 0, rand).join('');
  const hunks = hunksOf(baseText, current);
  if (hunks.length !== 3) throw new Error(`expected 3 hunks, found ${hunks.length}`);
  const target = hunks[1]!;

  const ours: number[] = [];
  const base: number[] = [];
  const splitJoin: number[] = [];
  let sink = 0;
  for (let i = 0; i < WARMUP * 3 + RUNS * 3; i++) {
    let t = performance.now();
    const undone = undoHunk(baseText, current, target);
    const left = hunksOf(baseText, undone);
    const oursMs = performance.now() - t;
    if (left.length !== 2) throw new Error(`after the undo ${left.length} hunks are left, not 2`);

    t = performance.now();
    sink += structuredPatch('a', 'a', baseText, current).hunks.length;
    const baseMs = performance.now() - t;

    // The least an undo could do given the hunk: split, splice, join.
    t = performance.now();
    const c = current.split('\n');
    c.splice(target.currentStart, target.currentCount, ...baseText.split('\n').slice(target.baseStart, target.baseStart + target.baseCount));
    sink += c.join('\n').length;
    const sjMs = performance.now() - t;
    if (i >= WARMUP * 3) {
      ours.push(oursMs);
      base.push(baseMs);
      splitJoin.push(sjMs);
    }
  }
  if (sink === 0) throw new Error('nothing measured');

  // Not the target's case, shown so it is not forgotten: a file the agent rewrote whole (every line differs)
  // would cost the Myers diff O(N·D) (730 ms here at 2 000 lines); hunksOf stops it early and anchors on unique lines.
  const rewriteBase = sourceLines(2000, 1, rand).join('');
  const rewritten = sourceLines(2000, 2, rand).join('');
  const t = performance.now();
  hunksOf(rewriteBase, rewritten);
  const rewriteMs = performance.now() - t;

  const o = stats(ours);
  const b = stats(base);
  return [
    {
      name: 'review: undo one hunk in a 10k-line file',
      measured: 'undoHunk of the middle of 3 hunks in a 10 000-line (~0.6 MB) file, then hunksOf on the result (the refresh after it) (baseline: diff\'s structuredPatch of the same pair, interleaved)',
      unit: 'ms',
      ours: round(o.median),
      baseline: round(b.median),
      ratio: round(o.median / b.median),
      target: '< 50 ms',
      pass: o.median < 50,
      min: round(o.min),
      max: round(o.max),
      extra: { split_splice_join_ms: round(stats(splitJoin).median), hunksOf_whole_rewrite_2000_lines_ms: round(rewriteMs) },
    },
  ];
}

function rewriteCard(): BenchResult[] {
  const rand = prng(4420);
  const before = sourceLines(2_600, 3, rand).join('');
  const after = sourceLines(21_000, 4, rand).join('');
  const ours: number[] = [];
  const base: number[] = [];
  let sink = 0;
  for (let i = 0; i < WARMUP + 5; i++) {
    let t = performance.now();
    const card = diffStats(before, after, 'data.txt');
    const oursMs = performance.now() - t;
    if (card.added !== 21_000 || card.removed !== 2_600) throw new Error(`counted +${card.added} −${card.removed}`);
    t = performance.now();
    const seen = new Map<string, number>();
    for (const line of [...splitLines(before), ...splitLines(after)]) seen.set(line, (seen.get(line) ?? 0) + 1);
    sink += seen.size;
    const baseMs = performance.now() - t;
    if (i >= WARMUP) {
      ours.push(oursMs);
      base.push(baseMs);
    }
  }
  if (sink === 0) throw new Error('nothing measured');
  const o = stats(ours);
  const b = stats(base);
  return [
    {
      name: 'edit card: a 128 kB file rewritten whole as 1 MB',
      measured: "diffStats (the card's +/- counts, and its diff when short enough) of 2 600 lines replaced by 21 000 others, on the host's thread (baseline: splitting both into lines and counting them in a Map, interleaved)",
      unit: 'ms',
      ours: round(o.median),
      baseline: round(b.median),
      ratio: round(o.median / b.median),
      target: '< 1000 ms',
      pass: o.median < 1000,
      min: round(o.min),
      max: round(o.max),
    },
  ];
}

export default async function (): Promise<BenchResult[]> {
  const root = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), 'turnstone-bench-review-')));
  try {
    return [...(await listing(root)), ...undo(), ...rewriteCard()];
  } finally {
    fs.rmSync(root, { recursive: true, force: true });
  }
}
