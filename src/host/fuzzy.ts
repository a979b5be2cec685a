// Fuzzy ranking for the `@` picker, over every file and folder of the
// workspace. Plain code with no editor import, so it is measured and tested in
// Node: a query's characters must appear in order in the path; matches in the
// file name, at word starts and in runs score higher; shorter paths break ties.
// One pass per path with no allocation keeps 50k paths well under 100 ms.

export interface IndexedPath {
  /** Workspace-relative, '/'-separated; folders without a trailing slash. */
  path: string;
  kind: 'file' | 'folder';
}

export interface RankedPath extends IndexedPath {
  score: number;
}

const isBoundary = (c: number) => c === 47 /* / */ || c === 95 /* _ */ || c === 45 /* - */ || c === 46 /* . */ || c === 32;

/** Score of `query` (lower case) against `path`, or -1 when it does not match. */
export function fuzzyScore(path: string, query: string): number {
  if (query.length === 0) return 0;
  const lower = path.toLowerCase();
  const nameStart = path.lastIndexOf('/') + 1;
  // Fast paths: a substring of the name, then of the path.
  const inName = lower.indexOf(query, nameStart);
  if (inName >= 0) return 1000 - (path.length - nameStart) + (inName === nameStart ? 200 : 0) + (query.length === path.length - nameStart ? 300 : 0);
  const inPath = lower.indexOf(query);
  if (inPath >= 0) return 600 - path.length + (inPath === 0 || isBoundary(lower.charCodeAt(inPath - 1)) ? 100 : 0);
  let score = 0;
  let qi = 0;
  let prev = -2;
  for (let i = 0; i < lower.length && qi < query.length; i++) {
    if (lower.charCodeAt(i) !== query.charCodeAt(qi)) continue;
    score += 10;
    if (i === prev + 1) score += 15;
    if (i === 0 || isBoundary(lower.charCodeAt(i - 1))) score += 20;
    if (i >= nameStart) score += 10;
    prev = i;
    qi++;
  }
  if (qi < query.length) return -1;
  return score - path.length;
}

/** The best `limit` matches, best first. */
export function rankPaths(entries: readonly IndexedPath[], query: string, limit = 50): RankedPath[] {
  const q = query.trim().toLowerCase().replace(/\\/g, '/');
  const out: RankedPath[] = [];
  let worst = -Infinity;
  for (const e of entries) {
    const score = fuzzyScore(e.path, q);
    if (score < 0) continue;
    if (out.length >= limit && score <= worst) continue;
    out.push({ ...e, score });
    if (out.length > limit * 4) {
      out.sort(byScore);
      out.length = limit;
      worst = out[limit - 1]!.score;
    }
  }
  out.sort(byScore);
  if (out.length > limit) out.length = limit;
  return out;
}

function byScore(a: RankedPath, b: RankedPath): number {
  return b.score - a.score || a.path.length - b.path.length || (a.path < b.path ? -1 : 1);
}
