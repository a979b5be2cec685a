// Assistant markdown to DOM, built node by node from marked's tokens: nothing a
// model writes is ever parsed as HTML. Model output is hostile input, and what
// keeps it harmless is what this file is able to make (by construction, where
// the panel used to render HTML and then sanitise it: that parse and sanitise
// was a third of the panel's main-thread time while a reply streamed):
//  - elements only from ALLOWED_TAGS, made here; no form, button, image, SVG,
//    style, frame or script can appear, so nothing in a reply runs code, loads
//    anything or looks like the panel's own controls;
//  - every character of model text goes in as a text node: raw HTML in a reply
//    shows as the text it is, and an image shows as a link to it;
//  - attributes only from ALLOWED_ATTRIBUTES, each checked here: a link's href
//    only when it parses as an http(s) or mailto URL (then with rel=noopener),
//    an ordered list's start only as a number, a table cell's align only as
//    left/center/right, a code block's `language-*` class only for a short
//    plain word (so model text cannot borrow the panel's own classes), and an
//    ordered list's marker width, a digit count set through the CSSOM;
//  - no nesting deeper than MAX_DEPTH (deeper content is shown as its text).
// `doc` is a parameter so the guarantees are tested on jsdom in plain Node as
// well as in Chromium (test/unit/webview/markdown-dom.test.ts).
import { type Token, type Tokens } from 'marked';
import { isSafeLinkHref } from '../protocol';

export const ALLOWED_TAGS: ReadonlySet<string> = new Set(['P', 'BR', 'HR', 'H1', 'H2', 'H3', 'H4', 'H5', 'H6', 'STRONG', 'EM', 'DEL', 'CODE', 'PRE', 'BLOCKQUOTE', 'UL', 'OL', 'LI', 'A', 'TABLE', 'THEAD', 'TBODY', 'TR', 'TH', 'TD']);
export const ALLOWED_ATTRIBUTES: ReadonlySet<string> = new Set(['href', 'rel', 'title', 'start', 'align', 'class', 'style']);

/** Containers nested deeper than this show the rest as text (the HTML parser itself flattens past 512). */
export const MAX_DEPTH = 100;

/** The language word of a fenced block's info string, or '' when it is not a short plain word (as the class allows). */
export function codeLanguage(info: string | undefined): string {
  const word = /^\S*/.exec(info ?? '')?.[0] ?? '';
  // Not `hljs-*`: the highlighter's colours are keyed on class names of that shape.
  return /^[\w+#.-]{1,30}$/.test(word) && !/^hljs/i.test(word) ? word : '';
}

/** HTML comments (`<!-- … -->`, closed) taken out of raw HTML text: the reply and its announcement hide them. */
export function withoutComments(html: string): string {
  return html.replace(/<!--[\s\S]*?-->/g, '');
}

/** marked's link cleaning (what its renderer does before writing an href), then ours: only http(s) and mailto. */
function safeHref(href: string): string | undefined {
  let url: string;
  try {
    url = encodeURI(href).replace(/%25/g, '%');
  } catch {
    return undefined;
  }
  return isSafeLinkHref(url) ? url : undefined;
}

const ENTITY = /&(?:#\d{1,7}|#[xX][\da-fA-F]{1,6}|[A-Za-z][A-Za-z\d]{0,31});/;
const BARE_AMPERSAND = /&(?!(?:#\d{1,7}|#[xX][\da-fA-F]{1,6}|[A-Za-z][A-Za-z\d]{0,31});)/g;
let entityDecoder: HTMLTextAreaElement | undefined;

/**
 * marked leaves character references in text for the HTML it would write (`&amp;`, `&copy;`); shown as text they
 * must be what HTML would show. The text is decoded in one pass by a textarea in an inert document, which runs
 * nothing and loads nothing: a textarea's content is text in which only references are decoded, and with every
 * `<` escaped nothing can end it. A bare `&` stays itself, as marked's HTML would show it.
 */
function decodeEntities(doc: Document, s: string): string {
  if (!ENTITY.test(s)) return s;
  entityDecoder ??= doc.implementation.createHTMLDocument('').createElement('textarea');
  entityDecoder.innerHTML = s.replace(BARE_AMPERSAND, '&amp;').replace(/</g, '&lt;');
  return entityDecoder.value;
}

/** An image's alt text: the plain text of its inline tokens, as marked's text renderer makes it. */
function altText(doc: Document, tokens: readonly Token[] | undefined): string {
  let out = '';
  for (const token of tokens ?? []) {
    const t = token as Tokens.Generic;
    if (Array.isArray(t.tokens)) out += altText(doc, t.tokens as Token[]);
    else if (token.type === 'text') out += decodeEntities(doc, (token as Tokens.Text).text);
    else if (token.type === 'br') out += ' ';
    else if (typeof t.text === 'string') out += t.text;
  }
  return out;
}

const rawOf = (tokens: readonly Token[]) => tokens.map((t) => t.raw).join('');

/** Builds the DOM for a list of marked's block tokens. */
export function markdownDom(tokens: readonly Token[], doc: Document = document): DocumentFragment {
  const frag = doc.createDocumentFragment();
  new Builder(doc).blocks(frag, tokens);
  return frag;
}

class Builder {
  private depth = 0;

  constructor(private readonly doc: Document) {}

  private el<K extends keyof HTMLElementTagNameMap>(tag: K, parent: Node): HTMLElementTagNameMap[K] {
    const node = this.doc.createElement(tag);
    parent.appendChild(node);
    return node;
  }

  private text(parent: Node, text: string): void {
    if (text) parent.appendChild(this.doc.createTextNode(text));
  }

  blocks(parent: Node, tokens: readonly Token[]): void {
    if (this.depth >= MAX_DEPTH) return this.text(parent, rawOf(tokens));
    this.depth++;
    for (const token of tokens) this.block(parent, token);
    this.depth--;
  }

  private block(parent: Node, token: Token): void {
    const t = token as Tokens.Generic;
    switch (token.type) {
      case 'space':
      case 'def':
        return;
      case 'paragraph':
        return this.inline(this.el('p', parent), (token as Tokens.Paragraph).tokens);
      case 'text': {
        // A tight list item's text: inline content with no paragraph around it.
        const text = token as Tokens.Text;
        if (text.tokens) this.inline(parent, text.tokens);
        else this.text(parent, decodeEntities(this.doc, text.text));
        return;
      }
      case 'heading': {
        const depth = Math.min(6, Math.max(1, Math.trunc((token as Tokens.Heading).depth) || 1));
        return this.inline(this.el(`h${depth}` as 'h1', parent), (token as Tokens.Heading).tokens);
      }
      case 'code': {
        const code = token as Tokens.Code;
        const lang = codeLanguage(code.lang);
        const el = this.el('code', this.el('pre', parent));
        if (lang) el.className = `language-${lang}`;
        // As marked writes it: one final newline.
        this.text(el, `${code.text.replace(/\n$/, '')}\n`);
        return;
      }
      case 'blockquote':
        return this.blocks(this.el('blockquote', parent), (token as Tokens.Blockquote).tokens);
      case 'list':
        return this.list(parent, token as Tokens.List);
      case 'table':
        return this.table(parent, token as Tokens.Table);
      case 'hr':
        this.el('hr', parent);
        return;
      case 'html': {
        // Raw HTML in a reply is shown as what it is: text (a block of it as its own paragraph). Its comments are
        // notes the writer meant to hide, as every markdown viewer does.
        const text = withoutComments((token as Tokens.HTML).text);
        if (text.trim() === '') return;
        return this.text((token as Tokens.HTML).block ? this.el('p', parent) : parent, text);
      }
      case 'checkbox':
        return this.text(parent, (token as Tokens.Checkbox).checked ? '☑ ' : '☐ ');
      default:
        // A token kind this file does not know is kept as the text it came from, never dropped.
        return this.text(parent, typeof t.raw === 'string' ? t.raw : '');
    }
  }

  private list(parent: Node, list: Tokens.List): void {
    const node = this.el(list.ordered ? 'ol' : 'ul', parent);
    const start = typeof list.start === 'number' && Number.isFinite(list.start) ? Math.trunc(list.start) : 1;
    if (list.ordered && start !== 1) node.setAttribute('start', String(start));
    for (const item of list.items) this.blocks(this.el('li', node), item.tokens);
    if (list.ordered) fitMarkers(node, start, list.items.length);
  }

  private table(parent: Node, table: Tokens.Table): void {
    const node = this.el('table', parent);
    const row = (into: Node, cells: Tokens.TableCell[], header: boolean) => {
      const tr = this.el('tr', into);
      cells.forEach((cell, i) => {
        const td = this.el(header ? 'th' : 'td', tr);
        const align = table.align[i];
        if (align === 'left' || align === 'center' || align === 'right') td.setAttribute('align', align);
        this.inline(td, cell.tokens);
      });
    };
    row(this.el('thead', node), table.header, true);
    if (table.rows.length > 0) {
      const body = this.el('tbody', node);
      for (const cells of table.rows) row(body, cells, false);
    }
  }

  inline(parent: Node, tokens: readonly Token[] | undefined): void {
    if (!tokens) return;
    if (this.depth >= MAX_DEPTH) return this.text(parent, rawOf(tokens));
    this.depth++;
    this.inlineTokens(parent, tokens);
    this.depth--;
  }

  private inlineTokens(parent: Node, tokens: readonly Token[]): void {
    for (const token of tokens) {
      switch (token.type) {
        case 'text': {
          const text = token as Tokens.Text;
          if (text.tokens) this.inline(parent, text.tokens);
          else this.text(parent, decodeEntities(this.doc, text.text));
          break;
        }
        case 'escape':
          this.text(parent, (token as Tokens.Escape).text);
          break;
        case 'strong':
          this.inline(this.el('strong', parent), (token as Tokens.Strong).tokens);
          break;
        case 'em':
          this.inline(this.el('em', parent), (token as Tokens.Em).tokens);
          break;
        case 'del':
          this.inline(this.el('del', parent), (token as Tokens.Del).tokens);
          break;
        case 'codespan':
          this.text(this.el('code', parent), (token as Tokens.Codespan).text);
          break;
        case 'br':
          this.el('br', parent);
          break;
        case 'link': {
          const link = token as Tokens.Link;
          // An autolink's text is its URL exactly as written (marked escapes it whole); a written link's href is HTML text.
          const href = safeHref(link.autolink ? link.href : decodeEntities(this.doc, link.href));
          const a = this.link(parent, href, link.title ? decodeEntities(this.doc, link.title) : undefined);
          if (link.autolink) this.text(a, link.text);
          else this.inline(a, link.tokens);
          break;
        }
        case 'image': {
          // An image would load remote content (tracking) or paint fake UI: a link to it instead.
          const image = token as Tokens.Image;
          const alt = altText(this.doc, image.tokens) || image.text;
          const title = image.title ? decodeEntities(this.doc, image.title) : undefined;
          this.text(this.link(parent, safeHref(image.href), title), alt ? `image: ${alt}` : image.href);
          break;
        }
        case 'html':
          // A line break is the one tag models write in tables (a cell holds no markdown break); the rest is text.
          if (/^<br\s*\/?>$/i.test((token as Tokens.Tag).text)) this.el('br', parent);
          else this.text(parent, withoutComments((token as Tokens.Tag).text));
          break;
        case 'checkbox':
          this.text(parent, (token as Tokens.Checkbox).checked ? '☑ ' : '☐ ');
          break;
        default:
          this.text(parent, typeof (token as Tokens.Generic).raw === 'string' ? (token as Tokens.Generic).raw : '');
      }
    }
  }

  /** A link that opens through the host; without a safe href it is plain text in an <a> (styled as text). */
  private link(parent: Node, href: string | undefined, title: string | undefined): HTMLAnchorElement {
    const a = this.el('a', parent);
    if (href !== undefined) {
      a.setAttribute('href', href);
      a.setAttribute('rel', 'noopener noreferrer');
    }
    if (title) a.setAttribute('title', title);
    return a;
  }
}

/**
 * Issue 47 item 3: an ordered list's padding fits its widest marker ("10." was cut to ".0." in a 300-px sidebar).
 * The CSS sizes the padding in `ch` from --marker-digits, the digits of the list's largest number; set through the
 * CSSOM (the CSP allows no style attribute).
 */
function fitMarkers(ol: HTMLElement, first: number, items: number): void {
  const last = first + Math.max(0, items - 1);
  const width = (n: number) => String(Math.abs(n)).length + (n < 0 ? 1 : 0);
  const digits = Math.max(width(first), width(last));
  if (digits > 1) ol.style.setProperty('--marker-digits', String(digits));
}
