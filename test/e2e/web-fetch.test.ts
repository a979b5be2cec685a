// Issue 28, web_fetch in the real workbench: the modal names the URL and offers
// "Always allow <host>"; choosing it saves exactly `web_fetch(domain:<host>)` to
// the workspace settings, the fetch runs and its card shows the URL, and a later
// fetch on that host runs without asking. The pages come from a local server
// (turnstone.webFetch.allowPrivateNetwork is set, as a user with a dev server would).
import * as assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import * as path from 'node:path';
import { textReply, toolUseReply } from '../fixtures/mock-anthropic';
import { startPageServer, type PageServer } from '../fixtures/web/server';
import { screenshot, useChatWorkbench } from './workbench';

describe('e2e: web_fetch in the real workbench (issue 28)', function () {
  this.timeout(240_000);
  let pages: PageServer;
  before(async () => {
    pages = await startPageServer();
  });
  after(() => pages?.close());
  const chat = useChatWorkbench({ workbench: { userSettings: { 'turnstone.webFetch.allowPrivateNetwork': true } } });

  it('28.fetch: "Always allow 127.0.0.1" in the modal saves exactly that host\'s rule; the card shows the URL; the next fetch there does not ask', async () => {
    const docs = pages.url('/docs');
    const issue = pages.url('/issue');
    chat.server.enqueue(
      toolUseReply([{ id: 'tu_docs', name: 'web_fetch', input: { url: docs } }]),
      toolUseReply([{ id: 'tu_issue', name: 'web_fetch', input: { url: issue } }]),
      textReply('Read the docs and the issue.'),
    );
    const { frame, wb } = chat;
    const input = frame.locator('textarea.input');
    await input.fill('read the stream docs and the issue');
    await input.press('Enter');

    const dialog = wb.page.locator('.monaco-dialog-box');
    await dialog.waitFor({ state: 'visible', timeout: 60_000 });
    const text = await dialog.innerText();
    assert.ok(text.includes(docs), `the modal names the URL:\n${text}`);
    const always = dialog.getByRole('button', { name: 'Always allow 127.0.0.1', exact: true });
    await always.waitFor();
    await screenshot(wb.page, 'web-fetch-dialog.png');
    await always.click();
    await dialog.waitFor({ state: 'hidden', timeout: 30_000 });

    await frame.locator('article.item.assistant', { hasText: 'Read the docs and the issue.' }).waitFor({ timeout: 60_000 });
    const first = frame.locator('article.item.tool[data-id="tu_docs"]');
    assert.equal(await first.getAttribute('data-status'), 'done');
    assert.ok((await first.innerText()).includes(docs), 'the card shows the URL');
    const second = frame.locator('article.item.tool[data-id="tu_issue"]');
    assert.equal(await second.getAttribute('data-status'), 'done');
    assert.equal(await second.locator('.item.permission').count(), 0, 'no question for the same host the second time');
    assert.deepEqual(pages.hits.filter((h) => h === '/docs' || h === '/issue'), ['/docs', '/issue']);

    const settings = JSON.parse(readFileSync(path.join(wb.server.workspace, '.vscode', 'settings.json'), 'utf8')) as Record<string, unknown>;
    assert.deepEqual(settings['turnstone.permissions.allow'], ['web_fetch(domain:127.0.0.1)'], 'exactly the rule the button named');
    // The model got the page as Markdown of its main content.
    const results = JSON.stringify(chat.server.bodies[1]);
    assert.ok(results.includes('A stream is an abstract interface'), 'the docs page reached the model');
    await screenshot(wb.page, 'web-fetch-cards.png');
  });
});
