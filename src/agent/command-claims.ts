// Sessions side by side in one folder (issue 43): a file one session changed is refused to the others while it
// runs. Edits name their file; a `bash` command does not, so what it changed is found by looking: the
// checkpoint store's scan (about one `git status`) before and after the command, compared file by file. Only
// while another session is open in the same folder: alone, or in a worktree, a command costs nothing more.
import * as path from 'node:path';
import { type ToolExecutor } from '../runtime/types';
import { type CheckpointStore, type FileState } from '../tools/checkpoints';

export interface CommandClaims {
  /** Whether another open session works in the same folder (a scan is worth its cost). */
  shared(): boolean;
  /** The files (absolute) a command of this session changed. */
  claim(files: readonly string[]): void;
}

/**
 * `tools` with each foreground `bash` command's changed files claimed for its session. A command started in the
 * background is looked at until it returns (what it writes later is not seen), and one that failed or was
 * stopped is looked at all the same: what it wrote before is there. A scan that fails claims nothing.
 */
export function claimingCommandChanges(tools: ToolExecutor, store: () => CheckpointStore | undefined, claims: CommandClaims): ToolExecutor {
  return new Proxy(tools, {
    get(target, prop, receiver) {
      const value = Reflect.get(target, prop, receiver) as unknown;
      if (typeof value !== 'function') return value;
      if (prop !== 'execute') return (value as (...a: unknown[]) => unknown).bind(target);
      return async (...args: Parameters<ToolExecutor['execute']>) => {
        const checkpoints = args[0] === 'bash' && claims.shared() ? store() : undefined;
        const before = checkpoints ? await checkpoints.snapshot().catch(() => undefined) : undefined;
        try {
          return await target.execute(...args);
        } finally {
          if (checkpoints && before) {
            const after = await checkpoints.snapshot().catch(() => undefined);
            const changed = after ? changedBetween(before, after) : [];
            if (changed.length > 0) claims.claim(changed.map((rel) => path.join(checkpoints.root, rel)));
          }
        }
      };
    },
  });
}

/** The files (relative) whose state differs between two snapshots: made, changed again, or deleted. */
export function changedBetween(before: Readonly<Record<string, FileState>>, after: Readonly<Record<string, FileState>>): string[] {
  const paths = new Set([...Object.keys(before), ...Object.keys(after)]);
  return [...paths].filter((rel) => JSON.stringify(before[rel] ?? null) !== JSON.stringify(after[rel] ?? null)).sort();
}
