// The json result's `changes` (contracts.md, fourth wave "Review"): each file the
// turn's tools changed, with the lines added and removed, counted as the panel's
// edit cards count them (runtime/line-diff.ts, which webview/tool-view.ts
// diffStats uses too).
import { realpathSync } from 'node:fs';
import * as path from 'node:path';
import { lineCounts } from '../runtime/line-diff';
import { type FileChange } from '../runtime/types';

export { lineCounts };

export interface CliChange {
  /** Relative to the session's folder, with `/`; absolute for a file outside it. */
  path: string;
  added: number;
  removed: number;
}

function real(p: string): string {
  try {
    return realpathSync(p);
  } catch {
    return path.resolve(p);
  }
}

/** The turn's file changes (TurnSummary.fileChanges) as the json result lists them, in the order the turn first changed them. */
export function changesOf(fileChanges: readonly FileChange[], cwd: string): CliChange[] {
  const roots = [...new Set([path.resolve(cwd), real(cwd)])];
  return fileChanges.map((change) => {
    const abs = path.resolve(cwd, change.path);
    let shown = abs;
    for (const root of roots) {
      const rel = path.relative(root, abs);
      if (rel && !rel.startsWith('..') && !path.isAbsolute(rel)) {
        shown = rel.split(path.sep).join('/');
        break;
      }
    }
    return { path: shown, ...lineCounts(change.before, change.after) };
  });
}
