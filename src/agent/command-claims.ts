// Sessions side by side in one folder (issue 43): a file one session changed is refused to the others while it
// runs. Edits name their file; a `bash` command does not, so what it changed is found by looking: the
// checkpoint store's scan (about one `git status`) before and after the command, compared file by file. Only
// while another session is open in the same folder: alone, or in a worktree, a command costs nothing more.
// What changed meanwhile is not all the command's: the user's own saves are claimed with it, and of two commands
// of two sessions running at once, the one that ends first claims what both changed (the other's claim yields).
// Files git ignores are not seen, nor what a background command writes after it returned.
import * as path from 'node:path';
import { type ToolExecutor } from '../runtime/types';
import { type CheckpointStore, type FileState } from '../tools/checkpoints';

export interface CommandClaims {
  /** Whether another open session works in the same folder (a scan is worth its cost). */
  shared(): boolean;
  /** Where the window's record of file changes stands: given back to claim() for the command started now. */
  now(): number;
  /**
   * The files (absolute) that changed while a command of this session ran, since `since`: the claimer leaves out
   * those another session is known to have changed meanwhile (its edits, its own commands' files).
   */
  claim(files: readonly string[], since: number): void;
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
        const since = claims.now();
        // Stop does not wait for this scan; the one after the command runs whole, a stopped command included.
        const before = checkpoints ? await checkpoints.snapshot(args[2].signal).catch(() => undefined) : undefined;
        try {
          return await target.execute(...args);
        } finally {
          if (checkpoints && before) {
            const after = await checkpoints.snapshot().catch(() => undefined);
            const changed = after ? changedBetween(before, after) : [];
            if (changed.length > 0) claims.claim(changed.map((rel) => path.join(checkpoints.root, rel)), since);
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
