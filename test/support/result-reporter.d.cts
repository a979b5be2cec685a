import type { Runner } from 'mocha';

export interface RunResult {
  passed: number;
  failed: number;
  skipped: number;
  skippedTitles: string[];
  failedTitles: string[];
}
export function collectResult(runner: Runner, emit: (result: RunResult) => void): RunResult;
export function resultLine(result: RunResult): string;
