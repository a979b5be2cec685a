// Assistant markdown in the panel. Model output is hostile input: marked only
// lexes it, and the DOM is built from its tokens by ./markdown-dom.ts, which can
// make nothing but an allow-list of plain elements and puts every character of
// model text in as text (no HTML is parsed). Links are opened through the host.
// Code blocks are decorated (language, copy) once built (./code-block.ts) and
// highlighted off this thread once on screen: at once when a block closes where
// the user is looking (./highlight.ts).
import { type Token, type Tokens } from 'marked';
import { CodeBlock, countLines, decorateCode } from './code-block';
import { el } from './dom';
import { highlight, highlightWhenSeen } from './highlight';
import { codeLanguage, markdownDom, withoutComments } from './markdown-dom';
import { md, normalise } from './markdown-lexer';

/** DOM for a list of block tokens, code blocks decorated and queued for highlighting. */
function renderTokens(tokens: Token[], highlightBlock: (code: HTMLElement, lang: string) => void = highlightWhenSeen): DocumentFragment {
  const frag = markdownDom(tokens);
  for (const pre of frag.querySelectorAll('pre')) {
    const block = decorateCode(pre);
    if (block.code) highlightBlock(block.code, block.lang);
  }
  return frag;
}

/** Full render of a finished piece of markdown (restore, or a block that closed). */
export function renderMarkdown(src: string): DocumentFragment {
  return renderTokens(md.lexer(normalise(src)));
}

/** A link reference definition (`[1]: https://…`) anywhere in a reply. */
const LINK_DEFINITION = /^ {0,3}\[[^\]\n]+\]:/m;

/** Streaming tails on screen (or within the margin), as the observer last said. */
const tailsOnScreen = new WeakSet<Element>();
let tailWatcher: IntersectionObserver | undefined;

/** Tells `tailsOnScreen` whether `tail` is near the viewport, from now on. */
function watchTail(tail: HTMLElement): void {
  if (typeof IntersectionObserver !== 'function') return;
  tailWatcher ??= new IntersectionObserver(
    (entries) => {
      for (const e of entries) {
        if (e.isIntersecting) tailsOnScreen.add(e.target);
        else tailsOnScreen.delete(e.target);
      }
    },
    { rootMargin: '200px 0px' },
  );
  tailWatcher.observe(tail);
}

/** A fenced code block still being written: the tail's only block, without its closing fence. */
function openFence(tokens: Token[]): Tokens.Code | undefined {
  const blocks = tokens.filter((t) => t.type !== 'space');
  const only = blocks.length === 1 ? blocks[0] : undefined;
  return only?.type === 'code' && (only as Tokens.Code).codeBlockStyle !== 'indented' ? (only as Tokens.Code) : undefined;
}

/**
 * An assistant block that grows while streaming. Complete top-level blocks are
 * rendered once and frozen (their code highlighted once seen); only the last,
 * still growing block is re-parsed per frame, so a long reply costs the same per
 * delta as a short one. A code block being written is not re-parsed at all: its
 * text goes straight into a text node until it closes and is rendered like
 * the rest.
 */
export class StreamingMarkdown {
  readonly root = el('div', { class: 'markdown' });
  private readonly frozen = el('div', { class: 'md-frozen' });
  private readonly tail = el('div', { class: 'md-tail' });
  private frozenChars = 0;
  private rendered = '';
  private closed = false;
  private watching = false;
  /** The open code block shown in the tail, and the text it shows. */
  private fence: { block: CodeBlock; text: Text; lang: string } | undefined;
  /** Set when the reply could not be rendered as markdown: from then on it is shown as its text. */
  private plain: Text | undefined;

  constructor() {
    this.root.append(this.frozen, this.tail);
  }

  /**
   * How blocks that freeze now get highlighted: they appear where the tail is,
   * so when the tail is on screen the user is watching them close (asked at
   * once); otherwise once they are seen.
   */
  private get highlighter(): (code: HTMLElement, lang: string) => void {
    return tailsOnScreen.has(this.tail) ? highlight : highlightWhenSeen;
  }

  update(text: string, open: boolean): void {
    if (!this.plain) {
      try {
        this.render(normalise(text), open);
        return;
      } catch (error) {
        // marked's lexer recurses: a reply nested a few thousand levels deep overflows the stack. It is shown as
        // the text it is rather than lost, and the panel goes on updating.
        console.warn('[turnstone] a reply could not be rendered as markdown; showing its text', error);
        this.plain = document.createTextNode('');
        this.fence = undefined;
        this.frozen.replaceChildren(el('p', { class: 'md-plain' }, this.plain));
        this.tail.replaceChildren();
      }
    }
    this.plain.data = text;
    this.tail.classList.toggle('streaming', open);
  }

  private render(src: string, open: boolean): void {
    if (src === this.rendered && (open || this.closed)) return;
    if (!src.startsWith(this.rendered.slice(0, this.frozenChars))) {
      // Text was replaced, not appended: start over.
      this.frozen.replaceChildren();
      this.frozenChars = 0;
    }
    this.rendered = src;
    // Only a streaming block is watched (a restored session's thousand replies are not).
    if (open && !this.watching) {
      this.watching = true;
      watchTail(this.tail);
    }
    this.closed = !open;
    // The caret's hook (media/webview.css): on the tail itself, so the reply's end restyles only the tail.
    this.tail.classList.toggle('streaming', open);
    const rest = src.slice(this.frozenChars);
    const tokens: Token[] = md.lexer(rest);
    const consumed = tokens.reduce((n, t) => n + t.raw.length, 0);
    if (!open) {
      // Closing: the frozen part is already final; render the rest once, decorated. Unless the lexer did not
      // account for every character, or the reply defines link references: blocks frozen before the definition
      // was written could not use it, so the whole reply is rendered once more, as one document.
      if (consumed !== rest.length || (this.frozenChars > 0 && LINK_DEFINITION.test(src))) {
        this.frozen.replaceChildren(renderMarkdown(src));
      } else {
        this.frozen.append(chunk(renderTokens(tokens, this.highlighter)));
      }
      this.setTail(undefined);
      if (this.watching) {
        this.watching = false;
        tailWatcher?.unobserve(this.tail);
        tailsOnScreen.delete(this.tail);
      }
      this.frozenChars = src.length;
      return;
    }
    let last = tokens.length - 1;
    while (last >= 0 && tokens[last]!.type === 'space') last--;
    // Freeze only when the lexer accounted for every character, so the
    // frozen prefix and the re-parsed tail never overlap or leave a gap.
    if (last > 0 && consumed === rest.length) {
      const done = tokens.slice(0, last);
      this.frozen.append(chunk(renderTokens(done, this.highlighter)));
      this.frozenChars += done.reduce((n, t) => n + t.raw.length, 0);
      this.setTail(tokens.slice(last));
    } else {
      this.setTail(tokens);
    }
  }

  private setTail(tokens: Token[] | undefined): void {
    const fence = tokens && openFence(tokens);
    if (!fence) {
      this.fence = undefined;
      // The tail is shown only until it is frozen: decorated, not highlighted.
      this.tail.replaceChildren(tokens ? renderTail(tokens) : '');
      return;
    }
    // As the built block will name it (./markdown-dom.ts).
    const lang = codeLanguage(fence.lang);
    const shown = this.fence;
    if (shown && shown.lang === lang && shown.block.root.parentNode === this.tail && fence.text.startsWith(shown.text.data)) {
      // Only new text is added: no parse, one text node grows.
      if (fence.text.length > shown.text.data.length) shown.text.appendData(fence.text.slice(shown.text.data.length));
      shown.block.setLines(countLines(fence.text));
      return;
    }
    const text = document.createTextNode(fence.text);
    const code = el('code', lang ? { class: `language-${lang}` } : {}, text);
    const block = new CodeBlock(el('pre', {}, code), code, lang);
    this.fence = { block, text, lang };
    this.tail.replaceChildren(block.root);
  }
}

/** The growing tail, decorated but not highlighted (it is re-rendered every frame). */
function renderTail(tokens: Token[]): DocumentFragment {
  const frag = markdownDom(tokens);
  for (const pre of frag.querySelectorAll('pre')) decorateCode(pre);
  return frag;
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

const WARM_UP_SAMPLE = [
  'A *short* reply with `code`, **bold** and a [link](https://example.com):',
  '- one\n- two',
  '```ts\nconst value: number = compute(1, "two"); // note\nexport function f(x: string) { return x.length; }\n```',
  '```bash\nnpm test -- --grep "x" | tee out.txt\n```',
].join('\n\n');

/**
 * Renders a small reply off-screen, its code sent to the tokeniser: starts the worker (which compiles
 * the commonest grammars) and compiles the renderer when the panel has nothing to do, instead of in the
 * frames of its first streamed reply (about a third of the main thread's time then, measured).
 */
export function warmUp(): void {
  const frag = renderTokens(md.lexer(WARM_UP_SAMPLE), (code, lang) => highlight(code, lang));
  frag.replaceChildren();
}

/** Plain text of markdown for the live region (announced once per finished reply). */
export function plainText(src: string, max = 400): string {
  // Code blocks and HTML comments (hidden in the reply too) go first, one pass each over the reply; then only the
  // start of the rest is cleaned up: ten times the words kept is plenty, and a long reply is not scanned whole by
  // each pattern.
  const text = withoutComments(src.replace(/```[\s\S]*?(```|$)/g, ' (code) ')).slice(0, max * 10).replace(/[#*_`>[\]()!|-]+/g, ' ').replace(/\s+/g, ' ').trim();
  return text.length > max ? `${text.slice(0, max)}…` : text;
}
