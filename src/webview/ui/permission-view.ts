// A permission request, built only from a `permission` item the host created:
// nothing a model writes can produce its buttons. Inside its tool's card once
// that card exists (one card per tool); one line once answered. The words are
// the dialog's and the notification's (approval-wording.ts, issue 25.4).
import { alwaysAllowLabel, approvalLabels, ruleFitsButton } from '../approval-wording';
import { type PermissionDecision, type PermissionSettlement, type TranscriptItem } from '../protocol';
import { article, button, el, firstLine, icon } from './dom';
import { type ItemView, type Post, type ToolCard } from './item-view';
import { t } from './l10n';

const L = approvalLabels(t);

type PermissionItem = Extract<TranscriptItem, { kind: 'permission' }>;

const SETTLED_TEXT: Record<PermissionDecision, string> = { allow: t('Allowed'), allow_session: t('Allowed edits for this session'), allow_always: t('Always allowed'), deny: t('Denied') };

/** One line for an answered request: what was decided, where, and what it saved or said. */
function settledText(settled: PermissionSettlement): string {
  const decided = decidedWhere(SETTLED_TEXT[settled.decision], settled.by);
  if (settled.decision === 'allow_always' && settled.rule) return t('{0}: {1} saved to the workspace settings', decided, settled.rule);
  return settled.feedback ? `${decided}: ${settled.feedback}` : decided;
}

/** "Allowed in the dialog": the decision with where it was made (the panel's own card says nothing more). */
function decidedWhere(decision: string, by: PermissionSettlement['by']): string {
  switch (by) {
    case 'dialog':
      return t('{0} in the dialog', decision);
    case 'editor':
      return t('{0} in the diff editor', decision);
    case 'palette':
      return t('{0} from the command palette', decision);
    case 'policy':
      return t('{0} by a rule', decision);
    case 'abort':
      return t('{0} (turn stopped)', decision);
    case 'panel':
    case undefined:
      return decision;
  }
}

export class PermissionView implements ItemView {
  readonly root = article('permission', t('Permission request'));
  private pendingDecision: PermissionDecision | undefined;
  private feedbackOpen = false;
  private readonly feedback = el('textarea', { class: 'feedback', rows: '2', placeholder: t('Tell the agent what to do instead…'), 'aria-label': t('Feedback for the agent') });
  private item: PermissionItem | undefined;
  /** The tool card this request renders inside (it already names the command or file). */
  private card: ToolCard | undefined;

  constructor(private readonly post: Post) {
    this.root.setAttribute('role', 'group');
    this.feedback.addEventListener('keydown', (e) => {
      if (e.key === 'Enter' && !e.shiftKey && !e.isComposing) {
        e.preventDefault();
        this.decide('deny', this.feedback.value.trim());
      } else if (e.key === 'Escape') {
        // The box closes; the keyboard stays on the card (a second Escape goes to the composer), never on the page.
        e.preventDefault();
        e.stopPropagation();
        this.feedbackOpen = false;
        if (this.item) this.update(this.item);
        this.root.querySelector<HTMLButtonElement>('button.perm-feedback')?.focus();
      }
    });
  }

  /** Moves this request into its tool's card. */
  nestIn(card: ToolCard): void {
    this.card = card;
    this.root.classList.add('nested');
    card.approval.append(this.root);
    if (this.item) this.update(this.item);
  }

  update(item: TranscriptItem): void {
    const it = (this.item = item as PermissionItem);
    const settled = it.settled;
    this.card?.setWaiting(!settled);
    this.root.classList.toggle('settled', !!settled);
    this.root.dataset.decision = settled?.decision ?? '';
    if (settled) {
      // Answered: one line, no buttons left to press.
      const text = settledText(settled);
      this.root.replaceChildren(
        el('div', { class: 'perm-state', role: 'status' }, icon(settled.decision === 'deny' ? 'circle-slash' : 'check'), el('span', { class: 'perm-state-text', title: text }, text)),
      );
      if (!this.card) this.root.prepend(el('div', { class: 'perm-title' }, icon('shield'), el('span', {}, it.title), el('code', { class: 'perm-subject-line', title: firstLine(it.subject) }, firstLine(it.subject))));
      return;
    }
    const locked = !!settled || this.pendingDecision !== undefined;
    const rule = it.rule;
    // The same words as the dialog and the notification (approval-wording.ts).
    const buttons: HTMLButtonElement[] = [
      button(L.allow, () => this.decide('allow'), { icon: 'check', cls: 'perm-allow' }),
      ...(it.canAllowSession ? [button(L.allowEditsForSession, () => this.decide('allow_session'), { secondary: true, cls: 'perm-allow-session' })] : []),
      ...(rule ? [button(alwaysAllowLabel(rule, t), () => this.decide('allow_always'), { secondary: true, cls: 'perm-allow-always', title: t('Allow, and save the rule {0} to the workspace settings (turnstone.permissions.allow)', rule) })] : []),
      button(L.deny, () => this.decide('deny'), { secondary: true, cls: 'perm-deny' }),
      button(L.denyWithFeedback, () => this.openFeedback(), { secondary: true, cls: 'perm-feedback' }),
    ];
    for (const b of buttons) b.disabled = locked;
    // The workbench's keybindings for the waiting request (package.json; issue 47 item 1).
    buttons[0]!.setAttribute('aria-keyshortcuts', 'Control+Alt+Enter Meta+Alt+Enter');
    buttons.at(-2)!.setAttribute('aria-keyshortcuts', 'Control+Alt+Backspace Meta+Alt+Backspace');
    // The proposal's diff tab closes once the request is settled: nothing left to open. It opens read-only.
    const diff = it.canOpenDiff ? button(t('Open diff'), () => this.post({ type: 'open_diff', requestId: it.id, ...(it.toolId ? { toolId: it.toolId } : {}) }), { icon: 'diff', secondary: true, cls: 'perm-diff' }) : '';
    const edit = it.canOpenDiff && !it.editing && !locked ? button(L.editProposal, () => this.post({ type: 'edit_proposal', requestId: it.id }), { icon: 'edit', secondary: true, cls: 'perm-edit', title: t('Make the proposal editable in the diff editor: what you change there is what gets written when you allow it') }) : '';
    const state = this.pendingDecision ? `${SETTLED_TEXT[this.pendingDecision]}…` : '';
    const feedbackRow = this.feedbackOpen && !locked
      ? el('div', { class: 'feedback-row' }, this.feedback, button(t('Send feedback'), () => this.decide('deny', this.feedback.value.trim()), { icon: 'send', cls: 'perm-send-feedback' }))
      : '';
    this.root.replaceChildren(
      el('div', { class: 'perm-title' }, icon('shield'), el('span', {}, it.title)),
      // Inside its tool card the subject is already in the card's header (multi-line commands in full below it).
      this.card ? '' : el('pre', { class: 'perm-subject' }, it.subject),
      it.reason ? el('div', { class: 'hint perm-reason' }, it.reason) : '',
      // The server's own words about its tool, apart from why Turnstone asks.
      it.description ? el('details', { class: 'perm-description' }, el('summary', {}, t('Tool description (from the server)')), el('div', { class: 'perm-description-text' }, it.description)) : '',
      it.editing ? el('div', { class: 'hint perm-editing' }, icon('edit'), ` ${t('The proposal is editable in the diff editor: what you change there is written when you allow it.')}`) : '',
      el('div', { class: 'perm-actions' }, ...buttons, diff, edit),
      rule && !ruleFitsButton(rule) ? el('div', { class: 'hint perm-rule' }, `${t('The rule it saves:')} `, el('code', {}, rule)) : '',
      feedbackRow,
      state ? el('div', { class: 'perm-state', role: 'status' }, state) : '',
    );
    if (feedbackRow) this.feedback.focus();
  }

  private openFeedback(): void {
    this.feedbackOpen = true;
    if (this.item) this.update(this.item);
  }

  private decide(decision: PermissionDecision, feedback?: string): void {
    const it = this.item;
    if (!it || it.settled || this.pendingDecision) return;
    this.pendingDecision = decision;
    this.feedbackOpen = false;
    this.post({ type: 'permission_decision', requestId: it.id, decision, ...(feedback ? { feedback } : {}) });
    this.update(it);
  }
}

