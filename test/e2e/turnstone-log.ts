// The extension's own log, read from disk: what a test waits on when the thing it checks leaves no other trace
// (a refusal, a duplicate dropped). The log file is written with a short delay, so waiting polls it.
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import * as path from 'node:path';
import { eventually } from './panel/harness';

/** Every line the extension's "Turnstone" log channel wrote to disk in this run. */
export function turnstoneLog(userDataDir: string): string {
  const out: string[] = [];
  const walk = (dir: string) => {
    for (const e of readdirSync(dir, { withFileTypes: true })) {
      const p = path.join(dir, e.name);
      if (e.isDirectory()) walk(p);
      else if (e.name === 'Turnstone.log') out.push(readFileSync(p, 'utf8'));
    }
  };
  const logs = path.join(userDataDir, 'logs');
  if (existsSync(logs)) walk(logs);
  return out.join('\n');
}

export const count = (text: string, needle: string) => text.split(needle).length - 1;

/** Polls the log until `needle` appears `n` times (the log file is written with a short delay). */
export async function waitForLog(userDataDir: string, needle: string, n: number, timeoutMs = 15_000): Promise<number> {
  return eventually(async () => count(turnstoneLog(userDataDir), needle), (seen) => seen >= n, timeoutMs);
}
