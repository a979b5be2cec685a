// C5: what one turn did to the files, as a single before/after per path. The
// "before" is the content ahead of the turn's FIRST change to that path, so a
// host can show the whole turn as one diff and undo it by restoring it.
import { type FileChange } from './types';

export interface FileRestore {
  path: string;
  /** Content to write back; null means the file did not exist before the turn: delete it. */
  content: string | null;
}

export class TurnDiff {
  private readonly files = new Map<string, FileChange>();

  record(change: FileChange): void {
    const seen = this.files.get(change.path);
    if (seen) seen.after = change.after;
    else this.files.set(change.path, { path: change.path, before: change.before, after: change.after });
  }

  get isEmpty(): boolean {
    return this.files.size === 0;
  }

  /** One entry per changed path, in the order first touched; paths left as they were are omitted. */
  changes(): FileChange[] {
    return [...this.files.values()].filter((c) => c.before !== c.after).map((c) => ({ ...c }));
  }

  /** What to write to undo the turn, last-touched first. */
  undoPlan(): FileRestore[] {
    return this.changes()
      .reverse()
      .map((c) => ({ path: c.path, content: c.before }));
  }
}
