// Layer 1 of the panel's markdown sanitiser: `marked` with our renderer, which
// turns raw HTML in model text into visible text and images into links. It
// needs no DOM (its output is a string), so it is tested in plain Node
// (test/unit/webview/sanitiser.test.ts); layers 2–4 are in ./sanitize.ts.
import { Marked, type Tokens } from 'marked';

export const escapeHtml = (s: string) => s.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);

export const md = new Marked({
  gfm: true,
  breaks: false,
  async: false,
  renderer: {
    html(token: Tokens.HTML | Tokens.Tag): string {
      const text = escapeHtml(token.text);
      return 'block' in token && token.block ? `<p>${text}</p>` : text;
    },
    image({ href, text }: Tokens.Image): string {
      // Images would load remote content (tracking) or paint fake UI; show a link instead.
      return `<a href="${escapeHtml(href)}">${escapeHtml(text ? `image: ${text}` : href)}</a>`;
    },
    checkbox({ checked }: Tokens.Checkbox): string {
      return checked ? '☑ ' : '☐ ';
    },
  },
});

/** Model text with Windows line ends: marked's token `raw`s must add up to the text the panel keeps. */
export const normalise = (s: string) => (s.includes('\r') ? s.replace(/\r/g, '') : s);

/** Layer 1: markdown to HTML with raw HTML as text and images as links. Unsanitised output. */
export function markdownToHtml(src: string): string {
  return md.parser(md.lexer(normalise(src)));
}
