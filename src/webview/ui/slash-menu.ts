// The `/` menu: while the text box holds only `/word` (the caret still in it),
// the built-in and workspace slash commands whose names match are listed;
// choosing one completes `/name ` so arguments can follow. The host runs or
// expands the command when the message is sent.
import { type SlashCommandInfo } from '../protocol';
import { type Post } from './item-view';
import { SuggestList } from './suggest-list';
import { t } from './l10n';

export class SlashMenu {
  readonly list: SuggestList;
  private commands: SlashCommandInfo[] | undefined;
  private shown: SlashCommandInfo[] = [];

  constructor(
    private readonly input: HTMLTextAreaElement,
    private readonly post: Post,
    private readonly onComplete: () => void,
  ) {
    this.list = new SuggestList(input, t('Slash commands'), (i) => this.choose(i), 'slash-menu');
  }

  get isOpen(): boolean {
    return this.list.isOpen;
  }

  /** The `/word` being typed, or undefined when the menu does not apply. */
  private token(): string | undefined {
    const text = this.input.value;
    const caret = this.input.selectionStart ?? text.length;
    const m = /^\/([^\s/]*)$/.exec(text.slice(0, caret));
    if (!m || /\S/.test(text.slice(caret).split(/\s/, 1)[0] ?? '')) return undefined;
    return m[1]!;
  }

  onInput(): void {
    const token = this.token();
    if (token === undefined) {
      this.list.close();
      return;
    }
    if (!this.isOpen) {
      // Asked each time the menu opens: command files may have been added since.
      this.post({ type: 'slash_list' });
      this.list.open();
    }
    this.render(token);
  }

  setCommands(commands: SlashCommandInfo[]): void {
    this.commands = commands;
    const token = this.token();
    if (this.isOpen && token !== undefined) this.render(token);
  }

  close(): void {
    this.list.close();
  }

  handleKey(e: KeyboardEvent): boolean {
    return this.list.handleKey(e);
  }

  private render(token: string): void {
    const q = token.toLowerCase();
    const all = this.commands ?? [];
    const starts = all.filter((c) => c.name.toLowerCase().startsWith(q));
    const contains = all.filter((c) => !c.name.toLowerCase().startsWith(q) && c.name.toLowerCase().includes(q));
    this.shown = [...starts, ...contains].slice(0, 50);
    this.list.set(
      this.shown.map((c) => ({ icon: c.source === 'builtin' ? 'symbol-event' : 'file-code', label: `/${c.name}`, detail: c.description, tag: c.source === 'custom' ? t('custom') : '', query: `/${token}` })),
      this.commands ? t('No command matches') : t('Loading commands…'),
    );
  }

  private choose(i: number): void {
    const c = this.shown[i];
    if (!c) return;
    const rest = this.input.value.replace(/^\/\S*\s?/, '');
    this.input.value = `/${c.name} ${rest}`;
    const caret = c.name.length + 2;
    this.input.setSelectionRange(caret, caret);
    this.list.close();
    this.onComplete();
  }
}
