// Issue 19, finding 6: the model label follows the setting. In the real
// workbench: the empty panel names the model; picking another one with
// "Turnstone: Select Model" updates the panel's header and the status bar
// at once, before any turn runs.
import * as assert from 'node:assert/strict';
import { writeFileSync } from 'node:fs';
import * as path from 'node:path';
import { eventually } from './panel/harness';
import { chatFrame, quickInputTitled, runCommand, screenshot, useChatWorkbench } from './workbench';

describe('e2e: the model label (issue 19, finding 6)', function () {
  this.timeout(180_000);
  const chat = useChatWorkbench({
    focusChat: false,
    // An instruction file, so the header holds the title and the instructions chip, as in most projects.
    prepare: (wb) => writeFileSync(path.join(wb.server.workspace, 'AGENTS.md'), 'Be brief.'),
  });
  // The picker's own title: the palette's input and rows match the generic locators too, until the command runs.
  const modelPicker = () => quickInputTitled(chat.wb.page, 'Turnstone model');

  it('the empty panel names the model; picking another updates header and status bar without a turn', async () => {
    await runCommand(chat.wb.page, 'Turnstone: Focus Chat');
    let frame = await chatFrame(chat.wb.page);
    // The host posts the session's model once the view is up: wait for it rather than read the first paint.
    const current = await eventually(async () => (await frame.locator('.composer-actions button.model').getAttribute('data-model')) ?? '', (t) => t !== '', 30_000);
    assert.notEqual(current, '', 'the composer names the model before any turn');
    await frame.locator('.empty .empty-model', { hasText: `Model: ${current}` }).waitFor();

    await runCommand(chat.wb.page, 'Turnstone: Select Model', 60_000, modelPicker());
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

  it('25.10: "opus" typed in the picker selects the newest Opus; the header fits at the default sidebar width', async () => {
    const input = chat.wb.page.locator('.quick-input-widget input');
    // Start from an older Opus, so the newest one is not simply the current model.
    await runCommand(chat.wb.page, 'Turnstone: Select Model', 60_000, modelPicker());
    await input.waitFor({ state: 'visible' });
    await input.fill('claude-opus-4-8');
    await chat.wb.page.locator('.quick-input-widget .monaco-list-row.focused', { hasText: 'claude-opus-4-8' }).waitFor({ timeout: 30_000 });
    await input.press('Enter');
    await (await chatFrame(chat.wb.page)).locator('.composer-actions button.model[data-model="claude-opus-4-8"]').waitFor({ timeout: 30_000 });

    // A slow model list: the user types before it arrives (held until then; the mock has no list, so the
    // picker falls back to the built-in one). The row VS Code makes active for the typed text is what Enter takes.
    let release = () => {};
    const held = new Promise<void>((resolve) => (release = resolve));
    let listAsked = false;
    chat.server.beforeNotFound = async (route) => {
      if (!route.endsWith('/models')) return;
      listAsked = true;
      await held;
    };
    try {
      await runCommand(chat.wb.page, 'Turnstone: Select Model', 60_000, modelPicker());
      await input.waitFor({ state: 'visible' });
      await input.fill('opus');
      assert.ok(await eventually(async () => listAsked, (asked) => asked, 30_000), 'the picker asks the server for its list');
    } finally {
      release();
      chat.server.beforeNotFound = undefined;
    }
    const active = chat.wb.page.locator('.quick-input-widget .monaco-list-row.focused');
    await active.filter({ hasText: 'claude-opus' }).waitFor({ timeout: 30_000 });
    await screenshot(chat.wb.page, 'model-picker-opus.png');
    await input.press('Enter');
    const frame = await chatFrame(chat.wb.page);
    await frame.locator('.composer-actions button.model[data-model="claude-opus-5-5"]').waitFor({ timeout: 30_000 });
    assert.equal((await frame.locator('.composer-actions button.model .label').innerText()).trim(), 'Opus 5.5');

    await frame.locator('.header button.instructions', { hasText: 'AGENTS.md' }).waitFor({ state: 'visible', timeout: 30_000 });
    // No named helpers inside evaluate: the webview frame lacks the bundler's __name shim.
    const fit = await frame.evaluate(() => {
      const [header, chip, row, model] = ['.header', '.header button.instructions .label', '.composer-actions', '.composer-actions .model .label']
        .map((selector) => document.querySelector(selector))
        .map((e) => (e ? e.scrollWidth > e.clientWidth + 1 : true));
      return {
        width: document.documentElement.clientWidth,
        header,
        chip,
        title: document.querySelector('.header .title')!.getBoundingClientRect().width,
        row,
        model,
        inHeader: document.querySelectorAll('.header .model').length,
      };
    });
    assert.ok(fit.width <= 320, `the default sidebar (${fit.width} px)`);
    assert.deepEqual({ header: fit.header, chip: fit.chip, row: fit.row, model: fit.model, inHeader: fit.inHeader }, { header: false, chip: false, row: false, model: false, inHeader: 0 }, JSON.stringify(fit));
    assert.ok(fit.title > 100, `the title has room: ${JSON.stringify(fit)}`);
    await screenshot(chat.wb.page, 'model-composer-row-default-width.png');
  });
});
