// Issue 47 item 1, from the keyboard, in the real workbench: Escape on a waiting
// approval card hands the keyboard back to the input (the request keeps waiting,
// the turn keeps running); Ctrl+Alt+Enter allows and Ctrl+Alt+Backspace denies
// the waiting request (the workbench's keybindings for turnstone.allowRequest /
// turnstone.denyRequest while turnstone.permissionPending), also with the
// keyboard in the input; text typed in the input never answers it and stays
// there, neither sent nor queued.
import * as assert from 'node:assert/strict';
import { existsSync } from 'node:fs';
import * as path from 'node:path';
import type { Frame } from 'playwright-core';
import { textReply, toolUseReply } from '../fixtures/mock-anthropic';
import { screenshot, useChatWorkbench } from './workbench';

const inputFocused = (frame: Frame) => frame.waitForFunction(() => document.activeElement?.matches('textarea.input') === true && document.hasFocus(), undefined, { timeout: 15_000 });

describe('e2e: approvals from the keyboard (issue 47 item 1)', function () {
  this.timeout(240_000);
  // The product's default (the e2e harness opts into the modal for the older tests).
  const chat = useChatWorkbench({ workbench: { userSettings: { 'turnstone.approvalDialog': 'panel' } } });
  const waiting = (id: string) => chat.frame.locator(`article.item.tool[data-id="${id}"] .item.permission:not(.settled) button.perm-allow`);
  const settled = (id: string, text: string) => chat.frame.locator(`article.item.tool[data-id="${id}"] .perm-state`, { hasText: text }).waitFor({ timeout: 60_000 });
  const send = async (text: string) => {
    const input = chat.frame.locator('textarea.input');
    await input.fill(text);
    await input.press('Enter');
  };

  it('Escape on the waiting card returns to the input; typing there answers nothing; Ctrl+Alt+Enter allows', async () => {
    const file = path.join(chat.wb.server.workspace, 'allowed-by-keyboard.txt');
    chat.server.enqueue(toolUseReply([{ id: 'tu_keys_allow', name: 'bash', input: { command: 'touch allowed-by-keyboard.txt' } }]), textReply('Made the file.'));
    await send('make a file');
    await waiting('tu_keys_allow').waitFor({ timeout: 60_000 });
    await waiting('tu_keys_allow').focus();
    await chat.wb.page.keyboard.press('Escape');
    await inputFocused(chat.frame);
    // Still waiting, the turn still running: Escape on the card is not Stop.
    await waiting('tu_keys_allow').waitFor({ state: 'visible' });
    assert.equal(await chat.frame.locator('body.turn-running').count(), 1, 'the turn keeps running');

    // Letters typed in the input (y, a, Enter-less) never answer the card.
    await chat.wb.page.keyboard.type('y yes a allow');
    assert.equal(await waiting('tu_keys_allow').count(), 1, 'typing answered nothing');
    assert.equal(existsSync(file), false);
    await screenshot(chat.wb.page, 'approval-keys-waiting.png');

    await chat.wb.page.keyboard.press('Control+Alt+Enter');
    await settled('tu_keys_allow', 'Allowed');
    await chat.frame.locator('article.item.assistant', { hasText: 'Made the file.' }).waitFor({ timeout: 60_000 });
    assert.equal(existsSync(file), true, 'the allowed command ran');
    assert.equal(await chat.frame.locator('textarea.input').inputValue(), 'y yes a allow', 'the typed text stays, neither sent nor queued');
    assert.equal(chat.server.requests.length, 2, 'nothing else was sent');
    await screenshot(chat.wb.page, 'approval-keys-allowed.png');
  });

  it('Escape in the feedback box closes it and stays on the card; Ctrl+Alt+Backspace denies', async () => {
    const file = path.join(chat.wb.server.workspace, 'denied-by-keyboard.txt');
    await chat.frame.locator('textarea.input').fill('');
    chat.server.enqueue(toolUseReply([{ id: 'tu_keys_deny', name: 'bash', input: { command: 'touch denied-by-keyboard.txt' } }]), textReply('Left it.'));
    await send('make another file');
    await waiting('tu_keys_deny').waitFor({ timeout: 60_000 });
    const card = chat.frame.locator('article.item.tool[data-id="tu_keys_deny"]');
    await card.locator('button.perm-feedback').click();
    await card.locator('textarea.feedback').waitFor();
    await chat.wb.page.keyboard.press('Escape');
    await card.locator('textarea.feedback').waitFor({ state: 'detached' });
    await chat.frame.waitForFunction(() => document.activeElement?.matches('button.perm-feedback') === true, undefined, { timeout: 15_000 });
    await chat.wb.page.keyboard.press('Escape');
    await inputFocused(chat.frame);
    await waiting('tu_keys_deny').waitFor({ state: 'visible' });

    await chat.wb.page.keyboard.press('Control+Alt+Backspace');
    await settled('tu_keys_deny', 'Denied');
    await chat.frame.locator('article.item.assistant', { hasText: 'Left it.' }).waitFor({ timeout: 60_000 });
    assert.equal(existsSync(file), false, 'the denied command never ran');
    await screenshot(chat.wb.page, 'approval-keys-denied.png');
  });
});

describe('e2e: after a modal approval closes, the keyboard is in the input (issue 47 item 1, approvalDialog = modal)', function () {
  this.timeout(240_000);
  const chat = useChatWorkbench({ workbench: { userSettings: { 'turnstone.approvalDialog': 'modal' } } });

  it('Escape on the modal leaves the request waiting and the keyboard in the input; Ctrl+Alt+Enter then allows', async () => {
    chat.server.enqueue(toolUseReply([{ id: 'tu_keys_modal', name: 'bash', input: { command: 'touch after-modal.txt' } }]), textReply('Done after the modal.'));
    const input = chat.frame.locator('textarea.input');
    await input.fill('make a file after a modal');
    await input.press('Enter');
    const dialog = chat.wb.page.locator('.monaco-dialog-box');
    await dialog.waitFor({ state: 'visible', timeout: 60_000 });
    await chat.wb.page.keyboard.press('Escape');
    await dialog.waitFor({ state: 'hidden' });
    await inputFocused(chat.frame);
    await chat.frame.locator('article.item.tool[data-id="tu_keys_modal"] .item.permission:not(.settled)').waitFor();
    await screenshot(chat.wb.page, 'approval-keys-after-modal.png');
    await chat.wb.page.keyboard.press('Control+Alt+Enter');
    await chat.frame.locator('article.item.assistant', { hasText: 'Done after the modal.' }).waitFor({ timeout: 60_000 });
    assert.equal(existsSync(path.join(chat.wb.server.workspace, 'after-modal.txt')), true);
  });
});
