// The real process table, for tests that must prove nothing a command started
// outlives it: processes are found by a marker in their command line (a
// sandboxed command's pids live in another namespace; its cmdline shows in ours).
import { readdirSync, readFileSync } from 'node:fs';
import { processRunning } from '../../src/tools/os/process-state';

/** Live (not zombie) processes whose command line contains `marker`, this process excluded. */
export function processesWith(marker: string): number[] {
  const found: number[] = [];
  for (const name of readdirSync('/proc')) {
    if (!/^\d+$/.test(name)) continue;
    const pid = Number(name);
    if (pid === process.pid) continue;
    let cmdline: string;
    try {
      cmdline = readFileSync(`/proc/${pid}/cmdline`, 'utf8').replace(/\0/g, ' ');
    } catch {
      continue;
    }
    if (cmdline.includes(marker) && processRunning(pid)) found.push(pid);
  }
  return found;
}

/** Polls `probe` until it returns something other than undefined/false; fails naming `what` after `timeoutMs`. */
export async function until<T>(what: string, probe: () => T | undefined | false | Promise<T | undefined | false>, timeoutMs = 20_000): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await probe();
    if (value !== undefined && value !== false) return value;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 25));
  }
}
