// Registers Turnstone's user-facing commands through guardCommand (command-failure.ts): a failure is logged
// with the command's id and shown as "Turnstone: <message>".
import * as vscode from 'vscode';
import { guardCommand } from './command-failure';

/** Registers each command with its handler guarded; a failing one is logged to `log` and shown. */
export function registerGuardedCommands(commands: Readonly<Record<string, (...args: never[]) => unknown>>, log: vscode.LogOutputChannel): vscode.Disposable[] {
  const report = { log, show: (message: string) => void vscode.window.showErrorMessage(vscode.l10n.t('Turnstone: {0}', message)) };
  return Object.entries(commands).map(([id, run]) => vscode.commands.registerCommand(id, guardCommand(id, run as (...args: unknown[]) => unknown, report)));
}
