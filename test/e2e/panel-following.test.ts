// Issue 19, finding 1: the chat follows the conversation. In the real
// workbench, fed by the real runtime from the mock API: a long session, a
// burst of 2,000 deltas plus a tool call, and a 401 all end with the newest
// reply in view without the user scrolling; the user's own scrolling stops
// following and the "Latest" pill brings it back.
import * as assert from 'node:assert/strict';
import type { Frame } from 'playwright-core';
import { errorReply, type MockReply, type SseFrame, streamReply, textReply } from '../fixtures/mock-anthropic';
import { screenshot, sendFromPanel as send, useChatWorkbench } from './workbench';


async function idle(frame: Frame): Promise<void> {
  await frame.locator('button.stop').waitFor({ state: 'hidden', timeout: 60_000 });
}

/** The newest item's bottom edge is inside the transcript's viewport. */
async function waitPinned(frame: Frame, what: string, timeout = 10_000): Promise<void> {
  try {
    await frame.waitForFunction(() => {
      const root = document.querySelector<HTMLElement>('section.transcript');
      const items = document.querySelectorAll<HTMLElement>('section.transcript article.item, section.transcript .item');
      const last = items[items.length - 1];
      if (!root || !last) return false;
      const r = root.getBoundingClientRect();
      const l = last.getBoundingClientRect();
      return l.bottom <= r.bottom + 1 && l.bottom > r.top && root.scrollHeight - root.scrollTop - root.clientHeight < 2;
    }, undefined, { timeout, polling: 100 });
  } catch {
    const state = await frame.evaluate(() => {
      const root = document.querySelector<HTMLElement>('section.transcript')!;
      return { scrollTop: root.scrollTop, scrollHeight: root.scrollHeight, clientHeight: root.clientHeight };
    });
    assert.fail(`${what}: the newest item is not in view (${JSON.stringify(state)})`);
  }
}

function slow(reply: MockReply, delayMs: number): MockReply {
  if (reply.kind !== 'sse' || !reply.frames) return reply;
  return { ...reply, frames: reply.frames.map((f: SseFrame) => (f.event === 'content_block_delta' ? { ...f, delayMs } : f)) };
}

const paragraphs = (n: number, word: string) => Array.from({ length: n }, (_, i) => `${word} paragraph ${i + 1}: ${'lorem ipsum dolor sit amet '.repeat(6)}`).join('\n\n');

describe('e2e: the panel follows the conversation (issue 19, finding 1)', function () {
  this.timeout(600_000);
  const chat = useChatWorkbench();
  beforeEach(() => chat.server.reset());

  it('a 40-turn session with tool calls stays pinned to the newest reply', async () => {
    for (let turn = 1; turn <= 40; turn++) {
      if (turn % 5 === 0) {
        chat.server.enqueue(
          streamReply([{ type: 'text', text: `Turn ${turn}: reading.` }, { type: 'tool_use', id: `tu_${turn}`, name: 'read_file', input: { path: 'src/hello.ts' } }]),
          textReply(`${paragraphs(3, `t${turn}`)}\n\nEnd of turn ${turn}.`),
        );
      } else {
        chat.server.enqueue(streamReply([{ type: 'text', text: `${paragraphs(2 + (turn % 3), `t${turn}`)}\n\nEnd of turn ${turn}.`, chunks: 20 }]));
      }
      const frame = await send(chat.wb.page, `Prompt ${turn}`);
      await frame.locator('article.item.assistant', { hasText: `End of turn ${turn}.` }).waitFor({ state: 'attached', timeout: 60_000 });
      await idle(frame);
      await waitPinned(frame, `turn ${turn}`);
    }
    await screenshot(chat.wb.page, 'following-40-turns.png');
  });

  it('a burst of 2,000 deltas plus a tool call ends with the last reply visible', async () => {
    const text = Array.from({ length: 2000 }, (_, i) => `w${i}${i % 40 === 39 ? '\n\n' : ' '}`).join('');
    chat.server.enqueue(
      streamReply([{ type: 'text', text, chunks: 2000 }, { type: 'tool_use', id: 'tu_burst', name: 'glob_search', input: { pattern: '**/*.ts' } }]),
      textReply(`${paragraphs(4, 'burst')}\n\nThe burst is done.`),
    );
    const frame = await send(chat.wb.page, 'Burst please');
    await frame.locator('article.item.assistant', { hasText: 'The burst is done.' }).waitFor({ state: 'attached', timeout: 60_000 });
    await idle(frame);
    await waitPinned(frame, 'after the burst');
    await frame.locator('article.item.assistant', { hasText: 'The burst is done.' }).waitFor({ state: 'visible' });
  });

  it('after a 401 the error and the next reply are in view', async () => {
    chat.server.enqueue(errorReply(401, 'authentication_error', 'invalid x-api-key'));
    const frame = await send(chat.wb.page, 'This one fails');
    // T6 / 25.2: the turn ends at once with the error (its card holds the key field; nothing pops up).
    await frame.locator('article.item.error').last().waitFor({ state: 'visible', timeout: 30_000 });
    await idle(frame);
    await waitPinned(frame, 'after the 401');
    chat.server.enqueue(textReply(`${paragraphs(3, 'after')}\n\nBack after the error.`));
    await send(chat.wb.page, 'Try again');
    await frame.locator('article.item.assistant', { hasText: 'Back after the error.' }).waitFor({ state: 'attached', timeout: 60_000 });
    await idle(frame);
    await waitPinned(frame, 'the reply after the 401');
  });

  it("the user's own scrolling stops following; new content does not pull the view; the Latest pill brings it back", async () => {
    chat.server.enqueue(slow(streamReply([{ type: 'text', text: `${paragraphs(8, 'unseen')}\n\nArrived while reading.`, chunks: 80 }]), 60));
    const frame = await send(chat.wb.page, 'Write while I read');
    await frame.locator('article.item.assistant', { hasText: 'unseen paragraph 1' }).waitFor({ state: 'attached', timeout: 60_000 });
    const transcript = frame.locator('section.transcript');
    await transcript.hover();
    await chat.wb.page.mouse.wheel(0, -1500);
    const pill = frame.locator('button.latest');
    await pill.waitFor({ state: 'visible' });
    // Let the wheel's smooth scroll settle before taking the position the stream must leave alone.
    await frame.waitForFunction(() => {
      const w = window as unknown as { __last?: number; __same?: number };
      const top = document.querySelector('section.transcript')!.scrollTop;
      w.__same = w.__last === top ? (w.__same ?? 0) + 1 : 0;
      w.__last = top;
      return w.__same >= 3;
    }, undefined, { polling: 100 });
    const before = await transcript.evaluate((e) => e.scrollTop);
    await frame.locator('article.item.assistant', { hasText: 'Arrived while reading.' }).waitFor({ state: 'attached', timeout: 60_000 });
    await idle(frame);
    assert.equal(await transcript.evaluate((e) => e.scrollTop), before, 'the view stayed where the user left it');
    assert.ok(await pill.isVisible());
    await screenshot(chat.wb.page, 'following-latest-pill.png');
    await pill.click();
    await waitPinned(frame, 'after the Latest pill');
    await pill.waitFor({ state: 'hidden' });
  });
});
