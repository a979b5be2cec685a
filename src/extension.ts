// Activation constructs, registers and delegates. The panel's message schemas
// load when it first shows, the runtime, SDKs and tools on the first turn (the
// model client imports its SDK lazily), so opening VS Code stays cheap
// (bench/activation.bench.ts).
import * as vscode from 'vscode';
import { registerApprovalCommands } from './host/approvals/approval-commands';
import { registerCommands } from './host/commands';
import { createApi, type TurnstoneApi } from './host/extension-api';
import { LazyWorkspaceIndex, loadPanelSupport } from './host/panel/load-panel-support';
import { HostMcp } from './host/mcp';
import { handlePanelMessage } from './host/panel/panel-messages';
import { PanelNotices } from './host/panel/panel-notices';
import { Attention } from './host/attention';
import { PendingPermissions } from './host/approvals/pending-permissions';
import { NativePermissionPrompter } from './host/approvals/permission-prompter';
import { confirmLoosening, installPolicyGuard, ownSettingsChange, PolicyGuard } from './host/approvals/policy-guard';
import { OriginalContentProvider, ORIGINAL_SCHEME, ProposalFileSystem, PROPOSED_SCHEME } from './host/approvals/proposal-documents';
import { ApiKeys } from './host/secrets';
import { type SessionReview } from './host/review/session-review';
import { loadCore } from './host/session/load-core';
import { SessionDeck } from './host/session/session-deck';
import { type ReviewCounts, registerSessionsView } from './host/session/sessions-view';
import { registerReviewShow } from './host/review/review-show';
import { registerWorktreeApply } from './host/review/worktree-apply';
import { addAllowRule, notificationsSetting, readSettings } from './host/settings';
import { TurnstoneStatusBar } from './host/status-bar';
import { TerminalRecorder } from './host/terminal/terminal-context';
import { TypingGate } from './host/approvals/typing-gate';
import { postPermissionMode, watchWindow } from './host/window-listeners';
import { ChatPanelProvider } from './webview/panel-provider';
import { type HostEvent } from './webview/protocol';

export type { TurnstoneApi } from './host/extension-api';

export function activate(context: vscode.ExtensionContext): TurnstoneApi {
  const activateStarted = performance.now();
  const log = vscode.window.createOutputChannel('Turnstone', { log: true });
  const keys = new ApiKeys(context.secrets);
  const pending = new PendingPermissions();
  const originals = new OriginalContentProvider();
  const proposals = new ProposalFileSystem();
  const statusBar = new TurnstoneStatusBar();
  let dialogs = true;
  // `panel` is created below; events are only posted once something happens, long after.
  const post = (event: HostEvent) => panel.post(event);
  // Nothing MCP is loaded or started here: the manager is created by the first turn.
  const mcp = new HostMcp(log, String((context.extension.packageJSON as { version?: string }).version ?? '0.0.0'), () => notices.refreshSoon());
  const notices = new PanelNotices(keys, mcp, post);
  // Workspace settings that would loosen the permission policy mid-session wait for the user (policy-guard.ts).
  const guard = installPolicyGuard(new PolicyGuard((changes) => (dialogs ? confirmLoosening(changes) : Promise.resolve(false)), (m) => log.warn(m)));
  // Keystrokes in the panel (reported by the webview) and in editors: a modal approval waits until they pause.
  const typing = new TypingGate();
  const prompter = new NativePermissionPrompter({ pending, originals, proposals, addAllowRule: (rule) => ownSettingsChange(() => addAllowRule(rule)), log, dialogs: () => dialogs, typing, describeTool: (name) => mcp.describe(name) });
  // The Turnstone source control appears with the first file the agent changes, not in every window.
  let review: SessionReview | undefined;
  // The Sessions view counts each session's changes to review; the review exists from the first change on.
  const reviewRedrawn = new vscode.EventEmitter<void>();
  const reviewCounts: ReviewCounts = { hunksIn: (session) => review?.hunksIn(session.changed) ?? 0, onDidChange: reviewRedrawn.event };
  context.subscriptions.push(reviewRedrawn);
  const reviewing = () => {
    if (!review) {
      // Each session's files in a group of its own, named after it (the session that changed the file last).
      const owner = (file: string) => {
        const session = sessions.sessions.find((s) => s.changed.has(file));
        return session ? { key: session.key, title: session.controller.title || vscode.l10n.t('New session') } : undefined;
      };
      review = new (loadCore().SessionReview)(log, sendReviewComment, owner);
      context.subscriptions.push(review, review.onDidRedraw(() => reviewRedrawn.fire()));
    }
    return review;
  };
  // The window's sessions (issue 43): several run at once, the panel shows one; each posts into its own mirror.
  const sessions: SessionDeck = new SessionDeck({
    context,
    keys,
    prompter,
    log,
    mcp,
    panelPost: post,
    panelSnapshot: () => panel.snapshot,
    maxOpen: () => readSettings().sessionsMaxParallel,
    waitingSessions: () => new Set(pending.list().flatMap((p) => (p.session ? [p.session] : []))),
    onTurnEnded: (summary, session) => attention.turnEnded(summary, session.key),
    // One review for the window, of every open session's changes; a session's leave it when it closes.
    review: { record: (change) => reviewing().record(change), reset: (paths) => review?.reset(paths) },
  });
  const showSession = () => statusBar.showSession(sessions.shown);
  let reviewTitles = '';
  // A review comment's *Send to agent*: to the session that changed the file, shown in the panel; queued if it is busy.
  // The thread gets the answer too when the comment started the turn.
  const sendReviewComment = async (file: string, prompt: string) => {
    const session = sessions.sessions.find((s) => s.changed.has(file)) ?? sessions.shownSession;
    sessions.show(session.key);
    await vscode.commands.executeCommand(`${ChatPanelProvider.viewType}.focus`);
    if (session.controller.isRunning) {
      session.controller.queue(prompt);
      return { reply: Promise.resolve(undefined) };
    }
    const reply = session.controller.send(prompt).then(
      (summary) => (summary?.outcome === 'completed' ? summary.finalText : undefined),
      (e: unknown) => {
        log.error(`a review comment's turn failed: ${String(e)}`);
        return undefined;
      },
    );
    return { reply };
  };
  const mentions = { index: new LazyWorkspaceIndex(log), terminals: new TerminalRecorder(), log };
  const panel = new ChatPanelProvider(
    context.extensionUri,
    {
      onMessage: (message) => {
        if (message.type === 'ready') notices.panelReady();
        void handlePanelMessage(message, { controller: sessions.shown, pending, prompter, typing, log, post, originals, items: () => panel.snapshot.items, mentions, keys }).catch((e: unknown) => log.error(`panel message ${message.type} failed: ${String(e)}`));
      },
      onInvalidMessage: (_raw, error) => log.warn(`dropped a malformed message from the webview: ${error}`),
      onInvalidPost: (_m, error) => log.error(`dropped an invalid message to the webview (a bug): ${error}`),
      onDidHide: () => typing.panelTyping(false),
    },
    loadPanelSupport,
  );
  const requested = new vscode.EventEmitter<string>();
  const attention = new Attention(pending, {
    panelVisible: () => panel.isVisible,
    windowFocused: () => vscode.window.state.focused,
    setting: () => notificationsSetting(),
    setBadge: (count, tooltip) => panel.setBadge(count, tooltip),
    setWaiting: (count) => statusBar.setWaiting(count),
    isShown: (key) => sessions.isShown(key),
    showPanel: (key) => {
      if (key) sessions.show(key);
      return vscode.commands.executeCommand(`${ChatPanelProvider.viewType}.focus`);
    },
    notify: (message, action) => vscode.window.showInformationMessage(message, action),
  });

  context.subscriptions.push(
    log,
    pending,
    prompter,
    statusBar,
    attention,
    mentions.index,
    mentions.terminals,
    sessions,
    sessions.onDidChange(showSession),
    // The review's groups are named after their sessions: drawn again when a session is named or renamed.
    sessions.onDidChange(() => {
      const titles = sessions.sessions.map((s) => `${s.key}\t${s.controller.title}`).join('\n');
      if (titles === reviewTitles) return;
      reviewTitles = titles;
      void review?.refresh();
    }),
    pending.onDidAdd(() => sessions.refresh()),
    pending.onDidSettle(() => sessions.refresh()),
    ...registerSessionsView(sessions, reviewCounts, () => vscode.commands.executeCommand(`${ChatPanelProvider.viewType}.focus`), log),
    // Issue 44: a worktree session's kept changes into the user's working tree, or its branch merged.
    ...registerWorktreeApply(sessions, () => review, log),
    ...registerReviewShow(() => review, log),
    mcp,
    requested,
    pending.onDidAdd((p) => requested.fire(p.id)),
    vscode.workspace.registerTextDocumentContentProvider(ORIGINAL_SCHEME, originals),
    vscode.workspace.registerFileSystemProvider(PROPOSED_SCHEME, proposals, { isCaseSensitive: true }),
    vscode.window.registerWebviewViewProvider(ChatPanelProvider.viewType, panel),
    ...registerApprovalCommands(pending, log, (id) => prompter.editProposal(id)),
    ...registerCommands({
      context,
      sessions,
      keys,
      originals,
      log,
      focusPanel: () => vscode.commands.executeCommand(`${ChatPanelProvider.viewType}.focus`),
      compose: (text, attachments) => post({ type: 'compose', text, attachments: attachments.map((a) => ({ kind: a.kind, path: a.label, label: a.label })), focus: true }),
      refreshNotices: () => notices.refresh(),
      mcp,
    }),
    ...watchWindow({ sessions, pending, typing, guard, notices, statusBar, keys, log, post }),
  );
  // An empty panel already names the model it will use, the mode and what needs doing first.
  void notices.refresh();
  postPermissionMode(post);
  sessions.shown.postSessionInfo();
  showSession();
  const activateMs = performance.now() - activateStarted;
  log.info(`Turnstone activated in ${activateMs.toFixed(1)} ms (VS Code ${vscode.version})`);
  const setDialogsEnabled = (enabled: boolean) => {
    dialogs = enabled;
  };
  return createApi({ chatViewId: ChatPanelProvider.viewType, panel, sessions, pending, mcp, requested: requested.event, setDialogsEnabled, reviewFiles: async () => (review ? review.files() : []), reviewGroups: () => review?.groupsDrawn() ?? [], reviewCounts }, activateMs);
}

export function deactivate(): void {}
