// Allow / Deny / Edit Proposal where the review is: the proposal's diff editor
// title bar (while that editor's request waits) and the command palette (while
// any request waits). Context keys mirror the pending requests for the menus' `when`.
import * as vscode from 'vscode';
import { type PermissionDecision } from '../../runtime/policy/permissions';
import { type APPROVAL_COMMANDS, CONTEXT_EDITABLE_PROPOSALS, CONTEXT_PENDING_PROPOSALS, CONTEXT_PERMISSION_PENDING } from '../contract';
import { type AnsweredBy, type PendingPermission, type PendingPermissions } from './pending-permissions';
import { registerGuardedCommands } from '../command-guard';

export function registerApprovalCommands(pending: PendingPermissions, log: vscode.LogOutputChannel, editProposal: (id: string) => Promise<boolean>): vscode.Disposable[] {
  const sync = () => {
    const list = pending.list();
    const proposals = (only: (p: PendingPermission) => boolean) => list.flatMap((p) => (p.proposedUri && only(p) ? [p.proposedUri.toString()] : []));
    void vscode.commands.executeCommand('setContext', CONTEXT_PERMISSION_PENDING, list.length > 0);
    void vscode.commands.executeCommand('setContext', CONTEXT_PENDING_PROPOSALS, proposals(() => true));
    void vscode.commands.executeCommand('setContext', CONTEXT_EDITABLE_PROPOSALS, proposals((p) => p.editing === true));
  };
  sync();

  const answer = async (decision: PermissionDecision, arg: unknown) => {
    const target = await pick(pending, arg);
    if (!target) return false;
    const settled = pending.settle(target.entry.id, decision, target.by);
    if (!settled) log.warn(`${decision.kind} from ${target.by}: the request was already answered`);
    return settled;
  };

  const commands: Record<(typeof APPROVAL_COMMANDS)[number], (arg?: unknown) => Promise<boolean>> = {
    'turnstone.allowRequest': (arg) => answer({ kind: 'allow', scope: 'once' }, arg),
    'turnstone.denyRequest': (arg) => answer({ kind: 'deny' }, arg),
    'turnstone.editProposal': async (arg) => {
      const target = await pick(pending, arg, (p) => p.proposedUri !== undefined);
      return target ? editProposal(target.entry.id) : false;
    },
  };
  return [
    pending.onDidAdd(sync),
    pending.onDidSettle(sync),
    pending.onDidStartEditing(sync),
    ...registerGuardedCommands(commands, log),
  ];
}

/**
 * Which request a command answers: the one whose proposal the title bar (its
 * URI argument) or the active editor shows; otherwise the only one waiting,
 * or the user picks.
 */
async function pick(pending: PendingPermissions, arg: unknown, only: (p: PendingPermission) => boolean = () => true): Promise<{ entry: PendingPermission; by: AnsweredBy } | undefined> {
  const list = pending.list().filter(only);
  const uri = arg instanceof vscode.Uri ? arg : vscode.window.activeTextEditor?.document.uri;
  const fromEditor = uri && list.find((p) => p.proposedUri?.toString() === uri.toString());
  if (fromEditor) return { entry: fromEditor, by: 'editor' };
  if (list.length === 0) {
    void vscode.window.showInformationMessage(vscode.l10n.t('Turnstone: no request is waiting for an answer.'));
    return undefined;
  }
  // The keybinding (Ctrl+Alt+Enter / Ctrl+Alt+Backspace, args "keyboard") answers from the panel: its card says so.
  const by: AnsweredBy = arg === 'keyboard' ? 'panel' : 'palette';
  if (list.length === 1) return { entry: list[0]!, by };
  const choice = await vscode.window.showQuickPick(
    list.map((p) => ({ label: p.request.need === 'command' ? vscode.l10n.t('Run a command') : p.request.need === 'edit' ? vscode.l10n.t('Edit a file') : p.request.need === 'fetch' ? vscode.l10n.t('Fetch a web page') : p.request.need === 'browser' ? vscode.l10n.t('Open a page in the browser') : p.request.toolName, description: p.request.subject, entry: p })),
    { title: vscode.l10n.t('Which request?') },
  );
  return choice ? { entry: choice.entry, by } : undefined;
}
