// Issue 26.6: compaction and overflow give up what the model has already seen
// before what it has not: the newest tool results (a screenshot it just asked
// for) keep their content and images while older results can shrink; images go
// oldest first; and a summary is asked for only when what it removes is larger
// than the summary can be (never for a 9-word prompt).
import assert from 'node:assert/strict';
import { ConversationRuntime } from '../../../src/runtime/loop/conversation';
import { historyProblem } from '../../../src/runtime/session/history';
import { type ImageBlock, type ToolResultBlock } from '../../../src/runtime/types';
import { imageFromBytes } from '../../../src/runtime/context/images';
import { makePng } from '../../fixtures/images';
import { baseConfig, FakeTools, recordEvents, ScriptedModel, step, usage } from './fakes';

const screenshot = (seed: number): ImageBlock => ({ ...imageFromBytes(makePng(2, 2, seed), 'shot.png'), width: 1500, height: 1000 }); // 2 000 tokens
const results = (messages: readonly { role: string; content: readonly unknown[] }[]) =>
  messages.flatMap((m) => (m.role === 'user' ? (m.content as ToolResultBlock[]).filter((b) => b.type === 'tool_result') : []));

function tools(bigText: string) {
  return new FakeTools({
    read_file: { readOnly: true, run: () => ({ content: bigText, isError: false }) },
    screenshot: { readOnly: true, run: (input) => ({ content: `screenshot ${String(input.n)}`, images: [screenshot(Number(input.n))], isError: false }) },
  });
}

describe('runtime: compaction keeps what the model has not seen (issue 26.6)', () => {
  it('26.6: the screenshot a pending tool result just returned keeps its image and text; older results shrink and older images go first', async () => {
    const big = `${'old file line\n'.repeat(9_000)}END`; // ~126 000 characters, ~31 500 tokens
    const model = new ScriptedModel([
      step('', [{ id: 's1', name: 'screenshot', input: { n: 1 } }], usage(1_000)),
      step('', [{ id: 'r1', name: 'read_file', input: { path: 'big' } }], usage(3_100)),
      step('', [{ id: 's2', name: 'screenshot', input: { n: 2 } }], usage(34_700)),
      step('I see the new screenshot.', [], usage(10_000)),
    ]);
    // 40k window, compaction at 85 % (34k): the request after the second screenshot would carry ~36.8k.
    const rt = new ConversationRuntime({ model, tools: tools(big) }, { ...baseConfig, contextWindow: 40_000, permissionMode: 'bypassPermissions', env: {} });
    const events = recordEvents(rt);
    const s = await rt.runTurn('look at the page');
    assert.equal(s.outcome, 'completed', s.error?.message);
    const compaction = events.find((e) => e.type === 'compaction');
    assert.ok(compaction?.type === 'compaction' && compaction.trigger === 'auto', 'compacted before the 4th request');
    const sent = model.requests[3]!.messages;
    assert.equal(historyProblem(sent), undefined);
    const [first, read, second] = results(sent);
    // The newest result, not yet seen by the model: whole, image included.
    assert.equal(second!.tool_use_id, 's2');
    assert.equal(second!.content, 'screenshot 2');
    assert.equal(second!.images?.length, 1, 'the screenshot it asked for is still there');
    // Older ones gave way: the older screenshot first, then the large text.
    assert.equal(first!.images, undefined);
    assert.match(first!.content, /\[image 1500×1000 removed to fit the context window\]/);
    assert.match(read!.content, /characters of this tool result were cut/);
    assert.equal(model.completeRequests.length, 0, 'a 4-word prompt is not worth a summary');
  });

  it('26.6: only when nothing older is left to give up are the unseen results shrunk (T6: the request must still fit)', async () => {
    const big = `${'x'.repeat(99)}\n`.repeat(1_500); // 150 000 characters, ~37 500 tokens: alone past 85 % of 40k
    const model = new ScriptedModel([step('', [{ id: 'r1', name: 'read_file', input: { path: 'big' } }], usage(1_000)), step('read it', [], usage(16_000))]);
    const rt = new ConversationRuntime({ model, tools: tools(big) }, { ...baseConfig, contextWindow: 40_000, permissionMode: 'bypassPermissions', env: {} });
    const s = await rt.runTurn('read big');
    assert.equal(s.outcome, 'completed', s.error?.message);
    const [read] = results(model.requests[1]!.messages);
    assert.match(read!.content, /characters of this tool result were cut/);
    assert.ok(read!.content.length < big.length);
  });

  it('26.6: a summary is requested only when what it removes is larger than the summary can be: never for a 9-word prompt', async () => {
    const model = new ScriptedModel([step('', [{ id: 'r1', name: 'read_file', input: { path: 'big' } }], usage(1_000)), step('', [{ id: 'r2', name: 'read_file', input: { path: 'big' } }], usage(18_000)), step('done', [], usage(5_000))]);
    const big = `${'y'.repeat(99)}\n`.repeat(700); // ~17 500 tokens
    const rt = new ConversationRuntime({ model, tools: tools(big) }, { ...baseConfig, contextWindow: 40_000, permissionMode: 'bypassPermissions', env: {} });
    const s = await rt.runTurn('please read the big file twice and tell me more');
    assert.equal(s.outcome, 'completed', s.error?.message);
    assert.equal(s.autoCompaction?.trigger, 'auto');
    assert.equal(model.completeRequests.length, 0, 'the 9-word prompt was not summarised');
    assert.doesNotMatch(JSON.stringify(model.requests[2]!.messages), /conversation_summary/);
    assert.equal(s.autoCompaction?.removedMessageCount, 0);
    assert.ok((s.autoCompaction?.shrunkToolResults ?? 0) >= 1, 'the older read shrank instead');
  });
});
