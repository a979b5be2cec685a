// The scrolling transcript. Only a window of the newest items has DOM: a
// 2 000-message session renders its last few dozen items at once and older
// ones as the user scrolls up; while following the bottom, the window is
// trimmed so a long session streams as cheaply as a new one.
import { type TranscriptItem } from '../protocol';
import { el, icon } from './dom';
import { type ItemView, type Post } from './item-view';
import { ToolCardView, createItemView } from './items';
import { PermissionView } from './permission-view';
import { t } from './l10n';

const INITIAL = 12;
const PAGE = 30;
const MAX_RENDERED = 300;
/** How far from the bottom still counts as "following" the stream, px. */
const FOLLOW_SLACK = 40;
/** A scroll event this soon after the user's wheel/key/pointer counts as theirs, ms. */
const USER_SCROLL_WINDOW_MS = 250;
const SCROLL_KEYS = new Set(['ArrowUp', 'ArrowDown', 'PageUp', 'PageDown', 'Home', 'End', ' ']);

export class TranscriptView {
  readonly root = el('section', { class: 'transcript', tabindex: '0', 'aria-label': t('Conversation') });
  private readonly list = el('div', { class: 'items' });
  private readonly earlier = el('button', { type: 'button', class: 'earlier secondary', hidden: '' });
  private readonly emptyModel = el('p', { class: 'empty-model' });
  private readonly empty = el('div', { class: 'empty' }, icon('comment-discussion'), el('p', {}, t('Ask Turnstone to read, change or run something in this workspace.')), this.emptyModel);
  private readonly views = new Map<string, ItemView>();
  /** Items of the model (oldest first) that have no DOM yet, at the top. */
  private hiddenBefore = 0;
  private following = true;
  private loadingEarlier = false;
  /** When the user last wheeled, pressed a scroll key or held the scrollbar (performance.now()). */
  private userScrollAt = -Infinity;
  private pointerDown = false;
  private readonly latest = el('button', { type: 'button', class: 'latest', hidden: '', title: t('Scroll to the newest message') }, icon('arrow-down'), el('span', { class: 'label' }, t('Latest')));
  /** Shown while a turn runs (CSS keys it on body.turn-running). */
  private readonly progress = el('div', { class: 'progress', 'aria-hidden': 'true' });
  readonly container = el('div', { class: 'transcript-wrap' });

  constructor(
    private readonly items: () => readonly TranscriptItem[],
    private readonly post: Post,
  ) {
    this.earlier.addEventListener('click', () => this.showEarlier());
    this.root.append(this.earlier, this.list, this.empty);
    this.container.append(this.progress, this.root, this.latest);
    this.latest.addEventListener('click', () => this.scrollToBottom());
    // Following is the user's choice: only their own scrolling turns it off.
    // Layout alone (items growing, content-visibility placeholders being
    // measured, a trimmed window) also fires `scroll`, and must not.
    const mark = () => (this.userScrollAt = performance.now());
    this.root.addEventListener('wheel', mark, { passive: true });
    this.root.addEventListener('touchmove', mark, { passive: true });
    this.root.addEventListener('keydown', (e) => SCROLL_KEYS.has(e.key) && !(e.target instanceof HTMLTextAreaElement) && mark());
    this.root.addEventListener('pointerdown', (e) => {
      // Only the scrollbar: a press on the transcript's own box, right of its content.
      if (e.target === this.root && e.offsetX >= this.root.clientWidth) this.pointerDown = true;
    });
    window.addEventListener('pointerup', () => (this.pointerDown = false));
    this.root.addEventListener('scroll', () => {
      if (this.pointerDown || performance.now() - this.userScrollAt < USER_SCROLL_WINDOW_MS) this.setFollowing(this.atBottom());
      else if (this.following) this.pin();
    }, { passive: true });
    // While following, stay pinned as items grow (streaming text, a bash tail,
    // an item measured for the first time) and when the view is resized.
    const resized = new ResizeObserver(() => this.following && this.pin());
    document.addEventListener('visibilitychange', () => document.visibilityState === 'visible' && this.following && this.pin());
    resized.observe(this.list);
    resized.observe(this.root);
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
    for (let i = this.hiddenBefore; i < items.length; i++) this.place(items[i]!, frag);
    this.list.replaceChildren(frag);
    this.setFollowing(true);
    this.syncChrome();
    // A resumed session opens at its end. The observers pin as sizes change, but a view restored while hidden or
    // before its first layout can be left at the top (seen under load): pinned again once it has been laid out.
    requestAnimationFrame(() => requestAnimationFrame(() => this.following && this.pin()));
  }

  add(item: TranscriptItem): void {
    this.place(item, this.list);
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
  }

  /** The empty panel names the model the first request will use. */
  setModel(model: string | undefined): void {
    this.emptyModel.textContent = model ? t('Model: {0}', model) : '';
  }

  get isFollowing(): boolean {
    return this.following;
  }

  /** Sending, a permission request, Stop and the "Latest" pill: back to the newest item, following again. */
  scrollToBottom(): void {
    this.userScrollAt = -Infinity;
    this.setFollowing(true);
    this.pin();
  }

  private pin(): void {
    const r = this.root;
    const bottom = r.scrollHeight - r.clientHeight;
    if (r.scrollTop < bottom - 1) r.scrollTop = bottom;
  }

  private atBottom(): boolean {
    const r = this.root;
    return r.scrollTop + r.clientHeight >= r.scrollHeight - FOLLOW_SLACK;
  }

  private setFollowing(following: boolean): void {
    this.following = following;
    this.latest.hidden = following || this.items().length === 0;
  }

  /** One card per tool: a permission request for a tool that has a card goes inside that card. */
  private place(item: TranscriptItem, parent: ParentNode): void {
    const view = this.make(item);
    const card = item.kind === 'permission' && item.toolId ? this.views.get(item.toolId) : undefined;
    if (view instanceof PermissionView && card instanceof ToolCardView) view.nestIn(card);
    else parent.append(view.root);
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
    for (let i = from; i < this.hiddenBefore; i++) this.place(items[i]!, frag);
    const before = this.root.scrollHeight;
    this.list.prepend(frag);
    this.hiddenBefore = from;
    this.syncChrome();
    // Keep what the user was looking at in place.
    const r = this.root;
    r.scrollTop += r.scrollHeight - before;
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
    this.earlier.textContent = t('Show {0} earlier ({1} hidden)', Math.min(PAGE, this.hiddenBefore), this.hiddenBefore);
    this.empty.hidden = this.items().length > 0;
  }
}
