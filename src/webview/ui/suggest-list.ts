// A suggestion list under the composer's text box (the `@` picker and the `/`
// menu): an ARIA listbox the text box controls as a combobox, driven from the
// keyboard while focus stays in the text box (↑/↓ move, Enter/Tab choose,
// Escape closes), and by mouse.
import { el, icon } from './dom';

export interface Suggestion {
  icon: string;
  label: string;
  /** Shown dimmed after the label (a path, a description). */
  detail?: string;
  /** Shown at the end (e.g. "folder", "custom"). */
  tag?: string;
  /** Characters of `label` to emphasise (the query matched them). */
  query?: string;
}

let lists = 0;

export class SuggestList {
  readonly root: HTMLDivElement;
  private items: Suggestion[] = [];
  private index = 0;
  private readonly id = `suggest-${++lists}`;

  constructor(
    private readonly input: HTMLTextAreaElement,
    label: string,
    private readonly onChoose: (index: number) => void,
    cls = 'picker',
  ) {
    this.root = el('div', { class: cls, role: 'listbox', id: this.id, 'aria-label': label, hidden: '' });
    input.setAttribute('role', 'combobox');
    input.setAttribute('aria-autocomplete', 'list');
    input.setAttribute('aria-expanded', 'false');
  }

  get isOpen(): boolean {
    return !this.root.hidden;
  }

  get selected(): number {
    return this.index;
  }

  open(): void {
    this.root.hidden = false;
    this.input.setAttribute('aria-expanded', 'true');
    this.input.setAttribute('aria-controls', this.id);
  }

  close(): void {
    if (this.root.hidden) return;
    this.root.hidden = true;
    this.input.setAttribute('aria-expanded', 'false');
    this.input.removeAttribute('aria-activedescendant');
  }

  /** Replaces the options; `empty` is shown when there are none. */
  set(items: Suggestion[], empty: string, keepIndex = false): void {
    this.items = items;
    if (!keepIndex) this.index = 0;
    this.index = Math.max(0, Math.min(this.index, items.length - 1));
    this.render(empty);
  }

  /** ↑/↓/Enter/Tab/Escape while open; true when the key was used. */
  handleKey(e: KeyboardEvent): boolean {
    if (!this.isOpen) return false;
    const n = this.items.length;
    if (e.key === 'ArrowDown' || e.key === 'ArrowUp') {
      if (n) this.index = (this.index + (e.key === 'ArrowDown' ? 1 : n - 1)) % n;
      this.markSelected();
      return true;
    }
    if ((e.key === 'Enter' || e.key === 'Tab') && !e.shiftKey && n) {
      this.onChoose(this.index);
      return true;
    }
    if (e.key === 'Escape') {
      this.close();
      return true;
    }
    return false;
  }

  private render(empty: string): void {
    if (this.items.length === 0) {
      this.root.replaceChildren(el('div', { class: 'picker-empty', role: 'presentation' }, empty));
      this.input.removeAttribute('aria-activedescendant');
      return;
    }
    this.root.replaceChildren(
      ...this.items.map((s, i) => {
        const option = el('div', { class: 'picker-option', role: 'option', id: `${this.id}-${i}`, 'aria-selected': 'false', title: s.detail ?? s.label },
          icon(s.icon), el('span', { class: 'picker-label' }, ...highlighted(s.label, s.query ?? '')),
          s.detail ? el('span', { class: 'picker-path' }, s.detail) : undefined,
          s.tag ? el('span', { class: 'picker-kind' }, s.tag) : undefined);
        // mousedown, not click: keep focus (and the caret) in the text box.
        option.addEventListener('mousedown', (e) => {
          e.preventDefault();
          this.index = i;
          this.onChoose(i);
        });
        return option;
      }),
    );
    this.markSelected();
  }

  private markSelected(): void {
    const options = this.root.querySelectorAll('[role="option"]');
    options.forEach((o, i) => o.setAttribute('aria-selected', String(i === this.index)));
    const current = options[this.index];
    if (current) {
      this.input.setAttribute('aria-activedescendant', current.id);
      current.scrollIntoView({ block: 'nearest' });
    }
  }
}

/** The label with the query's characters (in order, case-insensitive) in <mark>; text nodes only. */
function highlighted(label: string, query: string): (string | Node)[] {
  const q = query.toLowerCase();
  if (!q) return [label];
  const out: (string | Node)[] = [];
  let qi = 0;
  let plain = '';
  for (const ch of label) {
    if (qi < q.length && ch.toLowerCase() === q[qi]) {
      if (plain) out.push(plain);
      plain = '';
      out.push(el('mark', {}, ch));
      qi++;
    } else plain += ch;
  }
  if (plain) out.push(plain);
  return qi === q.length ? out : [label];
}
