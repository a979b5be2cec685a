// The runner's file commands (GITHUB_ENV, GITHUB_PATH, GITHUB_OUTPUT, GITHUB_STATE, GITHUB_STEP_SUMMARY) are
// files the runner reads when the step ends: a line appended to GITHUB_ENV sets a variable for every later
// step of the job, one in GITHUB_PATH puts a program first on their PATH. The agent's process never gets
// their names, but with the sandbox off a command can still find them (they sit in RUNNER_TEMP). Only this
// action may write them, and only after the turn: whatever the turn left in them is put back as it was.
import { readFileSync, writeFileSync } from 'node:fs';
import { type Env } from './inputs';

export const RUNNER_FILE_VARIABLES = ['GITHUB_ENV', 'GITHUB_PATH', 'GITHUB_OUTPUT', 'GITHUB_STATE', 'GITHUB_STEP_SUMMARY'] as const;

export interface RunnerFilesSnapshot {
  /** Puts back every file the turn changed; the variables that name them. */
  restoreChanged(): string[];
}

export function snapshotRunnerFiles(env: Env): RunnerFilesSnapshot {
  const saved: Array<{ variable: string; file: string; content: Buffer | undefined }> = [];
  for (const variable of RUNNER_FILE_VARIABLES) {
    const file = env[variable];
    if (file) saved.push({ variable, file, content: readOrUndefined(file) });
  }
  return {
    restoreChanged() {
      const changed: string[] = [];
      for (const { variable, file, content } of saved) {
        const now = readOrUndefined(file);
        if (now === undefined && content === undefined) continue;
        if (now !== undefined && content !== undefined && now.equals(content)) continue;
        writeFileSync(file, content ?? Buffer.alloc(0));
        changed.push(variable);
      }
      return changed;
    },
  };
}

function readOrUndefined(file: string): Buffer | undefined {
  try {
    return readFileSync(file);
  } catch {
    return undefined;
  }
}
