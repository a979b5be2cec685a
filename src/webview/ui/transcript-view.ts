// The scrolling transcript. Only a window of the newest items has DOM: a
// 2 000-message session renders its last few dozen items at once and older
// ones as the user scrolls up; while following the bottom, the window is
// trimmed so a long session streams as cheaply as a new one.
import { type TranscriptItem } from '../protocol';
import { el, icon } from './dom';
import { type ItemView, type Post, createItemView } from './items';

const INITIAL = 12;
const PAGE = 30;
const MAX_RENDERED = 300;
/** How far from the bottom still counts as "following" the stream, px. */
const FOLLOW_SLACK = 40;

export class TranscriptView {
  readonly root = el('section', { class: 'transcript', tabindex: '0', 'aria-label': 'Conversation' });
  private readonly list = el('div', { class: 'items' });
  private readonly earlier = el('button', { type: 'button', class: 'earlier secondary' });
  private readonly empty = el('div', { class: 'empty' }, icon('comment-discussion'), el('p', {}, 'Ask Turnstone to read, change or run something in this workspace.'));
  private readonly views = new Map<string, ItemView>();
  /** Items of the model (oldest first) that have no DOM yet, at the top. */
  private hiddenBefore = 0;
  private following = true;
  private loadingEarlier = false;

  constructor(
    private readonly items: () => readonly TranscriptItem[],
    private readonly post: Post,
  ) {
    this.earlier.addEventListener('click', () => this.showEarlier());
    this.root.append(this.earlier, this.list, this.empty);
    this.root.addEventListener('scroll', () => {
      const r = this.root;
      this.following = r.scrollTop + r.clientHeight >= r.scrollHeight - FOLLOW_SLACK;
    }, { passive: true });
    // Scrolling near the top pages in older items; the button is the keyboard path.
    new IntersectionObserver((entries) => {
      if (entries.some((e) => e.isIntersecting)) this.showEarlier();
    }, { root: this.root, rootMargin: '300px 0px 0px 0px' }).observe(this.earlier);
  }

  get renderedCount(): number {
    return this.views.size;
  }

  view(id: string): ItemView | undefined {
    return this.views.get(id);
  }

  reset(): void {
    this.views.clear();
    const items = this.items();
    this.hiddenBefore = Math.max(0, items.length - INITIAL);
    const frag = document.createDocumentFragment();
    for (let i = this.hiddenBefore; i < items.length; i++) frag.append(this.make(items[i]!).root);
    this.list.replaceChildren(frag);
    this.following = true;
    this.syncChrome();
  }

  add(item: TranscriptItem): void {
    this.list.append(this.make(item).root);
    this.syncChrome();
  }

  replace(item: TranscriptItem): void {
    const old = this.views.get(item.id);
    if (!old) return;
    const view = this.make(item);
    old.root.replaceWith(view.root);
  }

  remove(ids: string[]): void {
    for (const id of ids) {
      this.views.get(id)?.root.remove();
      this.views.delete(id);
    }
    const items = this.items();
    const first = items.findIndex((i) => this.views.has(i.id));
    this.hiddenBefore = first < 0 ? items.length : first;
    this.syncChrome();
  }

  /** Older items arrived in the model: they start hidden above the window. */
  prepended(count: number): void {
    this.hiddenBefore += count;
    this.syncChrome();
  }

  /** Called once per frame after DOM writes: keep the bottom in view and the window bounded. */
  afterRender(): void {
    if (!this.following) return;
    if (this.views.size > MAX_RENDERED) this.trim();
    this.root.scrollTop = this.root.scrollHeight;
  }

  scrollToBottom(): void {
    this.following = true;
    this.root.scrollTop = this.root.scrollHeight;
  }

  private make(item: TranscriptItem): ItemView {
    const view = createItemView(item, this.post);
    view.root.dataset.id = item.id;
    view.update(item);
    this.views.set(item.id, view);
    return view;
  }

  private showEarlier(): void {
    if (this.hiddenBefore === 0 || this.loadingEarlier) return;
    const items = this.items();
    const from = Math.max(0, this.hiddenBefore - PAGE);
    const frag = document.createDocumentFragment();
    for (let i = from; i < this.hiddenBefore; i++) frag.append(this.make(items[i]!).root);
    const before = this.root.scrollHeight;
    this.list.prepend(frag);
    this.hiddenBefore = from;
    this.syncChrome();
    // Keep what the user was looking at in place.
    const r = this.root;
    r.scrollTop += r.scrollHeight - before;
    this.following = r.scrollTop + r.clientHeight >= r.scrollHeight - FOLLOW_SLACK;
    // The observer only fires on changes; if the top is still near, keep paging.
    this.loadingEarlier = true;
    requestAnimationFrame(() => {
      this.loadingEarlier = false;
      if (this.hiddenBefore > 0 && this.root.scrollTop < 300) this.showEarlier();
    });
  }

  private trim(): void {
    const items = this.items();
    let drop = this.views.size - (MAX_RENDERED - PAGE);
    for (let i = this.hiddenBefore; i < items.length && drop > 0; i++, drop--) {
      const id = items[i]!.id;
      this.views.get(id)?.root.remove();
      this.views.delete(id);
      this.hiddenBefore = i + 1;
    }
    this.syncChrome();
  }

  private syncChrome(): void {
    this.earlier.hidden = this.hiddenBefore === 0;
    this.earlier.textContent = `Show ${Math.min(PAGE, this.hiddenBefore)} earlier (${this.hiddenBefore} hidden)`;
    this.empty.hidden = this.items().length > 0;
  }
}
