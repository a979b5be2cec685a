// Issue 19, findings 2 and 3, in the real workbench with the real runtime and
// bash tool: one card per tool (its approval inside it, no spinner while it
// waits, one line once answered), and a bash card keeps its output after the
// command ends, with the whole result one click away. Issue 25.5: a failing
// command's output is shown once, in plain colours; only its exit line is red.
import * as assert from 'node:assert/strict';
import type { Page } from 'playwright-core';
import { textReply, toolUseReply } from '../fixtures/mock-anthropic';
import { screenshot, sendFromPanel as send, useChatWorkbench } from './workbench';


const dialog = (page: Page) => page.locator('.monaco-dialog-box');

describe('e2e: one card per tool, bash output kept (issue 19, findings 2 and 3)', function () {
  this.timeout(240_000);
  const chat = useChatWorkbench();

  it('waiting → done in one card with the approval inside; the output stays; a denial collapses to one line', async () => {
    chat.server.enqueue(
      toolUseReply([{ id: 'tu_seq', name: 'bash', input: { command: "seq 1 30 | sed 's/^/line-/'", description: 'print thirty lines' } }]),
      toolUseReply([{ id: 'tu_rm', name: 'bash', input: { command: 'rm -rf build' } }]),
      textReply('All done.'),
    );
    const frame = await send(chat.wb.page, 'print some lines, then clean');
    await dialog(chat.wb.page).waitFor({ state: 'visible', timeout: 60_000 });

    const card = frame.locator('article.item.tool[data-id="tu_seq"]');
    await card.locator('.item.permission.nested button.perm-allow').waitFor({ state: 'visible' });
    assert.equal(await card.getAttribute('data-status'), 'waiting');
    assert.equal(await card.locator('.codicon-modifier-spin').count(), 0, 'no spinner while waiting for approval');
    assert.match((await card.getAttribute('aria-label')) ?? '', /^Run seq 1 30 .*: waiting for approval$/);
    assert.equal(await frame.locator('.items > .item.permission').count(), 0, 'no separate permission card');
    assert.equal(await frame.locator('article.item.tool').count(), 1);
    await screenshot(chat.wb.page, 'cards-waiting.png');

    await dialog(chat.wb.page).getByRole('button', { name: 'Allow', exact: true }).click();
    await frame.locator('article.item.tool[data-id="tu_seq"][data-status="done"]').waitFor({ timeout: 60_000 });
    assert.equal(await card.locator('.perm-state').innerText(), 'Allowed in the dialog');
    assert.equal(await card.locator('.perm-allow').count(), 0);
    assert.match(await card.locator('pre.output').innerText(), /line-30$/, 'the output is kept after the command ends');
    assert.equal(await card.locator('.exit').innerText(), 'exit 0');
    assert.match((await card.getAttribute('aria-label')) ?? '', /^Ran seq 1 30 .*, exit 0$/);

    await dialog(chat.wb.page).waitFor({ state: 'visible', timeout: 60_000 });
    await dialog(chat.wb.page).getByRole('button', { name: 'Deny with feedback…' }).click();
    const box = chat.wb.page.locator('.quick-input-widget input');
    await box.waitFor({ state: 'visible' });
    await box.fill('use make clean');
    await box.press('Enter');
    const denied = frame.locator('article.item.tool[data-id="tu_rm"][data-status="denied"]');
    await denied.waitFor({ timeout: 60_000 });
    await denied.locator('.perm-state', { hasText: 'Denied in the dialog: use make clean' }).waitFor();
    assert.equal(await denied.locator('button.perm-allow').count(), 0, 'no Allow left on a denied card');
    const height = await denied.locator('.item.permission').evaluate((e) => e.getBoundingClientRect().height);
    assert.ok(height < 40, `the answered request is one line (${height}px)`);
    await frame.locator('article.item.assistant', { hasText: 'All done.' }).waitFor({ timeout: 60_000 });
    // The tool cards are in the order the model called them, one each.
    assert.deepEqual(await frame.locator('article.item.tool').evaluateAll((els) => els.map((e) => (e as HTMLElement).dataset.id)), ['tu_seq', 'tu_rm']);
    await screenshot(chat.wb.page, 'cards-answered.png');

    // "Show full output" opens the whole recorded result in an editor.
    await card.locator('button.show-output').click();
    await chat.wb.page.locator('.monaco-editor .view-lines', { hasText: 'line-1' }).first().waitFor({ timeout: 30_000 });
    await chat.wb.page.locator('.monaco-editor .view-lines', { hasText: 'line-20' }).first().waitFor({ timeout: 30_000 });
    await screenshot(chat.wb.page, 'cards-full-output.png');
    // "Open in terminal" reveals the terminal the command ran in.
    await card.locator('button.open-terminal').click();
    await chat.wb.page.locator('.terminal-tab, .single-terminal-tab, .terminal-wrapper').first().waitFor({ state: 'visible', timeout: 30_000 });
  });

  it('25.5: a failing command shows its output once, in plain colours; only the exit-code line is coloured as an error', async () => {
    chat.server.enqueue(
      toolUseReply([{ id: 'tu_fail', name: 'bash', input: { command: "printf 'ok 1 - adds\\nok 2 - subtracts\\nnot ok 3 - divides\\n'; exit 1", description: 'run the tests' } }]),
      textReply('One test fails.'),
    );
    const frame = await send(chat.wb.page, 'run the tests');
    await dialog(chat.wb.page).waitFor({ state: 'visible', timeout: 60_000 });
    await dialog(chat.wb.page).getByRole('button', { name: 'Allow', exact: true }).click();
    const card = frame.locator('article.item.tool[data-id="tu_fail"][data-status="error"]');
    await card.waitFor({ timeout: 60_000 });
    await frame.locator('article.item.assistant', { hasText: 'One test fails.' }).waitFor({ timeout: 60_000 });
    // Below the header (which names the command): the output, once.
    const text = (await card.locator('.tool-body, .tool-error').allTextContents()).join('\n');
    assert.equal(text.split('ok 1 - adds').length - 1, 1, `the output appears once:\n${text}`);
    assert.equal((await card.locator('.tool-error').textContent())?.trim() ?? '', '', 'no second copy of the output as an error');
    assert.match(await card.locator('pre.output').innerText(), /ok 1 - adds\nok 2 - subtracts\nnot ok 3 - divides/);
    assert.equal(await card.locator('.exit-line').innerText(), 'Exit code 1');
    assert.equal(await card.locator('.exit').innerText(), 'exit 1');
    const colours = await card.evaluate((el) => {
      // The theme's error colour, and the plain colour of command output (the terminal's text colour).
      const [error, plain] = ['--vscode-errorForeground', '--vscode-terminal-foreground'].map((variable) => {
        const probe = document.createElement('span');
        probe.style.color = getComputedStyle(document.body).getPropertyValue(variable).trim() || getComputedStyle(document.body).color;
        el.append(probe);
        const colour = getComputedStyle(probe).color;
        probe.remove();
        return colour;
      });
      // No named helper in here: tsx would wrap it in a __name() call the page does not have.
      const [output, exitLine, exitIcon] = ['pre.output', '.exit-line', '.exit-line .codicon'].map((selector) => getComputedStyle(el.querySelector(selector)!).color);
      return { error, plain, output, exitLine, exitIcon };
    });
    // The line is in the error colour (its words tinted toward the text colour to keep contrast: 25.3).
    assert.equal(colours.exitIcon, colours.error, 'the exit line is marked in the error colour');
    assert.notEqual(colours.exitLine, colours.output, 'the exit line stands out from the output');
    assert.equal(colours.output, colours.plain, 'the passing lines are in the plain colour of command output');
    assert.notEqual(colours.output, colours.error, 'not in the error colour');
    await screenshot(chat.wb.page, 'cards-failing-command.png');
  });
});
