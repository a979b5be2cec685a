// Sessions in their own git worktree from the editor (issue 43): *Turnstone: New Session in Worktree* makes
// one on a new branch `turnstone/<name>` from HEAD, outside the workspace folder (turnstone.worktrees.dir),
// and opens a session whose tools, commands, hooks and checkpoints work there. Removing such a session
// offers to remove its worktree and branch; one holding work not merged is deleted only when the user says so.
import * as vscode from 'vscode';
import { loadCore } from './load-core';
import { readSettings } from '../settings';
import { type SessionDeck } from './session-deck';

/** What the command returns (scripts and tests): the session's key, its worktree and branch. */
export interface WorktreeSessionStarted {
  key: string;
  path: string;
  branch: string;
}

/**
 * `arg`: a name, or `{ name, carry }` (scripts and tests); without one the user is asked for the name (empty: a
 * generated one) and, when the working tree has uncommitted changes, whether they come along.
 */
export async function newSessionInWorktree(deck: SessionDeck, arg: unknown, log: vscode.LogOutputChannel): Promise<WorktreeSessionStarted | undefined> {
  const scripted = typeof arg === 'object' && arg !== null ? (arg as { name?: unknown; carry?: unknown }) : undefined;
  const folder = vscode.workspace.workspaceFolders?.[0]?.uri;
  if (!folder || folder.scheme !== 'file') {
    void vscode.window.showErrorMessage(vscode.l10n.t('Turnstone: a session in a worktree needs a workspace folder on this machine that is in a git repository.'));
    return undefined;
  }
  const core = loadCore();
  const name =
    typeof arg === 'string'
      ? arg
      : typeof scripted?.name === 'string'
        ? scripted.name
        : await vscode.window.showInputBox({
            title: vscode.l10n.t('New Session in Worktree'),
            prompt: vscode.l10n.t('A name for the worktree and its branch turnstone/<name>; leave empty for a generated one.'),
            placeHolder: 'fix-login',
            validateInput: (value) => (value.trim() ? core.worktreeNameProblem(value.trim()) : undefined),
          });
  if (name === undefined) return undefined;
  let carry = scripted?.carry === true;
  if (arg === undefined) {
    const pending = await core.uncommittedChanges(folder.fsPath).catch(() => 0);
    if (pending > 0) {
      const bring = vscode.l10n.t('Bring Them Along');
      const fromHead = vscode.l10n.t('Start from HEAD');
      const answer = await vscode.window.showInformationMessage(
        vscode.l10n.t('Your working tree has {0} uncommitted change(s). Bring them into the new worktree?', pending),
        { modal: true, detail: vscode.l10n.t('They are copied, unstaged; your working tree, index and stashes stay as they are.') },
        bring,
        fromHead,
      );
      if (answer === undefined) return undefined;
      carry = answer === bring;
    }
  }
  let created;
  try {
    created = await core.createWorktree({ cwd: folder.fsPath, ...(name.trim() ? { name: name.trim() } : {}), dir: readSettings().worktreesDir, carryUncommitted: carry });
  } catch (error) {
    if (!(error instanceof core.WorktreeError)) throw error;
    void vscode.window.showErrorMessage(vscode.l10n.t('Turnstone: no worktree was made: {0}', error.message));
    return undefined;
  }
  log.info(`worktree ${created.path} on ${created.branch} from ${created.base.ref ?? created.base.commit}${created.carried ? `, with ${created.carried} uncommitted change(s)` : ''}`);
  if (created.uncommitted > 0) {
    void vscode.window.showInformationMessage(vscode.l10n.t('Turnstone: the worktree starts from HEAD; {0} uncommitted change(s) of your working tree are not in it.', created.uncommitted));
  }
  const controller = await deck.newSession({ path: created.cwd, branch: created.branch, repo: created.repo });
  const session = deck.sessions.find((s) => s.controller === controller);
  if (!session) {
    // No room for another session: the worktree just made holds nothing yet, so it goes again.
    await core.removeWorktree(created.path).catch(() => undefined);
    return undefined;
  }
  return { key: session.key, path: created.path, branch: created.branch };
}

/**
 * Removes a session; one in a worktree asks whether its worktree and branch go too (`worktree`: the
 * answer given by a script). Work not merged or not committed is deleted only after a second question.
 */
export async function removeSession(deck: SessionDeck, key: string, options: { confirm?: boolean; worktree?: 'keep' | 'remove' | 'force' } = {}): Promise<void> {
  const session = deck.entry(key);
  if (!session) return;
  const confirm = options.confirm !== false;
  const title = session.controller.title || vscode.l10n.t('New session');
  if (session.controller.isRunning && confirm) {
    const remove = vscode.l10n.t('Stop and Remove');
    const answer = await vscode.window.showWarningMessage(
      vscode.l10n.t('"{0}" is running. Remove it?', title),
      { modal: true, detail: vscode.l10n.t('Its turn and background commands are stopped. Its history stays in Turnstone: Resume Session.') },
      remove,
    );
    if (answer !== remove) return;
  }
  const worktree = session.worktree;
  let choice = options.worktree;
  if (worktree && choice === undefined && confirm) {
    const removeIt = vscode.l10n.t('Remove Worktree and Branch');
    const keep = vscode.l10n.t('Keep Them');
    const answer = await vscode.window.showWarningMessage(vscode.l10n.t('Remove the worktree of "{0}" too?', title), { modal: true, detail: vscode.l10n.t('{0} on branch {1}', worktree.path, worktree.branch) }, removeIt, keep);
    if (answer === undefined) return;
    choice = answer === removeIt ? 'remove' : 'keep';
  }
  await deck.remove(key);
  if (!worktree || choice === undefined || choice === 'keep') return;
  const core = loadCore();
  let result = await core.removeWorktree(worktree.path, { force: choice === 'force' });
  if (!result.removed && choice === 'remove' && confirm) {
    const force = vscode.l10n.t('Delete Anyway');
    const answer = await vscode.window.showWarningMessage(vscode.l10n.t('The worktree was kept: {0}', result.reason), { modal: true, detail: vscode.l10n.t('Deleting it loses that work for good.') }, force);
    if (answer === force) result = await core.removeWorktree(worktree.path, { force: true });
  }
  if (!result.removed) void vscode.window.showInformationMessage(vscode.l10n.t('Turnstone: the worktree {0} was kept: {1}', worktree.path, result.reason));
}
