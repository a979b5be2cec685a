// The input box. Enter sends (or, while a turn runs, steers it); Alt+Enter or
// the Queue button queues for the next turn; Shift+Enter is a new line. `@`
// opens a picker of what the host can attach (open files, the selection).
import { type Attachment, type QueuedInput, type TurnState } from '../protocol';
import { button, el, icon } from './dom';
import { type Post } from './items';

export class Composer {
  readonly root = el('form', { class: 'composer', 'aria-label': 'Message' });
  readonly input = el('textarea', { class: 'input', rows: '3', 'aria-label': 'Message Turnstone' });
  private readonly queuedRow = el('div', { class: 'queued', 'aria-label': 'Queued for the next turn' });
  private readonly chipsRow = el('div', { class: 'attachments' });
  private readonly picker = el('div', { class: 'picker', role: 'listbox', 'aria-label': 'Attach context', hidden: '' });
  private readonly sendButton = button('Send', () => this.submit('enter'), { icon: 'send', iconOnly: true, cls: 'send' });
  private readonly queueButton = button('Queue', () => this.submit('queue'), { icon: 'list-ordered', secondary: true, cls: 'queue', title: 'Queue for the next turn (Alt+Enter)' });
  private readonly stopButton = button('Stop', () => this.post({ type: 'stop' }), { icon: 'debug-stop', secondary: true, cls: 'stop', title: 'Stop the running turn' });
  private attachments: Attachment[] = [];
  private candidates: Attachment[] = [];
  private pickerIndex = 0;
  /** Where the `@` that opened the picker sits in the text. */
  private mentionAt = -1;
  private turn: TurnState = 'idle';

  constructor(
    private readonly post: Post,
    private readonly onDraftChange: () => void,
  ) {
    const attach = button('Attach file or selection (@)', () => this.openPicker(-1), { icon: 'mention', iconOnly: true, cls: 'attach' });
    this.root.append(
      this.queuedRow,
      this.chipsRow,
      this.picker,
      this.input,
      el('div', { class: 'composer-actions' }, attach, el('span', { class: 'spacer' }), this.stopButton, this.queueButton, this.sendButton),
    );
    this.root.addEventListener('submit', (e) => {
      e.preventDefault();
      this.submit('enter');
    });
    this.input.addEventListener('keydown', (e) => this.onKeyDown(e));
    this.input.addEventListener('input', () => {
      this.recallIndex = -1;
      this.onInput();
      this.onDraftChange();
    });
    this.setTurn('idle');
    this.renderChips();
  }

  get draft(): { text: string; attachments: Attachment[] } {
    return { text: this.input.value, attachments: this.attachments };
  }

  setDraft(text: string, attachments: Attachment[]): void {
    this.input.value = text;
    this.attachments = [...attachments];
    this.renderChips();
  }

  compose(text: string | undefined, attachments: Attachment[] | undefined, focus: boolean): void {
    if (text !== undefined) this.input.value = text;
    if (attachments) for (const a of attachments) this.addAttachment(a);
    if (focus) this.input.focus();
    this.onDraftChange();
  }

  setTurn(turn: TurnState): void {
    this.turn = turn;
    const running = turn === 'running';
    this.root.classList.toggle('running', running);
    this.stopButton.hidden = !running;
    this.queueButton.hidden = !running;
    this.sendButton.title = running ? 'Steer the running turn (Enter)' : 'Send (Enter)';
    this.sendButton.setAttribute('aria-label', running ? 'Steer' : 'Send');
    this.input.placeholder = running
      ? 'Steer the running turn (Enter) or queue for the next (Alt+Enter)…'
      : 'Ask Turnstone… (Enter to send, Shift+Enter for a new line, @ to attach)';
  }

  setQueued(items: QueuedInput[]): void {
    this.queuedRow.replaceChildren(
      ...items.map((q) =>
        el('span', { class: 'chip queued-item', title: q.text }, icon('clock'), el('span', { class: 'chip-text' }, q.text),
          button('Remove from queue', () => this.post({ type: 'unqueue', id: q.id }), { icon: 'close', iconOnly: true })),
      ),
    );
    this.queuedRow.hidden = items.length === 0;
  }

  setCandidates(candidates: Attachment[]): void {
    this.candidates = candidates;
    this.pickerIndex = 0;
    if (!this.picker.hidden) this.renderPicker();
  }

  private submit(how: 'enter' | 'queue'): void {
    const text = this.input.value.trim();
    if (!text) return;
    const attachments = this.attachments;
    const type = this.turn !== 'running' ? 'send' : how === 'queue' ? 'queue' : 'steer';
    this.post({ type, text, attachments });
    this.input.value = '';
    this.attachments = [];
    this.renderChips();
    this.closePicker();
    this.onDraftChange();
  }

  private onKeyDown(e: KeyboardEvent): void {
    if (!this.picker.hidden) {
      const shown = this.filtered();
      if (e.key === 'ArrowDown' || e.key === 'ArrowUp') {
        e.preventDefault();
        if (shown.length) this.pickerIndex = (this.pickerIndex + (e.key === 'ArrowDown' ? 1 : shown.length - 1)) % shown.length;
        this.renderPicker();
        return;
      }
      if ((e.key === 'Enter' || e.key === 'Tab') && shown.length) {
        e.preventDefault();
        this.choose(shown[this.pickerIndex] ?? shown[0]!);
        return;
      }
      if (e.key === 'Escape') {
        e.preventDefault();
        this.closePicker();
        return;
      }
    }
    if (e.key === 'Enter' && !e.shiftKey && !e.isComposing) {
      e.preventDefault();
      this.submit(e.altKey ? 'queue' : 'enter');
    } else if (e.key === 'Escape' && this.turn === 'running') {
      e.preventDefault();
      this.post({ type: 'stop' });
    } else if ((e.key === 'ArrowUp' || e.key === 'ArrowDown') && !e.shiftKey && !e.altKey && !e.isComposing && this.recallPrompt(e.key === 'ArrowUp' ? -1 : 1)) {
      e.preventDefault();
    }
  }

  /** Earlier prompts, oldest first (the host's transcript: survives reloads and resumes). */
  prompts: () => readonly string[] = () => [];
  private recallIndex = -1;
  private recallDraft = '';

  /** ArrowUp on the first line / ArrowDown on the last line walks through earlier prompts, as a shell does. */
  private recallPrompt(step: -1 | 1): boolean {
    const v = this.input.value;
    const caret = this.input.selectionStart ?? 0;
    if (caret !== (this.input.selectionEnd ?? caret)) return false;
    if (step < 0 ? v.lastIndexOf('\n', caret - 1) >= 0 : v.indexOf('\n', caret) >= 0) return false;
    const list = this.prompts();
    if (list.length === 0) return false;
    if (this.recallIndex < 0) {
      if (step > 0) return false;
      this.recallDraft = v;
      this.recallIndex = list.length;
    }
    const next = this.recallIndex + step;
    if (next < 0) return true;
    this.recallIndex = next;
    this.input.value = next >= list.length ? this.recallDraft : list[next]!;
    if (next >= list.length) this.recallIndex = -1;
    const end = step < 0 ? 0 : this.input.value.length;
    this.input.setSelectionRange(end, end);
    return true;
  }

  private onInput(): void {
    const caret = this.input.selectionStart ?? 0;
    const text = this.input.value;
    if (this.mentionAt >= 0) {
      // Close when the `@query` was deleted or left behind.
      if (caret <= this.mentionAt || text[this.mentionAt] !== '@' || /\s/.test(text.slice(this.mentionAt + 1, caret))) this.closePicker();
      else this.renderPicker();
      return;
    }
    if (text[caret - 1] === '@' && (caret === 1 || /\s/.test(text[caret - 2] ?? ''))) this.openPicker(caret - 1);
  }

  private openPicker(at: number): void {
    this.mentionAt = at;
    this.candidates = [];
    this.pickerIndex = 0;
    this.picker.hidden = false;
    this.input.setAttribute('aria-expanded', 'true');
    this.renderPicker();
    this.post({ type: 'attach', query: '' });
    if (at < 0) this.input.focus();
  }

  private closePicker(): void {
    this.picker.hidden = true;
    this.mentionAt = -1;
    this.input.setAttribute('aria-expanded', 'false');
  }

  private query(): string {
    if (this.mentionAt < 0) return '';
    return this.input.value.slice(this.mentionAt + 1, this.input.selectionStart ?? undefined).toLowerCase();
  }

  private filtered(): Attachment[] {
    const q = this.query();
    return this.candidates.filter((c) => !q || c.label.toLowerCase().includes(q) || c.path.toLowerCase().includes(q)).slice(0, 30);
  }

  private renderPicker(): void {
    const shown = this.filtered();
    if (shown.length === 0) {
      this.picker.replaceChildren(el('div', { class: 'picker-empty' }, this.candidates.length ? 'No match' : 'Loading open files…'));
      return;
    }
    this.pickerIndex = Math.min(this.pickerIndex, shown.length - 1);
    this.picker.replaceChildren(
      ...shown.map((c, i) => {
        const option = el('div', { class: 'picker-option', role: 'option', 'aria-selected': String(i === this.pickerIndex), title: c.path },
          icon(c.kind === 'selection' ? 'selection' : 'file'), el('span', { class: 'picker-label' }, c.label), el('span', { class: 'picker-path' }, c.path));
        // mousedown, not click: keep focus (and the caret) in the textarea.
        option.addEventListener('mousedown', (e) => {
          e.preventDefault();
          this.choose(c);
        });
        return option;
      }),
    );
  }

  private choose(c: Attachment): void {
    if (this.mentionAt >= 0) {
      const end = this.input.selectionStart ?? this.mentionAt + 1;
      this.input.value = this.input.value.slice(0, this.mentionAt) + this.input.value.slice(end);
      this.input.setSelectionRange(this.mentionAt, this.mentionAt);
    }
    this.addAttachment(c);
    this.closePicker();
    this.input.focus();
    this.onDraftChange();
  }

  private addAttachment(a: Attachment): void {
    if (!this.attachments.some((x) => x.path === a.path && x.label === a.label)) this.attachments.push(a);
    this.renderChips();
  }

  private renderChips(): void {
    this.chipsRow.replaceChildren(
      ...this.attachments.map((a, i) =>
        el('span', { class: 'chip', title: a.path }, icon(a.kind === 'selection' ? 'selection' : 'file'), el('span', { class: 'chip-text' }, a.label),
          button(`Remove ${a.label}`, () => {
            this.attachments.splice(i, 1);
            this.renderChips();
            this.onDraftChange();
          }, { icon: 'close', iconOnly: true })),
      ),
    );
    this.chipsRow.hidden = this.attachments.length === 0;
  }
}
