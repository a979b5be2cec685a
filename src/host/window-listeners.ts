// What the window tells Turnstone and where it goes: a permission request
// answered or opened for editing (the panel's card says so), typing in an editor
// (a modal approval waits), settings and trust changes (the policy guard, the
// live mode switch, the header, the notices), edited instruction files, keys.
import * as vscode from 'vscode';
import { watchInstructionFiles } from './session/instructions-watch';
import { type PanelNotices } from './panel/panel-notices';
import { type PendingPermissions } from './approvals/pending-permissions';
import { permissionItemId } from './approvals/permission-ids';
import { policyReasonText } from './panel/policy-text';
import { policyOf, type PolicyGuard } from './approvals/policy-guard';
import { type ApiKeys } from './secrets';
import { type SessionDeck } from './session/session-deck';
import { readSettings } from './settings';
import { type TurnstoneStatusBar } from './status-bar';
import { type TypingGate } from './approvals/typing-gate';
import { type HostEvent } from '../webview/protocol';

export interface WindowParts {
  sessions: SessionDeck;
  pending: PendingPermissions;
  typing: TypingGate;
  guard: PolicyGuard;
  notices: PanelNotices;
  statusBar: TurnstoneStatusBar;
  keys: ApiKeys;
  log: vscode.LogOutputChannel;
  post(event: HostEvent): void;
}

export function postPermissionMode(post: (event: HostEvent) => void): void {
  const settings = readSettings();
  post({ type: 'permission_mode', info: { mode: settings.permissionMode, restricted: !vscode.workspace.isTrusted, ...(settings.editsReview === 'afterTurn' ? { reviewAfterTurn: true } : {}) } });
}

export function watchWindow(parts: WindowParts): vscode.Disposable[] {
  const { sessions, pending, typing, guard, notices, statusBar, keys, log, post } = parts;
  return [
    // The panel says where a request was answered and with what feedback ("Denied in the dialog: use make").
    pending.onDidSettle((s) => {
      const decision = s.decision.kind === 'deny' ? 'deny' : s.savedRule ? 'allow_always' : s.decision.scope === 'session' ? 'allow_session' : 'allow';
      // Turnstone's own notes ("The turn was interrupted.") in the user's language; the user's words as written.
      const feedback = s.decision.kind === 'deny' && s.decision.feedback ? (s.by === 'abort' ? policyReasonText(s.decision.feedback, vscode.l10n.t) : s.decision.feedback) : undefined;
      const by = s.by === 'api' ? undefined : s.by;
      // The card is in the transcript of the session that asked, shown or not.
      (sessions.entry(s.session ?? '') ?? sessions.holding(permissionItemId(s.id)) ?? sessions.shownSession).controller.panel.permissionSettled(s.id, { decision, ...(by ? { by } : {}), ...(feedback ? { feedback: feedback.slice(0, 20_000) } : {}), ...(s.savedRule ? { rule: s.savedRule.slice(0, 2000) } : {}) });
    }),
    // "Edit proposal" chosen (title bar, palette or panel): the card says the proposal is now editable.
    pending.onDidStartEditing((p) => {
      const session = sessions.entry(p.session ?? '') ?? sessions.shownSession;
      session.controller.panel.permissionEditing(session.mirror.get(permissionItemId(p.id)));
    }),
    vscode.workspace.onDidChangeTextDocument((e) => {
      // Typing in an editor counts too: a modal would take its next key.
      if (e.contentChanges.length > 0 && e.document === vscode.window.activeTextEditor?.document) typing.editorTyped();
    }),
    vscode.workspace.onDidChangeConfiguration((e) => {
      if (!e.affectsConfiguration('turnstone')) return;
      guard.onSettingsChanged(policyOf(readSettings()), () => sessions.applySettings());
      sessions.applySettings();
      // The header and the status bar name the model the next request will use, from the moment it is picked.
      if (e.affectsConfiguration('turnstone.model')) {
        sessions.shown.postSessionInfo();
        statusBar.showSession(sessions.shown);
      }
      if (e.affectsConfiguration('turnstone.permissionMode') || e.affectsConfiguration('turnstone.edits.review')) postPermissionMode(post);
      void notices.refresh();
    }),
    vscode.workspace.onDidGrantWorkspaceTrust(() => {
      sessions.applySettings();
      postPermissionMode(post);
      void notices.refresh();
      sessions.shown.instructions.postChip();
    }),
    watchInstructionFiles(() => {
      for (const s of sessions.sessions) void s.controller.instructions.refresh().catch((e: unknown) => log.warn(`project instructions: ${String(e)}`));
    }),
    keys.onDidChange(() => {
      void notices.refresh();
      // Each session may hold a prompt that waits for a key, or a turn that failed on a rejected one.
      for (const s of sessions.sessions) void s.controller.keyChanged().catch((e: unknown) => log.error(`sending after the key was set failed: ${String(e)}`));
    }),
  ];
}
