import * as assert from 'node:assert/strict';
import { existsSync } from 'node:fs';
import { chatFrame, openWorkbench, runCommand, screenshot, type Workbench } from './workbench';

describe('e2e: the Turnstone view in the real workbench', function () {
  this.timeout(120_000);
  let wb: Workbench;

  before(async () => {
    wb = await openWorkbench();
  });
  after(async () => {
    await wb?.close();
  });

  it('shows the Turnstone container in the activity bar', async () => {
    const item = wb.page.locator('.activitybar .action-item a[aria-label^="Turnstone"]');
    await item.waitFor({ state: 'visible', timeout: 30_000 });
  });

  it('opens the chat view from the command palette and renders its input box', async () => {
    await runCommand(wb.page, 'Turnstone: Focus Chat');
    const frame = await chatFrame(wb.page);
    const input = frame.locator('textarea.input');
    await input.waitFor({ state: 'visible' });
    assert.equal(await input.getAttribute('aria-label'), 'Message Turnstone');
    const file = await screenshot(wb.page, 'workbench-chat-view.png');
    assert.ok(existsSync(file));
  });

  it('keeps typed text in the input box (the webview is interactive)', async () => {
    const frame = await chatFrame(wb.page);
    const input = frame.locator('textarea.input');
    await input.click();
    await input.fill('hello from playwright');
    assert.equal(await input.inputValue(), 'hello from playwright');
  });
});
