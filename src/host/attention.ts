// A signal when the agent needs the user (issue 43): an approval waiting, or a turn that ended, while the
// user looks elsewhere. The panel's own cards fire none of VS Code's accessibility signals and a hidden
// panel shows nothing at all, so a turn could wait on an approval for an hour unseen. What is raised:
// a badge on the Turnstone view with the count waiting, the count in the status bar, and (per
// `turnstone.notifications`) a non-modal notification with *Show*, whose text screen readers announce.
import * as vscode from 'vscode';
import { type TurnSummary } from '../runtime/events';
import { type PendingPermission, type PendingPermissions } from './approvals/pending-permissions';

export type NotificationsSetting = 'always' | 'whenHidden' | 'never';
export const NOTIFICATIONS_SETTINGS: readonly NotificationsSetting[] = ['always', 'whenHidden', 'never'];

export interface AttentionDeps {
  /** Whether the chat panel is on screen. */
  panelVisible(): boolean;
  /** Whether this VS Code window has the focus. */
  windowFocused(): boolean;
  setting(): NotificationsSetting;
  /** The count waiting on the view's badge (0 clears it). */
  setBadge(count: number, tooltip: string): void;
  /** The count waiting in the status bar. */
  setWaiting(count: number): void;
  /** Whether the panel shows the window's session `key` (several may be open, issue 43). */
  isShown?(key: string): boolean;
  /** Brings the panel up, showing session `key` when one is named. */
  showPanel(key?: string): Thenable<unknown>;
  /** Shows a notification; resolves with the action chosen, if any. Tests pass their own. */
  notify(message: string, action: string): Thenable<string | undefined>;
}

export class Attention implements vscode.Disposable {
  private readonly subscriptions: vscode.Disposable[];

  constructor(
    private readonly pending: PendingPermissions,
    private readonly deps: AttentionDeps,
  ) {
    this.subscriptions = [pending.onDidAdd((p) => this.approvalWaiting(p)), pending.onDidSettle(() => this.showCount())];
  }

  /**
   * Whether the user would miss what happened: the setting decides, `whenHidden` by the panel, the window
   * and whether the panel shows the session it happened in.
   */
  private shouldNotify(session: string | undefined): boolean {
    const setting = this.deps.setting();
    if (setting === 'never') return false;
    if (setting === 'always') return true;
    const elsewhere = session !== undefined && this.deps.isShown !== undefined && !this.deps.isShown(session);
    return elsewhere || !this.deps.panelVisible() || !this.deps.windowFocused();
  }

  private showCount(): void {
    const count = this.pending.list().length;
    this.deps.setBadge(count, count === 1 ? vscode.l10n.t('1 request waiting for your answer') : vscode.l10n.t('{0} requests waiting for your answer', count));
    this.deps.setWaiting(count);
  }

  private approvalWaiting(p: PendingPermission): void {
    this.showCount();
    if (!this.shouldNotify(p.session)) return;
    const subject = p.request.preview?.path ?? p.request.subject;
    this.raise(vscode.l10n.t('Turnstone is waiting for your answer: {0} {1}', p.request.toolName, oneLine(subject)), p.session);
  }

  /** A turn ended (however): said when the user would not see it, unless an approval already said more. */
  turnEnded(summary: TurnSummary, session?: string): void {
    if (!this.shouldNotify(session) || this.pending.list().length > 0) return;
    const text =
      summary.outcome === 'completed'
        ? vscode.l10n.t('Turnstone finished: {0}', oneLine(summary.finalText) || vscode.l10n.t('the turn is done'))
        : summary.outcome === 'aborted'
          ? vscode.l10n.t('Turnstone stopped.')
          : vscode.l10n.t('Turnstone stopped: {0}', oneLine(summary.error?.message ?? ''));
    this.raise(text, session);
  }

  private raise(message: string, session: string | undefined): void {
    const show = vscode.l10n.t('Show');
    void Promise.resolve(this.deps.notify(message, show)).then((choice) => (choice === show ? this.deps.showPanel(session) : undefined));
  }

  dispose(): void {
    for (const s of this.subscriptions) s.dispose();
  }
}

/** The first line, shortened: a notification is one glance. */
function oneLine(text: string): string {
  const line = text.trim().split('\n', 1)[0] ?? '';
  return line.length > 100 ? `${line.slice(0, 99)}…` : line;
}
