// The whole product as a user meets it: type in the panel, the diff editor and
// the native modal appear, click a button, the file changes (or not), and the
// panel shows the tool card. Real workbench, real extension host, mock API.
import * as assert from 'node:assert/strict';
import { readFileSync, writeFileSync } from 'node:fs';
import * as path from 'node:path';
import type { Page } from 'playwright-core';
import { textReply, toolUseReply } from '../fixtures/mock-anthropic';
import { chatFrame, screenshot, sendFromPanel, useChatWorkbench } from './workbench';


/** The workbench's modal dialog (DOM in the browser build). */
const dialog = (page: Page) => page.locator('.monaco-dialog-box');

describe('e2e: permission decisions through the real UI', function () {
  this.timeout(180_000);
  const chat = useChatWorkbench();

  it('Allow in the modal writes the edit shown in the diff editor, and the panel shows the tool card', async () => {
    const file = path.join(chat.wb.server.workspace, 'src', 'hello.ts');
    const before = readFileSync(file, 'utf8');
    chat.server.enqueue(
      toolUseReply([{ id: 'tu_read', name: 'read_file', input: { path: 'src/hello.ts' } }]),
      toolUseReply([{ id: 'tu_edit', name: 'edit_file', input: { path: 'src/hello.ts', old_string: 'Hello', new_string: 'Howdy' } }]),
      textReply('Changed the greeting to **Howdy**.'),
    );
    await sendFromPanel(chat.wb.page, 'make the greeting friendlier');

    await dialog(chat.wb.page).waitFor({ state: 'visible', timeout: 60_000 });
    assert.match(await dialog(chat.wb.page).innerText(), /Turnstone: Edit src\/hello\.ts\?/);
    // The native diff editor is open behind the modal.
    await chat.wb.page.locator('.tab', { hasText: 'proposed by Turnstone' }).first().waitFor({ state: 'visible' });
    await screenshot(chat.wb.page, 'permission-diff-and-dialog.png');
    assert.equal(readFileSync(file, 'utf8'), before, 'nothing is written before the decision');

    await dialog(chat.wb.page).getByRole('button', { name: 'Allow', exact: true }).click();
    const frame = await chatFrame(chat.wb.page);
    await frame.locator('article.item.assistant', { hasText: 'Howdy' }).waitFor({ timeout: 60_000 });
    assert.equal(readFileSync(file, 'utf8'), before.replace('Hello', 'Howdy'));
    assert.equal(await frame.locator('article.item.tool').count(), 2);
    await chat.wb.page.locator('.tab', { hasText: 'proposed by Turnstone' }).waitFor({ state: 'detached' });
    await screenshot(chat.wb.page, 'permission-panel-after-allow.png');
  });

  it('Deny with feedback leaves the file alone and the feedback reaches the model', async () => {
    writeFileSync(path.join(chat.wb.server.workspace, 'todo.txt'), 'buy milk\n');
    chat.server.reset();
    chat.server.enqueue(
      toolUseReply([{ id: 'tu_read2', name: 'read_file', input: { path: 'todo.txt' } }]),
      toolUseReply([{ id: 'tu_write2', name: 'write_file', input: { path: 'todo.txt', content: 'buy oat milk\n' } }]),
      textReply('OK, I will leave it.'),
    );
    await sendFromPanel(chat.wb.page, 'fix the todo');
    await dialog(chat.wb.page).waitFor({ state: 'visible', timeout: 60_000 });
    await dialog(chat.wb.page).getByRole('button', { name: 'Deny with feedback…' }).click();
    const box = chat.wb.page.locator('.quick-input-widget input');
    await box.waitFor({ state: 'visible' });
    await box.fill('keep regular milk');
    await box.press('Enter');
    const frame = await chatFrame(chat.wb.page);
    await frame.locator('article.item.assistant', { hasText: 'leave it' }).waitFor({ timeout: 60_000 });
    assert.equal(readFileSync(path.join(chat.wb.server.workspace, 'todo.txt'), 'utf8'), 'buy milk\n');
    assert.ok(JSON.stringify(chat.server.bodies[2]).includes('keep regular milk'), 'the feedback is in the next request');
  });
});
