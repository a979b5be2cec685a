// Issue 19, findings 7/10: Escape stops a running turn wherever the keyboard is
// in the panel: in the transcript (not the input), where the webview's own
// handler and the workbench keybinding (turnstone.stop, focusedView ==
// 'turnstone.chat' && turnstone.turnRunning) meet, and with the webview not
// focused at all (the view's title bar), where only the keybinding can act.
// Also: "Show full output" opens a read-only virtual document, never an
// untitled one that asks to be saved.
import * as assert from 'node:assert/strict';
import type { Frame } from 'playwright-core';
import { MockAnthropicServer, textReply, toolUseReply } from '../fixtures/mock-anthropic';
import { chatFrame, openWorkbench, runCommand, screenshot, type Workbench } from './workbench';

describe('e2e: Escape stops from anywhere in the panel; full output is read-only', function () {
  this.timeout(180_000);
  let server: MockAnthropicServer;
  let wb: Workbench;
  let frame: Frame;
  const send = async (text: string) => {
    const input = frame.locator('textarea.input');
    await input.fill(text);
    await input.press('Enter');
  };
  const running = () => frame.locator('body.turn-running').waitFor({ state: 'attached', timeout: 30_000 });
  const stopped = async (n: number) => {
    await frame.locator('.item.interrupted').nth(n - 1).waitFor({ timeout: 30_000 });
    await frame.locator('body:not(.turn-running)').waitFor({ state: 'attached', timeout: 30_000 });
  };

  before(async () => {
    server = await MockAnthropicServer.start();
    wb = await openWorkbench({ env: { ANTHROPIC_API_KEY: 'sk-ant-e2e-key', ANTHROPIC_BASE_URL: server.url }, userSettings: { 'turnstone.permissionMode': 'bypassPermissions' } });
    await runCommand(wb.page, 'Turnstone: Focus Chat');
    frame = await chatFrame(wb.page);
  });
  after(async () => {
    await wb?.close();
    await server?.close();
  });

  it('Escape with the transcript focused stops the turn', async () => {
    server.enqueue({ kind: 'hang' });
    await send('a turn that hangs');
    await running();
    await frame.locator('article.item.user .bubble').last().click();
    assert.notEqual(await frame.evaluate(() => document.activeElement?.tagName), 'TEXTAREA', 'the keyboard is in the transcript, not the input');
    await wb.page.keyboard.press('Escape');
    await stopped(1);
  });

  it('Escape with the view title bar focused (webview not focused) stops the turn through the keybinding', async () => {
    server.enqueue({ kind: 'hang' });
    await send('another turn that hangs');
    await running();
    // Focus the view's own toolbar (outside the webview) from the keyboard's point of view.
    const action = wb.page.locator('.pane-header .actions-container a.action-label, .composite.title .actions-container a.action-label').first();
    await action.focus();
    assert.equal(await wb.page.evaluate(() => document.activeElement?.tagName === 'IFRAME'), false, 'the webview is not focused');
    await wb.page.keyboard.press('Escape');
    await stopped(2);
  });

  it('"Show full output" opens a read-only document that closes without a save prompt', async () => {
    server.enqueue(toolUseReply([{ id: 'tu_out', name: 'bash', input: { command: 'seq 1 50' } }]), textReply('Printed.'));
    await send('print fifty lines');
    const card = frame.locator('article.item.tool[data-id="tu_out"][data-status="done"]');
    await card.waitFor({ timeout: 60_000 });
    await card.locator('button.show-output').click();
    const tab = wb.page.locator('.tab.active');
    await tab.filter({ hasText: 'output' }).waitFor({ timeout: 30_000 });
    await wb.page.locator('.monaco-editor .view-lines', { hasText: '10' }).last().waitFor();
    assert.doesNotMatch(await tab.innerText(), /Untitled/);
    // Typing changes nothing: the document is read-only.
    await wb.page.locator('.monaco-editor .view-lines').last().click();
    await wb.page.keyboard.type('XYZ');
    assert.doesNotMatch(await wb.page.locator('.monaco-editor .view-lines').last().innerText(), /XYZ/);
    await screenshot(wb.page, 'full-output-readonly.png');
    await runCommand(wb.page, 'View: Close Editor');
    await tab.filter({ hasText: 'output' }).waitFor({ state: 'detached', timeout: 10_000 });
    assert.equal(await wb.page.locator('.monaco-dialog-box').count(), 0, 'no "Save changes?" prompt');
  });
});
