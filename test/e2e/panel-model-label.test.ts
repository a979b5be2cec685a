// Issue 19, finding 6: the model label follows the setting. In the real
// workbench: the empty panel names the model; picking another one with
// "Turnstone: Select Model" updates the panel's header and the status bar
// at once, before any turn runs.
import * as assert from 'node:assert/strict';
import { MockAnthropicServer } from '../fixtures/mock-anthropic';
import { eventually } from './panel/harness';
import { chatFrame, openWorkbench, runCommand, screenshot, type Workbench } from './workbench';

describe('e2e: the model label (issue 19, finding 6)', function () {
  this.timeout(180_000);
  let server: MockAnthropicServer;
  let wb: Workbench;

  before(async () => {
    server = await MockAnthropicServer.start();
    wb = await openWorkbench({ env: { ANTHROPIC_API_KEY: 'sk-ant-e2e-key', ANTHROPIC_BASE_URL: server.url } });
  });
  after(async () => {
    await wb?.close();
    await server?.close();
  });

  it('the empty panel names the model; picking another updates header and status bar without a turn', async () => {
    await runCommand(wb.page, 'Turnstone: Focus Chat');
    let frame = await chatFrame(wb.page);
    // The host posts the session's model once the view is up: wait for it rather than read the first paint.
    const current = await eventually(() => frame.locator('.header button.model .label').innerText(), (t) => t !== 'Model', 30_000);
    assert.notEqual(current, 'Model', 'the header names the model before any turn');
    await frame.locator('.empty .empty-model', { hasText: `Model: ${current}` }).waitFor();

    await runCommand(wb.page, 'Turnstone: Select Model');
    const rows = wb.page.locator('.quick-input-widget .monaco-list-row');
    await rows.first().waitFor({ state: 'visible' });
    const other = wb.page.locator('.quick-input-widget .monaco-list-row').filter({ hasNotText: current }).filter({ hasNotText: 'Other…' }).first();
    const picked = (await other.locator('.label-name').first().innerText()).trim();
    await other.click();
    frame = await chatFrame(wb.page);
    await frame.locator('.header button.model .label', { hasText: picked }).waitFor({ timeout: 30_000 });
    await frame.locator('.empty .empty-model', { hasText: `Model: ${picked}` }).waitFor();
    await wb.page.locator('.statusbar-item', { hasText: picked }).first().waitFor({ timeout: 30_000 });
    assert.equal(server.requests.length, 0, 'no turn ran');
    await screenshot(wb.page, 'model-label-after-pick.png');
  });
});
