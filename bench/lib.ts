// Shared shape and timing helpers for bench/*.bench.ts (run by bench/run.mjs).
export interface BenchResult {
  name: string;
  /** What was measured, in words. */
  measured: string;
  unit: string;
  ours: number;
  /** The baseline measured in the same run; null where the figure is only reported. */
  baseline: number | null;
  /** ours / baseline (null without a baseline). */
  ratio: number | null;
  /** Human-readable target, e.g. "ratio <= 1.5" or "< 300 ms". */
  target: string;
  pass: boolean | null;
  min?: number;
  max?: number;
  extra?: Record<string, number | string>;
}

export interface Sampled {
  median: number;
  min: number;
  max: number;
}

/** Runs `fn` `warmup` times unmeasured, then `runs` times; returns median/min/max of its ms. */
export async function sample(fn: () => Promise<void> | void, runs = 7, warmup = 2): Promise<Sampled> {
  for (let i = 0; i < warmup; i++) await fn();
  const times: number[] = [];
  for (let i = 0; i < runs; i++) {
    const t0 = performance.now();
    await fn();
    times.push(performance.now() - t0);
  }
  times.sort((a, b) => a - b);
  return { median: times[Math.floor(times.length / 2)]!, min: times[0]!, max: times[times.length - 1]! };
}

export function ratioResult(
  name: string,
  measured: string,
  ours: Sampled,
  baseline: Sampled,
  maxRatio: number,
  extra?: Record<string, number | string>,
): BenchResult {
  const ratio = ours.median / baseline.median;
  return {
    name,
    measured,
    unit: 'ms',
    ours: round(ours.median),
    baseline: round(baseline.median),
    ratio: round(ratio),
    target: `ratio <= ${maxRatio}`,
    pass: ratio <= maxRatio,
    min: round(ours.min),
    max: round(ours.max),
    ...(extra ? { extra } : {}),
  };
}

export const round = (n: number) => Math.round(n * 1000) / 1000;
