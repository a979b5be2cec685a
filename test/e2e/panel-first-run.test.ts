// Issue 19, finding 8 (first run and errors), in the real workbench: no key
// set, the panel offers its own key field and says plainly that nothing was
// sent (never "The API rejected the key", never a Retry); the key typed there
// is used for the held prompt and the card is marked resolved. An overloaded
// API shows "Retrying in N s", then a plain message with the request id behind
// a copy button and a Retry that, once it succeeds, resolves the card. Stop
// leaves an "Interrupted" marker.
import * as assert from 'node:assert/strict';
import { errorReply, textReply } from '../fixtures/mock-anthropic';
import { eventually } from './panel/harness';
import { screenshot, useChatWorkbench } from './workbench';

const KEY = 'sk-ant-e2e-first-run-0123456789';

describe('e2e: first run and errors (issue 19, finding 8)', function () {
  this.timeout(180_000);
  // An empty variable counts as no key (the runner's own environment must not leak one in).
  const chat = useChatWorkbench({ workbench: { env: { ANTHROPIC_API_KEY: '' } } });

  const send = async (text: string) => {
    const input = chat.frame.locator('textarea.input');
    await input.fill(text);
    await input.press('Enter');
  };
  const idle = () => chat.frame.locator('body:not(.turn-running)').waitFor({ state: 'attached', timeout: 60_000 });

  it('without a key: an inline key field, a plain "no key" card with Set API Key and no Retry; the key sends the held prompt', async () => {
    await chat.frame.locator('.notice-no_api_key .key-input').waitFor({ state: 'visible', timeout: 30_000 });
    assert.match(await chat.frame.locator('.notice-no_api_key').innerText(), /console\.anthropic\.com/);
    await screenshot(chat.wb.page, 'first-run-notice.png');

    await send('hello on first run');
    const card = chat.frame.locator('article.item.error').last();
    await card.waitFor({ state: 'visible', timeout: 30_000 });
    const text = (await eventually(() => card.textContent(), (t) => /No API key is set/.test(t ?? ''), 30_000)) ?? '';
    assert.match(text, /No API key is set/);
    assert.doesNotMatch(text, /rejected|auth\b|retryable/i);
    assert.equal(await card.locator('button.set-key').count(), 1, 'offers Set API Key');
    assert.equal(await card.locator('button.retry').count(), 0, 'no Retry: retrying cannot help without a key');
    assert.equal(chat.server.requests.length, 0, 'nothing was sent without a key');
    // No native key prompt pops up over the panel either.
    assert.equal(await chat.wb.page.locator('.quick-input-widget input[type="password"]:visible').count(), 0);

    chat.server.enqueue(textReply('Hello! The key works.'));
    await card.locator('button.set-key').click();
    const field = card.locator('.key-input');
    await field.waitFor({ state: 'visible' });
    await screenshot(chat.wb.page, 'first-run-no-key-card.png');
    await field.fill(KEY);
    await field.press('Enter');
    // The card may already be resolved and its field gone: no key field anywhere holds the key.
    const values = await eventually(
      () => chat.frame.locator('input.key-input').evaluateAll((inputs) => inputs.map((i) => (i as HTMLInputElement).value)),
      (v) => !v.includes(KEY),
    );
    assert.ok(!values.includes(KEY), 'the webview does not keep the key in its field');

    await chat.frame.locator('article.item.assistant', { hasText: 'The key works.' }).waitFor({ timeout: 60_000 });
    assert.equal(chat.server.requests.length, 1);
    const h = chat.server.requests[0]!.headers;
    assert.ok(h['x-api-key'] === KEY || h.authorization === `Bearer ${KEY}`, 'the held prompt went out with the key typed in the panel');
    assert.match(JSON.stringify(chat.server.bodies[0]), /hello on first run/);
    await chat.frame.locator('article.item.error.resolved').first().waitFor();
    assert.equal(await chat.frame.locator('article.item.error.resolved button').count(), 0, 'a resolved card has no buttons');
    await chat.frame.locator('.notice-no_api_key').waitFor({ state: 'detached', timeout: 30_000 });
    await idle();
  });

  it('overloaded: "Retrying in N s" counts down, then plain words, the request id behind a copy button, and Retry resolves the card', async () => {
    // One 529 asking for 3 s: the status line counts down before the reply arrives.
    chat.server.enqueue(errorReply(529, 'overloaded_error', 'Overloaded', { 'retry-after': '3' }), textReply('Made it after a wait.'));
    // Every text the countdown shows, as the panel shows it: read from the test's side, a busy machine could
    // look once at "2 s" and next at the line already gone.
    await chat.frame.evaluate(`(() => {
      window.__countdowns = [];
      new MutationObserver(() => {
        const text = document.querySelector('.status .countdown')?.textContent ?? '';
        if (text && window.__countdowns.at(-1) !== text) window.__countdowns.push(text);
      }).observe(document.body, { subtree: true, childList: true, characterData: true });
    })()`);
    await send('are you there');
    // The wording and the count in one look: on a busy machine the retry can go, and the line clear, soon after.
    const line = chat.frame.locator('.status', { hasText: /servers overloaded/ }).filter({ has: chat.frame.locator('.countdown', { hasText: /Retrying in [23] s/ }) });
    await line.waitFor({ timeout: 30_000 });
    await chat.frame.locator('article.item.assistant', { hasText: 'Made it after a wait.' }).waitFor({ timeout: 60_000 });
    const shown = (await chat.frame.evaluate('window.__countdowns')) as string[];
    assert.ok(shown.filter((t) => /^Retrying( in \d s|…)$/.test(t.trim())).length >= 2, `the countdown moves: ${JSON.stringify(shown)}`);
    await idle();

    // Every attempt overloaded (5 retries, no waiting): the turn fails.
    const before = chat.server.requests.length;
    for (let i = 0; i < 6; i++) chat.server.enqueue(errorReply(529, 'overloaded_error', 'Overloaded', { 'retry-after-ms': '0' }));
    await send('and now?');
    const card = chat.frame.locator('article.item.error:not(.resolved)').last();
    await card.waitFor({ state: 'visible', timeout: 60_000 });
    await idle();
    assert.equal(chat.server.requests.length - before, 6);
    // textContent, not innerText: an item outside the rendered window (content-visibility) has no layout text yet.
    const text = (await eventually(() => card.textContent(), (t) => /overloaded/i.test(t ?? ''), 30_000)) ?? '';
    assert.match(text, /overloaded/i);
    assert.doesNotMatch(text, /529|retryable|gave up|anthropic:/i, 'no raw status, kind or provider message');
    assert.equal(await card.locator('button.set-key').count(), 0);
    await card.locator('button.copy-request-id').click();
    await chat.wb.page.locator('.statusbar', { hasText: 'req_mock_529 copied' }).waitFor({ timeout: 10_000 });
    await screenshot(chat.wb.page, 'error-overloaded-card.png');

    chat.server.enqueue(textReply('Back again.'));
    await card.locator('button.retry').click();
    await chat.frame.locator('article.item.assistant', { hasText: 'Back again.' }).waitFor({ timeout: 60_000 });
    await idle();
    // The cards are marked resolved by an update that follows the reply: wait for it.
    const unresolved = await eventually(() => chat.frame.locator('article.item.error:not(.resolved)').count(), (n) => n === 0, 30_000);
    assert.equal(unresolved, 0, 'every failed card is marked resolved');
    assert.equal(await chat.frame.locator('article.item.error button').count(), 0, 'no Retry left behind');
  });

  it('Stop leaves an "Interrupted" marker', async () => {
    chat.server.enqueue({ kind: 'hang' });
    await send('this will be stopped');
    await chat.frame.locator('body.turn-running').waitFor({ state: 'attached', timeout: 30_000 });
    await chat.frame.locator('textarea.input').press('Escape');
    await chat.frame.locator('.item.interrupted', { hasText: 'Interrupted' }).waitFor({ timeout: 30_000 });
    await idle();
  });
});
