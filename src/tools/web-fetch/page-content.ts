// What a fetched body becomes for the model: HTML as Markdown of its main
// content (or its text as is, when `raw`), JSON and text as they are, an image
// as an image block through the same pipeline as read_file and attachments.
// Anything else (PDF, archives, binaries) is refused with a message naming it.
// Text is decoded as browsers decode it (byte-order mark, header, <meta>).
import { isAbortedError } from '../../runtime/cancellation';
import { formatImageSize, ImageError, imageFromBytes, sniffImageType } from '../../runtime/context/images';
import { type ImageBlock } from '../../runtime/types';
import { ToolError } from '../errors';
import { formatBytes, looksBinary } from '../files/text';
import { type ConvertedPage, htmlToMarkdown, MAX_CONVERTED_HTML } from './html-markdown';

export type PageContent =
  /** `partial`: only the start of the content was converted; `text` is its prefix, longer than what was asked for. */
  | { kind: 'text'; text: string; title?: string; note?: string; partial?: boolean }
  | { kind: 'image'; image: ImageBlock; description: string };

const TEXT_TYPES = /^(text\/|application\/(json|ld\+json|xml|javascript|ecmascript|x-javascript|x-yaml|yaml|toml|x-sh|graphql|manifest\+json)$|application\/[a-z0-9.+-]+\+(json|xml)$)/;
const HTML_TYPES = /^(text\/html|application\/xhtml\+xml)$/;

function mediaTypeOf(contentType: string): { type: string; charset: string | undefined } {
  const [type = '', ...params] = contentType.split(';').map((p) => p.trim());
  const charset = params.map((p) => /^charset=["']?([^"';]+)/i.exec(p)?.[1]).find((c) => c);
  return { type: type.toLowerCase(), charset };
}

/** The encoding TextDecoder knows by a WHATWG label (`latin1`, `sjis`, `UTF8`), or undefined. */
function encodingOf(label: string | undefined): string | undefined {
  if (label === undefined) return undefined;
  try {
    return new TextDecoder(label.trim()).encoding;
  } catch {
    return undefined;
  }
}

/** UTF-8 and UTF-16 announce themselves with a byte-order mark, which outranks any label. */
function bomEncoding(body: Buffer): string | undefined {
  if (body[0] === 0xef && body[1] === 0xbb && body[2] === 0xbf) return 'utf-8';
  if (body[0] === 0xfe && body[1] === 0xff) return 'utf-16be';
  if (body[0] === 0xff && body[1] === 0xfe) return 'utf-16le';
  return undefined;
}

/**
 * How a body is decoded, as browsers do (WHATWG Encoding and HTML's "determine
 * the character encoding"): a byte-order mark, else the header's charset when
 * it names a known encoding, else (HTML) a <meta> in the first 1024 bytes, else UTF-8.
 */
function decode(body: Buffer, headerCharset: string | undefined, html: boolean): string {
  const encoding = bomEncoding(body) ?? encodingOf(headerCharset) ?? (html ? metaEncoding(body) : undefined) ?? 'utf-8';
  const text = new TextDecoder(encoding).decode(body);
  return encoding === 'windows-1252' ? text.replace(/[\x80-\x9f]/g, (c) => WINDOWS_1252[c.charCodeAt(0) - 0x80]!) : text;
}

/**
 * Bytes 0x80–0x9F in windows-1252, the encoding every `latin1` and
 * `iso-8859-1` label names: Node 20's TextDecoder reads them as C1 controls
 * (as ISO-8859-1 does), where the standard and browsers read € ‚ ƒ „ … “ ” ™.
 * (Where the decoder is right, the text holds none of them and this changes nothing.)
 */
const WINDOWS_1252 = '\u20ac\x81\u201a\u0192\u201e\u2026\u2020\u2021\u02c6\u2030\u0160\u2039\u0152\x8d\u017d\x8f\x90\u2018\u2019\u201c\u201d\u2022\u2013\u2014\u02dc\u2122\u0161\u203a\u0153\x9d\u017e\u0178';

/**
 * The charset a page's <meta charset> or <meta http-equiv="Content-Type"
 * content="…; charset=…"> declares within its first 1024 bytes: HTML's
 * prescan, simplified (comments and other tags skipped, attributes read with
 * their quotes). A <meta> naming UTF-16 means UTF-8 (the bytes read it as
 * ASCII, so they are not UTF-16); an unknown label is passed over.
 */
function metaEncoding(body: Buffer): string | undefined {
  const head = body.subarray(0, 1024).toString('latin1');
  const tag = /<!--[\s\S]*?(?:-->|$)|<meta(?=[\s/])((?:[^>"']|"[^"]*(?:"|$)|'[^']*(?:'|$))*)|<\/?[A-Za-z][^>]*|<[!/?][^>]*/gi;
  for (let m = tag.exec(head); m; m = tag.exec(head)) {
    if (m[1] === undefined) continue;
    const attrs = new Map<string, string>();
    const attr = /([^\s/=>]+)\s*(?:=\s*(?:"([^"]*)"?|'([^']*)'?|([^\s>]*)))?/g;
    for (let a = attr.exec(m[1]); a; a = attr.exec(m[1])) {
      const name = a[1]!.toLowerCase();
      if (!attrs.has(name)) attrs.set(name, a[2] ?? a[3] ?? a[4] ?? '');
    }
    const content = attrs.get('http-equiv')?.trim().toLowerCase() === 'content-type' ? /charset\s*=\s*(?:"([^"]*)"|'([^']*)'|([^\s;"']+))/i.exec(attrs.get('content') ?? '') : null;
    const label = attrs.get('charset') ?? (content ? (content[1] ?? content[2] ?? content[3]) : undefined);
    if (label === undefined) continue;
    const encoding = encodingOf(label);
    if (!encoding) continue;
    return encoding.startsWith('utf-16') ? 'utf-8' : encoding;
  }
  return undefined;
}

const looksLikeHtml = (text: string) => /^\s*(<!doctype html|<html[\s>]|<head[\s>]|<body[\s>])/i.test(text);

/**
 * `want`: how many characters of the converted content will be read (an HTML
 * page may be converted only that far). `signal` ends an HTML conversion
 * (AbortedError): the caller's Stop and deadline.
 */
export async function pageContent(body: Buffer, contentType: string, url: string, raw: boolean, want?: number, signal?: AbortSignal): Promise<PageContent> {
  const declared = mediaTypeOf(contentType);
  const charset = declared.charset;
  let type = declared.type;
  // Servers that say nothing, or only "octet-stream", are judged by the bytes.
  if (type === '' || type === 'application/octet-stream') {
    const image = sniffImageType(body);
    if (image) type = image;
    else if (bomEncoding(body) || !looksBinary(body, 'utf8')) type = looksLikeHtml(decode(body, charset, false)) ? 'text/html' : 'text/plain';
  }
  if (type.startsWith('image/') && type !== 'image/svg+xml') {
    try {
      const image = imageFromBytes(body, url);
      return { kind: 'image', image, description: `${url}: ${formatImageSize(image)} (shown as an image)` };
    } catch (error) {
      if (error instanceof ImageError) throw new ToolError('unsupported_type', `${error.message}. web_fetch shows PNG, JPEG, GIF and WebP images.`);
      throw error;
    }
  }
  if (HTML_TYPES.test(type)) {
    const html = decode(body, charset, true);
    if (raw) return { kind: 'text', text: html };
    const page = await convert(html, url, want, signal);
    const notes: string[] = [];
    const whole = page.cut ? 'this is the page from its start' : 'this is the whole page';
    if (page.unsearched) notes.push(`The page marks no main content and is too large or too deeply nested to look for it; ${whole} (navigation, sidebars and footers left out).`);
    else if (!page.extracted) notes.push(`No main content was found; ${whole}.`);
    if (page.cut) {
      notes.push(
        `The page's HTML is ${formatBytes(body.length)}; only its first ${formatBytes(MAX_CONVERTED_HTML)} (scripts and styles left out) was converted to Markdown, and reading on converts no more. raw: true reads its source as it is.`,
      );
    }
    return {
      kind: 'text',
      text: page.markdown,
      ...(page.title ? { title: page.title } : {}),
      ...(notes.length > 0 ? { note: notes.join(' ') } : {}),
      ...(page.complete ? {} : { partial: true }),
    };
  }
  if (TEXT_TYPES.test(type) || type === 'image/svg+xml') return { kind: 'text', text: decode(body, charset, false) };
  throw new ToolError(
    'unsupported_type',
    `${url} is ${type || 'of an unknown type'} (${formatBytes(body.length)}), which web_fetch cannot read: it reads HTML (as Markdown), text, JSON and XML, and shows PNG, JPEG, GIF and WebP images. To work with this file, download it with bash (e.g. curl -o) and use a tool that reads it.`,
  );
}

/** The libraries' own failures (Readability and Turndown recurse, and a page nested deep enough overflows the stack) as a tool error. */
async function convert(html: string, url: string, want: number | undefined, signal: AbortSignal | undefined): Promise<ConvertedPage> {
  try {
    return await htmlToMarkdown(html, url, want, signal);
  } catch (error) {
    if (isAbortedError(error)) throw error;
    throw new ToolError('unsupported_type', `${url}: web_fetch could not convert this HTML to Markdown (${(error as Error).message ?? String(error)}). raw: true reads its source as it is.`);
  }
}
