// web_fetch (contracts.md "Web"): one page of the web for the model, read-only,
// under permission kind `fetch`. The network rules live in ./http-get,
// what a body becomes in ./page-content; this file holds the input,
// the paging and the words the model reads.
import { z } from 'zod';
import { cutHead } from '../../runtime/text-cut';
import { isAbortedError } from '../../runtime/cancellation';
import { type ToolOutput, ToolInputError } from '../../runtime/types';
import { ToolError } from '../errors';
import { defineTool } from '../tool';
import { httpGet, type WebFetchConfig } from './http-get';
import { pageContent } from './page-content';

export const WEB_FETCH_DEFAULT_LENGTH = 20_000;
const MAX_LENGTH = 100_000;


const schema = z.object({
  url: z.string().min(1).describe('The http:// or https:// URL to fetch.'),
  max_length: z.number().int().min(1).max(MAX_LENGTH).optional().describe(`Characters of content to return (default ${WEB_FETCH_DEFAULT_LENGTH}, at most ${MAX_LENGTH}).`),
  start_index: z.number().int().min(0).optional().describe('Character to start from, to read the next part of a long page (default 0); a cut result says which value to use.'),
  raw: z.boolean().optional().describe('true: an HTML page as its HTML source instead of Markdown of its main content.'),
});

/** The URL as rules and the approval see it: parsed and normalised, http(s) only, no credentials. */
export function parseFetchUrl(raw: string): URL {
  let url: URL;
  try {
    url = new URL(raw.trim());
  } catch {
    throw new ToolInputError(`web_fetch: "${raw}" is not a valid URL; give a full URL such as https://example.com/page.`);
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') throw new ToolInputError(`web_fetch reads http:// and https:// URLs only, not ${url.protocol}`);
  if (url.username || url.password) throw new ToolInputError('web_fetch: the URL holds a user name or password; credentials are never sent. Leave them out.');
  url.hash = '';
  return url;
}

export const webFetchTool = defineTool({
  name: 'web_fetch',
  description: [
    'Fetches a web page (HTTP GET) and returns its main content as Markdown: navigation, sidebars and footers are left out, links are absolute.',
    'JSON, plain text and other text types are returned as they are; PNG, JPEG, GIF and WebP images as images you can see. PDFs and other binary files are refused.',
    `Returns up to ${WEB_FETCH_DEFAULT_LENGTH} characters by default (max_length, at most ${MAX_LENGTH}); a longer page says which start_index reads the next part.`,
    'Set raw: true to get an HTML page\'s source instead (e.g. to read its <head> or a script).',
    'Only public internet addresses are reached (no localhost or private networks unless the user allows them); pages over 10 MB or slower than 30 s (conversion included) are refused, and of a page with more than 512 KB of HTML only the start is converted (raw: true reads all of it); no cookies or logins are used, so pages behind a sign-in are not readable.',
    'A redirect to another site is not followed: the result gives the new URL to fetch. The user is asked before each fetch unless they allowed the site.',
  ].join('\n'),
  schema,
  readOnly: true,
  need: 'fetch',
  async assess(input) {
    return { need: 'fetch', subject: parseFetchUrl(input.url).href };
  },
  async execute(input, env, ctx) {
    const url = parseFetchUrl(input.url);
    // One deadline for the whole use: the transfer and the conversion after it (a huge page converts for seconds).
    const deadline = new AbortController();
    const timer = setTimeout(() => deadline.abort(), env.webFetch.timeoutMs);
    try {
      return await fetchPage(url, input, env.webFetch, ctx.signal, deadline.signal);
    } catch (error) {
      if (isAbortedError(error) && deadline.signal.aborted && !ctx.signal.aborted) {
        throw new ToolError('timeout', `${url.href} did not finish within ${env.webFetch.timeoutMs / 1000} s: the page arrived, but converting it took longer; stopped. raw: true reads its source without converting it.`);
      }
      throw error;
    } finally {
      clearTimeout(timer);
    }
  },
});

async function fetchPage(url: URL, input: z.infer<typeof schema>, config: WebFetchConfig, signal: AbortSignal, deadline: AbortSignal): Promise<ToolOutput> {
  const response = await httpGet(url, { ...config, signal, deadline });
  if (response.redirectedTo) {
    return {
      content: `${url.href} redirects (HTTP ${response.status}) to ${response.redirectedTo}, on another site; not followed. To read it, call web_fetch with url "${response.redirectedTo}".`,
      isError: false,
    };
  }
  const failed = response.status >= 400;
  const length = input.max_length ?? WEB_FETCH_DEFAULT_LENGTH;
  const content = await pageContent(response.body, response.contentType, response.url, input.raw === true, (input.start_index ?? 0) + length, AbortSignal.any([signal, deadline]));
  if (content.kind === 'image') return { content: content.description, images: [content.image], isError: failed };

  const header = [`URL: ${response.url}`];
  if (response.url !== url.href) header.push(`(redirected from ${url.href})`);
  if (failed) header.push(`HTTP ${response.status}${response.statusText ? ` ${response.statusText}` : ''}: the server answered with an error; its page follows.`);
  if (content.title) header.push(`Title: ${content.title}`);
  if (content.note) header.push(content.note);
  let start = input.start_index ?? 0;
  // Never begin inside a surrogate pair: a lone half is refused by the API on every later request.
  if (start > 0 && /[\uDC00-\uDFFF]/.test(content.text[start] ?? '') && /[\uD800-\uDBFF]/.test(content.text[start - 1] ?? '')) start++;
  const total = content.text.length;
  if (total === 0) return { content: `${header.join('\n')}\n\n(the page is empty)`, isError: failed };
  if (start >= total) throw new ToolError('out_of_range', `start_index ${start} is past the end of the content, which has ${total} characters.`);
  const page = cutHead(content.text.slice(start), length);
  const end = start + page.length;
  // A partial conversion always reaches past what was asked for, so there is more after `end`.
  const of = content.partial ? '' : ` of ${total}`;
  const more = end < total ? `\n\n[Showing characters ${start}–${end}${of}. To read more, call web_fetch with start_index=${end}.]` : start > 0 ? `\n\n[Showing characters ${start}–${end} of ${total}: the end of the content.]` : '';
  return { content: `${header.join('\n')}\n\n${page}${more}`, isError: failed };
}
