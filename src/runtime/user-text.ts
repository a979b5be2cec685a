// How a prompt with attachments is written into the user message, and how the
// user's own words and the attachment labels are read back from it (titles,
// resumed transcripts). One format, declared here, so the two cannot drift.
//
//   <context label="a.ts">
//   File: src/a.ts
//   ```
//   …
//   ```
//   </context>
//
//   <the user's words>

export interface PromptAttachment {
  label: string;
  text: string;
}

const CLOSE = '</context>';
/** Inside an attachment a closing tag is defused, so the words can always be found after the last real one. */
const DEFUSED = '<\\/context>';

export function withAttachments(text: string, attachments: readonly PromptAttachment[]): string {
  if (attachments.length === 0) return text;
  const parts = attachments.map((a) => `<context label="${a.label.replace(/["\n]/g, "'")}">\n${a.text.split(CLOSE).join(DEFUSED)}\n${CLOSE}`);
  return `${parts.join('\n\n')}\n\n${text}`;
}

/** The user's words and the labels of what was attached; text without attachments comes back unchanged. */
export function splitAttachments(message: string): { words: string; labels: string[] } {
  if (!message.startsWith('<context label="')) return { words: message, labels: [] };
  const end = message.lastIndexOf(`${CLOSE}\n\n`);
  if (end < 0) return { words: message, labels: [] };
  // Attached text holds no real closing tag, so each block starts right after the previous one's.
  const blocks = message.slice(0, end).split(`${CLOSE}\n\n`);
  const labels = blocks.flatMap((b) => {
    const m = /^<context label="([^"\n]*)">\n/.exec(b);
    return m ? [m[1]!] : [];
  });
  return { words: message.slice(end + CLOSE.length + 2), labels };
}
