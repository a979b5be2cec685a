// Atomic writes go through a temp file beside the target. A process killed
// between writing it and renaming it over the target leaves that temp file
// behind (the target itself is intact: old or new, never half). Naming the
// temp file after the writing process lets a later run tell a dead writer's
// leftover from a write still in progress in another window, and remove it.
import { randomBytes } from 'node:crypto';
import { promises as fsp } from 'node:fs';
import * as path from 'node:path';
import { type Message } from '../../runtime/types';
import { processRunning } from '../os/process-state';

const TEMP_SUFFIX = /^(\d+)-[0-9a-f]+\.tmp$/;

/** The temp file an atomic write of `target` goes through: same folder, so the rename never crosses file systems. */
export function atomicTempPath(target: string): string {
  return path.join(path.dirname(target), `.${path.basename(target)}.turnstone-${process.pid}-${randomBytes(6).toString('hex')}.tmp`);
}

/** Removes temp files beside `target` whose writer no longer runs; returns what was removed. Best effort. */
export async function removeInterruptedWrites(target: string): Promise<string[]> {
  const dir = path.dirname(target);
  const prefix = `.${path.basename(target)}.turnstone-`;
  let names: string[];
  try {
    names = await fsp.readdir(dir);
  } catch {
    return [];
  }
  const removed: string[] = [];
  for (const name of names) {
    if (!name.startsWith(prefix)) continue;
    const pid = Number(TEMP_SUFFIX.exec(name.slice(prefix.length))?.[1] ?? 0);
    if (!pid || pid === process.pid || processRunning(pid)) continue;
    const file = path.join(dir, name);
    if (await fsp.rm(file, { force: true }).then(() => true, () => false)) removed.push(file);
  }
  return removed;
}

/** The files a session's tool uses wrote (write_file, edit_file), resolved against `root`: where a crash can have left temp files. */
export function filesWrittenIn(messages: readonly Message[], root: string): string[] {
  const files = new Set<string>();
  for (const m of messages) {
    if (m.role !== 'assistant') continue;
    for (const block of m.content) {
      if (block.type !== 'tool_use' || (block.name !== 'write_file' && block.name !== 'edit_file')) continue;
      const p = block.input.path;
      if (typeof p === 'string' && p) files.add(path.resolve(root, p));
    }
  }
  return [...files];
}

/** On resuming a session: removes what interrupted writes of its files left behind. */
export async function cleanUpInterruptedWrites(messages: readonly Message[], root: string): Promise<string[]> {
  const removed: string[] = [];
  for (const file of filesWrittenIn(messages, root)) removed.push(...(await removeInterruptedWrites(file)));
  return removed;
}
