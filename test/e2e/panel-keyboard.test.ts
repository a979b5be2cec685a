// Issue 19, finding 7: the panel driven from the keyboard in the real
// workbench. The focus shortcut lands in the input; Escape in the input stops
// a running turn and the keyboard stays in the input; Escape elsewhere in the
// panel stops it too;
// ArrowUp/Down recall earlier prompts.
import * as assert from 'node:assert/strict';
import type { Frame } from 'playwright-core';
import { type MockReply, type SseFrame, streamReply, textReply } from '../fixtures/mock-anthropic';
import { chatFrame, chatGone, runCommand, screenshot, useChatWorkbench } from './workbench';

function slow(reply: MockReply, delayMs: number): MockReply {
  if (reply.kind !== 'sse' || !reply.frames) return reply;
  return { ...reply, frames: reply.frames.map((f: SseFrame) => (f.event === 'content_block_delta' ? { ...f, delayMs } : f)) };
}

const inputFocused = (frame: Frame) => frame.waitForFunction(() => document.activeElement?.matches('textarea.input') === true && document.hasFocus(), undefined, { timeout: 15_000 });

describe('e2e: the panel from the keyboard (issue 19, finding 7)', function () {
  this.timeout(240_000);
  const chat = useChatWorkbench({ focusChat: false });
  beforeEach(() => chat.server.reset());

  it('the focus shortcut lands in the input: typed text is not lost', async () => {
    await runCommand(chat.wb.page, 'Turnstone: Focus Chat');
    // The view's first load hands the keyboard to the input (the palette would close if it were open then).
    await inputFocused(await chatFrame(chat.wb.page));
    // Away to the explorer, then back with the shortcut; type straight away.
    await runCommand(chat.wb.page, 'View: Show Explorer');
    // The explorer takes the side bar after the command returns: until the chat's webview is gone, the shortcut
    // could act on it, and the frame found next could be the one being disposed.
    await chatGone(chat.wb.page);
    await chat.wb.page.keyboard.press('Control+Alt+T');
    const frame = await chatFrame(chat.wb.page);
    await inputFocused(frame);
    await chat.wb.page.keyboard.type('hello from the keyboard');
    assert.equal(await frame.locator('textarea.input').inputValue(), 'hello from the keyboard');
    await frame.locator('textarea.input').fill('');
  });

  it('Escape in the input stops the turn; focus stays in the input; ArrowUp recalls the prompt', async () => {
    const frame = await chatFrame(chat.wb.page);
    chat.server.enqueue(slow(streamReply([{ type: 'text', text: 'word '.repeat(300), chunks: 150 }]), 100));
    const input = frame.locator('textarea.input');
    await input.focus();
    await chat.wb.page.keyboard.type('write a long essay');
    await chat.wb.page.keyboard.press('Enter');
    await frame.locator('article.item.assistant', { hasText: 'word' }).last().waitFor({ timeout: 60_000 });
    await chat.wb.page.keyboard.press('Escape');
    await frame.locator('button.stop').waitFor({ state: 'hidden', timeout: 30_000 });
    await inputFocused(frame);
    assert.equal(chat.server.requests.length, 1);

    chat.server.enqueue(textReply('Second answer.'));
    await chat.wb.page.keyboard.type('second prompt');
    await chat.wb.page.keyboard.press('Enter');
    await frame.locator('article.item.assistant', { hasText: 'Second answer.' }).waitFor({ timeout: 60_000 });
    // The turn ended with the keyboard in the input.
    await frame.locator('button.stop').waitFor({ state: 'hidden' });
    await inputFocused(frame);
    await chat.wb.page.keyboard.press('ArrowUp');
    assert.equal(await input.inputValue(), 'second prompt');
    await chat.wb.page.keyboard.press('ArrowUp');
    assert.equal(await input.inputValue(), 'write a long essay');
    await chat.wb.page.keyboard.press('ArrowDown');
    assert.equal(await input.inputValue(), 'second prompt');
    await chat.wb.page.keyboard.press('ArrowDown');
    assert.equal(await input.inputValue(), '', 'back to the (empty) draft');
  });

  it('Escape with the transcript focused stops a running turn', async () => {
    const frame = await chatFrame(chat.wb.page);
    chat.server.enqueue(slow(streamReply([{ type: 'text', text: 'more '.repeat(300), chunks: 150 }]), 100));
    await frame.locator('textarea.input').fill('another long one');
    await frame.locator('textarea.input').press('Enter');
    await frame.locator('article.item.assistant', { hasText: 'more' }).last().waitFor({ timeout: 60_000 });
    await frame.locator('section.transcript').focus();
    await chat.wb.page.keyboard.press('Escape');
    await frame.locator('button.stop').waitFor({ state: 'hidden', timeout: 30_000 });
    const text = await frame.locator('article.item.assistant', { hasText: 'more' }).last().innerText();
    assert.ok((text.match(/more/g) ?? []).length < 300, 'the reply was cut by Stop, not finished');
    await screenshot(chat.wb.page, 'keyboard-after-stop.png');
  });
});
