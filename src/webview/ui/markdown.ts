// Assistant markdown in the panel. Model output is hostile input: it goes
// through four layers before it reaches the DOM: `marked` with raw HTML
// rendered as visible text (./markdown-html.ts), then DOMPurify's allow-list,
// a class filter and a link filter (./sanitize.ts). Links are opened through
// the host. Code blocks are decorated (language, copy) after sanitising.
import { type Token } from 'marked';
import { el, icon } from './dom';
import { highlight } from './highlight';
import { markdownToHtml, md, normalise } from './markdown-html';
import { createSanitiser, type Sanitiser } from './sanitize';

export { markdownToHtml };

let sanitiser: Sanitiser | undefined;

/** Layers 2–4 (DOMPurify's allow-list, then the class and link filters) on any HTML. */
export function sanitizeHtml(html: string): DocumentFragment {
  sanitiser ??= createSanitiser(window);
  return sanitiser(html);
}

/** Sanitised DOM for a list of block tokens, with code blocks decorated. */
function renderTokens(tokens: Token[], decorate: boolean): DocumentFragment {
  const frag = sanitizeHtml(md.parser(tokens));
  for (const pre of frag.querySelectorAll('pre')) decorateCode(pre, decorate);
  return frag;
}

/** Full render of a finished piece of markdown (restore, or a block that closed). */
export function renderMarkdown(src: string): DocumentFragment {
  return renderTokens(md.lexer(normalise(src)), true);
}

/**
 * An assistant block that grows while streaming. Complete top-level blocks are
 * rendered once and frozen; only the last (still growing) block is re-parsed
 * per frame, so a long reply costs the same per delta as a short one.
 */
export class StreamingMarkdown {
  readonly root = el('div', { class: 'markdown' });
  private readonly frozen = el('div', { class: 'md-frozen' });
  private readonly tail = el('div', { class: 'md-tail' });
  private frozenChars = 0;
  private rendered = '';
  private closed = false;

  constructor() {
    this.root.append(this.frozen, this.tail);
  }

  update(text: string, open: boolean): void {
    const src = normalise(text);
    if (src === this.rendered && (open || this.closed)) return;
    if (!src.startsWith(this.rendered.slice(0, this.frozenChars))) {
      // Text was replaced, not appended: start over.
      this.frozen.replaceChildren();
      this.frozenChars = 0;
    }
    this.rendered = src;
    this.closed = !open;
    const rest = src.slice(this.frozenChars);
    const tokens: Token[] = md.lexer(rest);
    const consumed = tokens.reduce((n, t) => n + t.raw.length, 0);
    if (!open) {
      // Closing: the frozen part is already final; render the rest once, decorated.
      if (consumed !== rest.length) {
        this.frozen.replaceChildren(renderMarkdown(src));
      } else {
        this.frozen.append(chunk(renderTokens(tokens, true)));
      }
      this.tail.replaceChildren();
      this.frozenChars = src.length;
      return;
    }
    let last = tokens.length - 1;
    while (last >= 0 && tokens[last]!.type === 'space') last--;
    // Freeze only when the lexer accounted for every character, so the
    // frozen prefix and the re-parsed tail never overlap or leave a gap.
    if (last > 0 && consumed === rest.length) {
      const done = tokens.slice(0, last);
      this.frozen.append(chunk(renderTokens(done, true)));
      this.frozenChars += done.reduce((n, t) => n + t.raw.length, 0);
      this.tail.replaceChildren(renderTokens(tokens.slice(last), false));
    } else {
      this.tail.replaceChildren(renderTokens(tokens, false));
    }
  }
}

/**
 * Frozen blocks go in their own content-visibility container, so a long reply
 * that has scrolled away costs no layout while the tail keeps streaming.
 */
function chunk(frag: DocumentFragment): HTMLElement {
  const div = el('div', { class: 'md-chunk' });
  div.append(frag);
  return div;
}

/** Wraps a <pre> with a header: language label and a copy button (ours, created after sanitising). */
function decorateCode(pre: HTMLPreElement, highlightIt: boolean): void {
  const code = pre.querySelector('code');
  const lang = /language-([\w+#.-]+)/.exec(code?.className ?? '')?.[1] ?? '';
  if (code && highlightIt && lang) highlight(code, lang);
  const copy = el('button', { type: 'button', class: 'icon-button copy', title: 'Copy code', 'aria-label': 'Copy code' }, icon('copy'));
  copy.addEventListener('click', () => copyText(code?.textContent ?? pre.textContent ?? '', copy));
  const header = el('div', { class: 'code-header' }, el('span', { class: 'code-lang' }, lang || 'text'), copy);
  const wrapper = el('div', { class: 'code-block' });
  pre.replaceWith(wrapper);
  wrapper.append(header, pre);
  // Long blocks are capped (CSS: ~20 lines) with the rest one click away.
  const lines = (code?.textContent ?? pre.textContent ?? '').replace(/\n$/, '').split('\n').length;
  if (lines > CODE_LINES) {
    wrapper.classList.add('capped');
    const expand = el('button', { type: 'button', class: 'secondary code-expand', 'aria-expanded': 'false' }, `Show all ${lines} lines`);
    expand.addEventListener('click', () => {
      const capped = wrapper.classList.toggle('capped');
      expand.setAttribute('aria-expanded', String(!capped));
      expand.textContent = capped ? `Show all ${lines} lines` : 'Show less';
    });
    wrapper.append(expand);
  }
}

/** Lines a code block shows before "Show all N lines". */
const CODE_LINES = 20;

export function copyText(text: string, feedbackOn?: HTMLElement): void {
  const done = () => {
    if (!feedbackOn) return;
    feedbackOn.classList.add('copied');
    feedbackOn.querySelector('.codicon')?.classList.replace('codicon-copy', 'codicon-check');
    setTimeout(() => {
      feedbackOn.classList.remove('copied');
      feedbackOn.querySelector('.codicon')?.classList.replace('codicon-check', 'codicon-copy');
    }, 1200);
  };
  if (navigator.clipboard?.writeText) navigator.clipboard.writeText(text).then(done, () => fallbackCopy(text) && done());
  else if (fallbackCopy(text)) done();
}

function fallbackCopy(text: string): boolean {
  const area = el('textarea', { class: 'clipboard-helper', 'aria-hidden': 'true' });
  area.value = text;
  document.body.append(area);
  area.select();
  const ok = document.execCommand('copy');
  area.remove();
  return ok;
}

/** Plain text of markdown for the live region (announced once per finished reply). */
export function plainText(src: string, max = 400): string {
  const text = src.replace(/```[\s\S]*?(```|$)/g, ' (code) ').replace(/[#*_`>[\]()!|-]+/g, ' ').replace(/\s+/g, ' ').trim();
  return text.length > max ? `${text.slice(0, max)}…` : text;
}
