// Activation is wiring only. The runtime, SDKs and tools load on the first turn
// (the model client imports its SDK lazily), so opening VS Code stays cheap.
import * as vscode from 'vscode';
import { type TurnSummary } from './runtime/events';
import { type PermissionDecision } from './runtime/permissions';
import { registerCommands } from './host/commands';
import { watchInstructionFiles } from './host/instructions-watch';
import { TerminalRecorder } from './host/mentions';
import { handlePanelMessage } from './host/panel-messages';
import { WorkspaceIndex } from './host/workspace-index';
import { PendingPermissions } from './host/pending-permissions';
import { NativePermissionPrompter } from './host/permission-prompter';
import { OriginalContentProvider, ORIGINAL_SCHEME, ProposalFileSystem, PROPOSED_SCHEME } from './host/proposal-documents';
import { ApiKeys } from './host/secrets';
import { SessionController } from './host/session-controller';
import { addAllowRule, readSettings } from './host/settings';
import { TurnstoneStatusBar } from './host/status-bar';
import { ChatPanelProvider } from './webview/panel-provider';
import { type HostEvent, type Notice, type PanelSnapshot } from './webview/protocol';

/** What the extension exports: for scripts and the integration tests (never a global). */
export interface TurnstoneApi {
  readonly chatViewId: string;
  isChatVisible(): boolean;
  sendPrompt(text: string): Promise<TurnSummary>;
  stop(): void;
  pendingPermissions(): { id: string; toolName: string; subject: string; need: string; proposedUri?: string }[];
  /** Settles a pending request as the panel would; false when the id is unknown or already settled. */
  decide(id: string, decision: PermissionDecision): boolean;
  onDidRequestPermission: vscode.Event<string>;
  /** Native modal dialogs on/off (tests that answer through `decide` turn them off). */
  setDialogsEnabled(enabled: boolean): void;
  panelSnapshot(): PanelSnapshot;
  sessionFile(): string | undefined;
  /** Time spent in our activate(), for the activation benchmark. */
  readonly activateMs: number;
}

export function activate(context: vscode.ExtensionContext): TurnstoneApi {
  const activateStarted = performance.now();
  const log = vscode.window.createOutputChannel('Turnstone', { log: true });
  const keys = new ApiKeys(context.secrets);
  const pending = new PendingPermissions();
  const originals = new OriginalContentProvider();
  const proposals = new ProposalFileSystem();
  const statusBar = new TurnstoneStatusBar();
  let dialogs = true;

  // `panel` is created below; events are only posted once a turn runs, long after.
  const post = (event: HostEvent) => panel.post(event);
  const prompter = new NativePermissionPrompter({ pending, originals, proposals, addAllowRule, log, dialogs: () => dialogs });
  const controller = new SessionController({
    context,
    keys,
    prompter,
    log,
    post,
    onDidChangeState: () => {
      void vscode.commands.executeCommand('setContext', 'turnstone.turnRunning', controller.isRunning);
      const u = controller.usage;
      statusBar.update({ model: controller.model, running: controller.isRunning, ...(u ? { usage: u.usage, costUsd: u.costUsd } : {}) });
    },
  });
  const mentions = { index: new WorkspaceIndex(log), terminals: new TerminalRecorder(), log };
  const panel = new ChatPanelProvider(context.extensionUri, {
    onMessage: (message) =>
      void handlePanelMessage(message, { controller, pending, log, post, originals, mentions }).catch((e: unknown) => log.error(`panel message ${message.type} failed: ${String(e)}`)),
    onInvalidMessage: (_raw, error) => log.warn(`dropped a malformed message from the webview: ${error}`),
    onInvalidPost: (_m, error) => log.error(`dropped an invalid message to the webview (a bug): ${error}`),
  });

  const refreshNotices = async () => {
    const notices: Notice[] = [];
    if (!vscode.workspace.isTrusted) {
      notices.push({ id: 'restricted', kind: 'restricted', text: 'Restricted Mode: Turnstone can read and search but not edit files or run commands until you trust this folder.', actions: [{ id: 'trust', label: 'Manage Workspace Trust' }] });
    }
    const provider = readSettings().provider;
    if (provider === 'anthropic' && !(await keys.get(provider))) {
      notices.push({ id: 'no_api_key', kind: 'no_api_key', text: 'No API key yet. Set one with "Turnstone: Set API Key" (stored in secret storage), or start VS Code with ANTHROPIC_API_KEY in the environment.', actions: [{ id: 'set_key', label: 'Set API Key' }] });
    }
    post({ type: 'notices', notices });
  };

  context.subscriptions.push(
    log,
    pending,
    statusBar,
    mentions.index,
    mentions.terminals,
    controller,
    vscode.workspace.registerTextDocumentContentProvider(ORIGINAL_SCHEME, originals),
    vscode.workspace.registerFileSystemProvider(PROPOSED_SCHEME, proposals, { isCaseSensitive: true }),
    vscode.window.registerWebviewViewProvider(ChatPanelProvider.viewType, panel),
    ...registerCommands({
      controller,
      keys,
      originals,
      log,
      focusPanel: () => vscode.commands.executeCommand(`${ChatPanelProvider.viewType}.focus`),
      compose: (text, attachments) => post({ type: 'compose', text, attachments: attachments.map((a) => ({ kind: a.kind, path: a.label, label: a.label })), focus: true }),
      refreshNotices,
    }),
    vscode.workspace.onDidChangeConfiguration((e) => {
      if (!e.affectsConfiguration('turnstone')) return;
      controller.applySettings();
      void refreshNotices();
    }),
    vscode.workspace.onDidGrantWorkspaceTrust(() => {
      controller.applySettings();
      void refreshNotices();
      controller.postInstructions();
    }),
    watchInstructionFiles(() => void controller.refreshInstructions().catch((e: unknown) => log.warn(`project instructions: ${String(e)}`))),
    keys.onDidChange(() => void refreshNotices()),
  );
  void refreshNotices();
  void vscode.commands.executeCommand('setContext', 'turnstone.turnRunning', false);
  statusBar.update({ model: readSettings().model, running: false });
  const activateMs = performance.now() - activateStarted;
  log.info(`Turnstone activated in ${activateMs.toFixed(1)} ms (VS Code ${vscode.version})`);

  const requested = new vscode.EventEmitter<string>();
  context.subscriptions.push(requested, pending.onDidAdd((p) => requested.fire(p.id)));
  return {
    chatViewId: ChatPanelProvider.viewType,
    isChatVisible: () => panel.isVisible,
    sendPrompt: (text) => controller.send(text),
    stop: () => controller.stop(),
    pendingPermissions: () =>
      pending.list().map((p) => ({ id: p.id, toolName: p.request.toolName, subject: p.request.subject, need: p.request.need, ...(p.proposedUri ? { proposedUri: p.proposedUri.toString() } : {}) })),
    decide: (id, decision) => pending.settle(id, decision, 'api'),
    onDidRequestPermission: requested.event,
    setDialogsEnabled: (enabled) => {
      dialogs = enabled;
    },
    panelSnapshot: () => panel.snapshot,
    sessionFile: () => controller.sessionFile,
    activateMs,
  };
}

export function deactivate(): void {}
