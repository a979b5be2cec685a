// Issue 47 (a walkthrough), items 3–5, in the real workbench at its default ~300-px sidebar:
// a numbered list past 9 shows its markers whole; a prompt sent before a key is set stays in
// the transcript waiting for the key and goes out once when it is saved; a prompt whose turn
// failed before any reply stays as a failed message with Retry and Edit and is never merged
// into the next prompt (checked at the scripted API).
import * as assert from 'node:assert/strict';
import { errorReply, textReply } from '../fixtures/mock-anthropic';
import { eventually } from './panel/harness';
import { RESULTS_DIR, screenshot, useChatWorkbench } from './workbench';
import { waitForLog } from './turnstone-log';
import * as path from 'node:path';

const KEY = 'sk-ant-e2e-issue47-0123456789';

describe('e2e: issue 47, items 3–5 (the panel)', function () {
  this.timeout(300_000);
  // No key at first (item 4); the key saved there serves the later tests.
  const chat = useChatWorkbench({ workbench: { env: { ANTHROPIC_API_KEY: '' } } });

  const input = () => chat.frame.locator('textarea.input');
  const send = async (text: string) => {
    await input().fill(text);
    await input().press('Enter');
  };
  const idle = () => chat.frame.locator('body:not(.turn-running)').waitFor({ state: 'attached', timeout: 60_000 });
  const userItem = (words: string) => chat.frame.locator('article.item.user', { hasText: words });
  /** The user turns' text of a request, as the model got it. */
  const userTexts = (body: Record<string, unknown> | undefined) =>
    ((body?.messages ?? []) as { role: string; content: string | { type: string; text?: string }[] }[])
      .filter((m) => m.role === 'user')
      .map((m) => (typeof m.content === 'string' ? m.content : m.content.map((b) => b.text ?? '').join('\n')))
      .join('\n---\n');
  const count = (haystack: string, needle: string) => haystack.split(needle).length - 1;

  it('issue 47 item 4: a prompt sent before a key is set stays as a message "waiting for your API key", and is sent exactly once when the key is saved', async () => {
    await chat.frame.locator('.notice-no_api_key .key-input').waitFor({ state: 'visible', timeout: 30_000 });
    const words = 'summarise the layout of this repository';
    await send(words);
    const message = userItem(words);
    await message.waitFor({ state: 'visible', timeout: 30_000 });
    await message.locator('.unsent-line', { hasText: 'Waiting for your API key' }).waitFor({ timeout: 30_000 });
    assert.equal(await input().inputValue(), '', 'the composer cleared: the words are in the transcript, not lost');
    // The user, unsure, sends the same words again: still one message, still one send.
    await send(words);
    await chat.frame.locator('article.item.error', { hasText: 'No API key is set' }).first().waitFor({ timeout: 30_000 });
    // The second send leaves no trace in the panel by design: the host's log says when it was dropped.
    assert.equal(await waitForLog(chat.wb.server.userDataDir, 'sent again while it waits for a key', 1), 1);
    assert.equal(await userItem(words).count(), 1, 'the same words waiting are shown once');
    assert.equal(await chat.frame.locator('article.item.error', { hasText: 'No API key is set' }).count(), 1, 'one card asks for the key');
    assert.equal(chat.server.requests.length, 0, 'nothing was sent without a key');
    await message.screenshot({ path: path.join(RESULTS_DIR, 'issue47-item4-waiting-message.png') });
    await screenshot(chat.wb.page, 'issue47-item4-waiting-for-key.png');

    chat.server.enqueue(textReply('The repository has src/, test/ and docs/.'));
    const field = chat.frame.locator('.notice-no_api_key .key-input');
    await field.fill(KEY);
    await field.press('Enter');
    await chat.frame.locator('article.item.assistant', { hasText: 'The repository has src/' }).waitFor({ timeout: 60_000 });
    await idle();
    assert.equal(chat.server.requests.length, 1, 'one request');
    assert.equal(count(userTexts(chat.server.bodies[0]), words), 1, 'the words went out once');
    await eventually(() => message.locator('.unsent-line').count(), (n) => n === 0, 30_000);
    assert.equal(await message.locator('.unsent-line').count(), 0, 'sent: no longer marked as waiting');
    assert.equal(await userItem(words).count(), 1);
    await screenshot(chat.wb.page, 'issue47-item4-sent-after-key.png');
  });

  it('issue 47 item 3: a 12-item numbered list shows "10."–"12." whole in the default 300-px sidebar', async () => {
    const width = await chat.frame.evaluate(() => document.documentElement.clientWidth);
    assert.ok(width <= 320, `the panel is the default sidebar width (${width} px)`);
    const steps = Array.from({ length: 12 }, (_, i) => `${i + 1}. Step ${i + 1} of the plan`).join('\n');
    chat.server.enqueue(textReply(`Here is the plan:\n\n${steps}\n\nThat is all.`));
    await send('list twelve steps');
    await chat.frame.locator('article.item.assistant', { hasText: 'That is all.' }).waitFor({ timeout: 60_000 });
    await idle();
    const ol = chat.frame.locator('article.item.assistant .markdown ol').last();
    await ol.scrollIntoViewIfNeeded();
    // Where each marker would start: the list's content edge less the marker's width in the item's font. The
    // chunk's paint containment (and the item's edge) clip anything left of it: "10." showed as ".0.".
    const layout = await ol.evaluate((list) => {
      const style = getComputedStyle(list);
      const contentLeft = list.getBoundingClientRect().left + parseFloat(style.borderLeftWidth) + parseFloat(style.paddingLeft);
      const clip = (list.closest('.md-chunk') ?? list.closest('.markdown') ?? list).getBoundingClientRect().left;
      const ctx = document.createElement('canvas').getContext('2d')!;
      const items = Array.from(list.querySelectorAll(':scope > li'));
      return items.map((li, i) => {
        ctx.font = getComputedStyle(li).font;
        return { marker: `${i + 1}.`, room: contentLeft - clip, width: ctx.measureText(`${i + 1}. `).width };
      });
    });
    assert.equal(layout.length, 12);
    for (const m of layout) assert.ok(m.width <= m.room, `marker "${m.marker}" (${m.width.toFixed(1)} px) fits the list's ${m.room.toFixed(1)} px`);
    await ol.screenshot({ path: path.join(RESULTS_DIR, 'issue47-item3-list-300.png') });
    await screenshot(chat.wb.page, 'issue47-item3-panel.png');
  });

  it('issue 47 item 5: a prompt whose turn failed (529) stays as a failed message with Retry and Edit; Edit puts its words back; Retry sends them once', async () => {
    const words = 'first words that fail';
    const before = chat.server.requests.length;
    for (let i = 0; i < 6; i++) chat.server.enqueue(errorReply(529, 'overloaded_error', 'Overloaded', { 'retry-after-ms': '0' }));
    await send(words);
    await chat.frame.locator('article.item.error:not(.resolved)').last().waitFor({ timeout: 60_000 });
    await idle();
    assert.equal(chat.server.requests.length - before, 6);
    const failed = userItem(words);
    await failed.locator('.unsent-line', { hasText: 'Not sent' }).waitFor({ timeout: 30_000 });
    assert.equal(await failed.locator('button.retry-message').count(), 1, 'Retry');
    assert.equal(await failed.locator('button.edit-message').count(), 1, 'Edit');
    await failed.screenshot({ path: path.join(RESULTS_DIR, 'issue47-item5-failed-message.png') });
    await screenshot(chat.wb.page, 'issue47-item5-failed.png');

    await failed.locator('button.edit-message').click();
    assert.equal(await input().inputValue(), words, 'Edit puts the words back in the composer');
    assert.ok(await chat.frame.evaluate(() => document.activeElement?.matches('textarea.input') ?? false), 'and the keyboard there');
    await input().fill('');

    chat.server.enqueue(textReply('Got it on the second try.'));
    await failed.locator('button.retry-message').click();
    await chat.frame.locator('article.item.assistant', { hasText: 'Got it on the second try.' }).waitFor({ timeout: 60_000 });
    await idle();
    assert.equal(count(userTexts(chat.server.bodies.at(-1)), words), 1, 'the retried words went out once');
    await eventually(() => failed.locator('.unsent-line').count(), (n) => n === 0, 30_000);
    assert.equal(await failed.locator('.unsent-line').count(), 0, 'sent: no longer marked failed');
  });

  it('issue 47 item 5: after a 529 and a 401 card, the next prompt goes out alone: the failed words are never merged into it', async () => {
    const overloaded = 'second words overloaded';
    const rejected = 'third words rejected';
    const fresh = 'fourth words that go through';
    for (let i = 0; i < 6; i++) chat.server.enqueue(errorReply(529, 'overloaded_error', 'Overloaded', { 'retry-after-ms': '0' }));
    await send(overloaded);
    await userItem(overloaded).locator('.unsent-line', { hasText: 'Not sent' }).waitFor({ timeout: 60_000 });
    await idle();

    chat.server.enqueue(errorReply(401, 'authentication_error', 'invalid x-api-key'));
    await send(rejected);
    await chat.frame.locator('article.item.error:not(.resolved)', { hasText: /did not accept the API key/ }).last().waitFor({ timeout: 60_000 });
    await idle();
    const rejectedRequest = userTexts(chat.server.bodies.at(-1));
    assert.equal(count(rejectedRequest, rejected), 1);
    assert.equal(count(rejectedRequest, overloaded), 0, 'the request after the 529 does not carry the failed words');
    await userItem(rejected).locator('.unsent-line', { hasText: 'Not sent' }).waitFor({ timeout: 30_000 });
    // The one it replaced: not sent, with Edit only (Retry now would send the later message).
    await userItem(overloaded).locator('.unsent-text', { hasText: /^Not sent\.$/ }).waitFor({ timeout: 30_000 });
    assert.equal(await userItem(overloaded).locator('button.retry-message').count(), 0);
    assert.equal(await userItem(overloaded).locator('button.edit-message').count(), 1);

    chat.server.enqueue(textReply('Only the fourth words arrived.'));
    await send(fresh);
    await chat.frame.locator('article.item.assistant', { hasText: 'Only the fourth words arrived.' }).waitFor({ timeout: 60_000 });
    await idle();
    const last = userTexts(chat.server.bodies.at(-1));
    assert.equal(count(last, fresh), 1);
    assert.equal(count(last, overloaded), 0, 'not the 529 words');
    assert.equal(count(last, rejected), 0, 'not the 401 words');
    await screenshot(chat.wb.page, 'issue47-item5-next-prompt-alone.png');
  });
});
