// T9: the history sent to the API is always valid: every tool_use is answered
// exactly once, in call order, in the very next user message; orphan results
// are dropped; a missing result becomes "aborted". Also the small helpers the
// loop uses to read and extend history without breaking that rule.
import { type AssistantMessage, type Message, type ToolResultBlock, type ToolUseBlock, type UserContentBlock, type UserMessage } from '../types';

export const ABORTED_RESULT = 'aborted';

export const TURN_ABORTED_NOTE =
  '<turn_aborted>The user interrupted this turn. Tool uses that did not finish were not run to completion; wait for the next instruction.</turn_aborted>';

export function toolUsesOf(message: Message | undefined): ToolUseBlock[] {
  if (!message || message.role !== 'assistant') return [];
  return message.content.filter((b): b is ToolUseBlock => b.type === 'tool_use');
}

/** The last assistant message's tool uses that the message after it (if any) does not answer. */
export function unansweredToolUses(messages: readonly Message[]): ToolUseBlock[] {
  const i = messages.findLastIndex((m) => m.role === 'assistant');
  const uses = toolUsesOf(messages[i]);
  if (uses.length === 0) return [];
  const next = messages[i + 1];
  const answered = new Set(next?.role === 'user' ? next.content.flatMap((b) => (b.type === 'tool_result' ? [b.tool_use_id] : [])) : []);
  return uses.filter((u) => !answered.has(u.id));
}

export function abortedResult(toolUseId: string): ToolResultBlock {
  return { type: 'tool_result', tool_use_id: toolUseId, content: ABORTED_RESULT, is_error: true, aborted: true };
}

/**
 * Appends user content, merging into a trailing user message (the API wants
 * alternating roles; a failed or aborted step leaves a user message last).
 * Tool results are kept ahead of text within one message.
 */
export function appendUserContent(messages: Message[], blocks: UserContentBlock[]): void {
  if (blocks.length === 0) return;
  const last = messages[messages.length - 1];
  if (last && last.role === 'user') {
    messages[messages.length - 1] = { role: 'user', content: orderUserBlocks([...last.content, ...blocks]) };
  } else {
    messages.push({ role: 'user', content: orderUserBlocks(blocks) });
  }
}

function orderUserBlocks(blocks: UserContentBlock[]): UserContentBlock[] {
  // Already ordered when no text block precedes a tool result (the usual case).
  let seenText = false;
  let ordered = true;
  for (const b of blocks) {
    if (b.type !== 'tool_result') seenText = true;
    else if (seenText) {
      ordered = false;
      break;
    }
  }
  if (ordered) return blocks;
  return [...blocks.filter((b) => b.type === 'tool_result'), ...blocks.filter((b) => b.type !== 'tool_result')];
}

/** Returns a new, API-valid history; the input is not modified. */
export function normaliseHistory(input: readonly Message[]): Message[] {
  const out: Message[] = [];
  let pending: ToolUseBlock[] = [];

  const answer = (results: Map<string, ToolResultBlock>, rest: UserContentBlock[]) => {
    const answered = pending.map((u) => results.get(u.id) ?? abortedResult(u.id));
    pending = [];
    const content = [...answered, ...rest];
    if (content.length > 0) appendUserContent(out, content);
  };

  for (const message of input) {
    if (message.role === 'assistant') {
      if (pending.length > 0) answer(new Map(), []);
      const content = message.content.filter((b) => b.type !== 'text' || b.text.length > 0);
      if (content.length === 0) continue;
      const last = out[out.length - 1];
      // Two assistant messages in a row: the first was complete, keep both but they must not interleave tool pairs.
      if (last && last.role === 'assistant') out.push({ role: 'user', content: [{ type: 'text', text: '(continue)' }] });
      const assistant: AssistantMessage = { role: 'assistant', content };
      out.push(assistant);
      pending = toolUsesOf(assistant);
      continue;
    }
    const results = new Map<string, ToolResultBlock>();
    const rest: UserContentBlock[] = [];
    for (const block of message.content) {
      if (block.type !== 'tool_result') {
        rest.push(block);
        continue;
      }
      // Only results for the immediately preceding tool uses count; the first one for an id wins.
      if (pending.some((u) => u.id === block.tool_use_id) && !results.has(block.tool_use_id)) results.set(block.tool_use_id, block);
    }
    if (pending.length > 0) answer(results, rest);
    else if (rest.length > 0) appendUserContent(out, rest);
  }
  if (pending.length > 0) answer(new Map(), []);
  return out;
}

/** Describes the first way `messages` breaks T9, or undefined when valid. Used by tests and on resume. */
export function historyProblem(messages: readonly Message[]): string | undefined {
  for (let i = 0; i < messages.length; i++) {
    const m = messages[i]!;
    if (i > 0 && messages[i - 1]!.role === m.role) return `messages ${i - 1} and ${i} are both ${m.role}`;
    if (m.role === 'assistant') {
      if (toolUsesOf(m).length > 0 && messages[i + 1]?.role !== 'user') return `tool uses in message ${i} have no results`;
      continue;
    }
    const expected = toolUsesOf(messages[i - 1]).map((u) => u.id).join(',');
    const ids = m.content.filter((b): b is ToolResultBlock => b.type === 'tool_result').map((r) => r.tool_use_id).join(',');
    if (ids !== expected) return `message ${i} answers [${ids}], expected [${expected}]`;
  }
  return undefined;
}

export function isUserMessage(m: Message | undefined): m is UserMessage {
  return m?.role === 'user';
}
