// HTML → Markdown for web_fetch: the page's main content first, then Turndown.
// Site chrome (navigation, banners, sidebars, footers) goes; what is left is
// the page's <main> when it marks one (docs sites, GitHub: every comment of an
// issue, which Readability would cut to the first), its one <article>, or else
// what Mozilla's Readability (Firefox's reader view) picks on a linkedom document.
// The libraries are imported on the first HTML page, not with the tools:
// most sessions never fetch one.
// Parsing, Readability and Turndown are synchronous and nothing interrupts
// them, so a page is never handed to them whole when it is large (see
// MAX_CONVERTED_HTML), and the steps between them yield and check the signal:
// a Stop or the fetch's deadline ends a conversion within one step.
import type { Readability as ReadabilityClass } from '@mozilla/readability';
import type { parseHTML as ParseHTML } from 'linkedom';
import type TurndownService from 'turndown';
import type { Parser as ParserClass } from 'htmlparser2';
import { AbortedError } from '../../runtime/cancellation';
import { contentSlice, outlinePage, type PageContentOutline } from './content-prefix';

/**
 * The most HTML (in characters, scripts, styles and comments left out first)
 * converted from one page. Measured on generated pages without <main> on a
 * busy 2-core machine: 1 MB took 1.5–2.5 s to parse and convert, 9 MB 11–16 s,
 * all of it blocking; 512 KB parses in about 0.2 s and goes through Turndown
 * in about 0.5 s. What lies beyond is still in the page's source (raw: true).
 */
export const MAX_CONVERTED_HTML = 512 * 1024;

/**
 * Readability costs more than the rest, and more than in proportion: 256 KB
 * of nested blocks took 0.6–1.3 s, 512 KB 2.7–4.2 s, and one chain of 500
 * nested elements (20 KB) 4.4 s, of 1000 24 s. Larger or deeper pages skip it
 * (real pages nest a few dozen deep) and are converted whole, chrome stripped.
 */
const READABILITY_MAX_HTML = 256 * 1024;
const READABILITY_MAX_DEPTH = 128;

/**
 * Deeper than a browser builds a page (Chromium's parser stops nesting at 512):
 * Turndown recurses per level, spent 2 s on 20 000 levels and then overflowed
 * the stack, so such a page is refused before it is parsed.
 */
const MAX_DEPTH = 512;

export interface ConvertedPage {
  title: string | undefined;
  markdown: string;
  /** False when Readability found no article and the whole body was converted. */
  extracted: boolean;
  /** False when only the start of the content was converted (`markdown` is a prefix of the whole). */
  complete: boolean;
  /** The page was larger than MAX_CONVERTED_HTML: only its start was converted, and reading on converts no more. */
  cut?: boolean;
  /** The page marks no content and is too large or too deep for Readability to look for it: `extracted` is false untried. */
  unsearched?: boolean;
}

type Libraries = {
  Parser: typeof ParserClass;
  parseHTML: typeof ParseHTML;
  Readability: typeof ReadabilityClass;
  turndown: TurndownService;
};

let libraries: Promise<Libraries> | undefined;

function load(): Promise<Libraries> {
  libraries ??= Promise.all([import('linkedom'), import('@mozilla/readability'), import('turndown'), import('htmlparser2')]).then(([linkedom, readability, td, htmlparser2]) => {
    const Turndown = (td as unknown as { default?: typeof TurndownService }).default ?? (td as unknown as typeof TurndownService);
    const turndown = new Turndown({ headingStyle: 'atx', codeBlockStyle: 'fenced', bulletListMarker: '-', emDelimiter: '_' });
    // Scripts, styles and forms are never content; images keep their alt text and address.
    turndown.remove(['script', 'style', 'noscript', 'template', 'iframe', 'form', 'button', 'svg', 'canvas'] as never);
    // Code shown as a bare <pre> (GitHub's highlighted blocks) is fenced too, its text without the highlighting.
    turndown.addRule('preformatted', {
      filter: (node) => node.nodeName === 'PRE' && !node.querySelector('code'),
      replacement: (_content, node) => `\n\n\`\`\`\n${(node.textContent ?? '').replace(/\n$/, '')}\n\`\`\`\n\n`,
    });
    turndown.addRule('table', { filter: 'table', replacement: (_content, node) => `\n\n${markdownTable(node as HTMLTableElement)}\n\n` });
    return { Parser: htmlparser2.Parser, parseHTML: linkedom.parseHTML, Readability: readability.Readability, turndown };
  });
  return libraries;
}

/** What relative links resolve against: the page's <base>, else its address. */
function baseUrl(pageUrl: string, baseHref: string | null | undefined): string {
  if (!baseHref) return pageUrl;
  try {
    return new URL(baseHref, pageUrl).href;
  } catch {
    return pageUrl; // A malformed <base> is ignored, as browsers do.
  }
}

/** Links and images made absolute against `base`, so the model can fetch them. */
function absolutize(document: Document, base: string): void {
  for (const b of Array.from(document.querySelectorAll('base'))) b.remove();
  for (const [selector, attr] of [['a[href]', 'href'], ['img[src]', 'src']] as const) {
    for (const el of Array.from(document.querySelectorAll(selector))) {
      const value = el.getAttribute(attr);
      if (!value || value.startsWith('#')) continue;
      try {
        el.setAttribute(attr, new URL(value, base).href);
      } catch {
        // Left as written.
      }
    }
  }
}

/** Parts of a page that are never its content, wherever they are. */
const CHROME = 'script, style, noscript, template, iframe, svg, canvas, form, nav, [role="navigation"], [role="banner"], [role="contentinfo"], [role="search"], [hidden], [aria-hidden="true"]';
/** Page-level chrome: a header, footer or aside inside an article belongs to it and stays. */
const OUTER_CHROME = 'header, footer, aside, [role="complementary"]';

function stripChrome(document: Document): void {
  for (const el of Array.from(document.querySelectorAll(CHROME))) el.remove();
  for (const el of Array.from(document.querySelectorAll(OUTER_CHROME))) if (!el.parentElement?.closest('article, main, [role="main"]')) el.remove();
}

/** The page's own statement of its content: one <main>, else one <article>. */
function markedContent(document: Document): Element | undefined {
  const mains = document.querySelectorAll('main, [role="main"]');
  if (mains.length === 1) return mains[0]!;
  const articles = document.querySelectorAll('article');
  return articles.length === 1 ? articles[0]! : undefined;
}

/**
 * Markdown of the page's main content. With `want`, a page that marks its
 * content may be converted only far enough to hold `want` characters (and a
 * little more): the result is then the whole conversion's prefix, `complete`
 * false. Pages without a marked content go through Readability, whole up to
 * MAX_CONVERTED_HTML. An aborted `signal` rejects with AbortedError at the
 * next step.
 */
export async function htmlToMarkdown(html: string, pageUrl: string, want = Number.POSITIVE_INFINITY, signal?: AbortSignal): Promise<ConvertedPage> {
  const libs = await load();
  const step = () => pause(signal);
  await step();
  const outline = await outlinePage(html, libs.Parser, step);
  if (outline.depth > MAX_DEPTH) throw new Error(`its elements nest ${outline.depth} deep, past the ${MAX_DEPTH} a browser builds`);
  if (Number.isFinite(want) && outline.content) return markedPrefix(libs, html, outline.content, outline.skippable, baseUrl(pageUrl, outline.baseHref), outline.title, want, step);
  const { parseHTML, Readability, turndown } = libs;
  const source = convertible(html, 0, html.length, outline.skippable);
  await step();
  // linkedom builds no document from a page without one element (empty, text only, a lone comment): give it one.
  const document = parseHTML(outline.depth > 0 ? source.html : `<html><body>${source.html}</body></html>`).document as unknown as Document;
  await step();
  // A cut page may have lost them; the outline read them from the whole.
  const fallback = source.cut ? outline : { baseHref: undefined, title: undefined };
  absolutize(document, baseUrl(pageUrl, document.querySelector('base[href]')?.getAttribute('href') ?? fallback.baseHref));
  const pageTitle = document.querySelector('title')?.textContent?.trim() || fallback.title;
  stripChrome(document);
  const marked = markedContent(document);
  const cut = source.cut ? { cut: true } : {};
  await step();
  // The node itself, not its HTML: Turndown would parse a string again (about half the cost of a large page).
  if (marked && (marked.textContent ?? '').trim().length > 0) return { title: pageTitle, markdown: tidy(turndown.turndown(marked as unknown as HTMLElement)), extracted: true, complete: true, ...cut };
  const body = document.body?.innerHTML ?? '';
  if (body.length > READABILITY_MAX_HTML || outline.depth > READABILITY_MAX_DEPTH) {
    return { title: pageTitle, markdown: tidy(turndown.turndown(document.body ?? source.html)), extracted: false, complete: true, unsearched: true, ...cut };
  }
  // Readability takes the document apart, so it reads its own copy of what is left.
  const copy = parseHTML(`<html><head><title>${escapeText(pageTitle ?? '')}</title></head><body>${body}</body></html>`).document as unknown as Document;
  await step();
  const article = new Readability(copy, { charThreshold: 200 }).parse();
  await step();
  if (article?.content && article.textContent?.trim()) {
    return { title: article.title?.trim() || pageTitle, markdown: tidy(turndown.turndown(article.content)), extracted: true, complete: true, ...cut };
  }
  return { title: pageTitle, markdown: tidy(turndown.turndown(body || source.html)), extracted: false, complete: true, ...cut };
}

/** A turn of the event loop (a Stop, a deadline's timer, a keystroke in the editor get theirs), then the signal is checked. */
async function pause(signal: AbortSignal | undefined): Promise<void> {
  await new Promise((resolve) => setImmediate(resolve));
  if (signal?.aborted) throw new AbortedError();
}

/**
 * The page's HTML from `start` to `end` as it is when it holds at most
 * MAX_CONVERTED_HTML characters; else without its scripts, styles and
 * comments, and cut to that size (never inside a tag, a character reference
 * or a surrogate pair). `cut` says whether anything that could be content was left out.
 */
function convertible(html: string, start: number, end: number, skippable: readonly (readonly [number, number])[]): { html: string; cut: boolean } {
  if (end - start <= MAX_CONVERTED_HTML) return { html: html.slice(start, end), cut: false };
  const parts: string[] = [];
  let size = 0;
  let at = start;
  for (const [from, to] of [...skippable.filter(([from, to]) => to > start && from < end), [end, end] as const]) {
    const part = html.slice(at, Math.max(at, Math.min(from, end)));
    if (size + part.length > MAX_CONVERTED_HTML) {
      parts.push(part.slice(0, cutIndex(part, MAX_CONVERTED_HTML - size)));
      return { html: parts.join(''), cut: true };
    }
    parts.push(part);
    size += part.length;
    at = Math.max(at, to);
  }
  return { html: parts.join(''), cut: false };
}

/** Where to cut `text` (which begins outside any tag) at or before `max`: before an unfinished tag, else between whole characters. */
function cutIndex(text: string, max: number): number {
  const lt = text.lastIndexOf('<', max - 1);
  if (lt > text.lastIndexOf('>', max - 1)) return lt;
  let at = max;
  const reference = /&#?[A-Za-z0-9]{0,32}$/.exec(text.slice(Math.max(0, at - 34), at));
  if (reference) at -= reference[0].length;
  if (/[\uD800-\uDBFF]/.test(text[at - 1] ?? '')) at--;
  return at;
}

/**
 * The marked content converted from its start: cut where its text first
 * reaches `want`, and cut further (twice the text each time) while the
 * Markdown is not longer than `want` (stripped chrome and collapsed markup
 * make text a loose measure), so the prefix always reaches past `want`. A
 * slice over MAX_CONVERTED_HTML is cut to it, and that is all there is to read.
 */
async function markedPrefix(
  libs: Libraries,
  html: string,
  content: PageContentOutline,
  skippable: readonly (readonly [number, number])[],
  base: string,
  title: string | undefined,
  want: number,
  step: () => Promise<void>,
): Promise<ConvertedPage> {
  for (let chars = want; ; chars *= 2) {
    const slice = contentSlice(html, content, chars);
    const source = convertible(html, content.start, content.start + slice.html.length, skippable);
    const document = libs.parseHTML(`<!doctype html><html><head></head><body>${source.html}</body></html>`).document as unknown as Document;
    await step();
    absolutize(document, base);
    stripChrome(document);
    const root = document.body?.firstElementChild;
    const markdown = root ? tidy(libs.turndown.turndown(root as unknown as HTMLElement)) : '';
    await step();
    if (source.cut) return { title, markdown, extracted: true, complete: true, cut: true };
    if (slice.complete || markdown.length > want) return { title, markdown, extracted: true, complete: slice.complete };
  }
}

const escapeText = (s: string) => s.replace(/&/g, '&amp;').replace(/</g, '&lt;');

/** A pipe table from a <table>, its first row as the header; cells on one line, pipes escaped. */
function markdownTable(table: HTMLTableElement): string {
  const rows = Array.from(table.querySelectorAll('tr')).map((tr) =>
    Array.from(tr.querySelectorAll('th, td')).map((cell) => (cell.textContent ?? '').replace(/\s+/g, ' ').trim().replace(/\|/g, '\\|')),
  );
  const width = Math.max(0, ...rows.map((r) => r.length));
  if (width === 0) return '';
  const line = (cells: string[]) => `| ${Array.from({ length: width }, (_, i) => cells[i] ?? '').join(' | ')} |`;
  const [head, ...rest] = rows;
  return [line(head!), line(Array(width).fill('---')), ...rest.map(line)].join('\n');
}

/** Runs of blank lines and trailing spaces cost tokens and say nothing. */
const tidy = (md: string) => md.replace(/[ \t]+$/gm, '').replace(/\n{3,}/g, '\n\n').trim();
