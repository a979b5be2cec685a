// The reliability matrix (issue 10) records what each scenario observed, so
// docs/reliability.md can be regenerated from a real run
// (`npm run reliability:table`) instead of being written by hand.
// Rows go to a JSONL file shared by every process of `npm test` (mocha, the
// extension host, the e2e runner); the newest row per id wins.
import { appendFileSync, mkdirSync } from 'node:fs';
import { dirname, resolve } from 'node:path';

export type ReliabilityArea = 'network' | 'crash' | 'disk' | 'tools' | 'paths' | 'commands' | 'injection' | 'webview' | 'secrets';

export interface ReliabilityRow {
  /** Stable and unique across the suite, e.g. `F-NET-03`, `A-CMD-01`. */
  id: string;
  area: ReliabilityArea;
  scenario: string;
  expected: string;
  /** What happened, with counts: "200/200 cuts recovered, 0 corrupted". */
  observed: string;
}

/** `TURNSTONE_RELIABILITY_FULL=1` runs the long scenarios at their full counts. */
export const FULL = process.env.TURNSTONE_RELIABILITY_FULL === '1';

/** The full count with TURNSTONE_RELIABILITY_FULL=1, else the sample `npm test` runs. */
export function sampled(full: number, sample: number): number {
  return FULL ? full : Math.min(full, sample);
}

export const reliabilityLogPath = (): string => process.env.TURNSTONE_RELIABILITY_LOG ?? resolve(process.cwd(), 'test-results/reliability.jsonl');

/**
 * Records one scenario's outcome. Call it with what was observed before asserting, so a failure is recorded too.
 * `notRun` says why a scenario could not run on this machine (the table shows it as not run, never as passed).
 */
export function recordScenario(row: ReliabilityRow & ({ passed: boolean; notRun?: undefined } | { notRun: string; passed?: undefined })): void {
  const path = reliabilityLogPath();
  mkdirSync(dirname(path), { recursive: true });
  const { notRun, ...rest } = row;
  // No default: every caller computes `passed` from everything the scenario claims.
  const outcome = notRun !== undefined ? { observed: `not run: ${notRun}`, passed: false, notRun: true } : { passed: row.passed };
  appendFileSync(path, `${JSON.stringify({ ...rest, ...outcome, full: FULL, at: new Date().toISOString() })}\n`);
}

/** A small seeded PRNG (mulberry32): the same seed replays the same faults. */
export function seededRandom(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/** The seed for this run: TURNSTONE_RELIABILITY_SEED replays a failure; printed so a red run can be reproduced. */
export const RELIABILITY_SEED = Number(process.env.TURNSTONE_RELIABILITY_SEED ?? 20261129);
