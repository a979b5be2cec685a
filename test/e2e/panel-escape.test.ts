// Issue 19, findings 7/10: Escape stops a running turn wherever the keyboard is
// in the panel: in the transcript (not the input), where the webview's own
// handler and the workbench keybinding (turnstone.stop, focusedView ==
// 'turnstone.chat' && turnstone.turnRunning) meet, and with the webview not
// focused at all (the view's title bar), where only the keybinding can act.
// Also: "Show full output" opens a read-only virtual document, never an
// untitled one that asks to be saved.
import * as assert from 'node:assert/strict';
import { textReply, toolUseReply } from '../fixtures/mock-anthropic';
import { runCommand, screenshot, useChatWorkbench } from './workbench';

describe('e2e: Escape stops from anywhere in the panel; full output is read-only', function () {
  this.timeout(180_000);
  const chat = useChatWorkbench({ workbench: { userSettings: { 'turnstone.permissionMode': 'bypassPermissions' } } });
  const send = async (text: string) => {
    const input = chat.frame.locator('textarea.input');
    await input.fill(text);
    await input.press('Enter');
  };
  const running = () => chat.frame.locator('body.turn-running').waitFor({ state: 'attached', timeout: 30_000 });
  const stopped = async (n: number) => {
    await chat.frame.locator('.item.interrupted').nth(n - 1).waitFor({ timeout: 30_000 });
    await chat.frame.locator('body:not(.turn-running)').waitFor({ state: 'attached', timeout: 30_000 });
  };

  it('Escape with the transcript focused stops the turn', async () => {
    chat.server.enqueue({ kind: 'hang' });
    await send('a turn that hangs');
    await running();
    await chat.frame.locator('article.item.user .bubble').last().click();
    assert.notEqual(await chat.frame.evaluate(() => document.activeElement?.tagName), 'TEXTAREA', 'the keyboard is in the transcript, not the input');
    await chat.wb.page.keyboard.press('Escape');
    await stopped(1);
  });

  it('Escape with the view title bar focused (webview not focused) stops the turn through the keybinding', async () => {
    chat.server.enqueue({ kind: 'hang' });
    await send('another turn that hangs');
    await running();
    // Focus the view's own toolbar (outside the webview) from the keyboard's point of view.
    const action = chat.wb.page.locator('.pane-header .actions-container a.action-label, .composite.title .actions-container a.action-label').first();
    await action.focus();
    assert.equal(await chat.wb.page.evaluate(() => document.activeElement?.tagName === 'IFRAME'), false, 'the webview is not focused');
    await chat.wb.page.keyboard.press('Escape');
    await stopped(2);
  });

  it('"Show full output" opens a read-only document that closes without a save prompt', async () => {
    chat.server.enqueue(toolUseReply([{ id: 'tu_out', name: 'bash', input: { command: 'seq 1 50' } }]), textReply('Printed.'));
    await send('print fifty lines');
    const card = chat.frame.locator('article.item.tool[data-id="tu_out"][data-status="done"]');
    await card.waitFor({ timeout: 60_000 });
    await card.locator('button.show-output').click();
    const tab = chat.wb.page.locator('.tab.active');
    await tab.filter({ hasText: 'output' }).waitFor({ timeout: 30_000 });
    await chat.wb.page.locator('.monaco-editor .view-lines', { hasText: '10' }).last().waitFor();
    assert.doesNotMatch(await tab.innerText(), /Untitled/);
    // Typing changes nothing: the document is read-only.
    await chat.wb.page.locator('.monaco-editor .view-lines').last().click();
    await chat.wb.page.keyboard.type('XYZ');
    assert.doesNotMatch(await chat.wb.page.locator('.monaco-editor .view-lines').last().innerText(), /XYZ/);
    await screenshot(chat.wb.page, 'full-output-readonly.png');
    await runCommand(chat.wb.page, 'View: Close Editor');
    await tab.filter({ hasText: 'output' }).waitFor({ state: 'detached', timeout: 10_000 });
    assert.equal(await chat.wb.page.locator('.monaco-dialog-box').count(), 0, 'no "Save changes?" prompt');
  });
});
