// How attachments reach the model: each one a tagged block before the user's
// words, which come last in their own tag, so the model can tell what the
// user wrote from what was attached. Attached text cannot close its block
// early and pose as the user: a closing tag inside it is defused.

export interface AttachmentBlock {
  kind: 'file' | 'selection' | 'folder' | 'problems' | 'terminal' | 'git';
  label: string;
  text: string;
}

const attr = (s: string) => s.replace(/[&"<>\n\r]/g, (c) => ({ '&': '&amp;', '"': '&quot;', '<': '&lt;', '>': '&gt;', '\n': ' ', '\r': ' ' })[c]!);
/** `</attachment` and `</user_message` inside attached text get a zero-width space, so they no longer close anything. */
const defuse = (s: string) => s.replace(/<\/(attachment|user_message)/gi, '<\u200b/$1');

/** Rough token estimate (about 4 characters a token), for the chips. */
export function estimateTokens(text: string): number {
  return Math.ceil(text.length / 4);
}

export function formatPromptWithAttachments(text: string, attachments: readonly AttachmentBlock[]): string {
  if (attachments.length === 0) return text;
  const blocks = attachments.map((a) => `<attachment kind="${a.kind}" label="${attr(a.label)}">\n${defuse(a.text)}\n</attachment>`);
  return `${blocks.join('\n\n')}\n\n<user_message>\n${defuse(text)}\n</user_message>`;
}

/** The user's own words of a prompt built by formatPromptWithAttachments (the prompt itself when it has no attachments). */
export function userWordsOf(prompt: string): string {
  const m = /\n\n<user_message>\n([\s\S]*)\n<\/user_message>$/.exec(prompt) ?? /^<user_message>\n([\s\S]*)\n<\/user_message>$/.exec(prompt);
  return m ? m[1]!.replace(/<\u200b\/(attachment|user_message)/gi, '</$1') : prompt;
}
