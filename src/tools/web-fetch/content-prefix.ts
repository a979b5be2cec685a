// The part of a page worth building a DOM for. A 1 MB docs page costs hundreds
// of milliseconds to parse into linkedom and a second or more through Turndown,
// yet the model reads 20 000 characters of it at a time. One streaming pass of
// htmlparser2 (the tokenizer linkedom itself uses, ~20 ms per MB) finds what the
// DOM path would pick as the page's marked content (its one <main>, else its one
// <article>, ignoring copies inside chrome) and where that content can be cut:
// right after an element whose ancestors up to the content are plain containers,
// so a cut never lands inside a list, table or code block. Converting the cut
// HTML then gives the same Markdown as the whole page, up to the cut.
// The pass also notes where the page's scripts, styles and comments lie (never
// content, often most of a big page's bytes), and it reads the page in pieces,
// giving the event loop a turn between them, so a Stop is heard during it.
// htmlparser2 comes in as an argument, imported with the other converters on the first HTML page.
import type { Parser as ParserClass } from 'htmlparser2';

/** Elements a cut may sit inside: they hold blocks and add no Markdown of their own around them. */
const CONTAINERS = new Set(['html', 'body', 'main', 'article', 'section', 'div', 'header', 'footer', 'aside', 'hgroup', 'figure', 'details', 'center']);
/** Never content (html-markdown's CHROME): a <main> inside one is not the page's. */
const CHROME_TAGS = new Set(['script', 'style', 'noscript', 'template', 'iframe', 'svg', 'canvas', 'form', 'nav']);
const CHROME_ROLES = new Set(['navigation', 'banner', 'contentinfo', 'search']);
/** Elements htmlparser2 never pushes on its stack (no closing tag follows). */
const VOID = new Set(['area', 'base', 'br', 'col', 'embed', 'hr', 'img', 'input', 'link', 'meta', 'param', 'source', 'track', 'wbr']);

interface Marked {
  /** Index of the `<` of its opening tag. */
  start: number;
  depth: number;
  /** Document text before it. */
  textBefore: number;
  /** Whether any text shows inside it (chrome excluded). */
  hasText: boolean;
  /** Where it ended; undefined while open (or when the page never closes it). */
  end?: number;
}

interface Cut {
  /** Index just past an element's closing tag. */
  at: number;
  /** Text of the whole document before `at` (chrome excluded, runs of spaces as one). */
  text: number;
  /** The deepest ancestor that is not a container (-1 when every one is). */
  blockedAt: number;
}

export interface PageContentOutline {
  start: number;
  end: number;
  textBefore: number;
  cuts: Cut[];
}

export interface PageOutline {
  title: string | undefined;
  baseHref: string | undefined;
  /** The page's marked content, when it has exactly one (as html-markdown's markedContent judges). */
  content: PageContentOutline | undefined;
  /** Where each script, style and comment lies, [start, end) in the page, in order; they never overlap. */
  skippable: (readonly [number, number])[];
  /** How deep elements nest at most (html is 1). */
  depth: number;
}

/** Characters read between two turns of the event loop (the pass runs at about 20 ms per MB). */
const PIECE = 256 * 1024;

const isMarkedContent = (name: string, role: string | undefined) => name === 'main' || name === 'article' || role === 'main';

/**
 * One pass over the page: its title, its <base>, its marked content and the
 * places that content can be cut. `pause` runs between pieces of the page
 * (it yields, and throws to stop the pass).
 */
export async function outlinePage(html: string, Parser: typeof ParserClass, pause: () => Promise<void> = async () => {}): Promise<PageOutline> {
  let title: string | undefined;
  let inTitle = false;
  let baseHref: string | undefined;
  const stack: { chrome: boolean; container: boolean; content: boolean }[] = [];
  let chromeDepth = 0;
  let contentDepth = 0;
  let text = 0;
  const mains: Marked[] = [];
  const articles: Marked[] = [];
  const open: Marked[] = [];
  const cuts: Cut[] = [];
  const blocked: number[] = [];
  const skippable: [number, number][] = [];
  let rawStart: number | undefined;
  let deepest = 0;

  const parser = new Parser(
    {
      onopentag(name, attrs) {
        // The DOM path takes the first <title> anywhere, before it strips anything.
        if (name === 'title' && title === undefined) inTitle = true;
        if (name === 'base' && baseHref === undefined && attrs.href !== undefined) baseHref = attrs.href;
        // Raw text: nothing inside is a tag, and only its own end tag (or the page's end) closes it.
        if (name === 'script' || name === 'style') rawStart = parser.startIndex;
        if (VOID.has(name)) return;
        // Matched as the DOM path's selectors match it: [role="main"] is exact.
        const role = attrs.role;
        const outerChrome = contentDepth === 0 && (name === 'header' || name === 'footer' || name === 'aside' || role === 'complementary');
        const chrome = outerChrome || CHROME_TAGS.has(name) || (role !== undefined && CHROME_ROLES.has(role)) || attrs.hidden !== undefined || attrs['aria-hidden'] === 'true';
        const depth = stack.length;
        const content = isMarkedContent(name, role);
        if (chromeDepth === 0 && !chrome && content) {
          const marked: Marked = { start: parser.startIndex, depth, textBefore: text, hasText: false };
          (name === 'article' && role !== 'main' ? articles : mains).push(marked);
          open.push(marked);
        }
        const container = CONTAINERS.has(name) || role === 'main';
        stack.push({ chrome, container, content });
        deepest = Math.max(deepest, stack.length);
        if (!container) blocked.push(depth);
        if (chrome) chromeDepth++;
        if (content) contentDepth++;
      },
      ontext(data) {
        if (inTitle) title = (title ?? '') + data;
        if (chromeDepth > 0) return;
        // Spaces collapse in Markdown: count what shows.
        text += data.replace(/\s+/g, ' ').length;
        if (data.trim() !== '') for (const m of open) m.hasText = true;
      },
      oncomment() {
        skippable.push([parser.startIndex, parser.endIndex + 1]);
      },
      onclosetag(name, implied) {
        if (name === 'title') inTitle = false;
        if (rawStart !== undefined && (name === 'script' || name === 'style')) {
          skippable.push([rawStart, implied ? html.length : parser.endIndex + 1]);
          rawStart = undefined;
        }
        if (VOID.has(name)) return;
        const entry = stack.pop();
        if (!entry) return;
        const depth = stack.length;
        if (entry.chrome) chromeDepth--;
        if (entry.content) contentDepth--;
        if (!entry.container) blocked.pop();
        const at = parser.endIndex + 1;
        const index = open.findIndex((m) => m.depth === depth);
        if (index >= 0) open.splice(index, 1)[0]!.end = at;
        cuts.push({ at, text, blockedAt: blocked.length ? blocked[blocked.length - 1]! : -1 });
      },
    },
    { decodeEntities: true, lowerCaseTags: true, lowerCaseAttributeNames: true },
  );
  for (let at = 0; at < html.length; at += PIECE) {
    if (at > 0) await pause();
    parser.write(html.slice(at, at + PIECE));
  }
  parser.end();

  const only = mains.length === 1 ? mains[0] : mains.length === 0 && articles.length === 1 ? articles[0] : undefined;
  let content: PageContentOutline | undefined;
  // An empty one is not used by the DOM path either (it reads the whole page then).
  if (only?.hasText) {
    const end = only.end ?? html.length;
    // Inside the content, after an element whose ancestors below the content are all containers.
    content = { start: only.start, end, textBefore: only.textBefore, cuts: cuts.filter((c) => c.at > only.start && c.at < end && c.blockedAt < only.depth) };
  }
  return { title: title?.trim() || undefined, baseHref, content, skippable, depth: deepest };
}

/**
 * The HTML of the marked content, whole or cut after the first place that
 * holds at least `chars` characters of its text; `complete` says which.
 */
export function contentSlice(html: string, content: PageContentOutline, chars: number): { html: string; complete: boolean } {
  const cut = content.cuts.find((c) => c.text - content.textBefore >= chars);
  if (!cut) return { html: html.slice(content.start, content.end), complete: true };
  return { html: html.slice(content.start, cut.at), complete: false };
}
