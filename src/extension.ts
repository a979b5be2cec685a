// Activation is wiring only. The panel's message schemas load when it first
// shows, the runtime, SDKs and tools on the first turn (the model client imports
// its SDK lazily), so opening VS Code stays cheap (bench/activation.bench.ts).
import * as path from 'node:path';
import * as vscode from 'vscode';
import { permissionItemId } from './host/permission-ids';
import { type TurnSummary } from './runtime/events';
import { type PermissionDecision } from './runtime/permissions';
import { registerCommands } from './host/commands';
import { HostMcp } from './host/mcp';
import { watchInstructionFiles } from './host/instructions-watch';
import { TerminalRecorder } from './host/terminal-context';
import { registerApprovalCommands } from './host/approval-commands';
import { handlePanelMessage } from './host/panel-messages';
import { LazyWorkspaceIndex, loadPanelSupport } from './host/load-panel-support';
import { PendingPermissions } from './host/pending-permissions';
import { NativePermissionPrompter } from './host/permission-prompter';
import { OriginalContentProvider, ORIGINAL_SCHEME, ProposalFileSystem, PROPOSED_SCHEME } from './host/proposal-documents';
import { ApiKeys } from './host/secrets';
import { TypingGate } from './host/typing-gate';
import { SessionController } from './host/session-controller';
import { confirmLoosening, installPolicyGuard, ownSettingsChange, PolicyGuard, policyOf } from './host/policy-guard';
import { addAllowRule, readSettings } from './host/settings';
import { TurnstoneStatusBar } from './host/status-bar';
import { sandboxStatus } from './tools/sandbox-probe';
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
  /** The MCP servers and their state (empty before the first turn). */
  mcpServers(): { name: string; status: string; tools: string[]; lastError: string | undefined }[];
  /** Time spent in our activate(), for the activation benchmark. */
  readonly activateMs: number;
}

/** Said once in the panel (not on every command): where commands could run but no OS sandbox is available. */
async function sandboxNotice(): Promise<Notice | undefined> {
  const local = vscode.workspace.workspaceFolders?.[0]?.uri.scheme === 'file';
  if (!vscode.workspace.isTrusted || !local || readSettings().sandbox === 'off') return undefined;
  const status = await sandboxStatus();
  if (status.available) return undefined;
  return { id: 'sandbox_unavailable', kind: 'warning', text: `No OS sandbox for commands: ${status.reason}. Commands run with the permission rules only.`, actions: [] };
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
  // Nothing MCP is loaded or started here: the manager is created by the first turn.
  let noticesQueued = false;
  const mcp = new HostMcp(log, String((context.extension.packageJSON as { version?: string }).version ?? '0.0.0'), () => {
    if (noticesQueued) return;
    noticesQueued = true;
    setTimeout(() => {
      noticesQueued = false;
      void refreshNotices();
    }, 100);
  });
  // Workspace settings that would loosen the permission policy mid-session wait for the user (policy-guard.ts).
  const guard = installPolicyGuard(new PolicyGuard((changes) => (dialogs ? confirmLoosening(changes) : Promise.resolve(false)), (m) => log.warn(m)));
  const allowAlways = (rule: string) => ownSettingsChange(() => addAllowRule(rule));
  // Keystrokes in the panel (reported by the webview) and in editors: a modal approval waits until they pause.
  const typing = new TypingGate();
  const prompter = new NativePermissionPrompter({ pending, originals, proposals, addAllowRule: allowAlways, log, dialogs: () => dialogs, typing, describeTool: (name) => mcp.describe(name) });
  const controller = new SessionController({
    context,
    keys,
    prompter,
    log,
    mcp,
    post,
    onDidChangeState: () => {
      void vscode.commands.executeCommand('setContext', 'turnstone.turnRunning', controller.isRunning);
      const u = controller.usage;
      statusBar.update({ model: controller.model, running: controller.isRunning, ...(u ? { usage: u.usage, costUsd: u.costUsd } : {}) });
    },
  });
  // The sandbox probe starts a process: it runs once the panel, the only place its notice shows, has opened.
  let panelShown = false;
  const mentions = { index: new LazyWorkspaceIndex(log), terminals: new TerminalRecorder(), log };
  const panel = new ChatPanelProvider(
    context.extensionUri,
    {
      onMessage: (message) => {
        if (message.type === 'ready' && !panelShown) {
          panelShown = true;
          // Refreshed only when the probe has something to say: every notices event re-renders the panel's chrome.
          void sandboxNotice().then((notice) => (notice ? refreshNotices() : undefined));
        }
        void handlePanelMessage(message, { controller, pending, prompter, typing, log, post, originals, items: () => panel.snapshot.items, mentions, keys }).catch((e: unknown) => log.error(`panel message ${message.type} failed: ${String(e)}`));
      },
      onInvalidMessage: (_raw, error) => log.warn(`dropped a malformed message from the webview: ${error}`),
      onInvalidPost: (_m, error) => log.error(`dropped an invalid message to the webview (a bug): ${error}`),
      onDidHide: () => typing.panelTyping(false),
    },
    loadPanelSupport,
  );

  // The panel says where a request was answered and with what feedback ("Denied in the dialog: use make").
  context.subscriptions.push(
    pending.onDidSettle((s) => {
      const decision = s.decision.kind === 'deny' ? 'deny' : s.savedRule ? 'allow_always' : s.decision.scope === 'session' ? 'allow_session' : 'allow';
      const feedback = s.decision.kind === 'deny' ? s.decision.feedback : undefined;
      const by = s.by === 'api' ? undefined : s.by;
      controller.panel.permissionSettled(s.id, { decision, ...(by ? { by } : {}), ...(feedback ? { feedback: feedback.slice(0, 20_000) } : {}), ...(s.savedRule ? { rule: s.savedRule.slice(0, 2000) } : {}) });
    }),
    // "Edit proposal" chosen (title bar, palette or panel): the card says the proposal is now editable.
    pending.onDidStartEditing((p) => {
      controller.panel.permissionEditing(panel.snapshot.items.find((i) => i.id === permissionItemId(p.id)));
    }),
    vscode.workspace.onDidChangeTextDocument((e) => {
      // Typing in an editor counts too: a modal would take its next key.
      if (e.contentChanges.length > 0 && e.document === vscode.window.activeTextEditor?.document) typing.editorTyped();
    }),
  );

  const postSessionInfo = () =>
    post({ type: 'session', session: { id: path.basename(controller.sessionFile ?? 'new', '.jsonl'), title: controller.title, model: controller.model } });

  const postPermissionMode = () => post({ type: 'permission_mode', info: { mode: readSettings().permissionMode, restricted: !vscode.workspace.isTrusted } });

  const refreshNotices = async () => {
    const notices: Notice[] = [];
    if (!vscode.workspace.isTrusted) {
      notices.push({ id: 'restricted', kind: 'restricted', text: 'Restricted Mode: Turnstone can read and search but not edit files or run commands until you trust this folder.', actions: [{ id: 'trust', label: 'Manage Workspace Trust' }] });
    }
    const provider = readSettings().provider;
    if (provider === 'anthropic' && !(await keys.get(provider))) {
      // The notice carries the panel's own key field; ANTHROPIC_API_KEY in the environment also works.
      notices.push({ id: 'no_api_key', kind: 'no_api_key', text: 'Add your Anthropic API key to start.', actions: [] });
    }
    const sandbox = panelShown ? await sandboxNotice() : undefined;
    if (sandbox) notices.push(sandbox);
    notices.push(...mcp.notices());
    post({ type: 'notices', notices: notices.slice(0, 20) });
  };

  context.subscriptions.push(
    log,
    pending,
    statusBar,
    mentions.index,
    mentions.terminals,
    controller,
    mcp,
    vscode.workspace.registerTextDocumentContentProvider(ORIGINAL_SCHEME, originals),
    vscode.workspace.registerFileSystemProvider(PROPOSED_SCHEME, proposals, { isCaseSensitive: true }),
    vscode.window.registerWebviewViewProvider(ChatPanelProvider.viewType, panel),
    ...registerApprovalCommands(pending, log, (id) => prompter.editProposal(id)),
    ...registerCommands({
      controller,
      keys,
      originals,
      log,
      focusPanel: () => vscode.commands.executeCommand(`${ChatPanelProvider.viewType}.focus`),
      compose: (text, attachments) => post({ type: 'compose', text, attachments: attachments.map((a) => ({ kind: a.kind, path: a.label, label: a.label })), focus: true }),
      refreshNotices,
      mcp,
    }),
    vscode.workspace.onDidChangeConfiguration((e) => {
      if (!e.affectsConfiguration('turnstone')) return;
      guard.onSettingsChanged(policyOf(readSettings()), () => controller.applySettings());
      controller.applySettings();
      // The header and the status bar name the model the next request will use, from the moment it is picked.
      if (e.affectsConfiguration('turnstone.model')) {
        postSessionInfo();
        statusBar.update({ model: controller.model, running: controller.isRunning, ...(controller.usage ? { usage: controller.usage.usage, costUsd: controller.usage.costUsd } : {}) });
      }
      if (e.affectsConfiguration('turnstone.permissionMode')) postPermissionMode();
      void refreshNotices();
    }),
    vscode.workspace.onDidGrantWorkspaceTrust(() => {
      controller.applySettings();
      postPermissionMode();
      void refreshNotices();
      controller.instructions.postChip();
    }),
    watchInstructionFiles(() => void controller.instructions.refresh().catch((e: unknown) => log.warn(`project instructions: ${String(e)}`))),
    keys.onDidChange(() => {
      void refreshNotices();
      void controller.keyChanged().catch((e: unknown) => log.error(`sending after the key was set failed: ${String(e)}`));
    }),
  );
  void refreshNotices();
  postPermissionMode();
  // An empty panel already names the model it will use.
  postSessionInfo();
  void vscode.commands.executeCommand('setContext', 'turnstone.turnRunning', false);
  statusBar.update({ model: readSettings().model, running: false });
  const activateMs = performance.now() - activateStarted;
  log.info(`Turnstone activated in ${activateMs.toFixed(1)} ms (VS Code ${vscode.version})`);

  const requested = new vscode.EventEmitter<string>();
  context.subscriptions.push(requested, pending.onDidAdd((p) => requested.fire(p.id)));
  return {
    chatViewId: ChatPanelProvider.viewType,
    isChatVisible: () => panel.isVisible,
    sendPrompt: async (text) => {
      const summary = await controller.send(text);
      if (!summary) throw new Error('no API key is set: the prompt is held until one is');
      return summary;
    },
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
    mcpServers: () => mcp.servers().map((s) => ({ name: s.name, status: s.status, tools: s.tools.map((t) => t.name), lastError: s.lastError })),
    activateMs,
  };
}

export function deactivate(): void {}
