// "Turnstone: Review Changes" (`turnstone.review.show`, issue 44): the agent's changes left to review, from the
// command palette, a session's row in the Sessions view or a tool card in the panel. Registered at activation,
// while the review itself is made on the first change: before that there is nothing to show.
import * as vscode from 'vscode';
import { registerGuardedCommands } from '../command-guard';
import { type SessionReview } from './session-review';

export const REVIEW_SHOW_COMMAND = 'turnstone.review.show';

/** Which files `arg` names: one path, or a session's changed files (an array); undefined for all of them. */
function filesOf(arg: unknown): ReadonlySet<string> | undefined {
  if (typeof arg === 'string') return new Set([arg]);
  if (Array.isArray(arg)) return new Set(arg.filter((a): a is string => typeof a === 'string'));
  return undefined;
}

export function registerReviewShow(review: () => SessionReview | undefined, log: vscode.LogOutputChannel): vscode.Disposable[] {
  return registerGuardedCommands(
    {
      [REVIEW_SHOW_COMMAND]: async (arg: unknown) => {
        // No review yet (nothing changed since the window opened) or nothing left in it: the same answer.
        const shown = (await review()?.showChanges(filesOf(arg))) ?? false;
        if (!shown) void vscode.window.showInformationMessage(vscode.l10n.t('Turnstone: no change is left to review there.'));
      },
    },
    log,
  );
}
