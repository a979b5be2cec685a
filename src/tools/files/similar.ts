// When old_string is not found, point the model at the lines it probably
// meant. Comparison ignores whitespace, the usual cause of a near miss
// (indentation, tabs vs spaces, trailing blanks).

const squash = (s: string) => s.replace(/\s+/g, '');

function bigrams(s: string): Map<string, number> {
  const m = new Map<string, number>();
  for (let i = 0; i < s.length - 1; i++) {
    const b = s.slice(i, i + 2);
    m.set(b, (m.get(b) ?? 0) + 1);
  }
  return m;
}

/** Dice coefficient on character bigrams of whitespace-free text, 0..1. */
export function similarity(a: string, b: string): number {
  const x = squash(a);
  const y = squash(b);
  if (x === y) return 1;
  if (x.length < 2 || y.length < 2) return 0;
  const bx = bigrams(x);
  let common = 0;
  for (let i = 0; i < y.length - 1; i++) {
    const g = y.slice(i, i + 2);
    const n = bx.get(g);
    if (n) {
      common++;
      bx.set(g, n - 1);
    }
  }
  return (2 * common) / (x.length - 1 + y.length - 1);
}

export interface Candidate {
  /** 1-based first line. */
  line: number;
  lines: string[];
  score: number;
  /** Equal to old_string once all whitespace is ignored. */
  whitespaceOnly: boolean;
}

export function closestCandidates(text: string, needle: string, max = 3): Candidate[] {
  const fileLines = text.split('\n').map((l) => (l.endsWith('\r') ? l.slice(0, -1) : l));
  const wanted = needle.split('\n').map((l) => (l.endsWith('\r') ? l.slice(0, -1) : l));
  while (wanted.length > 1 && wanted[0]!.trim() === '') wanted.shift();
  while (wanted.length > 1 && wanted[wanted.length - 1]!.trim() === '') wanted.pop();
  const first = wanted[0]!;
  const firstSquashed = squash(first);
  if (!firstSquashed) return [];
  const k = wanted.length;

  // Rank every line against the first wanted line, then score the best starts as whole windows.
  const starts: Array<{ i: number; s: number }> = [];
  for (let i = 0; i < fileLines.length; i++) {
    const s = similarity(first, fileLines[i]!);
    if (s > 0.3) starts.push({ i, s });
  }
  starts.sort((a, b) => b.s - a.s);
  const scored: Candidate[] = [];
  const wantedSquashed = squash(wanted.join(''));
  for (const { i } of starts.slice(0, 25)) {
    const window = fileLines.slice(i, i + k);
    const n = Math.min(k, 12);
    let total = 0;
    for (let j = 0; j < n; j++) total += similarity(wanted[j]!, window[j] ?? '');
    scored.push({ line: i + 1, lines: window, score: total / n, whitespaceOnly: squash(window.join('')) === wantedSquashed });
  }
  scored.sort((a, b) => Number(b.whitespaceOnly) - Number(a.whitespaceOnly) || b.score - a.score || a.line - b.line);
  const picked: Candidate[] = [];
  for (const c of scored) {
    if (c.score < 0.5 && !c.whitespaceOnly) break;
    if (picked.some((p) => Math.abs(p.line - c.line) < k)) continue;
    picked.push(c);
    if (picked.length === max) break;
  }
  return picked;
}
