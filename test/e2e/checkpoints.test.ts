// "Restore checkpoint" as a user meets it: two turns change files, the user
// clicks the control on the first message, picks "Restore files and
// conversation", sees the multi-file diff and the question, and gets the files
// and the conversation back with the message in the composer to edit. Issue 25,
// item 9: the preview is labelled "now ↔ after restore" (no checkpoint path or
// rename badge), closes once restored, and the fork is titled as a fork.
import * as assert from 'node:assert/strict';
import { existsSync, readFileSync } from 'node:fs';
import * as path from 'node:path';
import type { Page } from 'playwright-core';
import { textReply, toolUseReply } from '../fixtures/mock-anthropic';
import { eventually } from './panel/harness';
import { chatFrame, newSession, quickInputTitled, runCommand, screenshot, sendFromPanel, useChatWorkbench } from './workbench';

async function send(page: Page, text: string, reply: string): Promise<void> {
  const frame = await sendFromPanel(page, text);
  await frame.locator('article.item.assistant', { hasText: reply }).waitFor({ timeout: 60_000 });
  await frame.locator('button.stop').waitFor({ state: 'hidden', timeout: 60_000 });
}

describe('e2e: restore checkpoint from the panel', function () {
  this.timeout(240_000);
  const chat = useChatWorkbench({ workbench: { userSettings: { 'turnstone.permissionMode': 'bypassPermissions' } } });

  it('goes back to the first message: files and conversation, after the diff and a confirmation', async () => {
    const hello = path.join(chat.wb.server.workspace, 'src', 'hello.ts');
    const original = readFileSync(hello, 'utf8');
    chat.server.enqueue(
      toolUseReply([{ id: 'tu_1', name: 'edit_file', input: { path: 'src/hello.ts', old_string: 'Hello', new_string: 'Howdy' } }]),
      textReply('Greeting changed.'),
      toolUseReply([{ id: 'tu_2', name: 'bash', input: { command: 'echo notes > notes.md', description: 'write notes' } }]),
      textReply('Notes written.'),
    );
    await send(chat.wb.page, 'make the greeting friendlier', 'Greeting changed.');
    await send(chat.wb.page, 'and write some notes', 'Notes written.');
    assert.ok(existsSync(path.join(chat.wb.server.workspace, 'notes.md')));

    const frame = await chatFrame(chat.wb.page);
    // A command that printed nothing shows no output (not the terminal's shell-integration markers).
    const card = await frame.locator('article.item.tool', { hasText: 'echo notes' }).innerText();
    assert.ok(!card.includes('633;') && !card.includes('\u001b'), card);
    const first = frame.locator('article.item.user', { hasText: 'make the greeting friendlier' });
    await first.hover();
    await first.getByRole('button', { name: 'Restore checkpoint' }).click();
    // The choice is VS Code's own quick pick.
    const option = chat.wb.page.locator('.quick-input-widget .monaco-list-row', { hasText: 'Restore files and conversation' });
    await option.waitFor({ state: 'visible' });
    await option.click();
    // One multi-file diff of what will change, and the question.
    const dialog = chat.wb.page.locator('.monaco-dialog-box');
    await dialog.waitFor({ state: 'visible', timeout: 60_000 }).catch(async (e: unknown) => {
      await screenshot(chat.wb.page, 'restore-checkpoint-debug.png');
      throw e;
    });
    assert.match(await dialog.innerText(), /Restore 2 files to turn 1\?/);
    assert.match(await dialog.innerText(), /delete notes\.md/);
    // 25.9: the preview says which side is which, and shows each file by its name: no checkpoint path, no rename badge.
    const tab = chat.wb.page.locator('.tab', { hasText: 'Restore checkpoint: turn 1 (now ↔ after restore)' });
    await tab.first().waitFor({ state: 'visible' });
    const entries = chat.wb.page.locator('.multiDiffEntry');
    await eventually(() => entries.count(), (n) => n === 2, 30_000);
    const headers = await entries.evaluateAll((els) => els.map((e) => ({ name: e.querySelector('.title.modified')?.textContent ?? '', status: (e.querySelector('.status') as HTMLElement | null)?.innerText ?? '', old: e.querySelector('.title.original')?.textContent ?? '' })));
    const byName = (name: string) => headers.find((h) => h.name.includes(name));
    assert.equal(byName('hello.ts')?.status, '', `hello.ts is changed in place: ${JSON.stringify(headers)}`);
    assert.equal(byName('notes.md')?.status, 'D', `the restore deletes notes.md: ${JSON.stringify(headers)}`);
    for (const h of headers) {
      assert.notEqual(h.status, 'R', `no rename badge: ${JSON.stringify(headers)}`);
      assert.doesNotMatch(`${h.name} ${h.old}`, /checkpoint-|restored/, JSON.stringify(headers));
    }
    await screenshot(chat.wb.page, 'restore-checkpoint-diff-and-dialog.png');
    await dialog.getByRole('button', { name: 'Restore', exact: true }).click();
    // 25.9: restored, the preview closes.
    await tab.first().waitFor({ state: 'detached', timeout: 30_000 });

    // The conversation goes back to before the message, which waits in the composer.
    const fresh = await chatFrame(chat.wb.page);
    await fresh.locator('article.item.user').first().waitFor({ state: 'detached', timeout: 60_000 });
    // The message comes back into the composer once the resumed fork is on screen.
    const composed = await eventually(() => fresh.locator('textarea.input').inputValue(), (v) => v === 'make the greeting friendlier', 30_000);
    assert.equal(composed, 'make the greeting friendlier');
    assert.equal(readFileSync(hello, 'utf8'), original);
    assert.ok(!existsSync(path.join(chat.wb.server.workspace, 'notes.md')));
    // 25.9: the fork is titled as a fork; the original keeps its title in the history.
    const title = await eventually(() => fresh.locator('.header .title').innerText(), (t) => t.startsWith('Fork at turn 1'), 30_000);
    assert.equal(title, 'Fork at turn 1: make the greeting friendlier');
    await screenshot(chat.wb.page, 'restore-checkpoint-after.png');
    await runCommand(chat.wb.page, 'Turnstone: Resume Session', 60_000, quickInputTitled(chat.wb.page, 'Turnstone sessions'));
    const rows = chat.wb.page.locator('.quick-input-widget .monaco-list-row');
    await rows.filter({ hasText: 'Fork at turn 1: make the greeting friendlier' }).first().waitFor({ timeout: 30_000 });
    const labels = await rows.locator('.label-name').allInnerTexts();
    assert.ok(labels.some((l) => l.trim() === 'make the greeting friendlier'), `the original keeps its title: ${JSON.stringify(labels)}`);
    await screenshot(chat.wb.page, 'restore-checkpoint-history.png');
    await chat.wb.page.keyboard.press('Escape');
  });

  it('issue 47 item 2: a restore asked while a turn runs stops nothing until it is confirmed; Cancel leaves the turn running', async () => {
    await newSession(chat.wb.page);
    const made = path.join(chat.wb.server.workspace, 'made-while-running.txt');
    // The turn writes a file, then its next request is never answered: it runs until stopped.
    chat.server.enqueue(toolUseReply([{ id: 'tu_run', name: 'write_file', input: { path: 'made-while-running.txt', content: 'still here\n' } }]), { kind: 'hang' });
    const frame = await sendFromPanel(chat.wb.page, 'write a file and keep going');
    await eventually(async () => existsSync(made), (ok) => ok, 60_000);
    await frame.locator('body.turn-running').waitFor({ state: 'attached', timeout: 30_000 });
    await runCommand(chat.wb.page, 'Turnstone: Restore Checkpoint', 60_000, quickInputTitled(chat.wb.page, 'Restore a checkpoint'));
    await chat.wb.page.locator('.quick-input-widget .monaco-list-row', { hasText: 'Turn 1' }).first().click({ timeout: 30_000 });
    await chat.wb.page.locator('.quick-input-widget .monaco-list-row', { hasText: 'Files only' }).first().click({ timeout: 30_000 });
    const dialog = chat.wb.page.locator('.monaco-dialog-box');
    await dialog.waitFor({ state: 'visible', timeout: 60_000 });
    assert.match(await dialog.innerText(), /delete made-while-running\.txt/);
    await dialog.getByRole('button', { name: 'Cancel' }).click();
    await dialog.waitFor({ state: 'detached', timeout: 30_000 });
    // Nothing changed: the turn runs on and the file stays.
    const live = await chat.liveFrame();
    // A re-created panel gets the running state from the host after it loads: not at once on a busy machine.
    await live.locator('body.turn-running').waitFor({ state: 'attached', timeout: 30_000 });
    assert.ok(existsSync(made), 'the file stays');
    assert.equal(await live.locator('article.item.error', { hasText: /interrupted|stopped/i }).count(), 0, 'the turn was not stopped');
    await live.locator('button.stop').click();
    await live.locator('body:not(.turn-running)').waitFor({ state: 'attached', timeout: 30_000 });
  });
});
