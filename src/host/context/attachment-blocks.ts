// How attachments reach the model: each one a tagged block before the user's
// words, which come last in their own tag, so the model can tell what the
// user wrote from what was attached. Attached text cannot close its block
// early and pose as the user: a closing tag inside it is defused.

import { splitAttachments, withAttachments } from '../../runtime/session/user-text';

export interface AttachmentBlock {
  kind: 'file' | 'selection' | 'folder' | 'problems' | 'terminal' | 'git';
  label: string;
  text: string;
  /** What it could not include (@terminal without shell integration…), for the chip; the text says it too. */
  note?: string;
}

/** Rough token estimate (about 4 characters a token), for the chips. */
export function estimateTokens(text: string): number {
  return Math.ceil(text.length / 4);
}

/** The one prompt format (src/runtime/session/user-text.ts): attachments as tagged blocks, the words last. */
export function formatPromptWithAttachments(text: string, attachments: readonly AttachmentBlock[]): string {
  return withAttachments(text, attachments);
}

/** The user's own words of a prompt built by formatPromptWithAttachments (the prompt itself when it has no attachments). */
export function userWordsOf(prompt: string): string {
  return splitAttachments(prompt).words;
}
