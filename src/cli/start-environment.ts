// What /proc/<pid>/environ shows is the environment a process started with, whatever process.env says
// since: a process that must not show a secret there overwrites it in place. A leaf (node:fs only): the CLI's
// launcher and the GitHub Action's entry both use it, and the Action's bundle takes no CLI code beside it.
import { closeSync, openSync, readFileSync, readSync, writeSync } from 'node:fs';

/**
 * Overwrites the values of `names` in this process's start environment, the
 * memory /proc/<pid>/environ reads (Linux). False where that is not possible
 * (another OS, or /proc/self/mem not writable); nothing else changes then.
 */
export function scrubStartEnvironment(names: readonly string[]): boolean {
  if (process.platform !== 'linux') return false;
  try {
    const stat = readFileSync('/proc/self/stat', 'utf8');
    // Fields after "(comm)" start at field 3; env_start and env_end are fields 50 and 51 (Linux 3.5+).
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    const start = Number(fields[50 - 3]);
    const end = Number(fields[51 - 3]);
    if (!Number.isSafeInteger(start) || !Number.isSafeInteger(end) || end <= start) return false;
    const fd = openSync('/proc/self/mem', 'r+');
    try {
      const region = Buffer.alloc(end - start);
      readSync(fd, region, 0, region.length, start);
      let changed = false;
      for (let off = 0; off < region.length; ) {
        let nul = region.indexOf(0, off);
        if (nul < 0) nul = region.length;
        const eq = region.indexOf(0x3d, off);
        if (eq > off && eq < nul && names.includes(region.toString('latin1', off, eq))) {
          region.fill(0x78, eq + 1, nul); // 'x'
          changed = true;
        }
        off = nul + 1;
      }
      if (changed) writeSync(fd, region, 0, region.length, start);
      return true;
    } finally {
      closeSync(fd);
    }
  } catch {
    return false;
  }
}
