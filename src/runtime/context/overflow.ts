// T6: a context overflow must never wedge a session. When compaction alone
// cannot bring the next request under the window (compaction keeps the recent
// tail, and the tail may hold the oversized tool results), the largest tool
// results are shrunk in place: head and tail kept, with a note saying what was
// cut and how to read the rest. History stays valid: no block is removed.
import { estimateTextTokens, historyChars } from './context-window';
import { cutMiddle } from '../text-cut';
import { type Message, type ToolResultBlock, type UserContentBlock } from '../types';

/** Results at or under this many characters are never shrunk: they are not the problem. */
const MIN_KEEP_CHARS = 2_000;

export interface ShrinkOutcome {
  messages: Message[];
  shrunk: number;
  /** Characters removed in all. */
  removedChars: number;
}

export function shrunkNote(removed: number, total: number): string {
  return `\n\n[… ${removed} of ${total} characters of this tool result were cut to fit the context window. Re-run the tool on a smaller part (e.g. read_file with an offset and limit, or a narrower search) to see the rest. …]\n\n`;
}

/** Keeps the head and tail of `text` so it is at most about `keep` characters plus the note. */
export function shrinkText(text: string, keep: number): string {
  const { head, tail, omitted } = cutMiddle(text, keep, { headShare: 0.6 });
  return omitted === 0 ? text : head + shrunkNote(omitted, text.length) + tail;
}

/**
 * Shrinks tool results, largest first, until the history's estimated size is at
 * most `targetTokens` (or nothing is left to shrink). Returns undefined when no
 * result was large enough to shrink.
 */
export function shrinkToolResults(messages: readonly Message[], targetTokens: number, fixedTokens = 0, protectFrom = messages.length): ShrinkOutcome | undefined {
  const copy: Message[] = messages.map((m) => ({ ...m, content: [...m.content] }) as Message);
  const results: Array<{ message: number; block: number; length: number }> = [];
  copy.forEach((m, mi) => {
    if (m.role !== 'user' || mi >= protectFrom) return;
    m.content.forEach((b, bi) => {
      if (b.type === 'tool_result' && b.content.length > MIN_KEEP_CHARS) results.push({ message: mi, block: bi, length: b.content.length });
    });
  });
  if (results.length === 0) return undefined;
  results.sort((a, b) => b.length - a.length);
  const over = () => fixedTokens + estimateTextTokens(historyChars(copy)) - targetTokens;
  const excessChars = over() * 4;
  if (excessChars <= 0) return undefined;
  // Cut every large result to one common length: the largest lose most, small ones none.
  let keep = results[0]!.length;
  let lo = MIN_KEEP_CHARS;
  let hi = keep;
  const removedAt = (k: number) => results.reduce((s, r) => s + Math.max(0, r.length - k), 0);
  if (removedAt(lo) < excessChars) keep = lo;
  else {
    while (hi - lo > 64) {
      const mid = Math.floor((lo + hi) / 2);
      if (removedAt(mid) >= excessChars) lo = mid;
      else hi = mid;
    }
    keep = lo;
  }
  let shrunk = 0;
  let removedChars = 0;
  for (const r of results) {
    if (r.length <= keep) continue;
    const m = copy[r.message]!;
    const block = m.content[r.block] as ToolResultBlock;
    const content = shrinkText(block.content, keep);
    removedChars += block.content.length - content.length;
    (m.content as ToolResultBlock[])[r.block] = { ...block, content };
    shrunk++;
  }
  return shrunk > 0 ? { messages: copy, shrunk, removedChars } : undefined;
}

/** The largest user message alone, in estimated tokens: if it exceeds the window nothing can save the request. */
export function largestUserMessageTokens(messages: readonly Message[]): number {
  let largest = 0;
  for (const m of messages) {
    if (m.role !== 'user' || m.content.some((b) => b.type === 'tool_result')) continue;
    largest = Math.max(largest, estimateTextTokens(historyChars([m])));
  }
  return largest;
}

export function droppedImageNote(width: number, height: number): string {
  return `[image ${width}×${height} removed to fit the context window]`;
}

/**
 * Where the messages the model has not seen yet begin: after its last reply (the pending tool results, the
 * new prompt). Compaction gives those up last: the model asked for them and has not read them.
 */
export function unseenFrom(messages: readonly Message[]): number {
  return messages.findLastIndex((m) => m.role === 'assistant') + 1;
}

/**
 * Images are the cheapest context to give up (the model has already looked at
 * them) and the most expensive to keep: they go first, oldest first, each
 * replaced by a note. The newest user message keeps its images (it is what the
 * user is asking about), and so does everything from `protectFrom` on (what the
 * model has not seen: a screenshot a tool just returned). Undefined when no image was removed.
 */
export function dropOldImages(messages: readonly Message[], targetTokens: number, fixedTokens = 0, protectFrom = messages.length): { messages: Message[]; dropped: number } | undefined {
  let lastUser = -1;
  for (let i = messages.length - 1; i >= 0; i--) {
    if (messages[i]!.role === 'user' && messages[i]!.content.some((b) => b.type !== 'tool_result')) {
      lastUser = i;
      break;
    }
  }
  let chars = historyChars(messages);
  const over = () => fixedTokens + estimateTextTokens(chars) > targetTokens;
  if (!over()) return undefined;
  const copy = [...messages];
  let dropped = 0;
  for (let i = 0; i < copy.length && over(); i++) {
    const m = copy[i]!;
    if (m.role !== 'user' || i === lastUser || i >= protectFrom) continue;
    if (!m.content.some((b) => b.type === 'image' || (b.type === 'tool_result' && b.images?.length))) continue;
    const before = historyChars([m]);
    const content = m.content.map((b): UserContentBlock => {
      if (b.type === 'image') {
        dropped++;
        return { type: 'text', text: droppedImageNote(b.width, b.height) };
      }
      if (b.type === 'tool_result' && b.images?.length) {
        const { images, ...rest } = b;
        dropped += images.length;
        return { ...rest, content: [b.content, ...images.map((im) => droppedImageNote(im.width, im.height))].filter((s) => s !== '').join('\n') };
      }
      return b;
    });
    copy[i] = { role: 'user', content };
    chars += historyChars([copy[i]!]) - before;
  }
  return dropped > 0 ? { messages: copy, dropped } : undefined;
}
