// The Sessions view (turnstone.sessions, issue 43): one row per open session of the window, with its
// state, files changed and cost, updated as they change; Show puts it in the panel, Stop ends its turn,
// Remove closes it (its history stays).
import * as vscode from 'vscode';
import { filesChangedBy, type OpenSession, type SessionDeck, type SessionState } from './session-deck';
import { removeSession } from './worktree-sessions';
import { registerGuardedCommands } from '../command-guard';
import { REVIEW_SHOW_COMMAND } from '../review/review-show';

export const SESSIONS_VIEW = 'turnstone.sessions';

const ICONS: Record<SessionState, vscode.ThemeIcon> = {
  new: new vscode.ThemeIcon('comment-discussion'),
  running: new vscode.ThemeIcon('loading~spin'),
  waiting: new vscode.ThemeIcon('bell-dot', new vscode.ThemeColor('notificationsWarningIcon.foreground')),
  done: new vscode.ThemeIcon('check', new vscode.ThemeColor('testing.iconPassed')),
  failed: new vscode.ThemeIcon('error', new vscode.ThemeColor('testing.iconFailed')),
  stopped: new vscode.ThemeIcon('debug-stop'),
};

function stateLabel(state: SessionState): string {
  switch (state) {
    case 'new':
      return vscode.l10n.t('new');
    case 'running':
      return vscode.l10n.t('running');
    case 'waiting':
      return vscode.l10n.t('waiting for you');
    case 'done':
      return vscode.l10n.t('done');
    case 'failed':
      return vscode.l10n.t('failed');
    case 'stopped':
      return vscode.l10n.t('stopped');
  }
}

/** The changes left to review (issue 44), per session; drawn again when `onDidChange` fires. */
export interface ReviewCounts {
  hunksIn(session: OpenSession): number;
  readonly onDidChange: vscode.Event<void>;
}

/** What a row says, also for tests and screen readers: title, state, files changed, changes to review, cost. */
export function sessionRow(deck: SessionDeck, session: OpenSession, toReview = 0): { label: string; description: string; state: SessionState } {
  const state = deck.stateOf(session);
  const c = session.controller;
  const files = filesChangedBy(session);
  const cost = c.usage?.costUsd;
  const parts = [
    stateLabel(state),
    ...(session.worktree ? [session.worktree.branch] : []),
    ...(files > 0 ? [files === 1 ? vscode.l10n.t('1 file changed') : vscode.l10n.t('{0} files changed', files)] : []),
    ...(toReview > 0 ? [toReview === 1 ? vscode.l10n.t('1 change to review') : vscode.l10n.t('{0} changes to review', toReview)] : []),
    ...(cost !== undefined && cost > 0 ? [`$${cost.toFixed(cost < 1 ? 3 : 2)}`] : []),
  ];
  return { label: c.title || vscode.l10n.t('New session'), description: parts.join(' · '), state };
}

class SessionsTree implements vscode.TreeDataProvider<OpenSession> {
  private readonly changed = new vscode.EventEmitter<void>();
  readonly onDidChangeTreeData = this.changed.event;

  constructor(
    private readonly deck: SessionDeck,
    private readonly review: ReviewCounts,
  ) {}

  refresh(): void {
    this.changed.fire();
  }

  getChildren(element?: OpenSession): OpenSession[] {
    return element ? [] : [...this.deck.sessions];
  }

  getTreeItem(session: OpenSession): vscode.TreeItem {
    const toReview = this.review.hunksIn(session);
    const row = sessionRow(this.deck, session, toReview);
    const shown = this.deck.isShown(session.key);
    const item = new vscode.TreeItem(row.label, vscode.TreeItemCollapsibleState.None);
    item.id = session.key;
    item.description = shown ? `${row.description} · ${vscode.l10n.t('shown')}` : row.description;
    item.iconPath = ICONS[row.state];
    item.tooltip = `${row.label}\n${row.description}${session.controller.sessionFile ? `\n${session.controller.sessionFile}` : ''}`;
    item.accessibilityInformation = { label: `${row.label}, ${row.description}${shown ? `, ${vscode.l10n.t('shown')}` : ''}` };
    // Menus key off it: Stop only while a turn runs; Review Changes while some are left (`.review`); Apply and
    // Merge Branch on a worktree's row (`.worktree`, last).
    item.contextValue = `${row.state === 'running' || row.state === 'waiting' ? 'session.running' : 'session.idle'}${toReview > 0 ? '.review' : ''}${session.worktree ? '.worktree' : ''}`;
    item.command = { command: 'turnstone.sessions.show', title: vscode.l10n.t('Show'), arguments: [session.key] };
    return item;
  }
}

/** The key a row's action names: its item (a context menu) or the key itself (a script). */
function keyOf(arg: unknown): string | undefined {
  if (typeof arg === 'string') return arg;
  if (typeof arg === 'object' && arg !== null && typeof (arg as { key?: unknown }).key === 'string') return (arg as { key: string }).key;
  return undefined;
}

export function registerSessionsView(deck: SessionDeck, review: ReviewCounts, focusPanel: () => Thenable<unknown>, log: vscode.LogOutputChannel): vscode.Disposable[] {
  const tree = new SessionsTree(deck, review);
  const view = vscode.window.createTreeView(SESSIONS_VIEW, { treeDataProvider: tree });
  // No badge of its own: the chat view's already counts the requests waiting, and the container adds them up.
  const showBadge = () => {
    view.description = deck.sessions.length > 1 ? vscode.l10n.t('{0} open', deck.sessions.length) : '';
  };
  showBadge();
  return [
    view,
    deck.onDidChange(() => {
      tree.refresh();
      showBadge();
    }),
    review.onDidChange(() => tree.refresh()),
    // Guarded as the other commands: a failing worktree removal says so as a Turnstone error and is logged.
    ...registerGuardedCommands(
      {
        'turnstone.sessions.show': async (arg: unknown) => {
          const key = keyOf(arg);
          if (key && deck.show(key)) await focusPanel();
        },
        'turnstone.sessions.stop': (arg: unknown) => {
          const key = keyOf(arg);
          const session = key ? deck.entry(key) : undefined;
          session?.controller.stop();
        },
        // The row's "Review Changes": the first of its files left to review.
        'turnstone.sessions.review': (arg: unknown) => {
          const key = keyOf(arg);
          const session = key ? deck.entry(key) : undefined;
          return session ? vscode.commands.executeCommand(REVIEW_SHOW_COMMAND, [...session.changed]) : undefined;
        },
        'turnstone.sessions.remove': async (arg: unknown, options?: { confirm?: boolean; worktree?: 'keep' | 'remove' | 'force' }) => {
          const key = keyOf(arg);
          if (key) await removeSession(deck, key, options);
        },
      },
      log,
    ),
  ];
}
