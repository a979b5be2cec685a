// The model's plan (todo_write), pinned above the composer: a collapsible list
// with its progress ("2/5") in the summary. The user's open/closed choice is
// kept while the plan changes; a new plan opens it again.
import { type PlanTodo, type TranscriptItem } from '../protocol';
import { el, icon } from './dom';
import { t } from './l10n';

const STATUS_ICONS: Record<PlanTodo['status'], string> = {
  pending: 'circle-large-outline',
  in_progress: 'arrow-circle-right',
  completed: 'pass-filled',
};

export interface PlanProgress {
  completed: number;
  total: number;
  active: PlanTodo | undefined;
}

export function planProgress(todos: readonly PlanTodo[]): PlanProgress {
  return { completed: todos.filter((todo) => todo.status === 'completed').length, total: todos.length, active: todos.find((todo) => todo.status === 'in_progress') };
}

/**
 * Issue 47 item 9: a finished plan has had its day once the next turn started: every item done, and a message that
 * started a turn after the plan's last write (todo_write). Such a plan folds to one line instead of staying pinned
 * open through unrelated later turns. A message steered into the running turn is not a next turn.
 */
export function finishedPlanOutlived(items: readonly TranscriptItem[], plan: readonly PlanTodo[] | undefined): boolean {
  if (!plan?.length || plan.some((todo) => todo.status !== 'completed')) return false;
  for (let i = items.length - 1; i >= 0; i--) {
    const item = items[i]!;
    if (item.kind === 'tool' && item.name === 'todo_write') return false;
    if (item.kind === 'user' && item.delivery !== 'steer' && item.unsent !== 'waiting_key') return true;
  }
  return false;
}

export class PlanView {
  readonly root = el('details', { class: 'plan', open: '' });
  private readonly count = el('span', { class: 'plan-count' });
  private readonly current = el('span', { class: 'plan-current' });
  private readonly list = el('ol', { class: 'plan-list' });
  private shown: readonly PlanTodo[] = [];
  private readonly summary: HTMLElement;
  /** This plan was folded for having been outlived (once: the user may open it again, and it stays open). */
  private foldedOutlived = false;

  constructor() {
    this.root.append(el('summary', { 'aria-expanded': 'true' }, icon('chevron-right', 'plan-chevron'), icon('checklist'), el('span', { class: 'plan-title' }, t('Plan')), this.count, this.current), this.list);
    this.summary = this.root.querySelector('summary')!;
    this.root.hidden = true;
    this.root.addEventListener('toggle', () => this.sayExpanded());
  }

  /** `outlived`: finished, and the next turn has started (finishedPlanOutlived). */
  update(todos: readonly PlanTodo[] | undefined, outlived = false): void {
    const plan = todos ?? [];
    // A list with new items (not only new statuses) is a new plan: show it even if the last one was folded.
    const renamed = plan.length !== this.shown.length || plan.some((todo, i) => todo.content !== this.shown[i]?.content);
    if (renamed && plan.length > 0) {
      this.root.open = true;
      this.foldedOutlived = false;
    }
    // Issue 47 item 9: a finished plan folds to one line once the next turn starts; a click or Enter opens it again.
    if (outlived && !this.foldedOutlived) this.root.open = false;
    this.foldedOutlived = outlived;
    this.sayExpanded();
    this.shown = plan;
    this.root.hidden = plan.length === 0;
    const { completed, total, active } = planProgress(plan);
    this.count.textContent = `${completed}/${total}`;
    this.count.setAttribute('aria-label', t('{0} of {1} done', completed, total));
    this.current.textContent = active ? active.content : '';
    // Issue 47 item 9: "Plan, 5 of 5 done" (and what is under way), never "Plan5/5".
    const progress = t('Plan, {0} of {1} done', completed, total);
    this.summary.setAttribute('aria-label', active ? t('{0}: {1}', progress, active.content) : progress);
    this.list.replaceChildren(
      ...plan.map((todo) =>
        el('li', { class: `plan-item plan-${todo.status.replace('_', '-')}` }, icon(STATUS_ICONS[todo.status]), el('span', { class: 'plan-text' }, todo.content), el('span', { class: 'sr-only' }, ` (${statusLabel(todo.status)})`)),
      ),
    );
  }

  /** Another session is shown: its plan, even with the same items, is new to this view. */
  forget(): void {
    this.shown = [];
    this.foldedOutlived = false;
  }

  /** Screen readers hear whether the list is shown; the summary's own state can lag behind a fold made here. */
  private sayExpanded(): void {
    const open = String(this.root.open);
    if (this.summary.getAttribute('aria-expanded') !== open) this.summary.setAttribute('aria-expanded', open);
  }
}

function statusLabel(status: PlanTodo['status']): string {
  switch (status) {
    case 'pending':
      return t('pending');
    case 'in_progress':
      return t('in progress');
    case 'completed':
      return t('done');
  }
}
