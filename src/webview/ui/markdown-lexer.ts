// The panel's markdown lexer: marked, GitHub-flavoured, used only for its tokens
// (./markdown-dom.ts builds the DOM from them; marked never writes HTML here).
// Needs no DOM, so token shapes are tested in plain Node.
import { Marked } from 'marked';

export const md = new Marked({ gfm: true, breaks: false, async: false });

/** Model text with Windows line ends: marked's token `raw`s must add up to the text the panel keeps. */
export const normalise = (s: string) => (s.includes('\r') ? s.replace(/\r/g, '') : s);
