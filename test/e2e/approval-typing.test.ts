// Issue 25.1, the approval-integrity bug, in the real workbench: the user types a
// steering message at human speed while a proposed edit and its dialog arrive.
// The proposal opens without taking the keyboard (read-only until "Edit
// proposal"), no modal opens while they type (it follows once they pause), the
// file stays as it was until an explicit Allow, and the composer keeps every
// character. The same with turnstone.approvalDialog = panel. Then "Edit
// proposal": only after it can the proposal be changed, and the change is what
// gets written; no "Failed to save" error anywhere.
import * as assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import * as path from 'node:path';
import type { Frame, Page } from 'playwright-core';
import { textReply, toolUseReply } from '../fixtures/mock-anthropic';
import { type ChatWorkbench, screenshot, useChatWorkbench } from './workbench';

const dialog = (page: Page) => page.locator('.monaco-dialog-box');
/** Human typing speed: one key every ~80 ms. */
const KEY_DELAY_MS = 80;
const composerValue = (frame: Frame) => frame.locator('textarea.input').inputValue();

/** A gate the mock server waits at before answering request `index`: the reply arrives when the test says so. */
function holdReply(server: { beforeReply: ((i: number) => void | Promise<void>) | undefined }, index: number): () => void {
  let release!: () => void;
  const gate = new Promise<void>((resolve) => (release = resolve));
  server.beforeReply = (i) => (i === index ? gate : undefined);
  return release;
}

/**
 * When things happened, by the browser's clock: every key the panel received, and when the workbench
 * first showed a modal and the proposal's tab. Read afterwards, so the typist never waits on the
 * workbench between keys (a busy workbench must not turn into a pause the product would see).
 */
async function watchTimes(page: Page, frame: Frame): Promise<() => Promise<{ keys: number[]; dialog?: number; tab?: number }>> {
  await frame.evaluate(() => {
    const w = window as unknown as { keyTimes: number[] };
    w.keyTimes = [];
    document.addEventListener('keydown', () => w.keyTimes.push(Date.now()), true);
  });
  await page.evaluate(() => {
    const w = window as unknown as { seen: { dialog?: number; tab?: number } };
    w.seen = {};
    // No named functions in here: the test runner's transform would wrap them in a helper the page lacks.
    new MutationObserver(() => {
      if (w.seen.dialog === undefined && document.querySelector('.monaco-dialog-box')) w.seen.dialog = Date.now();
      if (w.seen.tab === undefined && [...document.querySelectorAll('.tab')].some((t) => t.textContent?.includes('proposed by Turnstone'))) w.seen.tab = Date.now();
    }).observe(document.body, { childList: true, subtree: true });
  });
  return async () => ({
    keys: await frame.evaluate(() => (window as unknown as { keyTimes: number[] }).keyTimes),
    ...(await page.evaluate(() => (window as unknown as { seen: { dialog?: number; tab?: number } }).seen)),
  });
}

/**
 * A user typing a steering message at human speed without stopping: the model's reply is let through
 * once a few keys are in, and typing goes on for `moreChunks` chunks after the proposal's tab opened.
 * Spaces and letters: a focused Allow button takes a space, a focused proposal the letters (the bug
 * wrote "iomega" into a file).
 */
async function typeThroughTheProposal(page: Page, frame: Frame, release: () => void, moreChunks = 3): Promise<string> {
  const chunks = 'iomega p|lease ke|ep it sh|ort and |friendly|, like a |person w|ould say| it in t|he morni|ng to a |neighbou|r over t|he fence|, nothin|g too fo|rmal tha|nks a lo|t, reall|y apprec|iated by|e for no|w and la|ter on a|gain mat|e cheers'.split('|');
  let tabSeen = false;
  const watcher = (async () => {
    await frame.waitForFunction(() => ((document.querySelector('textarea.input') as HTMLTextAreaElement | null)?.value.length ?? 0) >= 8, undefined, { timeout: 60_000 });
    release();
    await page.locator('.tab', { hasText: 'proposed by Turnstone' }).first().waitFor({ timeout: 120_000 });
    tabSeen = true;
  })();
  let typed = '';
  let after = 0;
  for (const chunk of chunks) {
    await page.keyboard.type(chunk, { delay: KEY_DELAY_MS });
    typed += chunk;
    if (tabSeen && ++after >= moreChunks) break;
  }
  await watcher;
  assert.ok(after >= moreChunks, `the proposal opened while the user was still typing (typed "${typed}")`);
  return typed;
}

/**
 * Sends a prompt whose reply (held at the mock until `release`) edits src/hello.ts, Hello → `replacement`,
 * then says `done`. Resolves once the request is at the mock, with the file's path and content before.
 */
async function askForEditWithHeldReply(chat: ChatWorkbench, toolId: string, replacement: string, done: string): Promise<{ file: string; before: string; release: () => void }> {
  const file = path.join(chat.wb.server.workspace, 'src', 'hello.ts');
  const before = readFileSync(file, 'utf8');
  chat.server.enqueue(toolUseReply([{ id: toolId, name: 'edit_file', input: { path: 'src/hello.ts', old_string: 'Hello', new_string: replacement } }]), textReply(done));
  const release = holdReply(chat.server, 0);
  const input = chat.frame.locator('textarea.input');
  await input.click();
  await input.fill(`change the greeting to ${replacement}`);
  await input.press('Enter');
  await chat.server.waitForRequests(1, 60_000);
  return { file, before, release };
}

const failedSaves = (page: Page) => page.locator('.notification-toast, .notifications-center', { hasText: /Failed to save/i }).count();

describe('e2e: typing while an approval arrives (issue 25.1)', function () {
  this.timeout(240_000);
  const chat = useChatWorkbench();

  it('25.1: keystrokes typed while a proposal and its modal arrive stay in the composer; the file is unchanged until an explicit Allow', async () => {
    const { page } = chat.wb;
    const { file, before, release } = await askForEditWithHeldReply(chat, 'tu_typing', 'Howdy', 'Greeting changed.');

    // A steering message, typed without a pause while the reply (the edit) arrives and its proposal opens.
    const times = await watchTimes(page, chat.frame);
    const typed = await typeThroughTheProposal(page, chat.frame, release);

    // Every character is in the composer (the keyboard never left it), nothing was sent and nothing was written.
    assert.equal(await composerValue(chat.frame), typed);
    assert.equal(readFileSync(file, 'utf8'), before, 'nothing written before an explicit Allow');
    assert.equal(await chat.frame.locator('article.item.user .delivery').count(), 0, 'nothing was sent');

    // The user paused: now the modal may ask. Allow is chosen explicitly, with the mouse.
    await dialog(page).waitFor({ state: 'visible', timeout: 30_000 });
    await screenshot(page, 'approval-typing-modal-after-pause.png');
    const t = await times();
    const lastKey = t.keys.at(-1)!;
    assert.equal(t.keys.length, typed.length, 'the panel received every key');
    assert.ok(t.tab !== undefined && t.tab < lastKey, 'the proposal opened while the user typed');
    assert.ok(t.dialog !== undefined && t.dialog >= lastKey + 1_400, `no modal while typing: it opened ${t.dialog! - lastKey} ms after the last key (the pause is 1.5 s)`);
    assert.equal(readFileSync(file, 'utf8'), before, 'still nothing written while the dialog asks');
    await dialog(page).getByRole('button', { name: 'Allow', exact: true }).click();
    await chat.frame.locator('article.item.assistant', { hasText: 'Greeting changed.' }).waitFor({ timeout: 60_000 });
    assert.equal(readFileSync(file, 'utf8'), before.replace('Hello', 'Howdy'), "the model's proposal, untouched by the keystrokes");
    await chat.frame.locator('article.item.tool[data-id="tu_typing"] .perm-state', { hasText: 'Allowed in the dialog' }).waitFor();
    await page.locator('.tab', { hasText: 'proposed by Turnstone' }).waitFor({ state: 'detached', timeout: 30_000 });
    assert.equal(await composerValue(chat.frame), typed, 'the draft is still there, unsent');
    assert.equal(await failedSaves(page), 0, 'no "Failed to save" error');
  });

  it('25.1: a proposal is read-only until "Edit proposal"; then the user\'s change is what gets written, with no save error', async () => {
    const { page } = chat.wb;
    const file = path.join(chat.wb.server.workspace, 'src', 'hello.ts');
    const before = readFileSync(file, 'utf8');
    chat.server.beforeReply = undefined;
    chat.server.enqueue(
      toolUseReply([{ id: 'tu_editme', name: 'edit_file', input: { path: 'src/hello.ts', old_string: 'Howdy', new_string: 'Greetings' } }]),
      textReply('Changed again.'),
    );
    const input = chat.frame.locator('textarea.input');
    await input.fill('make it formal');
    await input.press('Enter');
    await dialog(page).waitFor({ state: 'visible', timeout: 60_000 });
    await dialog(page).getByRole('button', { name: 'Review first' }).click();
    await dialog(page).waitFor({ state: 'hidden' });

    // Read-only: its tab says so (a lock, and "Read-only" for screen readers), and a key typed into the proposal
    // changes nothing (VS Code says why).
    const lock = page.locator('.tab', { hasText: 'proposed by Turnstone' }).locator('.monaco-icon-label[aria-label$="Read-only"]');
    await lock.first().waitFor({ timeout: 30_000 });
    const proposed = page.locator('.monaco-diff-editor .editor.modified .view-lines').filter({ visible: true }).first();
    // On the proposed line itself: in an inline diff (a narrow editor area) the middle of the editor can be the
    // removed line's zone, which takes no keys.
    const proposedLine = page.locator('.monaco-diff-editor .editor.modified .view-line', { hasText: 'Greetings' }).filter({ visible: true }).first();
    await proposedLine.click();
    await page.keyboard.type('ZZ');
    await page.locator('.monaco-editor-overlaymessage', { hasText: /read-only/i }).first().waitFor({ timeout: 30_000 });
    assert.doesNotMatch(await proposed.innerText(), /ZZ/, 'the read-only proposal took no keys');

    // "Edit proposal" in the card (the title bar has the same action): now it is editable.
    await chat.frame.locator('article.item.tool[data-id="tu_editme"] button.perm-edit').click();
    await chat.frame.locator('article.item.tool[data-id="tu_editme"] .perm-editing').waitFor({ timeout: 30_000 });
    assert.equal(await chat.frame.locator('article.item.tool[data-id="tu_editme"] button.perm-edit').count(), 0, 'offered once');
    // The editor re-reads the proposal's state: the lock goes, and keys now land.
    await lock.first().waitFor({ state: 'detached', timeout: 30_000 });
    await proposedLine.click();
    await page.keyboard.press('Control+End');
    await page.keyboard.type('// edited by me');
    await page.locator('.monaco-diff-editor .editor.modified .view-line', { hasText: 'edited by me' }).filter({ visible: true }).first().waitFor({ timeout: 30_000 });
    await page.locator('.editor-actions a.action-label[aria-label*="Allow"]').first().click();
    await chat.frame.locator('article.item.assistant', { hasText: 'Changed again.' }).waitFor({ timeout: 60_000 });
    const after = readFileSync(file, 'utf8');
    assert.match(after, /Greetings/);
    assert.match(after, /\/\/ edited by me/, "the user's version was written");
    assert.notEqual(after, before);
    await page.locator('.tab', { hasText: 'proposed by Turnstone' }).waitFor({ state: 'detached', timeout: 30_000 });
    assert.equal(await failedSaves(page), 0, 'no "Failed to save" error');
  });
});

describe('e2e: typing while an approval arrives, approvalDialog = panel (issue 25.1)', function () {
  this.timeout(240_000);
  const chat = useChatWorkbench({ workbench: { userSettings: { 'turnstone.approvalDialog': 'panel' } } });

  it('25.1: the keystrokes stay in the composer (not in the proposal); the file is unchanged until Allow in the card', async () => {
    const { page } = chat.wb;
    const { file, before, release } = await askForEditWithHeldReply(chat, 'tu_panel', 'Hi there', 'Done from the panel.');
    const typed = await typeThroughTheProposal(page, chat.frame, release);
    await chat.frame.locator('article.item.tool[data-id="tu_panel"][data-status="waiting"]').waitFor();
    assert.equal(await composerValue(chat.frame), typed, 'every character is in the composer');
    assert.equal(readFileSync(file, 'utf8'), before, 'nothing written');
    assert.equal(await dialog(page).count(), 0, 'no dialog at all with approvalDialog = panel');
    await screenshot(page, 'approval-typing-panel.png');

    await chat.frame.locator('article.item.tool[data-id="tu_panel"] button.perm-allow').click();
    await chat.frame.locator('article.item.assistant', { hasText: 'Done from the panel.' }).waitFor({ timeout: 60_000 });
    assert.equal(readFileSync(file, 'utf8'), before.replace('Hello', 'Hi there'));
    await page.locator('.tab', { hasText: 'proposed by Turnstone' }).waitFor({ state: 'detached', timeout: 30_000 });
    assert.equal(await failedSaves(page), 0);
  });
});
