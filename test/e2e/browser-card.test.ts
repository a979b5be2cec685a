// Issue 45, the browser card in the real workbench with the real runtime and a real (headless) Chromium:
// a scripted turn opens a small local web app (started here) and clicks its button. The approval, answered
// in the panel, names the URL; each browser card shows the action, the page's URL after it and its screenshot
// as a preview; clicking the preview shows it full size. Screenshots in dark and light.
// Skipped when no Chromium, Chrome or Edge is installed.
import * as assert from 'node:assert/strict';
import { findBrowser } from '../../src/tools/browser/find-browser';
import { startAppServer, type AppServer } from '../fixtures/browser/app-server';
import { textReply, toolUseReply } from '../fixtures/mock-anthropic';
import { pickColorTheme, screenshot, sendFromPanel, useChatWorkbench } from './workbench';

(findBrowser(undefined) ? describe : describe.skip)('e2e: the browser card (issue 45)', function () {
  this.timeout(300_000);
  // Approvals in the panel (the setting's default), not the harness's modal dialog.
  const chat = useChatWorkbench({ workbench: { userSettings: { 'turnstone.approvalDialog': undefined } } });
  let app: AppServer;

  before(async () => {
    app = await startAppServer();
  });
  after(async () => {
    await app?.close();
  });

  it('45.card: the approval names the URL; the card shows the URL and the screenshot; the thumbnail opens full size', async () => {
    const { server, wb } = chat;
    const url = app.url('/');
    server.enqueue(
      toolUseReply([{ id: 'tu_open', name: 'browser', input: { action: 'open', url } }]),
      toolUseReply([{ id: 'tu_click', name: 'browser', input: { action: 'click', selector: '#change' } }]),
      // Closed by the model: the workbench's end kills the extension host by a signal, which no exit hook sees,
      // and the browser's temporary profile would stay behind.
      toolUseReply([{ id: 'tu_close', name: 'browser', input: { action: 'close' } }]),
      textReply('The button changes the heading.'),
    );
    // The harness's workbench.colorTheme does not always take in this code-server: dark is picked as a user would.
    await pickColorTheme(wb.page, 'Default Dark Modern');
    await chat.frame.locator('body.vscode-dark').waitFor({ state: 'attached', timeout: 60_000 });
    const frame = await sendFromPanel(wb.page, 'look at the app');

    // The approval in the panel names the URL; nothing is loaded before it is answered.
    const allow = frame.locator('button.perm-allow:not([disabled])').first();
    await allow.waitFor({ timeout: 120_000 });
    const request = frame.locator('article.item.permission[data-id="perm:tu_open"]');
    assert.ok((await request.innerText()).includes(url), `the approval names ${url}: ${await request.innerText()}`);
    assert.deepEqual(app.hits, [], 'nothing is loaded before the decision');
    // Its words and buttons sit inside the card, not against its border.
    const waitingCard = (await frame.locator('article.item.tool[data-id="tu_open"]').boundingBox())!;
    for (const part of [request.locator('.perm-title'), allow]) {
      const box = (await part.boundingBox())!;
      assert.ok(box.x >= waitingCard.x + 4 && box.x + box.width <= waitingCard.x + waitingCard.width - 4, `inset in the card: ${JSON.stringify({ box, waitingCard })}`);
    }
    await screenshot(wb.page, 'browser-approval-dark.png');
    await allow.click();

    // Both cards, each with the action, the page's URL and a screenshot.
    await frame.locator('article.item.assistant', { hasText: 'changes the heading' }).waitFor({ timeout: 120_000 });
    const open = frame.locator('article.item.tool[data-id="tu_open"]');
    const click = frame.locator('article.item.tool[data-id="tu_click"]');
    assert.equal(await open.getAttribute('data-status'), 'done');
    assert.equal(await click.getAttribute('data-status'), 'done');
    assert.equal(await frame.locator('article.item.tool[data-id="tu_close"]').getAttribute('data-status'), 'done');
    assert.equal(await frame.locator('article.item.tool[data-id="tu_close"] .image-thumbs').count(), 0, 'close has no screenshot');
    assert.equal((await open.locator('.browser-action').innerText()).trim(), 'open');
    assert.equal((await open.locator('.tool-title code.url').innerText()).trim(), url);
    assert.equal((await click.locator('.browser-action').innerText()).trim(), 'click');
    assert.match(await click.locator('.tool-title').innerText(), /#change/);
    for (const card of [open, click]) {
      // The page's URL after the action, whole, on its own line (the title may cut it).
      assert.equal((await card.locator('.browser-page code.url').innerText()).trim(), url);
      const thumb = card.locator('.image-thumbs button.image-open img');
      await thumb.waitFor({ state: 'visible', timeout: 30_000 });
      await assert.doesNotReject(thumb.evaluate((img: HTMLImageElement) => img.decode()), 'the screenshot decodes');
      // As wide as the card allows (at most 480 px), inside it, in the screenshot's proportions (1280×800).
      const cardBox = (await card.boundingBox())!;
      const box = (await thumb.boundingBox())!;
      assert.ok(box.width > 120 && box.width <= 482 && box.x >= cardBox.x && box.x + box.width <= cardBox.x + cardBox.width + 1, `a preview inside the card: ${JSON.stringify({ box, cardBox })}`);
      assert.ok(Math.abs(box.height / box.width - 800 / 1280) < 0.05, `not distorted: ${JSON.stringify(box)}`);
      // Nothing of the title row spills out of the card.
      const titleBox = (await card.locator('.tool-title').boundingBox())!;
      assert.ok(titleBox.x + titleBox.width <= cardBox.x + cardBox.width + 1, `the title fits the card: ${JSON.stringify({ cardBox, titleBox })}`);
    }
    await screenshot(wb.page, 'browser-card-dark.png');

    // The thumbnail opens the screenshot full size; Escape closes it.
    const thumbBox = (await click.locator('button.image-open img').boundingBox())!;
    await click.locator('button.image-open').click();
    const full = frame.locator('dialog.image-full[open] img');
    await full.waitFor({ state: 'visible', timeout: 30_000 });
    // As large as the webview allows (95% of its width, its own size at most): in the side bar's narrow panel
    // that is little more than the preview; in a wide one, the screenshot as the model saw it.
    const fullBox = (await full.boundingBox())!;
    const room = await full.evaluate((img: HTMLImageElement) => Math.min(img.naturalWidth, window.innerWidth * 0.95 - 16));
    assert.ok(fullBox.width >= thumbBox.width && fullBox.width >= room - 2, `enlarged: ${fullBox.width} px wide (room ${room}), the preview ${thumbBox.width}`);
    await screenshot(wb.page, 'browser-full-dark.png');
    await wb.page.keyboard.press('Escape');
    await frame.locator('dialog.image-full').waitFor({ state: 'detached', timeout: 30_000 });

    await pickColorTheme(wb.page, 'Default Light Modern');
    await frame.locator('body.vscode-light').waitFor({ state: 'attached', timeout: 60_000 });
    await screenshot(wb.page, 'browser-card-light.png');
  });
});
