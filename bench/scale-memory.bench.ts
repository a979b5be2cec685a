// Memory of the real VS Code extension host over a 1 000-step session (10
// turns of 100 scripted tool steps against the mock API) with auto-compaction
// running about every 25 steps: heap and RSS after each turn, after a GC. Reported
// as a curve at 100 … 1 000 steps. Target: growth sub-linear once compaction
// runs, judged as the growth over steps 100→1 000 against 9× the growth over
// the first 100 steps (what linear growth would give). Baseline in the same
// run: the same session in a second host with compaction off.
import * as path from 'node:path';
import { runInHost } from './host/run-in-host';
import { type BenchResult, round } from './lib';

interface Sample {
  steps: number;
  rssMB: number;
  heapMB: number;
  externalMB: number;
}

interface HostRun {
  compaction: boolean;
  gcExposed: boolean;
  summaries: number;
  samples: Sample[];
  turns: { outcome: string; iterations: number; ms: number }[];
}

const inHost = (compact: boolean) =>
  runInHost<HostRun>(path.join(__dirname, 'host', 'memory.ts'), { env: { TURNSTONE_BENCH_COMPACT: compact ? 'on' : 'off' }, timeoutMs: 900_000 });

export default async function (): Promise<BenchResult[]> {
  const r = await inHost(true);
  // Baseline in the same bench run: the same 1 000 steps with compaction off (full history kept and sent).
  const off = await inHost(false);
  if (off.summaries !== 0) throw new Error(`the baseline compacted ${off.summaries} times`);
  if (r.summaries < 10) throw new Error(`compaction ran ${r.summaries} times over 1 000 steps; expected ~40`);
  const growth = (run: HostRun, steps: number, key: 'heapMB' | 'rssMB') => {
    const s = run.samples.find((x) => x.steps === steps);
    if (!s) throw new Error(`the host did not reach ${steps} steps: ${JSON.stringify(run.samples.map((x) => x.steps))}`);
    return s[key] - run.samples[0]![key];
  };
  const curve = (run: HostRun, key: 'heapMB' | 'rssMB') => run.samples.map((s) => `${s.steps}:${round(s[key] - run.samples[0]![key])}`).join(' ');
  const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;
  const row = (key: 'heapMB' | 'rssMB', label: string): BenchResult => {
    const first = growth(r, 100, key);
    const total = growth(r, 1000, key);
    // Sub-linear: the next 900 steps add less than 9× what the first 100 did.
    const linear = 9 * Math.max(first, 0.5);
    const baseTotal = growth(off, 1000, key);
    return {
      name: `host ${label} growth over 1 000 steps (compaction on)`,
      measured: `extension-host ${label} after GC, 1 000 scripted tool steps (10 turns × 100) minus before them, code-server ${process.env.CODE_SERVER_VERSION ?? '4.100.3'}, ${r.summaries} compactions (gc ${r.gcExposed ? 'exposed' : 'NOT exposed'}); baseline: the same session with compaction off`,
      unit: 'MB',
      ours: round(total),
      baseline: round(baseTotal),
      ratio: round(total / baseTotal),
      target: 'growth 100→1 000 steps < 9× growth 0→100 (sub-linear)',
      pass: total - first < linear,
      extra: {
        at_100_steps_MB: round(first),
        from_100_to_1000_MB: round(total - first),
        curve_steps_to_MB: curve(r, key),
        baseline_at_100_steps_MB: round(growth(off, 100, key)),
        baseline_curve_steps_to_MB: curve(off, key),
        turn_ms_median: round(median(r.turns.map((t) => t.ms))),
        baseline_turn_ms_median: round(median(off.turns.map((t) => t.ms))),
      },
    };
  };
  return [row('heapMB', 'JS heap'), row('rssMB', 'RSS')];
}
