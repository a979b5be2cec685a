// Bringing a worktree's work home, in the editor (issue 44). *Apply Kept Changes to Your Working Tree* puts
// what the review kept of a worktree session's changes into the user's own working tree (agent side:
// src/agent/worktree-apply.ts): hunks still under review stay behind, a hunk whose lines the user changed
// meanwhile is listed, and choosing it opens a three-way view (VS Code's merge editor, else a diff). *Merge
// Branch* is offered once nothing is left to review; it asks first. Neither commits or merges unasked.
import * as path from 'node:path';
import * as vscode from 'vscode';
import type { ApplyReport, ConflictReason, FilePlan, MergeResult, WorktreePlan } from '../../agent/worktree-apply';
import { registerGuardedCommands } from '../command-guard';
import { CONTEXT_WORKTREE_SESSIONS } from '../contract';
import { type SessionReview } from './session-review';
import { loadCore } from '../session/load-core';
import { type OpenSession, type SessionDeck } from '../session/session-deck';

export const APPLY_WORKTREE_COMMAND = 'turnstone.review.applyWorktree';
export const MERGE_WORKTREE_COMMAND = 'turnstone.review.mergeWorktree';
/** Read-only versions a conflict's three-way view shows: the base, what the worktree kept, your file after Apply. */
const SCHEME = 'turnstone-apply';

/** What Apply returns (scripts and tests): the report, without the files' contents. */
export type ApplyWorktreeResult = ApplyReport;

/** The key a command names: a Sessions row's item, the key itself (a script); anything else asks. */
function keyOf(arg: unknown): string | undefined {
  if (typeof arg === 'string') return arg;
  if (typeof arg === 'object' && arg !== null && typeof (arg as { key?: unknown }).key === 'string') return (arg as { key: string }).key;
  return undefined;
}

type WorktreeSession = OpenSession & { worktree: NonNullable<OpenSession['worktree']> };

/** The worktree session the command is for: the one named, the only one, or the one the user picks. */
async function pickSession(deck: SessionDeck, arg: unknown): Promise<WorktreeSession | undefined> {
  const key = keyOf(arg);
  if (key) {
    const named = deck.entry(key);
    if (named?.worktree) return named as WorktreeSession;
    void vscode.window.showInformationMessage(vscode.l10n.t('Turnstone: that session does not run in a worktree, so its changes are already in your working tree.'));
    return undefined;
  }
  const open = deck.sessions.filter((s): s is WorktreeSession => s.worktree !== undefined);
  if (open.length === 0) {
    void vscode.window.showInformationMessage(vscode.l10n.t('Turnstone: no open session runs in a worktree (Turnstone: New Session in Worktree starts one).'));
    return undefined;
  }
  if (open.length === 1) return open[0];
  const picked = await vscode.window.showQuickPick(
    open.map((s) => ({ label: s.controller.title || vscode.l10n.t('New session'), description: s.worktree.branch, detail: s.worktree.path, session: s })),
    { title: vscode.l10n.t('Which worktree session?'), placeHolder: vscode.l10n.t('Choose the session whose kept changes to bring home') },
  );
  return picked?.session;
}

function reasonText(reason: ConflictReason): string {
  switch (reason) {
    case 'changed-meanwhile':
      return vscode.l10n.t('you changed these lines meanwhile');
    case 'created-both':
      return vscode.l10n.t('the agent created this file and your working tree has one of that name');
    case 'deleted-by-user':
      return vscode.l10n.t('you deleted this file');
    case 'changed-deleted':
      return vscode.l10n.t('the agent deleted this file and you changed it');
    case 'binary-changed':
      return vscode.l10n.t('a binary file you changed too');
    case 'changed-while-applying':
      return vscode.l10n.t('the file changed while the changes were applied');
  }
}

// By byte-order mark, as Apply merged them: a UTF-16 file's three versions read as text, not as NULs. Through the
// core (loaded by Apply already): the file tools stay out of the activation bundle.
const decode = (b: Buffer | null) => (b === null ? '' : loadCore().decodeText(b).text);

export function registerWorktreeApply(deck: SessionDeck, review: () => SessionReview | undefined, log: vscode.LogOutputChannel): vscode.Disposable[] {
  /** The three-way views' read-only texts, by URI query. */
  const texts = new Map<string, string>();
  let views = 0;

  /** The session's files with changes left to review (its hunks not kept or undone yet). */
  const leftToReview = async (session: OpenSession): Promise<number> => {
    const files = (await review()?.files()) ?? [];
    return files.filter((f) => session.changed.has(f.path)).length;
  };

  const textUri = (file: FilePlan, side: string, content: string): vscode.Uri => {
    const id = `${++views}-${side}`;
    texts.set(id, content);
    return vscode.Uri.from({ scheme: SCHEME, path: `/${file.path}`, query: id });
  };

  /** The three-way view of a conflict: base, your file after Apply, what the worktree kept; your file is the result. */
  const openConflict = async (plan: WorktreePlan, file: FilePlan): Promise<void> => {
    const name = path.basename(file.path);
    if (file.binary) {
      await vscode.commands.executeCommand('vscode.diff', vscode.Uri.file(file.worktreeFile), vscode.Uri.file(file.userFile), vscode.l10n.t('{0}: the worktree’s ↔ yours', name));
      return;
    }
    const textual = file.base !== null && file.kept !== null && file.user !== null && file.result !== null;
    if (textual && (await vscode.commands.getCommands(false)).includes('_open.mergeEditor')) {
      const inputs = [textUri(file, 'base', decode(file.base)), textUri(file, 'yours', decode(file.result)), textUri(file, 'kept', decode(file.kept))] as const;
      try {
        await vscode.commands.executeCommand('_open.mergeEditor', {
          base: inputs[0],
          input1: { uri: inputs[1], title: vscode.l10n.t('Your working tree') },
          input2: { uri: inputs[2], title: vscode.l10n.t('Kept in the worktree'), description: plan.branch },
          output: vscode.Uri.file(file.userFile),
        });
        return;
      } catch (error) {
        // The failed view's texts are let go; the diff below has its own (one the failed view opened could close under it).
        for (const uri of inputs) texts.delete(uri.query);
        log.warn(`the merge editor did not open for ${file.userFile}: ${String(error)}; showing a diff`);
      }
    }
    const kept = textUri(file, 'kept', decode(file.kept));
    const yours = file.user === null ? textUri(file, 'yours', '') : vscode.Uri.file(file.userFile);
    await vscode.commands.executeCommand('vscode.diff', kept, yours, vscode.l10n.t('{0}: kept in the worktree ↔ yours', name));
  };

  const showConflicts = async (plan: WorktreePlan, report: ApplyReport): Promise<void> => {
    const items = report.conflicts.flatMap((c) => {
      const file = plan.files.find((f) => f.path === c.path);
      if (!file) return [];
      const lines = c.reason === 'changed-meanwhile' ? c.hunks.map((h) => h.userStart + 1) : [];
      return [
        {
          label: `$(warning) ${c.path}`,
          description: lines.length === 0 ? '' : lines.length === 1 ? vscode.l10n.t('line {0}', lines[0]!) : vscode.l10n.t('lines {0}', lines.join(', ')),
          detail: reasonText(c.reason),
          file,
        },
      ];
    });
    const picked = await vscode.window.showQuickPick(items, { title: vscode.l10n.t('Changes that did not apply'), placeHolder: vscode.l10n.t('Choose one to compare it three ways') });
    if (picked) await openConflict(plan, picked.file);
  };

  const apply = async (arg: unknown): Promise<ApplyWorktreeResult | undefined> => {
    const session = await pickSession(deck, arg);
    if (!session) return undefined;
    const core = loadCore();
    const wt = session.worktree;
    let plan: WorktreePlan;
    try {
      // Only what went through the review travels: a file the session's tools changed and the user settled
      // (undefined: all of it), or its kept hunks; one changed otherwise (a command, a session before a reload) stays.
      const kept = ({ worktreeFile }: { worktreeFile: string }) => {
        const base = review()?.reviewBase(worktreeFile);
        return base !== undefined ? base : session.changed.has(worktreeFile) ? undefined : false;
      };
      plan = await core.planWorktreeApply({ repo: wt.repo, worktree: wt.path, branch: wt.branch, kept });
    } catch (error) {
      if (!(error instanceof core.WorktreeApplyError)) throw error;
      void vscode.window.showErrorMessage(vscode.l10n.t('Turnstone: nothing was applied: {0}', error.message));
      return undefined;
    }
    // Apply writes on disk: a file with unsaved edits in the editor would then differ from it.
    // Compared as URIs: Uri.file spells a Windows drive letter one way, where fsPath keeps what it was given.
    const unsaved = plan.files.filter((f) => {
      const target = vscode.Uri.file(f.userFile).toString();
      return f.applied.length > 0 && vscode.workspace.textDocuments.some((d) => d.isDirty && d.uri.toString() === target);
    });
    if (unsaved.length > 0) {
      void vscode.window.showWarningMessage(vscode.l10n.t('Turnstone: save or revert {0} first: Apply writes the kept changes into the files on disk.', unsaved.map((f) => f.path).join(', ')));
      return undefined;
    }
    const report = core.writeWorktreePlan(plan);
    log.info(`applied ${wt.branch} into ${wt.repo}: ${report.applied.length} file(s), ${report.conflicts.length} with conflicts, ${report.skipped.length} skipped`);
    const changes = report.applied.reduce((n, a) => n + a.hunks, 0);
    const conflicts = report.conflicts.reduce((n, c) => n + Math.max(1, c.hunks.length), 0);
    const parts: string[] = [];
    if (changes > 0 || conflicts === 0) parts.push(changes === 0 ? vscode.l10n.t('Nothing to apply: your working tree already has every change kept in {0}.', wt.branch) : vscode.l10n.t('Applied {0} changes to {1} files.', changes, report.applied.length));
    if (conflicts > 0) parts.push(vscode.l10n.t('{0} changes did not apply: your working tree changed there meanwhile.', conflicts));
    const unreviewed = report.skipped.filter((s) => s.reason === 'not-reviewed').length;
    if (unreviewed > 0) parts.push(vscode.l10n.t('{0} files changed in the worktree without the review (by a command, or before a reload) stay there: look at them in the worktree.', unreviewed));
    else if (changes > 0) parts.push(vscode.l10n.t('The worktree can now be removed (Sessions view: Remove Session).'));
    const showList = vscode.l10n.t('Show Conflicts');
    const merge = vscode.l10n.t('Merge Branch');
    const buttons = [...(conflicts > 0 ? [showList] : []), ...((await leftToReview(session)) === 0 ? [merge] : [])];
    const message = parts.join(' ');
    void (conflicts > 0 ? vscode.window.showWarningMessage(message, ...buttons) : vscode.window.showInformationMessage(message, ...buttons)).then((choice) => {
      if (choice === showList) return showConflicts(plan, report);
      if (choice === merge) return vscode.commands.executeCommand(MERGE_WORKTREE_COMMAND, session.key);
      return undefined;
    });
    return { applied: report.applied, conflicts: report.conflicts, skipped: report.skipped };
  };

  /** `options.confirm: false`: no question (scripts and tests). */
  const merge = async (arg: unknown, options?: { confirm?: boolean }): Promise<MergeResult | undefined> => {
    const session = await pickSession(deck, arg);
    if (!session) return undefined;
    const wt = session.worktree;
    const left = await leftToReview(session);
    if (left > 0) {
      void vscode.window.showWarningMessage(vscode.l10n.t('Turnstone: {0} of the session’s files have changes left to review. Keep or undo them first, or use Apply, which brings only the kept changes.', left));
      return undefined;
    }
    if (options?.confirm !== false) {
      const yes = vscode.l10n.t('Merge Branch');
      const answer = await vscode.window.showWarningMessage(
        vscode.l10n.t('Merge {0} into your current branch?', wt.branch),
        { modal: true, detail: vscode.l10n.t('The worktree’s uncommitted work is committed on {0} first, then merged with git merge --no-ff. Your working tree must have no uncommitted changes.', wt.branch) },
        yes,
      );
      if (answer !== yes) return undefined;
    }
    const core = loadCore();
    let result: MergeResult;
    try {
      result = await core.mergeWorktreeBranch({ repo: wt.repo, worktree: wt.path, branch: wt.branch, message: `Turnstone: ${session.controller.title || 'work of a session'}` });
    } catch (error) {
      if (!(error instanceof core.WorktreeApplyError)) throw error;
      result = { merged: false, reason: error.message };
    }
    if (result.merged) {
      log.info(`merged ${wt.branch} into ${wt.repo} (${result.commit})`);
      void vscode.window.showInformationMessage(vscode.l10n.t('Turnstone: merged {0} into your branch. The worktree can now be removed (Sessions view: Remove Session).', wt.branch));
    } else {
      void vscode.window.showWarningMessage(vscode.l10n.t('Turnstone: {0} was not merged: {1}', wt.branch, result.reason));
    }
    return result;
  };

  // The source control's Apply shows only while a session runs in a worktree (elsewhere it would have nothing to bring).
  let hadWorktree: boolean | undefined;
  const syncContext = () => {
    const has = deck.sessions.some((s) => s.worktree !== undefined);
    if (has !== hadWorktree) void vscode.commands.executeCommand('setContext', CONTEXT_WORKTREE_SESSIONS, (hadWorktree = has));
  };
  syncContext();
  return [
    deck.onDidChange(syncContext),
    // A closed view's text is not asked for again (each view gets new URIs), so it is let go.
    vscode.workspace.onDidCloseTextDocument((doc) => {
      if (doc.uri.scheme === SCHEME) texts.delete(doc.uri.query);
    }),
    vscode.workspace.registerTextDocumentContentProvider(SCHEME, { provideTextDocumentContent: (uri) => texts.get(uri.query) ?? vscode.l10n.t('This comparison was closed. Run "Apply Kept Changes to Your Working Tree" again to compare the files.') }),
    ...registerGuardedCommands({ [APPLY_WORKTREE_COMMAND]: apply, [MERGE_WORKTREE_COMMAND]: merge }, log),
  ];
}
