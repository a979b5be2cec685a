import * as assert from 'node:assert/strict';
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
    // What VS Code rendered for the product: its CSP, the theme reaching the panel, a usable size.
    const panel = await frame.evaluate(() => {
      const box = document.getElementById('app')!.getBoundingClientRect();
      const style = getComputedStyle(document.documentElement);
      return {
        csp: document.querySelector('meta[http-equiv="Content-Security-Policy"]')?.getAttribute('content') ?? '',
        sideBarBackground: style.getPropertyValue('--vscode-sideBar-background').trim(),
        bodyBackground: getComputedStyle(document.body).backgroundColor,
        width: box.width,
        height: box.height,
      };
    });
    assert.match(panel.csp, /default-src 'none'/);
    assert.match(panel.csp, /script-src 'nonce-[^' ]+'/);
    assert.doesNotMatch(panel.csp, /unsafe-inline|unsafe-eval/);
    assert.notEqual(panel.sideBarBackground, '', 'the workbench theme variables reach the panel');
    assert.notEqual(panel.bodyBackground, 'rgba(0, 0, 0, 0)', 'the panel paints its own background');
    assert.ok(panel.width > 150 && panel.height > 150, `the panel is ${panel.width}×${panel.height}`);
    await screenshot(wb.page, 'workbench-chat-view.png');
  });

  it('keeps typed text in the input box (the webview is interactive)', async () => {
    const frame = await chatFrame(wb.page);
    const input = frame.locator('textarea.input');
    await input.click();
    await input.fill('hello from playwright');
    assert.equal(await input.inputValue(), 'hello from playwright');
  });
});
