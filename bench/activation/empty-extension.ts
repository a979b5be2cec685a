// The baseline of bench/activation.bench.ts: an extension of the same shape
// (one output channel, the chat view, the contract's commands, a status bar
// item) that does nothing else. Built like dist/extension.js and loaded the
// same way, it is what activating any extension costs in that setup.
import * as vscode from 'vscode';
import { CHAT_VIEW, COMMANDS, INTERNAL_COMMANDS } from '../../src/host/contract';

export function activate(context: vscode.ExtensionContext): { activateMs: number } {
  const started = performance.now();
  const log = vscode.window.createOutputChannel('Turnstone', { log: true });
  const status = vscode.window.createStatusBarItem('turnstone.status', vscode.StatusBarAlignment.Right, 100);
  const view: vscode.WebviewViewProvider = {
    resolveWebviewView: (v) => {
      v.webview.html = '<!doctype html>';
    },
  };
  context.subscriptions.push(
    log,
    status,
    vscode.window.registerWebviewViewProvider(CHAT_VIEW, view),
    ...[...COMMANDS, ...INTERNAL_COMMANDS].map((id) => vscode.commands.registerCommand(id, () => log.info(id))),
  );
  return { activateMs: performance.now() - started };
}

export function deactivate(): void {}
