// The loop guard (`turnstone.loopGuard.repeats`): a model that makes the same tool call and gets the same
// answer again and again burns requests without learning anything (the loudest complaint in Copilot's and
// Cline's trackers). The turn stops before the next request once one call, with one input, has met one
// outcome that many times. Editing a file changes the world the call runs in: an identical `npm test` after
// an edit is a new attempt, so a file change starts the count again.
import { createHash } from 'node:crypto';
import { canonicalJson } from '../canonical-json';
import { type LoopStop } from '../errors';
import { type ToolResultRecord } from '../events';
import { describeToolUse } from '../tool-summary';
import { type ParsedToolUse } from './assistant-message';

export const DEFAULT_LOOP_GUARD_REPEATS = 3;

export { type LoopStop };

export class LoopGuard {
  private readonly seen = new Map<string, number>();

  /** `repeats` 0 (or less) turns the guard off. */
  constructor(private readonly repeats: number) {}

  /** A file changed: what a repeated call meets may differ from now on. */
  reset(): void {
    this.seen.clear();
  }

  /** Counts one step's calls; the first that reached the limit, if any. */
  record(uses: readonly ParsedToolUse[], results: readonly ToolResultRecord[]): LoopStop | undefined {
    if (this.repeats <= 0) return undefined;
    let stop: LoopStop | undefined;
    for (const result of results) {
      // An interrupted call says nothing about what the next one would meet.
      if (result.aborted) continue;
      const use = uses.find((u) => u.id === result.toolUseId);
      if (!use) continue;
      const key = signature(use, result);
      const count = (this.seen.get(key) ?? 0) + 1;
      this.seen.set(key, count);
      if (count >= this.repeats && !stop) stop = { tool: use.name, call: describeToolUse(use.name, use.input), repeats: count, outcome: result.isError ? 'error' : 'result' };
    }
    return stop;
  }
}

/** The call (name and input, key order aside) and what it met; hashed, as a result can be megabytes. */
function signature(use: ParsedToolUse, result: ToolResultRecord): string {
  return createHash('sha256')
    .update(use.name).update('\0')
    .update(use.inputError ?? canonicalJson(use.input)).update('\0')
    .update(result.isError ? 'error' : 'result').update('\0')
    .update(result.content)
    .digest('hex');
}

export function loopStopMessage(stop: LoopStop): string {
  const what = stop.outcome === 'error' ? 'failed the same way' : 'returned the same result';
  return `loop guard: the same tool call (${stop.call}) ${what} ${stop.repeats} times in this turn; stopped before another request (turnstone.loopGuard.repeats)`;
}
