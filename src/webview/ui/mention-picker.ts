// The `@` picker: typing `@` at a word start asks the host for candidates
// (every workspace file and folder, ranked by the host's fuzzy matcher, plus
// @problems, @terminal, @git and the selection); each keystroke re-asks with
// the text after `@`. Choosing one removes the `@query` from the text and
// hands the attachment to the composer as a chip.
import { type Attachment } from '../protocol';
import { type Post } from './item-view';
import { SuggestList, type Suggestion } from './suggest-list';
import { t } from './l10n';

const ICONS: Record<Attachment['kind'], string> = { file: 'file', selection: 'selection', folder: 'folder', problems: 'warning', terminal: 'terminal', git: 'git-compare' };

export class MentionPicker {
  readonly list: SuggestList;
  private candidates: Attachment[] = [];
  /** The query the host ranked `candidates` for; undefined when unknown. */
  private rankedFor: string | undefined;
  /** Where the `@` that opened the picker sits in the text; -1 when opened by the button. */
  private at = -1;
  private asked: string | undefined;
  private visible: Attachment[] = [];
  private answered = false;

  constructor(
    private readonly input: HTMLTextAreaElement,
    private readonly post: Post,
    private readonly onPick: (a: Attachment) => void,
  ) {
    this.list = new SuggestList(input, t('Attach context'), (i) => this.choose(i));
  }

  get isOpen(): boolean {
    return this.list.isOpen;
  }

  /** After each edit: opens on a fresh `@`, follows the query, closes when the `@query` is gone. */
  onInput(): void {
    const caret = this.input.selectionStart ?? 0;
    const text = this.input.value;
    if (this.isOpen && this.at >= 0) {
      if (caret <= this.at || text[this.at] !== '@' || /\s/.test(text.slice(this.at + 1, caret))) this.close();
      else {
        this.render();
        this.ask();
      }
      return;
    }
    if (text[caret - 1] === '@' && (caret === 1 || /\s/.test(text[caret - 2] ?? ''))) this.open(caret - 1);
  }

  /** `at` < 0: opened by the button, with no `@` in the text. */
  open(at: number): void {
    this.at = at;
    this.candidates = [];
    this.rankedFor = undefined;
    this.answered = false;
    this.asked = undefined;
    this.list.open();
    this.render();
    this.ask();
  }

  close(): void {
    this.list.close();
    this.at = -1;
  }

  handleKey(e: KeyboardEvent): boolean {
    return this.list.handleKey(e);
  }

  /** The host's answer; an answer to an older query is dropped. */
  setCandidates(candidates: Attachment[], query: string | undefined): void {
    // An older query's answer is still shown (filtered below) until the current one arrives.
    if (query !== undefined && this.answered && this.rankedFor === this.query() && query !== this.query()) return;
    this.candidates = candidates;
    this.rankedFor = query;
    this.answered = true;
    if (this.isOpen) this.render();
  }

  private query(): string {
    if (this.at < 0) return '';
    return this.input.value.slice(this.at + 1, this.input.selectionStart ?? undefined);
  }

  private ask(): void {
    const q = this.query();
    if (q === this.asked) return;
    this.asked = q;
    this.post({ type: 'attach', query: q });
  }

  /** The host's ranking for this query, or, until it arrives, the last answer narrowed to what still matches. */
  private shown(): Attachment[] {
    const q = this.query().toLowerCase();
    if (this.rankedFor === this.query() || !q) return this.candidates;
    return this.candidates.filter((c) => isSubsequence(q, c.label.toLowerCase()) || isSubsequence(q, c.path.toLowerCase()));
  }

  private render(): void {
    const q = this.query();
    this.visible = this.shown();
    const items = this.visible.map((c): Suggestion => {
      const special = c.kind === 'problems' || c.kind === 'terminal' || c.kind === 'git';
      return {
        icon: ICONS[c.kind],
        label: special ? `@${c.label}` : c.label,
        ...(c.path !== c.label ? { detail: c.path } : {}),
        ...(c.kind === 'folder' ? { tag: t('folder') } : c.kind === 'selection' ? { tag: t('selection') } : {}),
        query: special ? '' : q,
      };
    });
    this.list.set(items, this.answered ? t('No match') : t('Searching the workspace…'));
  }

  private choose(i: number): void {
    const c = this.visible[i];
    if (!c) return;
    if (this.at >= 0) {
      const end = this.input.selectionStart ?? this.at + 1;
      this.input.value = this.input.value.slice(0, this.at) + this.input.value.slice(end);
      this.input.setSelectionRange(this.at, this.at);
    }
    this.close();
    this.onPick(c);
  }
}

function isSubsequence(q: string, s: string): boolean {
  let i = 0;
  for (let j = 0; j < s.length && i < q.length; j++) if (s[j] === q[i]) i++;
  return i === q.length;
}
