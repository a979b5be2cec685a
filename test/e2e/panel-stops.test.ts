// Issue 25.2 and 25.6, "every stop is a clear card", in the real workbench:
// a key rejected mid-session ends the turn at once (no prompt over the window,
// no spinner, nothing queued into a stuck turn) and its card holds the key
// field; a key saved there retries. A spend cap is a pause with "Continue
// (+$x)" and "Open setting" naming the VS Code setting (no CLI flag); a request
// the API refused (400) offers no Retry. The loop guard (issue 42) pauses the
// same way, with Continue and Stop. (Overload's countdown: panel-first-run.)
import * as assert from 'node:assert/strict';
import { errorReply, textReply, toolUseReply } from '../fixtures/mock-anthropic';
import { type ChatWorkbench, screenshot, useChatWorkbench } from './workbench';

const NEW_KEY = 'sk-ant-e2e-new-key-0123456789';

async function sendText(chat: ChatWorkbench, text: string): Promise<void> {
  const input = chat.frame.locator('textarea.input');
  await input.fill(text);
  await input.press('Enter');
}

const turnIdle = (chat: ChatWorkbench) => chat.frame.locator('body:not(.turn-running)').waitFor({ state: 'attached', timeout: 60_000 });

describe('e2e: a key rejected mid-session (issue 25.2)', function () {
  this.timeout(240_000);
  const chat = useChatWorkbench();
  const send = (text: string) => sendText(chat, text);
  const idle = () => turnIdle(chat);

  it('25.2: a 401 ends the turn cleanly with the key field in its card; a message sent then starts a new turn; a key saved there retries', async () => {
    chat.server.enqueue(textReply('Hello there.'));
    await send('hello');
    await chat.frame.locator('article.item.assistant', { hasText: 'Hello there.' }).waitFor({ timeout: 60_000 });
    await idle();

    chat.server.enqueue(errorReply(401, 'authentication_error', 'invalid x-api-key'));
    await send('now do something');
    const card = chat.frame.locator('article.item.error:not(.resolved)').last();
    await card.waitFor({ timeout: 60_000 });
    // The turn is over: no spinner, no running bar, and no key prompt over the window.
    await idle();
    assert.match((await card.textContent()) ?? '', /did not accept the API key/);
    await card.locator('.key-input').waitFor({ state: 'visible' });
    assert.equal(await card.locator('button.retry').count(), 0, 'no Retry: the same key would be refused again');
    assert.equal(await chat.wb.page.locator('.quick-input-widget input[type="password"]:visible').count(), 0, 'no prompt over the window');
    assert.equal(await chat.frame.locator('.tool-status .codicon-modifier-spin, .thinking .codicon-modifier-spin').count(), 0, 'no spinner left');
    assert.ok(await chat.frame.evaluate(() => document.activeElement?.matches('textarea.input') ?? false), 'the field did not take the keyboard');
    await screenshot(chat.wb.page, 'stop-rejected-key.png');

    // A key typed into the card's field retries the turn with it.
    chat.server.enqueue(textReply('Key accepted, carrying on.'));
    await card.locator('.key-input').fill(NEW_KEY);
    await card.locator('.key-input').press('Enter');
    await chat.frame.locator('article.item.assistant', { hasText: 'Key accepted, carrying on.' }).waitFor({ timeout: 60_000 });
    const retried = chat.server.requests.at(-1)!.headers;
    assert.ok(retried['x-api-key'] === NEW_KEY || retried.authorization === `Bearer ${NEW_KEY}`, 'the retry used the new key');
    await idle();
    await chat.frame.locator('article.item.error.resolved').last().waitFor({ timeout: 30_000 });

    // Rejected again; this time the user just writes on: a new turn, not a message queued into a stuck one.
    chat.server.enqueue(errorReply(401, 'authentication_error', 'invalid x-api-key'), textReply('Fresh turn.'));
    await send('one more thing');
    await chat.frame.locator('article.item.error:not(.resolved)').last().waitFor({ timeout: 60_000 });
    await idle();
    await send('are you still there');
    await chat.frame.locator('article.item.assistant', { hasText: 'Fresh turn.' }).waitFor({ timeout: 60_000 });
    const last = chat.frame.locator('article.item.user', { hasText: 'are you still there' });
    assert.equal(await last.locator('.delivery').count(), 0, 'sent as a new turn, not "sent while running"');
  });

  it('issue 42 loop guard: the same call with the same result 3 times pauses the turn: Continue goes on, Stop leaves it there', async () => {
    const look = (i: number) => toolUseReply([{ id: `tu_loop_${i}`, name: 'glob_search', input: { pattern: '*.nothing' } }]);
    chat.server.enqueue(look(1), look(2), look(3), textReply('Went on after the loop pause.'));
    const before = chat.server.requests.length;
    await send('find the config');
    const card = chat.frame.locator('article.item.error.paused:not(.resolved)').last();
    await card.waitFor({ timeout: 60_000 });
    await idle();
    assert.equal(chat.server.requests.length - before, 3, 'no request after the third identical result');
    assert.match((await card.textContent()) ?? '', /Paused: the same tool call returned the same result 3 times in this turn \(glob_search \*\.nothing\)/);
    assert.equal(await card.locator('button.retry').count(), 0);
    await card.locator('button.dismiss').waitFor();
    await card.locator('button.open-setting').waitFor();
    await screenshot(chat.wb.page, 'stop-loop-guard.png');
    await card.locator('button.continue').click();
    await chat.frame.locator('article.item.assistant', { hasText: 'Went on after the loop pause.' }).waitFor({ timeout: 60_000 });
    await idle();

    chat.server.enqueue(look(4), look(5), look(6));
    await send('find it again');
    const second = chat.frame.locator('article.item.error.paused:not(.resolved)').last();
    await second.waitFor({ timeout: 60_000 });
    await idle();
    const sent = chat.server.requests.length;
    await second.locator('button.dismiss').click();
    await chat.frame.locator('article.item.error.resolved', { hasText: 'Stopped here.' }).waitFor({ timeout: 30_000 });
    assert.equal(chat.server.requests.length, sent, 'Stop sends nothing');
  });
});

describe('e2e: spend cap and refused requests (issue 25.6)', function () {
  this.timeout(240_000);
  // A 1000-token reply limit: each request's worst case (its whole reply at the output price) stays under the cap.
  const chat = useChatWorkbench({ workbench: { userSettings: { 'turnstone.maxCostPerTurnUsd': 0.05, 'turnstone.maxOutputTokens': 1000, 'turnstone.permissionMode': 'acceptEdits' } } });
  const send = (text: string) => sendText(chat, text);
  const idle = () => turnIdle(chat);

  it('25.6: a spend cap is a pause: the VS Code setting by name, "Continue (+$x)" goes on, "Open setting" shows it, no Retry', async () => {
    // A step that costs $0.06 (20k input tokens at Sonnet prices): the next request would pass the $0.05 cap.
    chat.server.enqueue(
      toolUseReply([{ id: 'tu_look', name: 'glob_search', input: { pattern: '*.none' } }], { usage: { input_tokens: 20_000, output_tokens: 100 } }),
      textReply('Finished after the pause.'),
    );
    await send('look around');
    const card = chat.frame.locator('article.item.error:not(.resolved)').last();
    await card.waitFor({ timeout: 60_000 });
    await idle();
    assert.equal(chat.server.requests.length, 1, 'stopped before the request that would pass the cap');
    const text = (await card.textContent()) ?? '';
    assert.match(text, /Paused at your spend cap/);
    assert.match(text, /Turnstone: Max Cost Per Turn Usd \(turnstone\.maxCostPerTurnUsd\)/);
    assert.doesNotMatch(text, /--max-cost-usd|went wrong/i);
    assert.equal(await card.locator('button.retry').count(), 0);
    const cont = card.locator('button.continue');
    assert.match(await cont.innerText(), /^Continue \(\+\$\d+\.\d\d\)$/);
    await screenshot(chat.wb.page, 'stop-spend-cap.png');

    await card.locator('button.open-setting').click();
    await chat.wb.page.locator('.settings-editor .setting-item-title', { hasText: 'Max Cost Per Turn Usd' }).first().waitFor({ timeout: 30_000 });
    await screenshot(chat.wb.page, 'stop-spend-cap-setting.png');

    await cont.click();
    await chat.frame.locator('article.item.assistant', { hasText: 'Finished after the pause.' }).waitFor({ timeout: 60_000 });
    await idle();
    assert.equal(chat.server.requests.length, 2, 'Continue sent the request the cap held back');
    await chat.frame.locator(`article.item.error.resolved`).last().waitFor({ timeout: 30_000 });
    assert.equal(await chat.frame.locator('article.item.error button.continue').count(), 0, 'nothing left to press');
  });

  it('25.6: a request the API refused (400) offers no Retry, and says what to do', async () => {
    chat.server.enqueue(errorReply(400, 'invalid_request_error', 'messages.1: tool_use ids must be unique'));
    await send('try this');
    const card = chat.frame.locator('article.item.error:not(.resolved)').last();
    await card.waitFor({ timeout: 60_000 });
    await idle();
    assert.match((await card.textContent()) ?? '', /Anthropic refused the request: messages\.1: tool_use ids must be unique/);
    assert.equal(await card.locator('button').count(), 1, 'only the request id to copy');
    assert.equal(await card.locator('button.copy-request-id').count(), 1);
    await screenshot(chat.wb.page, 'stop-refused-request.png');
  });
});
