// The recorded replies the F-NET-01 cuts are replayed from: varied shapes (plain
// text, multi-byte unicode, thinking + signature, several tool uses, large text,
// pings between frames), each with the assistant content the turn must end up with.
import { type AssistantContentBlock } from '../../src/runtime/types';
import { contentOf, encodeSse, pingFrame, replyFrames, type ReplyBlock, type SseFrame } from '../fixtures/mock-anthropic';

export interface RecordedReply {
  name: string;
  bytes: Buffer;
  /** What the assistant message must hold after the step, whatever the network did. */
  expected: AssistantContentBlock[];
  /** Lines the reply's bash tool uses append to log.txt (empty for a final reply). */
  toolLines: string[];
}

const bash = (id: string, line: string): ReplyBlock => ({ type: 'tool_use', id, name: 'bash', input: { command: `printf '%s\\n' '${line}' >> log.txt` }, chunks: 4 });

const linesOf = (blocks: ReplyBlock[]) =>
  blocks.flatMap((b) => (b.type === 'tool_use' ? [/'([^']*)' >> log\.txt$/.exec(String(b.input.command))![1]!] : []));

function recorded(name: string, blocks: ReplyBlock[], frames: (f: SseFrame[]) => SseFrame[] = (f) => f): RecordedReply {
  return { name, bytes: encodeSse(frames(replyFrames(blocks, { usage: { input_tokens: 40, output_tokens: 12 } }))), expected: contentOf(blocks), toolLines: linesOf(blocks) };
}

const UNICODE = 'Grüße, 世界 🌍 — naïve café ✓ 𝄞 ½ ﬁ 한국어 עברית ';
const LARGE = Array.from({ length: 320 }, (_, i) => `Line ${i}: the quick brown fox jumps over the lazy dog (${'é'.repeat(i % 7)}).`).join('\n');

export const REPLIES: RecordedReply[] = [
  recorded('plain text', [{ type: 'text', text: 'All done: nothing else to change.', chunks: 3 }]),
  recorded('multi-byte unicode', [{ type: 'text', text: UNICODE.repeat(4), chunks: 17 }]),
  recorded('thinking + signature + tool use', [
    { type: 'thinking', thinking: 'Let me think… über die Sache 🤔 step by step.', signature: `EqQBCkYIBxgCKkA${'x9Zq'.repeat(40)}==`, chunks: 5 },
    bash('tu_think', 'think-1'),
  ]),
  recorded('several tool uses', [
    { type: 'text', text: 'Running three commands.' },
    bash('tu_a', 'multi-a'),
    bash('tu_b', 'multi-b ü€'),
    bash('tu_c', 'multi-c'),
  ]),
  recorded('large text', [{ type: 'text', text: LARGE, chunks: 60 }]),
  recorded('pings between frames', [{ type: 'text', text: 'Pinging along. ' }, bash('tu_ping', 'ping-1')], (frames) =>
    frames.flatMap((f, i) => (i < frames.length - 1 ? [f, pingFrame()] : [f])),
  ),
];

/** The step before a final reply: one tool use, so every cut turn also runs a tool. */
export const PRE_STEP = recorded('pre step', [bash('tu_pre', 'pre')]);
/** The step after a tool reply. */
export const FINAL_STEP = recorded('final step', [{ type: 'text', text: 'Finished.' }]);
