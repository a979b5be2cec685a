// The runtime's PermissionPrompter in VS Code: a proposed edit opens in the
// native diff editor (left: the file as it is, right: the proposal, editable),
// and a native modal asks (or a notification, or nothing: turnstone.approvalDialog).
// "Review First" (or Escape) leaves the request pending so the user can edit the
// proposal and answer from the diff editor's title bar or the panel.
import * as path from 'node:path';
import * as vscode from 'vscode';
import { type PermissionDecision, type PermissionPrompter, type PermissionRequest } from '../runtime/permissions';
import { loadCore } from './load-core';
import { readSettings } from './settings';
import { type PendingPermission, type PendingPermissions } from './pending-permissions';
import { ORIGINAL_SCHEME, type OriginalContentProvider, PROPOSED_SCHEME, type ProposalFileSystem } from './proposal-documents';

export interface PrompterDeps {
  pending: PendingPermissions;
  originals: OriginalContentProvider;
  proposals: ProposalFileSystem;
  /** Persists "Always allow <rule>" to the workspace settings. */
  addAllowRule(rule: string): Promise<void>;
  log: vscode.LogOutputChannel;
  /** Modal dialogs are on by default; tests that answer through the API may turn them off. */
  dialogs(): boolean;
  /** What an MCP tool is (server, tool, description); undefined for the built-in tools. */
  describeTool?(name: string): { server: string; tool: string; description: string } | undefined;
}

const ALLOW = 'Allow';
const RUN = 'Run';
const ALWAYS = 'Always Allow';
const DENY = 'Deny';
const DENY_FEEDBACK = 'Deny with Feedback…';
/** The modal's close button, named for what it does: the request stays pending. */
const REVIEW_FIRST = 'Review First';
const DECIDE_LATER = 'Decide in Panel';

const isEdit = (req: PermissionRequest) => req.need === 'edit' && req.preview !== undefined;

export class NativePermissionPrompter implements PermissionPrompter {
  private counter = 0;

  constructor(private readonly deps: PrompterDeps) {}

  async request(req: PermissionRequest, signal: AbortSignal): Promise<PermissionDecision> {
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
      const title = `${base} ↔ proposed by Turnstone${req.preview.before === null ? ' (new file)' : ''}`;
      await vscode.commands.executeCommand('vscode.diff', originalUri, proposedUri, title, { preview: false, preserveFocus: false });
    }

    const entry: PendingPermission = { id, request: req, ...(proposedUri ? { proposedUri } : {}) };
    const settled = this.deps.pending.wait(entry);
    const onAbort = () => this.deps.pending.settle(id, { kind: 'deny', feedback: 'The turn was interrupted.' }, 'abort');
    signal.addEventListener('abort', onAbort, { once: true });
    if (this.deps.dialogs()) void this.askInDialog(entry);

    try {
      let decision = await settled;
      if (decision.kind === 'allow' && proposedUri && req.preview) decision = this.withUserEdits(decision, req, proposedUri);
      return decision;
    } finally {
      signal.removeEventListener('abort', onAbort);
      if (proposedUri && originalUri) await this.closeDiff(originalUri, proposedUri);
    }
  }

  private async askInDialog(entry: PendingPermission): Promise<void> {
    const req = entry.request;
    const style = readSettings().approvalDialog;
    if (style === 'panel') return; // the panel card and the diff editor's title bar ask
    const edit = isEdit(req);
    const mcp = this.deps.describeTool?.(req.toolName);
    const message = mcp
      ? `Turnstone wants to use the tool ${mcp.tool} of the MCP server ${mcp.server}`
      : edit
      ? `Turnstone wants to ${req.preview?.before === null ? 'create' : 'edit'} ${req.subject}`
      : req.need === 'command'
        ? 'Turnstone wants to run a command'
        : `Turnstone wants to use ${req.toolName} on ${req.subject}`;
    // At most four choices, the last one closing the dialog without an answer (never an unexplained "Cancel").
    // "Allow edits for this session" stays in the panel's card, next to the diff it applies to.
    const labels = edit ? [ALLOW, DENY, DENY_FEEDBACK] : req.need === 'command' ? [RUN, ALWAYS, DENY_FEEDBACK] : [ALLOW, DENY, DENY_FEEDBACK];
    const close = edit ? REVIEW_FIRST : DECIDE_LATER;
    const items: vscode.MessageItem[] = [...labels.map((title) => ({ title })), { title: close, isCloseAffordance: true }];
    const picked =
      style === 'modal'
        ? await vscode.window.showWarningMessage(message, { modal: true, detail: this.detail(req, close) }, ...items)
        : await vscode.window.showWarningMessage(`${message}: ${firstLine(req.subject)}`, ...items.filter((i) => !i.isCloseAffordance));
    const choice = picked?.title;
    if (!this.deps.pending.get(entry.id)) return; // answered elsewhere meanwhile
    let decision: PermissionDecision | undefined;
    switch (choice) {
      case ALLOW:
      case RUN:
        decision = { kind: 'allow', scope: 'once' };
        break;
      case ALWAYS:
        await this.deps.addAllowRule(req.suggestedRule).catch((e: unknown) => this.deps.log.error(`could not save the allow rule: ${String(e)}`));
        decision = { kind: 'allow', scope: 'session' };
        break;
      case DENY:
        decision = { kind: 'deny' };
        break;
      case DENY_FEEDBACK: {
        const feedback = await vscode.window.showInputBox({
          title: 'Tell Turnstone what to do instead',
          prompt: 'Optional: this goes to the model with the denial. Leave it empty to just deny.',
          ignoreFocusOut: true,
        });
        decision = feedback?.trim() ? { kind: 'deny', feedback: feedback.trim() } : { kind: 'deny' };
        break;
      }
      default:
        // Review First / Decide in Panel / Escape: the request stays pending, answered from the diff editor or the panel.
        return;
    }
    this.deps.pending.settle(entry.id, decision, 'dialog');
  }

  private detail(req: PermissionRequest, close: string): string {
    const lines: string[] = [];
    const mcp = this.deps.describeTool?.(req.toolName);
    if (mcp) {
      lines.push(`MCP server: ${mcp.server}`, `Tool: ${mcp.tool}`);
      if (mcp.description) lines.push(`Description (from the server): ${mcp.description.slice(0, 1000)}`);
      lines.push('', 'Input:', JSON.stringify(req.input, null, 2).slice(0, 4000));
    } else if (req.need === 'command') {
      lines.push(`$ ${String(req.input['command'] ?? req.subject)}`);
      const description = req.input['description'];
      if (typeof description === 'string' && description.trim()) lines.push('', `Purpose (as the model states it): ${description.trim()}`);
      lines.push('', `Working directory: ${vscode.workspace.workspaceFolders?.[0]?.uri.fsPath ?? '(none)'}`);
      // The exact rule, whole: the button cannot hold it.
      lines.push('', `"${ALWAYS}" runs it and saves this rule to the workspace settings (turnstone.permissions.allow):`, req.suggestedRule);
    } else if (req.preview) {
      const { added, removed } = loadCore().diffStats(req.preview.before, req.preview.after);
      lines.push(`${vscode.workspace.asRelativePath(req.preview.path)}: +${added} −${removed} lines. The proposal is open in the diff editor, where you can change it before allowing.`);
    }
    lines.push('', `Why Turnstone asks: ${req.reason}`);
    lines.push(
      '',
      req.preview
        ? `"${close}" closes this dialog and keeps the request waiting: review or edit the proposal, then use Allow or Deny in the diff editor's title bar or in the Turnstone panel.`
        : `"${close}" closes this dialog and keeps the request waiting in the Turnstone panel (where you can also deny with feedback).`,
    );
    return lines.join('\n');
  }

  /** The user's own version of the proposal wins; the model is told what they changed. */
  private withUserEdits(decision: Extract<PermissionDecision, { kind: 'allow' }>, req: PermissionRequest, uri: vscode.Uri): PermissionDecision {
    const open = vscode.workspace.textDocuments.find((d) => d.uri.toString() === uri.toString());
    const current = open?.getText() ?? this.deps.proposals.text(uri);
    const proposed = req.preview?.after ?? '';
    if (current === undefined || current === proposed) return decision;
    const userDiff = loadCore().createTwoFilesPatch('proposed', 'user-edited', proposed, current, undefined, undefined, { context: 2 });
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

  private async closeDiff(original: vscode.Uri, proposed: vscode.Uri): Promise<void> {
    const doc = vscode.workspace.textDocuments.find((d) => d.uri.toString() === proposed.toString());
    // Save into our in-memory FS first so closing a dirty proposal never prompts.
    if (doc?.isDirty) await doc.save().then(undefined, () => undefined);
    const tabs = vscode.window.tabGroups.all
      .flatMap((g) => g.tabs)
      .filter((t) => t.input instanceof vscode.TabInputTextDiff && t.input.modified.toString() === proposed.toString());
    if (tabs.length > 0) await vscode.window.tabGroups.close(tabs, true).then(undefined, () => undefined);
    this.deps.originals.delete(original);
    this.deps.proposals.remove(proposed);
  }
}

const firstLine = (s: string) => {
  const line = s.split('\n', 1)[0] ?? '';
  return line.length > 120 ? `${line.slice(0, 119)}…` : line;
};
