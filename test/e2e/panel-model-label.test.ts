// Issue 19, finding 6: the model label follows the setting. In the real
// workbench: the empty panel names the model; picking another one with
// "Turnstone: Select Model" updates the panel's header and the status bar
// at once, before any turn runs.
import * as assert from 'node:assert/strict';
import { eventually } from './panel/harness';
import { chatFrame, runCommand, screenshot, useChatWorkbench } from './workbench';

describe('e2e: the model label (issue 19, finding 6)', function () {
  this.timeout(180_000);
  const chat = useChatWorkbench({ focusChat: false });

  it('the empty panel names the model; picking another updates header and status bar without a turn', async () => {
    await runCommand(chat.wb.page, 'Turnstone: Focus Chat');
    let frame = await chatFrame(chat.wb.page);
    // The host posts the session's model once the view is up: wait for it rather than read the first paint.
    const current = await eventually(async () => (await frame.locator('.composer-actions button.model').getAttribute('data-model')) ?? '', (t) => t !== '', 30_000);
    assert.notEqual(current, '', 'the composer names the model before any turn');
    await frame.locator('.empty .empty-model', { hasText: `Model: ${current}` }).waitFor();

    await runCommand(chat.wb.page, 'Turnstone: Select Model');
    const rows = chat.wb.page.locator('.quick-input-widget .monaco-list-row');
    await rows.first().waitFor({ state: 'visible' });
    const other = chat.wb.page.locator('.quick-input-widget .monaco-list-row').filter({ hasNotText: current }).filter({ hasNotText: 'Other…' }).first();
    const picked = (await other.locator('.label-name').first().innerText()).trim();
    await other.click();
    frame = await chatFrame(chat.wb.page);
    await frame.locator(`.composer-actions button.model[data-model="${picked}"]`).waitFor({ timeout: 30_000 });
    await frame.locator('.empty .empty-model', { hasText: `Model: ${picked}` }).waitFor();
    await chat.wb.page.locator('.statusbar-item', { hasText: picked }).first().waitFor({ timeout: 30_000 });
    assert.equal(chat.server.requests.length, 0, 'no turn ran');
    await screenshot(chat.wb.page, 'model-label-after-pick.png');
  });
});
