// The input box. Enter sends (or, while a turn runs, steers it); Alt+Enter or
// the Queue button queues for the next turn; Shift+Enter is a new line. `@`
// opens a picker over the whole workspace (files, folders, @problems,
// @terminal, @git, the selection); `/` at the start lists slash commands.
import { type Attachment, type QueuedInput, type SlashCommandInfo, type TurnState } from '../protocol';
import { button, el, formatTokens, icon } from './dom';
import { chipIcon, chipLabel } from './chips';
import { ImageAttach } from './image-attach';
import { type Post } from './item-view';
import { MentionPicker } from './mention-picker';
import { SlashMenu } from './slash-menu';
import { t } from './l10n';


export class Composer {
  readonly root = el('form', { class: 'composer', 'aria-label': t('Message') });
  readonly input = el('textarea', { class: 'input', rows: '3', 'aria-label': t('Message Turnstone') });
  private readonly queuedRow = el('div', { class: 'queued', 'aria-label': t('Queued for the next turn') });
  private readonly chipsRow = el('div', { class: 'attachments', 'aria-label': t('Attached context') });
  /** What an attachment cannot include (e.g. @terminal without shell integration), said in words under the chips. */
  private readonly notesRow = el('div', { class: 'attachment-notes', role: 'status' });
  private readonly notes = new WeakMap<Attachment, string>();
  private readonly sendButton = button(t('Send'), () => this.submit('enter'), { icon: 'send', iconOnly: true, cls: 'send' });
  private readonly queueButton = button(t('Queue'), () => this.submit('queue'), { icon: 'list-ordered', secondary: true, cls: 'queue', title: t('Queue for the next turn (Alt+Enter)') });
  private readonly stopButton = button(t('Stop'), () => this.post({ type: 'stop' }), { icon: 'debug-stop', secondary: true, cls: 'stop', title: t('Stop the running turn') });
  private readonly mentions: MentionPicker;
  private readonly slash: SlashMenu;
  private attachments: Attachment[] = [];
  /** Pasted or dropped images (image-attach.ts); sent with the next message that starts a turn. */
  readonly images = new ImageAttach(() => this.onDraftChange());
  private turn: TurnState = 'idle';

  constructor(
    private readonly post: Post,
    private readonly onDraftChange: () => void,
  ) {
    this.mentions = new MentionPicker(this.input, post, (a) => {
      this.addAttachment(a);
      this.input.focus();
      this.onDraftChange();
    });
    this.slash = new SlashMenu(this.input, post, () => this.onDraftChange());
    const attach = button(t('Attach context (@)'), () => {
      this.slash.close();
      this.mentions.open(-1);
      this.input.focus();
    }, { icon: 'mention', iconOnly: true, cls: 'attach' });
    this.root.append(
      this.queuedRow,
      this.chipsRow,
      this.notesRow,
      this.images.root,
      this.mentions.list.root,
      this.slash.list.root,
      this.input,
      // Stop, Queue and Send stay together: at 300 px, while a turn runs, they wrap as one group to a line of their own.
      el('div', { class: 'composer-actions' }, attach, el('span', { class: 'spacer' }), el('span', { class: 'send-group' }, this.stopButton, this.queueButton, this.sendButton)),
    );
    this.root.addEventListener('submit', (e) => {
      e.preventDefault();
      this.submit('enter');
    });
    this.input.addEventListener('keydown', (e) => this.onKeyDown(e));
    this.input.addEventListener('paste', (e) => this.takeFiles(e, e.clipboardData));
    this.root.addEventListener('dragover', (e) => {
      if (e.dataTransfer?.types.includes('Files')) e.preventDefault();
    });
    this.root.addEventListener('drop', (e) => this.takeFiles(e, e.dataTransfer));
    this.input.addEventListener('input', () => {
      this.recallIndex = -1;
      this.mentions.onInput();
      if (!this.mentions.isOpen) this.slash.onInput();
      this.onDraftChange();
    });
    // Leaving the box closes the lists (a click on an option keeps focus: it uses mousedown).
    this.input.addEventListener('blur', () => {
      this.mentions.close();
      this.slash.close();
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
    this.sendButton.title = running ? t('Steer the running turn (Enter)') : t('Send (Enter)');
    this.sendButton.setAttribute('aria-label', running ? t('Steer') : t('Send'));
    this.input.placeholder = running
      ? t('Steer the running turn (Enter) or queue for the next (Alt+Enter)…')
      : t('Ask Turnstone… (Enter to send, Shift+Enter for a new line, @ to attach, / for commands)');
  }

  setQueued(items: QueuedInput[]): void {
    this.queuedRow.replaceChildren(
      ...items.map((q) =>
        el('span', { class: 'chip queued-item', title: q.text }, icon('clock'), el('span', { class: 'chip-text' }, q.text),
          button(t('Remove from queue'), () => this.post({ type: 'unqueue', id: q.id }), { icon: 'close', iconOnly: true })),
      ),
    );
    this.queuedRow.hidden = items.length === 0;
  }

  setCandidates(candidates: Attachment[], query?: string): void {
    this.mentions.setCandidates(candidates, query);
  }

  setSlashCommands(commands: SlashCommandInfo[]): void {
    this.slash.setCommands(commands);
  }

  /** The host measured an attachment: its chip shows the token estimate, and what it cannot include. */
  setMeasured(kind: Attachment['kind'], path: string, tokens: number, note?: string): void {
    let changed = false;
    for (const a of this.attachments) {
      if (a.kind === kind && a.path === path && (a.tokens !== tokens || this.notes.get(a) !== note)) {
        a.tokens = tokens;
        if (note) this.notes.set(a, note);
        else this.notes.delete(a);
        changed = true;
      }
    }
    if (changed) {
      this.renderChips();
      this.onDraftChange();
    }
  }

  /** Files pasted or dropped: they become images here (text pastes keep their default). */
  private takeFiles(e: Event, data: DataTransfer | null): void {
    const files = ImageAttach.filesOf(data);
    if (files.length === 0) return;
    e.preventDefault();
    void this.images.add(files);
  }

  private submit(how: 'enter' | 'queue'): void {
    const text = this.input.value.trim();
    if (!text) {
      if (this.images.count > 0) this.images.say(t('Add a few words about the image to send it.'));
      return;
    }
    const type = this.turn !== 'running' ? 'send' : how === 'queue' ? 'queue' : 'steer';
    // Images start a turn; while one runs they wait in the composer for the next send.
    const images = type === 'send' ? this.images.take() : [];
    const attachments = this.attachments.map(({ tokens: _tokens, ...a }) => a);
    this.post(images.length > 0 ? { type: 'send', text, attachments, images } : { type, text, attachments });
    this.input.value = '';
    this.attachments = [];
    this.renderChips();
    this.mentions.close();
    this.slash.close();
    this.onDraftChange();
  }

  private onKeyDown(e: KeyboardEvent): void {
    // Ctrl+Alt+Enter / Ctrl+Alt+Backspace (Cmd on macOS) answer a waiting approval (main.ts, issue 47 item 1):
    // here they neither send, queue nor delete.
    if ((e.ctrlKey || e.metaKey) && e.altKey && (e.key === 'Enter' || e.key === 'Backspace')) return;
    if (!e.isComposing && (this.mentions.handleKey(e) || this.slash.handleKey(e))) {
      e.preventDefault();
      e.stopPropagation();
      return;
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

  private addAttachment(a: Attachment): void {
    if (this.attachments.some((x) => x.kind === a.kind && x.path === a.path && x.label === a.label)) return;
    const copy = { ...a };
    this.attachments.push(copy);
    this.renderChips();
    if (copy.tokens === undefined) this.post({ type: 'attach_measure', attachment: copy });
  }

  private renderChips(): void {
    this.chipsRow.replaceChildren(
      ...this.attachments.map((a, i) => {
        const tokens = a.tokens === undefined ? t('measuring…') : a.tokens === 1 ? t('~1 token') : t('~{0} tokens', formatTokens(a.tokens));
        const note = this.notes.get(a);
        return el('span', { class: `chip chip-${a.kind}${note ? ' chip-limited' : ''}`, title: `${a.path}\n${tokens}${note ? `\n${note}` : ''}` }, icon(chipIcon(a)), el('span', { class: 'chip-text' }, chipLabel(a)),
          note ? el('span', { class: 'chip-note', role: 'img', 'aria-label': note }, icon('warning')) : '',
          el('span', { class: 'chip-tokens', 'aria-label': tokens }, a.tokens !== undefined ? `~${formatTokens(a.tokens)}` : '…'),
          button(t('Remove {0}', chipLabel(a)), () => {
            this.attachments.splice(i, 1);
            this.renderChips();
            this.onDraftChange();
          }, { icon: 'close', iconOnly: true }));
      }),
    );
    this.chipsRow.hidden = this.attachments.length === 0;
    const notes = this.attachments.flatMap((a) => {
      const note = this.notes.get(a);
      return note ? [el('div', { class: 'attachment-note' }, icon('warning'), el('span', {}, `${chipLabel(a)}: ${note}`))] : [];
    });
    this.notesRow.replaceChildren(...notes);
    this.notesRow.hidden = notes.length === 0;
  }
}
