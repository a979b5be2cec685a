// What a fetched body becomes for the model: HTML as Markdown of its main
// content (or its text as is, when `raw`), JSON and text as they are, an image
// as an image block through the same pipeline as read_file and attachments.
// Anything else (PDF, archives, binaries) is refused with a message naming it.
import { formatImageSize, ImageError, imageFromBytes, sniffImageType } from '../../runtime/context/images';
import { type ImageBlock } from '../../runtime/types';
import { ToolError } from '../errors';
import { formatBytes, looksBinary } from '../files/text';
import { htmlToMarkdown } from './html-markdown';

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

/** The declared charset when the platform knows it, else UTF-8 (what almost every page is). */
function decode(body: Buffer, charset: string | undefined): string {
  try {
    return new TextDecoder(charset ?? 'utf-8').decode(body);
  } catch {
    return new TextDecoder('utf-8').decode(body);
  }
}

const looksLikeHtml = (text: string) => /^\s*(<!doctype html|<html[\s>]|<head[\s>]|<body[\s>])/i.test(text);

/** `want`: how many characters of the converted content will be read (an HTML page may be converted only that far). */
export async function pageContent(body: Buffer, contentType: string, url: string, raw: boolean, want?: number): Promise<PageContent> {
  const declared = mediaTypeOf(contentType);
  const charset = declared.charset;
  let type = declared.type;
  // Servers that say nothing, or only "octet-stream", are judged by the bytes.
  if (type === '' || type === 'application/octet-stream') {
    const image = sniffImageType(body);
    if (image) type = image;
    else if (!looksBinary(body, 'utf8')) type = looksLikeHtml(decode(body, charset)) ? 'text/html' : 'text/plain';
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
    const html = decode(body, charset);
    if (raw) return { kind: 'text', text: html };
    const page = await htmlToMarkdown(html, url, want);
    return {
      kind: 'text',
      text: page.markdown,
      ...(page.title ? { title: page.title } : {}),
      ...(page.extracted ? {} : { note: 'No main content was found; this is the whole page.' }),
      ...(page.complete ? {} : { partial: true }),
    };
  }
  if (TEXT_TYPES.test(type) || type === 'image/svg+xml') return { kind: 'text', text: decode(body, charset) };
  throw new ToolError(
    'unsupported_type',
    `${url} is ${type || 'of an unknown type'} (${formatBytes(body.length)}), which web_fetch cannot read: it reads HTML (as Markdown), text, JSON and XML, and shows PNG, JPEG, GIF and WebP images. To work with this file, download it with bash (e.g. curl -o) and use a tool that reads it.`,
  );
}
