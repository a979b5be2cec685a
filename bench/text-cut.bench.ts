// The one cut function (issue 26.1) on a 1 MB string of mixed text (ASCII
// lines, CJK, emoji sequences, combining marks): a middle cut by characters
// (what overflow shrinking and MCP results do) and by UTF-8 bytes. Baseline,
// interleaved run by run: the raw `.slice` head + tail the cut replaces (which
// may split a surrogate pair). Target: median < 5 ms.
import { cutMiddle, measure } from '../src/runtime/text-cut';
import { round, type BenchResult, type Sampled } from './lib';

function stats(times: number[]): Sampled {
  const t = [...times].sort((x, y) => x - y);
  return { median: t[Math.floor(t.length / 2)]!, min: t[0]!, max: t[t.length - 1]! };
}

function mixedText(chars: number): string {
  const pieces = ['const value = compute(input);\n', '世界の漢字とかな。', '👩‍👩‍👧‍👦 🇫🇷 👍🏽 ', 'e\u0301a\u0308\u0323 ', 'plain ascii words here '];
  let s = '';
  for (let i = 0; s.length < chars; i++) s += pieces[i % pieces.length];
  return s.slice(0, chars);
}

function measureCut(text: string, max: number, unit: 'chars' | 'bytes'): { ours: Sampled; base: Sampled } {
  const ours: number[] = [];
  const base: number[] = [];
  let sink = 0;
  const rawHead = Math.floor(max / 2);
  for (let i = 0; i < 36; i++) {
    let t = performance.now();
    const cut = cutMiddle(text, max, { unit });
    sink += cut.head.length + cut.tail.length;
    const oursMs = performance.now() - t;
    t = performance.now();
    // What the cut replaces: raw head and tail slices by index (by characters even for bytes: the cheapest cut there is).
    const head = text.slice(0, rawHead);
    const tail = text.slice(text.length - (max - rawHead));
    sink += head.length + tail.length + head.charCodeAt(head.length - 1) + tail.charCodeAt(0);
    const baseMs = performance.now() - t;
    // The first runs warm the JIT.
    if (i >= 5) {
      ours.push(oursMs);
      base.push(baseMs);
    }
  }
  if (sink === 0) throw new Error('nothing was cut');
  return { ours: stats(ours), base: stats(base) };
}

export default async function (): Promise<BenchResult[]> {
  const text = mixedText(1024 * 1024);
  const results: BenchResult[] = [];
  for (const unit of ['chars', 'bytes'] as const) {
    const max = Math.floor(measure(text, unit) / 3);
    const { ours, base } = measureCut(text, max, unit);
    results.push({
      name: `text cut: middle of a 1 MB string by ${unit === 'chars' ? 'characters' : 'UTF-8 bytes'}`,
      measured: `cutMiddle (grapheme-safe head + tail) of ${text.length} characters of mixed ASCII, CJK, emoji sequences and combining marks down to a third (baseline: raw .slice head + tail)`,
      unit: 'ms',
      ours: round(ours.median),
      baseline: round(base.median),
      ratio: round(ours.median / Math.max(base.median, 1e-6)),
      target: '< 5 ms',
      pass: ours.median < 5,
      min: round(ours.min),
      max: round(ours.max),
    });
  }
  return results;
}
