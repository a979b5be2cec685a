// HTML → Markdown for web_fetch: the page's main content first, then Turndown.
// Site chrome (navigation, banners, sidebars, footers) goes; what is left is
// the page's <main> when it marks one (docs sites, GitHub: every comment of an
// issue, which Readability would cut to the first), its one <article>, or else
// what Mozilla's Readability (Firefox's reader view) picks on a linkedom document.
// The libraries are imported on the first HTML page, not with the tools:
// most sessions never fetch one.
import type { Readability as ReadabilityClass } from '@mozilla/readability';
import type { parseHTML as ParseHTML } from 'linkedom';
import type TurndownService from 'turndown';
import type { Parser as ParserClass } from 'htmlparser2';
import { contentSlice, outlinePage, type PageContentOutline } from './content-prefix';

export interface ConvertedPage {
  title: string | undefined;
  markdown: string;
  /** False when Readability found no article and the whole body was converted. */
  extracted: boolean;
  /** False when only the start of the content was converted (`markdown` is a prefix of the whole). */
  complete: boolean;
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
 * false. Pages without a marked content go through Readability, whole.
 */
export async function htmlToMarkdown(html: string, pageUrl: string, want = Number.POSITIVE_INFINITY): Promise<ConvertedPage> {
  const libs = await load();
  if (Number.isFinite(want)) {
    const outline = outlinePage(html, libs.Parser);
    if (outline.content) return markedPrefix(libs, html, outline.content, baseUrl(pageUrl, outline.baseHref), outline.title, want);
  }
  const { parseHTML, Readability, turndown } = libs;
  const document = parseHTML(html).document as unknown as Document;
  absolutize(document, baseUrl(pageUrl, document.querySelector('base[href]')?.getAttribute('href')));
  const pageTitle = document.querySelector('title')?.textContent?.trim() || undefined;
  stripChrome(document);
  const marked = markedContent(document);
  // The node itself, not its HTML: Turndown would parse a string again (about half the cost of a large page).
  if (marked && (marked.textContent ?? '').trim().length > 0) return { title: pageTitle, markdown: tidy(turndown.turndown(marked as unknown as HTMLElement)), extracted: true, complete: true };
  const body = document.body?.innerHTML ?? '';
  // Readability takes the document apart, so it reads its own copy of what is left.
  const article = new Readability(parseHTML(`<html><head><title>${escapeText(pageTitle ?? '')}</title></head><body>${body}</body></html>`).document as unknown as Document, { charThreshold: 200 }).parse();
  if (article?.content && article.textContent?.trim()) {
    return { title: article.title?.trim() || pageTitle, markdown: tidy(turndown.turndown(article.content)), extracted: true, complete: true };
  }
  return { title: pageTitle, markdown: tidy(turndown.turndown(body || html)), extracted: false, complete: true };
}

/**
 * The marked content converted from its start: cut where its text first
 * reaches `want`, and cut further (twice the text each time) while the
 * Markdown is not longer than `want` (stripped chrome and collapsed markup
 * make text a loose measure), so the prefix always reaches past `want`.
 */
function markedPrefix(libs: Libraries, html: string, content: PageContentOutline, base: string, title: string | undefined, want: number): ConvertedPage {
  for (let chars = want; ; chars *= 2) {
    const slice = contentSlice(html, content, chars);
    const document = libs.parseHTML(`<!doctype html><html><head></head><body>${slice.html}</body></html>`).document as unknown as Document;
    absolutize(document, base);
    stripChrome(document);
    const root = document.body?.firstElementChild;
    const markdown = root ? tidy(libs.turndown.turndown(root as unknown as HTMLElement)) : '';
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
