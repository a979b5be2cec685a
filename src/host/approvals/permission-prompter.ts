// The runtime's PermissionPrompter in VS Code: a proposed edit opens in the
// native diff editor (left: the file as it is, right: the proposal), and a
// native modal asks (or a notification, or nothing: turnstone.approvalDialog).
// Issue 25.1: asking never takes the keyboard by surprise. The diff opens
// without focus and read-only (editable only after "Edit proposal"), and a
// modal, whose first button has focus, waits while the user types.
// "Review first" (or Escape) leaves the request pending so the user can review
// the proposal and answer from the diff editor's title bar or the panel.
import * as path from 'node:path';
import * as vscode from 'vscode';
import { policyReasonText } from '../panel/policy-text';
import { TurnCancellation } from '../../runtime/cancellation';
import { type PermissionDecision, type PermissionPrompter, type PermissionRequest } from '../../runtime/policy/permissions';
import { alwaysAllowLabel, approvalLabels, approvalQuestion, subagentAsks, whyText } from '../../webview/approval-wording';
import { editedUri, tabsEditing } from '../editor-tabs';
import { loadCore } from '../session/load-core';
import { readSettings } from '../settings';
import { type AnsweredBy, type PendingPermission, type PendingPermissions } from './pending-permissions';
import { ORIGINAL_SCHEME, type OriginalContentProvider, PROPOSED_SCHEME, type ProposalFileSystem } from './proposal-documents';
import { type TypingGate } from './typing-gate';

export interface PrompterDeps {
  pending: PendingPermissions;
  originals: OriginalContentProvider;
  proposals: ProposalFileSystem;
  /** Persists "Always allow <rule>" to the workspace settings. */
  addAllowRule(rule: string): Promise<void>;
  log: vscode.LogOutputChannel;
  /** Modal dialogs are on by default; tests that answer through the API may turn them off. */
  dialogs(): boolean;
  /** Whether the user is typing (a modal waits until they pause). */
  typing: TypingGate;
  /** What an MCP tool is (server, tool, description); undefined for the built-in tools. */
  describeTool?(name: string): { server: string; tool: string; description: string } | undefined;
}

const isEdit = (req: PermissionRequest) => req.need === 'edit' && req.preview !== undefined;
/** "Always allow <rule>" is offered where a rule can say it: commands, MCP tools and fetches (their host). */
const offersAlways = (req: PermissionRequest) => (req.need === 'command' || req.need === 'fetch' || req.need === 'browser') && req.suggestedRule !== '';

export class NativePermissionPrompter implements PermissionPrompter, vscode.Disposable {
  private counter = 0;
  /** Answered proposals whose document VS Code still holds: forgotten when it closes it. */
  private readonly settledProposals = new Set<string>();
  private readonly subscriptions: vscode.Disposable[];

  constructor(private readonly deps: PrompterDeps) {
    this.subscriptions = [
      vscode.workspace.onDidCloseTextDocument((doc) => {
        if (this.settledProposals.delete(doc.uri.toString())) this.deps.proposals.remove(doc.uri);
      }),
      // A tab that shows an answered proposal (VS Code can re-open one as it closes its diff) is closed too.
      vscode.window.tabGroups.onDidChangeTabs((e) => {
        if (this.settledProposals.size === 0) return;
        for (const tab of [...e.opened, ...e.changed]) {
          const uri = editedUri(tab);
          if (uri && this.settledProposals.has(uri.toString())) void this.closeProposalTabs(uri);
        }
      }),
    ];
  }

  dispose(): void {
    for (const s of this.subscriptions) s.dispose();
  }

  /** `session`: which of the window's sessions asks (its row in the Sessions view says it waits; Show goes there). */
  async request(req: PermissionRequest, signal: AbortSignal, session?: string): Promise<PermissionDecision> {
    const id = req.toolUseId;
    let proposedUri: vscode.Uri | undefined;
    let originalUri: vscode.Uri | undefined;
    if (isEdit(req) && req.preview) {
      const n = ++this.counter;
      const base = path.basename(req.preview.path);
      originalUri = vscode.Uri.from({ scheme: ORIGINAL_SCHEME, path: `/${n}/${base}`, query: id });
      proposedUri = vscode.Uri.from({ scheme: PROPOSED_SCHEME, path: `/${n}/${base}`, query: id });
      this.deps.originals.set(originalUri, req.preview.before ?? '');
      this.deps.proposals.put(proposedUri, req.preview.after ?? '');
    }

    // Waiting before anything is shown: the panel's card is already up, and a click on it must find the request.
    const entry: PendingPermission = { id, request: req, ...(proposedUri ? { proposedUri } : {}), ...(session ? { session } : {}) };
    const settled = this.deps.pending.wait(entry);
    const cancellation = new TurnCancellation(signal);

    // Shown beside the user's work, never focused: a keystroke meant for the panel or an editor stays there.
    // Pinned (preview: false) so opening another file does not replace it while the request waits.
    // A diff that fails to open leaves the request answerable from the card and the dialog.
    const diffShown: Promise<unknown> =
      proposedUri && originalUri && req.preview
        ? Promise.resolve(vscode.commands.executeCommand('vscode.diff', originalUri, proposedUri, diffTitle(req.preview.path, req.preview.before === null), { preview: false, preserveFocus: true })).catch((e: unknown) => this.deps.log.warn(`could not show the proposal for ${id}: ${String(e)}`))
        : Promise.resolve();
    try {
      await cancellation.race(diffShown);
      // The modal follows the diff it is about, unless the request was answered while the diff opened.
      if (this.deps.dialogs() && this.deps.pending.get(id)) void this.askInDialog(entry);
      let decision = await cancellation.race(settled);
      if (decision.kind === 'allow' && proposedUri && req.preview) decision = this.withUserEdits(decision, req, proposedUri);
      return decision;
    } catch (error) {
      // Whatever ends the request here (a Stop; nothing else rejects before it is answered) settles it wherever
      // it is shown (panel card, dialog, diff editor), so no card stays waiting on an answer nobody reads.
      this.deps.pending.settle(id, { kind: 'deny', feedback: 'The turn was interrupted.' }, 'abort');
      throw error;
    } finally {
      cancellation.dispose();
      // Closed once it is open (a Stop while it opened would otherwise leave it behind), beside the turn rather than
      // in its way: the answer is final, and a workbench slow to save or close a tab must not hold the next step.
      if (proposedUri && originalUri) {
        this.deps.proposals.settle(proposedUri);
        const [original, proposed] = [originalUri, proposedUri];
        void diffShown.then(() => this.closeDiff(original, proposed)).catch((e: unknown) => this.deps.log.warn(`could not close the proposal for ${id}: ${String(e)}`));
      }
    }
  }

  /** "Always allow <rule>": saves the request's rule to the workspace settings, then allows it. */
  async allowAlways(id: string, by: AnsweredBy): Promise<boolean> {
    const entry = this.deps.pending.get(id);
    if (!entry || !offersAlways(entry.request)) return false;
    const rule = entry.request.suggestedRule;
    const saved = await this.deps.addAllowRule(rule).then(
      () => true,
      (e: unknown) => {
        this.deps.log.error(`could not save the allow rule: ${String(e)}`);
        return false;
      },
    );
    return this.deps.pending.settle(id, { kind: 'allow', scope: 'session' }, by, saved ? rule : undefined);
  }

  /**
   * "Edit proposal": the proposed side becomes editable and the diff opens with
   * the keyboard in it (the user asked for it). False when nothing waits.
   */
  async editProposal(id: string): Promise<boolean> {
    const entry = this.deps.pending.get(id);
    const uri = entry?.proposedUri;
    if (!entry || !uri || !this.deps.proposals.makeEditable(uri)) return false;
    this.deps.pending.markEditing(id);
    const preview = entry.request.preview;
    await vscode.commands.executeCommand('vscode.diff', uri.with({ scheme: ORIGINAL_SCHEME }), uri, diffTitle(preview?.path ?? uri.path, preview?.before === null), { preview: false, preserveFocus: false });
    return true;
  }

  private async askInDialog(entry: PendingPermission): Promise<void> {
    const req = entry.request;
    const style = readSettings().approvalDialog;
    if (style === 'panel') return; // the panel card and the diff editor's title bar ask
    // A modal focuses its first button: while the user types it waits (the panel already asks), so no key answers it.
    if (style === 'modal' && !(await this.typingPaused(entry.id))) return;
    const edit = isEdit(req);
    const mcp = this.deps.describeTool?.(req.toolName);
    const L = approvalLabels(vscode.l10n.t);
    const question = approvalQuestion({ need: req.need, toolName: req.toolName, subject: req.subject, creates: req.preview?.before === null, mcp }, vscode.l10n.t);
    const message = vscode.l10n.t('Turnstone: {0}', req.agent ? subagentAsks(req.agent, question, vscode.l10n.t) : question);
    // At most four choices, the last one closing the dialog without an answer (never an unexplained "Cancel").
    // "Allow edits for this session" stays in the panel's card, next to the diff it applies to.
    const always = offersAlways(req) ? alwaysAllowLabel(req.suggestedRule, vscode.l10n.t) : undefined;
    const labels = always ? [L.allow, always, L.denyWithFeedback] : [L.allow, L.deny, L.denyWithFeedback];
    const close = edit ? L.reviewFirst : L.decideInPanel;
    const items: vscode.MessageItem[] = [...labels.map((title) => ({ title })), { title: close, isCloseAffordance: true }];
    const picked =
      style === 'modal'
        ? await vscode.window.showWarningMessage(message, { modal: true, detail: this.detail(req, close) }, ...items)
        : await vscode.window.showWarningMessage(`${message} ${firstLine(mcp ? JSON.stringify(req.input) : req.subject)}`, ...items.filter((i) => !i.isCloseAffordance));
    const choice = picked?.title;
    if (!this.deps.pending.get(entry.id)) return; // answered elsewhere meanwhile
    if (always !== undefined && choice === always) {
      await this.allowAlways(entry.id, 'dialog');
      return;
    }
    let decision: PermissionDecision | undefined;
    switch (choice) {
      case L.allow:
        decision = { kind: 'allow', scope: 'once' };
        break;
      case L.deny:
        decision = { kind: 'deny' };
        break;
      case L.denyWithFeedback: {
        const feedback = await vscode.window.showInputBox({
          title: vscode.l10n.t('Tell Turnstone what to do instead'),
          prompt: vscode.l10n.t('Optional: this goes to the model with the denial. Leave it empty to just deny.'),
          ignoreFocusOut: true,
        });
        decision = feedback?.trim() ? { kind: 'deny', feedback: feedback.trim() } : { kind: 'deny' };
        break;
      }
      default:
        // Review first / Decide in panel / Escape: the request stays pending, answered from the diff editor or the panel.
        // A closed modal leaves the keyboard on the webview's body: it goes back to the panel's input, where
        // Ctrl+Alt+Enter / Ctrl+Alt+Backspace answer the card (issue 47 item 1).
        if (style === 'modal' && this.deps.pending.get(entry.id)) void vscode.commands.executeCommand('turnstone.focus');
        return;
    }
    this.deps.pending.settle(entry.id, decision, 'dialog');
  }

  /** Waits until the user has paused typing; false when the request was answered meanwhile. */
  private async typingPaused(id: string): Promise<boolean> {
    if (!this.deps.typing.typing) return true;
    this.deps.log.info(`the dialog for ${id} waits until you pause typing (the panel asks meanwhile)`);
    const answered = new AbortController();
    const sub = this.deps.pending.onDidSettle((s) => s.id === id && answered.abort());
    try {
      await this.deps.typing.quiet(answered.signal);
    } finally {
      sub.dispose();
    }
    return this.deps.pending.get(id) !== undefined;
  }

  private detail(req: PermissionRequest, close: string): string {
    const lines: string[] = [];
    const L = approvalLabels(vscode.l10n.t);
    const mcp = this.deps.describeTool?.(req.toolName);
    if (mcp) {
      lines.push(vscode.l10n.t('MCP server: {0}', mcp.server), vscode.l10n.t('Tool: {0}', mcp.tool));
      if (mcp.description) lines.push(vscode.l10n.t('Description (from the server): {0}', mcp.description.slice(0, 1000)));
      lines.push('', vscode.l10n.t('Input:'), JSON.stringify(req.input, null, 2).slice(0, 4000));
    } else if (req.need === 'command') {
      lines.push(`$ ${String(req.input['command'] ?? req.subject)}`);
      const description = req.input['description'];
      if (typeof description === 'string' && description.trim()) lines.push('', vscode.l10n.t('Purpose (as the model states it): {0}', description.trim()));
      lines.push('', vscode.l10n.t('Working directory: {0}', vscode.workspace.workspaceFolders?.[0]?.uri.fsPath ?? vscode.l10n.t('(none)')));
    } else if (req.need === 'fetch' || req.need === 'browser') {
      lines.push(vscode.l10n.t('URL: {0}', req.subject));
    } else if (req.preview) {
      const { added, removed } = loadCore().diffStats(req.preview.before, req.preview.after);
      lines.push(vscode.l10n.t('{0}: +{1} −{2} lines. The proposal is open, read-only, in the diff editor; "{3}" there or in the panel lets you change it before allowing.', vscode.workspace.asRelativePath(req.preview.path), added, removed, L.editProposal));
    }
    if (offersAlways(req)) {
      // The exact rule, whole: a button cannot always hold it.
      lines.push('', vscode.l10n.t('"{0}" allows it and saves this rule to the workspace settings (turnstone.permissions.allow):', alwaysAllowLabel(req.suggestedRule, vscode.l10n.t)), req.suggestedRule);
    }
    lines.push('', whyText(policyReasonText(req.reason, vscode.l10n.t), vscode.l10n.t));
    lines.push(
      '',
      req.preview
        ? vscode.l10n.t('"{0}" closes this dialog and keeps the request waiting: review or edit the proposal, then use {1} or {2} in the diff editor\'s title bar or in the Turnstone panel.', close, L.allow, L.deny)
        : vscode.l10n.t('"{0}" closes this dialog and keeps the request waiting in the Turnstone panel (where you can also deny with feedback).', close),
    );
    return lines.join('\n');
  }

  /** The user's own version of the proposal wins; the model is told what they changed. */
  private withUserEdits(decision: Extract<PermissionDecision, { kind: 'allow' }>, req: PermissionRequest, uri: vscode.Uri): PermissionDecision {
    const open = vscode.workspace.textDocuments.find((d) => d.uri.toString() === uri.toString());
    const current = open?.getText() ?? this.deps.proposals.text(uri);
    const proposed = req.preview?.after ?? '';
    if (current === undefined || current === proposed) return decision;
    const userDiff = loadCore().unifiedDiff('proposed', 'user-edited', proposed, current, 2);
    const filePath = String(req.input['path'] ?? req.subject);
    const before = req.preview?.before ?? '';
    // Same tool, input rewritten to produce exactly the user's text: write_file takes it whole; edit_file
    // replaces the entire current file (unique by construction) unless the file is new or empty.
    const updatedInput =
      req.toolName === 'edit_file' && before !== ''
        ? { path: filePath, old_string: before, new_string: current }
        : { path: filePath, content: current };
    if (req.toolName === 'edit_file' && before === '') return decision; // cannot express it as an edit; keep the model's
    return {
      ...decision,
      updatedInput,
      note: `The user edited your proposal before allowing it; the file holds their version. Their changes to your proposal:\n${userDiff}`,
    };
  }

  /** After the request settled (its proposal already `settle`d, by the caller). */
  private async closeDiff(original: vscode.Uri, proposed: vscode.Uri): Promise<void> {
    try {
      await this.closeProposalTabs(proposed);
    } finally {
      // Let go of whatever the close did: a failing one must not keep the texts for ever.
      this.deps.originals.delete(original);
      // The proposal's file outlives the request while VS Code holds its document, so a late save of it finds it.
      if (vscode.workspace.textDocuments.some((d) => d.uri.toString() === proposed.toString())) this.settledProposals.add(proposed.toString());
      else this.deps.proposals.remove(proposed);
    }
  }

  private async closeProposalTabs(proposed: vscode.Uri): Promise<void> {
    const doc = vscode.workspace.textDocuments.find((d) => d.uri.toString() === proposed.toString());
    // Saved into our in-memory FS first, so closing a dirty proposal never prompts.
    if (doc?.isDirty) await doc.save().then(undefined, () => undefined);
    // Its diff, and any plain tab showing the proposal alone.
    const tabs = tabsEditing(proposed);
    if (tabs.length > 0) await vscode.window.tabGroups.close(tabs, true).then(undefined, () => undefined);
  }
}

const diffTitle = (file: string, creates: boolean) => (creates ? vscode.l10n.t('{0} ↔ proposed by Turnstone (new file)', path.basename(file)) : vscode.l10n.t('{0} ↔ proposed by Turnstone', path.basename(file)));

const firstLine = (s: string) => {
  const line = s.split('\n', 1)[0] ?? '';
  return line.length > 120 ? `${line.slice(0, 119)}…` : line;
};
