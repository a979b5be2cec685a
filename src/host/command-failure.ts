// One job: run a command's handler so that a failure is logged under the command's id and shown as a
// Turnstone error (not VS Code's generic "running the contributed command failed"); the command then
// returns undefined. Only vscode's types here, so the unit tests run it as the commands do
// (test/unit/host/command-failure.test.ts); command-guard.ts binds it to the log and the window.
import type * as vscode from 'vscode';

/** Where a failure goes: the log gets the id and the stack, the user the message. */
export interface CommandFailureReport {
  log: Pick<vscode.LogOutputChannel, 'error'>;
  /** Shows the error's message (command-guard.ts: "Turnstone: <message>"). */
  show(message: string): void;
}

/** `run` as a handler that never rejects: a throw or rejection is reported and the result is undefined. */
export function guardCommand<A extends unknown[], R>(id: string, run: (...args: A) => R, report: CommandFailureReport): (...args: A) => Promise<Awaited<R> | undefined> {
  return async (...args: A): Promise<Awaited<R> | undefined> => {
    try {
      return await run(...args);
    } catch (error) {
      report.log.error(`${id} failed: ${error instanceof Error ? error.stack ?? error.message : String(error)}`);
      report.show(error instanceof Error ? error.message : String(error));
      return undefined;
    }
  };
}
