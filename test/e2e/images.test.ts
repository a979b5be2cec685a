// Images into the conversation from the panel, in the real workbench under the
// real CSP: a screenshot put on the browser's clipboard and pasted with Ctrl+V
// reaches the mock API as a base64 image block of the downscaled size; a
// dropped file is attached as it is; a fake PNG is refused with a message. The
// drop and the fake file's paste are dispatched as the browser would (a
// DragEvent / ClipboardEvent carrying a File): the clipboard API only holds
// real images, and Playwright cannot drag files from outside the page.
import * as assert from 'node:assert/strict';
import type { Frame } from 'playwright-core';
import { imageDimensions } from '../../src/runtime/context/images';
import { makePng } from '../fixtures/images';
import { writeFileSync } from 'node:fs';
import * as path from 'node:path';
import { textReply, toolUseReply } from '../fixtures/mock-anthropic';
import { chatFrame, screenshot, useChatWorkbench } from './workbench';

type Block = { type: string; text?: string; source?: { type: string; media_type: string; data: string } };

/** Dispatches a paste (on the input) or a drop (on the composer) carrying one file. */
async function deliver(frame: Frame, how: 'paste' | 'drop', name: string, type: string, bytes: Buffer): Promise<void> {
  await frame.evaluate(
    ({ how, name, type, base64 }) => {
      const raw = Uint8Array.from(atob(base64), (c) => c.charCodeAt(0));
      const dt = new DataTransfer();
      dt.items.add(new File([raw], name, { type }));
      if (how === 'paste') document.querySelector('textarea.input')!.dispatchEvent(new ClipboardEvent('paste', { clipboardData: dt, bubbles: true, cancelable: true }));
      else {
        const composer = document.querySelector('form.composer')!;
        // Only the drop: a dragover in a webview makes the workbench lay its own drop overlay over the panel.
        composer.dispatchEvent(new DragEvent('drop', { dataTransfer: dt, bubbles: true, cancelable: true }));
      }
    },
    { how, name, type, base64: bytes.toString('base64') },
  );
}

describe('e2e: images in the panel (real workbench)', function () {
  this.timeout(180_000);
  const chat = useChatWorkbench();

  it('a pasted 2400×1200 screenshot is downscaled to 1568×784 and sent as a base64 image block; a dropped file goes as it is', async () => {
    const page = chat.wb.page;
    await page.context().grantPermissions(['clipboard-read', 'clipboard-write'], { origin: new URL(page.url()).origin });
    await page.evaluate(async (base64) => {
      const bytes = Uint8Array.from(atob(base64), (c) => c.charCodeAt(0));
      await navigator.clipboard.write([new ClipboardItem({ 'image/png': new Blob([bytes], { type: 'image/png' }) })]);
    }, makePng(2400, 1200, 5, 12).toString('base64'));
    const frame = await chatFrame(page);
    await frame.locator('textarea.input').click();
    await page.keyboard.press('Control+V');
    await frame.locator('.image-thumb figcaption', { hasText: '1568×784' }).waitFor({ timeout: 30_000 });
    await deliver(frame, 'drop', 'small.png', 'image/png', makePng(120, 90, 6));
    await frame.locator('.image-thumb figcaption', { hasText: '120×90' }).waitFor({ timeout: 30_000 });
    assert.equal(await frame.locator('.image-thumb').count(), 2);
    await screenshot(chat.wb.page, 'workbench-image-composer.png');

    chat.server.enqueue(textReply('I see two images.'));
    await frame.locator('textarea.input').click();
    await chat.wb.page.keyboard.type('what is wrong in this UI?');
    await chat.wb.page.keyboard.press('Enter');
    await frame.locator('article.item.assistant', { hasText: 'I see two images.' }).waitFor({ timeout: 60_000 });
    await chat.server.waitForRequests(1);
    const body = chat.server.bodies[0] as { messages: Array<{ role: string; content: Block[] }> };
    const content = body.messages[0]!.content;
    assert.equal(content[0]!.type, 'text');
    const images = content.filter((b) => b.type === 'image');
    assert.equal(images.length, 2);
    const pasted = Buffer.from(images[0]!.source!.data, 'base64');
    assert.equal(images[0]!.source!.type, 'base64');
    // Downscaled, the noisy screenshot is still over 1 MB as PNG: it goes as the smaller JPEG.
    assert.equal(images[0]!.source!.media_type, 'image/jpeg');
    assert.deepEqual(imageDimensions(pasted), { width: 1568, height: 784 });
    assert.ok(pasted.length < 1024 * 1024, `${pasted.length} bytes sent`);
    assert.ok(Buffer.from(images[1]!.source!.data, 'base64').equals(makePng(120, 90, 6)), 'a small image is sent byte for byte');
    // The user message shows the images as thumbnails (decoded under the real CSP).
    const thumbs = frame.locator('article.item.user .image-open img');
    await thumbs.first().waitFor({ timeout: 30_000 });
    assert.equal(await thumbs.count(), 2);
    assert.ok(await thumbs.first().evaluate((img: HTMLImageElement) => img.decode().then(() => img.naturalWidth)) === 1568);
    await frame.locator('article.item.user .image-open').first().click();
    await frame.locator('dialog.image-full img').waitFor({ state: 'visible', timeout: 10_000 });
    await screenshot(chat.wb.page, 'workbench-image-full-size.png');
    await chat.wb.page.keyboard.press('Escape');
    assert.equal(await frame.locator('.image-thumb').count(), 0, 'the composer is empty after sending');
  });

  it('read_file of a PNG: the model gets the image in the tool result and the tool card shows it', async () => {
    chat.server.reset();
    writeFileSync(path.join(chat.wb.server.workspace, 'ui.png'), makePng(200, 100, 9));
    chat.server.enqueue(toolUseReply([{ id: 'toolu_img', name: 'read_file', input: { path: 'ui.png' } }]), textReply('The header is cut off.'));
    const frame = await chatFrame(chat.wb.page);
    await frame.locator('textarea.input').click();
    await chat.wb.page.keyboard.type('look at ui.png');
    await chat.wb.page.keyboard.press('Enter');
    await frame.locator('article.item.assistant', { hasText: 'The header is cut off.' }).waitFor({ timeout: 60_000 });
    const body = chat.server.bodies[1] as { messages: Array<{ content: Array<{ type: string; content?: Block[] }> }> };
    const result = body.messages[body.messages.length - 1]!.content.find((b) => b.type === 'tool_result')!;
    const image = result.content!.find((b) => b.type === 'image')!;
    assert.ok(Buffer.from(image.source!.data, 'base64').equals(makePng(200, 100, 9)));
    const thumb = frame.locator('article.item.tool .tool-images img');
    await thumb.waitFor({ timeout: 30_000 });
    assert.equal(await thumb.evaluate((img: HTMLImageElement) => img.decode().then(() => img.naturalWidth)), 200);
  });

  it('a fake PNG (text bytes named .png) is refused with a message and nothing is attached', async () => {
    const frame = await chatFrame(chat.wb.page);
    await frame.locator('textarea.input').click();
    await deliver(frame, 'paste', 'fake.png', 'image/png', Buffer.from('<html>this is not an image</html>'));
    await frame.locator('.image-notice', { hasText: 'fake.png is not a PNG, JPEG, GIF or WebP image.' }).waitFor({ timeout: 30_000 });
    assert.equal(await frame.locator('.image-thumb').count(), 0);
  });
});
