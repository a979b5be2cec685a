// Issue 19, finding 8: first run and error states at 300 px in light and dark
// (screenshots under test-results/): the no-key notice with its key field, the
// "no key" card (Set API Key, no Retry), the retry countdown, an overloaded
// card with its request id behind a copy button, a resolved card and the
// "Interrupted" marker. The key typed in the panel goes to the host and is
// not kept in the webview's saved state.
import assert from 'node:assert/strict';
import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { type HostToWebview } from '../../../src/webview/protocol';
import { type Theme, hostPost, openPanel, posted, settle, usePanelHarness } from './harness';

const OUT = join(__dirname, '..', '..', '..', 'test-results');
const KEY = 'sk-ant-harness-0123456789';

const FIRST_RUN: HostToWebview[] = [
  { type: 'session', session: { id: 's', title: 'hello', model: 'claude-sonnet-5-5' } },
  { type: 'notices', notices: [{ id: 'no_api_key', kind: 'no_api_key', text: 'Add your Anthropic API key to start.', actions: [] }] },
  { type: 'item_add', item: { kind: 'user', id: 'u1', text: 'hello' } },
  { type: 'item_add', item: { kind: 'error', id: 'k1', message: 'No API key is set, so nothing was sent to Anthropic.', hint: 'Add your key to start chatting.', errorKind: 'no_key', cause: 'no_key', action: 'set_key', retryable: false } },
];

const ERRORS: HostToWebview[] = [
  { type: 'notices', notices: [] },
  { type: 'item_add', item: { kind: 'error', id: 'k1', message: 'API key saved. Sending your message.', errorKind: 'no_key', cause: 'no_key', action: 'set_key', retryable: false, resolved: true } },
  { type: 'assistant_delta', id: 'a1', text: 'Hello! How can I help with this workspace today?' },
  { type: 'block_end', id: 'a1' },
  { type: 'item_add', item: { kind: 'user', id: 'u2', text: 'run the full test-suite with --reporter=spec and summarise the failures' } },
  { type: 'item_add', item: { kind: 'error', id: 'e1', message: "Anthropic's servers are overloaded right now, even after several attempts.", hint: 'Nothing was lost. Try again in a minute.', errorKind: 'retryable', cause: 'overloaded', action: 'retry', retryable: true, requestId: 'req_011CAbcdEfgh' } },
  { type: 'item_add', item: { kind: 'user', id: 'u3', text: 'stop that' } },
  { type: 'item_add', item: { kind: 'interrupted', id: 'x1' } },
  { type: 'turn', state: 'running' },
  { type: 'reconnecting', attempt: 2, maxAttempts: 5, reason: 'servers overloaded', delayMs: 8000 },
];

describe('chat panel: first run and errors at 300 px (issue 19, finding 8)', function () {
  this.timeout(120_000);
  before(() => {
    mkdirSync(OUT, { recursive: true });
  });
  const rig = usePanelHarness();

  for (const theme of ['light', 'dark'] as Theme[]) {
    it(`key field, no-key card, countdown, overloaded, resolved, interrupted (${theme})`, async () => {
      const page = await openPanel(rig.browser, rig.harness, { theme, width: 300, height: 700 });
      await hostPost(page, ...FIRST_RUN);
      await settle(page);
      const card = page.locator('.item.error[data-id="k1"]');
      assert.equal(await card.locator('button.retry').count(), 0, 'no Retry without a key');
      await card.locator('button.set-key').click();
      await card.locator('.key-input').waitFor({ state: 'visible' });
      assert.ok(await page.evaluate(() => document.documentElement.scrollWidth <= 300), 'no horizontal overflow');
      await page.screenshot({ path: join(OUT, `error-first-run-${theme}-300.png`) });

      // Too short: said so, nothing posted.
      await card.locator('.key-input').fill('sk-ant');
      await card.locator('button.key-save').click();
      await card.locator('.key-note', { hasText: 'too short' }).waitFor();
      await card.locator('.key-input').fill(KEY);
      await card.locator('.key-input').press('Enter');
      const sent = (await posted(page)).filter((m) => m.type === 'set_api_key');
      assert.deepEqual(sent, [{ type: 'set_api_key', key: KEY }]);
      assert.equal(await card.locator('.key-input').inputValue(), '');
      // Whatever the webview saves for its next load holds no key.
      await page.evaluate(() => window.dispatchEvent(new Event('pagehide')));
      const saved = await page.evaluate(() => sessionStorage.getItem('turnstone-state') ?? '');
      assert.match(saved, /No API key is set/, 'the state was saved');
      assert.doesNotMatch(saved, /sk-ant-harness/);

      await hostPost(page, ...ERRORS);
      await settle(page);
      const overloaded = page.locator('.item.error[data-id="e1"]');
      const text = await overloaded.innerText();
      assert.doesNotMatch(text, /retryable|529|anthropic:/);
      await overloaded.locator('button.copy-request-id').click();
      assert.deepEqual((await posted(page)).filter((m) => m.type === 'copy_request_id'), [{ type: 'copy_request_id', requestId: 'req_011CAbcdEfgh' }]);
      assert.equal(await page.locator('.item.error.resolved button').count(), 0);
      await page.locator('.item.interrupted', { hasText: 'Interrupted' }).waitFor();
      await page.locator('.status .countdown', { hasText: /Retrying in [78] s/ }).waitFor();
      await page.locator('.status .countdown', { hasText: /Retrying in [56] s/ }).waitFor({ timeout: 10_000 });
      assert.ok(await page.evaluate(() => document.documentElement.scrollWidth <= 300), 'no horizontal overflow');
      await page.screenshot({ path: join(OUT, `error-states-${theme}-300.png`) });
      await page.close();
    });
  }
});
