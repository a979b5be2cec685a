// Issue 19, finding 10: a permission-mode switch in the composer, in the real
// workbench. Picking "Accept edits" writes turnstone.permissionMode; in
// Restricted Mode the switch offers plan only.
import * as assert from 'node:assert/strict';
import { existsSync, readFileSync } from 'node:fs';
import * as path from 'node:path';
import { chatFrame, openWorkbench, runCommand, screenshot, type Workbench } from './workbench';

describe('e2e: the permission-mode switch (issue 19, finding 10)', function () {
  this.timeout(180_000);
  let wb: Workbench | undefined;
  afterEach(async () => {
    await wb?.close();
    wb = undefined;
  });

  it('shows the setting and writes the mode picked', async () => {
    wb = await openWorkbench({ env: { ANTHROPIC_API_KEY: 'sk-ant-e2e-key' } });
    await runCommand(wb.page, 'Turnstone: Focus Chat');
    const frame = await chatFrame(wb.page);
    const select = frame.locator('select.mode-switch');
    await select.waitFor({ state: 'visible', timeout: 30_000 });
    assert.equal(await select.inputValue(), 'ask');
    assert.deepEqual(await select.locator('option').allTextContents(), ['Plan', 'Ask', 'Accept edits', 'Bypass']);
    await select.selectOption('acceptEdits');
    const settings = path.join(wb.server.workspace, '.vscode', 'settings.json');
    const deadline = Date.now() + 30_000;
    while (!(existsSync(settings) && readFileSync(settings, 'utf8').includes('acceptEdits')) && Date.now() < deadline) await new Promise((r) => setTimeout(r, 100));
    assert.match(readFileSync(settings, 'utf8'), /"turnstone\.permissionMode":\s*"acceptEdits"/);
    assert.equal(await select.inputValue(), 'acceptEdits');
    await screenshot(wb.page, 'mode-switch.png');

    // Bypass asks natively first; declining puts the switch back.
    await select.selectOption('bypassPermissions');
    const dialog = wb.page.locator('.monaco-dialog-box');
    await dialog.waitFor({ state: 'visible', timeout: 30_000 });
    assert.match(await dialog.innerText(), /without asking/);
    await wb.page.keyboard.press('Escape');
    await frame.waitForFunction(() => document.querySelector<HTMLSelectElement>('select.mode-switch')?.value === 'acceptEdits', undefined, { timeout: 30_000 });
    assert.match(readFileSync(settings, 'utf8'), /"turnstone\.permissionMode":\s*"acceptEdits"/);
  });

  it('in Restricted Mode offers plan only', async () => {
    wb = await openWorkbench({ env: { ANTHROPIC_API_KEY: 'sk-ant-e2e-key' }, workspaceTrust: true });
    await runCommand(wb.page, 'Turnstone: Focus Chat');
    const frame = await chatFrame(wb.page);
    const select = frame.locator('select.mode-switch');
    await select.waitFor({ state: 'visible', timeout: 30_000 });
    assert.deepEqual(await select.locator('option').allTextContents(), ['Plan']);
    assert.equal(await select.isDisabled(), true);
  });
});
