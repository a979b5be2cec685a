// Activation is wiring only: everything heavy (SDK, runtime) loads on first use.
import * as vscode from 'vscode';
import { type CommandId } from './host/contract';
import { ChatPanelProvider } from './webview/panel-provider';

export interface TurnstoneApi {
  /** The panel's view id, for tests that focus it. */
  readonly chatViewId: string;
  /** Whether the chat webview is on screen. */
  isChatVisible(): boolean;
}

export function activate(context: vscode.ExtensionContext): TurnstoneApi {
  const log = vscode.window.createOutputChannel('Turnstone', { log: true });
  context.subscriptions.push(log);

  const panel = new ChatPanelProvider(context.extensionUri, {
    onMessage: (message) => log.debug(`webview → host: ${message.type}`),
    onInvalidMessage: (_raw, error) => log.warn(`dropped malformed webview message: ${error}`),
  });
  context.subscriptions.push(vscode.window.registerWebviewViewProvider(ChatPanelProvider.viewType, panel));

  const commands: Record<CommandId, (...args: unknown[]) => unknown> = {
    'turnstone.focus': () => vscode.commands.executeCommand(`${ChatPanelProvider.viewType}.focus`),
    'turnstone.showLog': () => log.show(true),
    'turnstone.newSession': () => notWired('New Session'),
    'turnstone.sendPrompt': () => notWired('Send Prompt'),
    'turnstone.askAboutSelection': () => notWired('Ask about Selection'),
    'turnstone.stop': () => notWired('Stop'),
    'turnstone.setApiKey': () => notWired('Set API Key'),
    'turnstone.selectModel': () => notWired('Select Model'),
    'turnstone.compact': () => notWired('Compact'),
    'turnstone.undoTurn': () => notWired('Undo Turn'),
    'turnstone.resumeSession': () => notWired('Resume Session'),
  };
  for (const [id, run] of Object.entries(commands)) {
    context.subscriptions.push(vscode.commands.registerCommand(id, run));
  }
  log.info(`Turnstone activated (VS Code ${vscode.version})`);
  return { chatViewId: ChatPanelProvider.viewType, isChatVisible: () => panel.isVisible };
}

function notWired(what: string): void {
  void vscode.window.showWarningMessage(`Turnstone: "${what}" is not available in this build yet.`);
}

export function deactivate(): void {}
