// How a prompt with attachments is written into the user message, and how the
// user's own words and the attachment labels are read back from it (titles,
// resumed transcripts, checkpoints). One format, declared here, so the writers
// and the readers cannot drift:
//
//   <attachment kind="file" label="a.ts">
//   File: src/a.ts
//   …
//   </attachment>
//
//   <user_message>
//   the user's words
//   </user_message>
//
// Each attachment is its own block and the words come last in their own tag, so
// the model can tell what the user wrote from what was attached. Attached text
// cannot close its block early and pose as the user: the format's tags inside it
// are defused with a zero-width space.

export interface PromptAttachment {
  kind?: string;
  label: string;
  text: string;
}

const attr = (s: string) => s.replace(/[&"<>\n\r]/g, (c) => ({ '&': '&amp;', '"': '&quot;', '<': '&lt;', '>': '&gt;', '\n': ' ', '\r': ' ' })[c]!);
const unattr = (s: string) => s.replace(/&(amp|quot|lt|gt);/g, (_m, e: string) => ({ amp: '&', quot: '"', lt: '<', gt: '>' })[e]!);
/** The format's tags inside text (opening or closing) get a zero-width space, so they open and close nothing. */
const defuse = (s: string) => s.replace(/<(\/?)(attachment|user_message)/gi, '<\u200b$1$2');
const undefuse = (s: string) => s.replace(/<\u200b(\/?)(attachment|user_message)/gi, '<$1$2');

export function withAttachments(text: string, attachments: readonly PromptAttachment[]): string {
  if (attachments.length === 0) return text;
  const blocks = attachments.map((a) => `<attachment kind="${attr(a.kind ?? 'file')}" label="${attr(a.label)}">\n${defuse(a.text)}\n</attachment>`);
  return `${blocks.join('\n\n')}\n\n<user_message>\n${defuse(text)}\n</user_message>`;
}

const HEADER = /(?:^|<\/attachment>\n\n)<attachment kind="([^"\n]*)" label="([^"\n]*)">\n/g;
const LEGACY_HEADER = /^<context label="([^"\n]*)">\n/;
const LEGACY_CLOSE = '</context>';

/** The user's words and the labels (and kinds) of what was attached; text without attachments comes back unchanged. */
export function splitAttachments(message: string): { words: string; labels: string[]; kinds: string[] } {
  const tail = /\n\n<user_message>\n([\s\S]*)\n<\/user_message>$/.exec(message);
  if (tail && message.startsWith('<attachment ')) {
    const head = message.slice(0, tail.index);
    const found = [...head.matchAll(HEADER)];
    return { words: undefuse(tail[1]!), labels: found.map((m) => unattr(m[2]!)), kinds: found.map((m) => unattr(m[1]!)) };
  }
  // Sessions saved before this format: `<context label="…">…</context>` blocks, then the words.
  if (LEGACY_HEADER.test(message)) {
    const end = message.lastIndexOf(`${LEGACY_CLOSE}\n\n`);
    if (end >= 0) {
      const labels = message
        .slice(0, end)
        .split(`${LEGACY_CLOSE}\n\n`)
        .flatMap((b) => {
          const m = LEGACY_HEADER.exec(b);
          return m ? [m[1]!] : [];
        });
      return { words: message.slice(end + LEGACY_CLOSE.length + 2), labels, kinds: labels.map(() => 'file') };
    }
  }
  return { words: message, labels: [], kinds: [] };
}
