// Whether a process still runs, for cleanups that must not touch a live
// writer's files and for waits on processes we did not start.
import { readFileSync } from 'node:fs';

/** The process's state letter from /proc (R, S, D, Z, …); undefined when it is gone or not on Linux. */
export function processStateLetter(pid: number): string | undefined {
  if (process.platform !== 'linux') return undefined;
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    // pid (comm) state …: comm may hold spaces and parentheses, so read after the last ')'.
    return stat.charAt(stat.lastIndexOf(')') + 2) || undefined;
  } catch {
    return undefined;
  }
}

/**
 * Running means it can still act. A zombie cannot: a process killed while its
 * parent died too is reparented, and where nothing reaps it (a container whose
 * pid 1 is no init) it stays a zombie for good, though kill(pid, 0) succeeds.
 */
export function processRunning(pid: number): boolean {
  try {
    process.kill(pid, 0);
  } catch (error) {
    // EPERM: it exists, it just is not ours.
    if ((error as NodeJS.ErrnoException).code !== 'EPERM') return false;
  }
  const state = processStateLetter(pid);
  return state !== 'Z' && state !== 'X';
}
