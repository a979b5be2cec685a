// The header chip naming the project instruction files in the system prompt
// (AGENTS.md, CLAUDE.md…). One file: the chip opens it. Several: it opens a
// small list of them. In Restricted Mode the chip says they are read there
// too, with only plan mode running.
import { type HostEvent } from '../protocol';
import { button, el, formatInt, icon } from './dom';
import { type Post } from './item-view';
import { t } from './l10n';

type InstructionsEvent = Extract<HostEvent, { type: 'instructions' }>;

export class InstructionsChip {
  readonly root = el('div', { class: 'instructions-chip' });
  private readonly toggle: HTMLButtonElement;
  private readonly list = el('div', { class: 'instructions-list', role: 'menu', 'aria-label': t('Instruction files in use'), hidden: '' });
  private files: InstructionsEvent['files'] = [];
  /** Rules were applied: the list (which names them) opens instead of the one file. */
  private listAlways = false;

  constructor(private readonly post: Post) {
    this.toggle = button(t('Instructions'), () => this.onToggle(), { icon: 'book', secondary: true, cls: 'instructions' });
    this.toggle.setAttribute('aria-haspopup', 'menu');
    this.toggle.setAttribute('aria-expanded', 'false');
    this.root.append(this.toggle, this.list);
    this.root.hidden = true;
    this.list.addEventListener('keydown', (e) => this.onListKey(e));
    document.addEventListener('mousedown', (e) => {
      if (!this.list.hidden && !this.root.contains(e.target as Node)) this.close();
    });
  }

  update(event: InstructionsEvent): void {
    this.files = event.files;
    const applied = event.applied ?? [];
    this.root.hidden = event.files.length === 0 && applied.length === 0;
    const label = this.toggle.querySelector('.label');
    const n = event.files.length;
    // With rules applied, the list opens (it says which), even when one file alone would open directly.
    this.listAlways = applied.length > 0;
    const filesPart = n === 1 ? event.files[0]!.label : t('{0} instruction files', n);
    const rulesPart = applied.length === 1 ? t('1 rule applied') : t('{0} rules applied', applied.length);
    if (label) label.textContent = n === 0 ? rulesPart : applied.length === 0 ? filesPart : t('{0}, {1}', filesPart, rulesPart);
    const appliedText = (a: (typeof applied)[number]) => (a.path ? t('{0} (for {1})', a.label, a.path) : a.label);
    const lines = [
      ...(n > 0 ? [t('Project instructions in the system prompt: {0}', event.files.map((f) => f.label).join(', '))] : []),
      ...(applied.length > 0 ? [t('Rules applied to files read or edited: {0}', applied.map(appliedText).join(', '))] : []),
      ...(event.restricted ? [t('Restricted Mode: these files are read, and only plan mode (read-only) runs until you trust this folder.')] : []),
      ...event.notes,
    ];
    this.toggle.title = lines.join('\n');
    const files = [...event.files.map((f) => f.label), ...applied.map(appliedText)].join(', ');
    this.toggle.setAttribute('aria-label', event.restricted ? t('Instructions: {0} (Restricted Mode, plan mode only)', files) : t('Instructions: {0}', files));
    this.toggle.classList.toggle('restricted', event.restricted);
    this.toggle.classList.toggle('cut', event.notes.length > 0);
    this.list.replaceChildren(
      ...(event.restricted ? [el('div', { class: 'instructions-note', role: 'note' }, icon('shield'), ` ${t('Restricted Mode: read, plan mode only')}`)] : []),
      ...event.files.map((f) => {
        const item = button(f.label, () => this.open(f.label), { icon: 'file', cls: 'instructions-file', title: f.included < f.chars ? t('{0} of {1} characters used', formatInt(f.included), formatInt(f.chars)) : t('{0} characters', formatInt(f.chars)) });
        item.setAttribute('role', 'menuitem');
        return item;
      }),
      ...applied.map((a) => el('div', { class: 'instructions-note instructions-applied', role: 'note' }, icon('filter'), ` ${appliedText(a)}`)),
      ...event.notes.map((n) => el('div', { class: 'instructions-note' }, icon('warning'), ` ${n}`)),
    );
  }

  private onToggle(): void {
    if (this.files.length === 1 && !this.listAlways) {
      this.open(this.files[0]!.label);
      return;
    }
    if (this.list.hidden) {
      this.list.hidden = false;
      this.toggle.setAttribute('aria-expanded', 'true');
      this.list.querySelector<HTMLButtonElement>('button')?.focus();
    } else this.close();
  }

  private onListKey(e: KeyboardEvent): void {
    const items = [...this.list.querySelectorAll<HTMLButtonElement>('button')];
    const at = items.indexOf(document.activeElement as HTMLButtonElement);
    if (e.key === 'Escape') {
      e.preventDefault();
      this.close();
      this.toggle.focus();
    } else if (e.key === 'ArrowDown' || e.key === 'ArrowUp') {
      e.preventDefault();
      items[(at + (e.key === 'ArrowDown' ? 1 : items.length - 1)) % items.length]?.focus();
    }
  }

  private open(label: string): void {
    this.post({ type: 'open_instructions', label });
    this.close();
  }

  private close(): void {
    this.list.hidden = true;
    this.toggle.setAttribute('aria-expanded', 'false');
  }
}
