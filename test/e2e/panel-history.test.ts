// Issue 19, finding 5 (history round-trip), in the real workbench: a session
// whose first message carried an attachment is titled by the user's words,
// resumes with those words as the bubble and the attachment as a chip (never
// the file's text), and opens at its end; the session list marks the current
// session, shows relative times, renames, and deletes (with its checkpoints).
import * as assert from 'node:assert/strict';
import { existsSync, mkdirSync, readdirSync, writeFileSync } from 'node:fs';
import * as path from 'node:path';
import type { Frame, Page } from 'playwright-core';
import { textReply } from '../fixtures/mock-anthropic';
import { newSession, openFile, quickInputTitled, runCommand, screenshot, useChatWorkbench } from './workbench';

const paragraphs = (n: number, tag: string) => Array.from({ length: n }, (_, i) => `${tag} paragraph ${i + 1}: ${'words '.repeat(30)}`).join('\n\n');

function findSessionFiles(dir: string): string[] {
  const out: string[] = [];
  const walk = (d: string) => {
    for (const e of readdirSync(d, { withFileTypes: true })) {
      const p = path.join(d, e.name);
      if (e.isDirectory()) walk(p);
      else if (e.name.endsWith('.jsonl') && path.basename(d) === 'sessions') out.push(p);
    }
  };
  walk(dir);
  return out;
}

async function waitAtEnd(frame: Frame): Promise<void> {
  await frame.waitForFunction(() => {
    const root = document.querySelector<HTMLElement>('section.transcript');
    return !!root && root.scrollHeight > root.clientHeight + 50 && root.scrollHeight - root.scrollTop - root.clientHeight < 2;
  }, undefined, { timeout: 30_000, polling: 100 });
}

/** The view title bar's history action (the panel has no second copy of it). */
const historyButton = (page: Page) => page.locator('a.action-label[aria-label^="Resume Session"]').first();
const rows = (page: Page) => page.locator('.quick-input-widget .monaco-list-row');

/**
 * Opens the session list from the view's title bar. A click can land while the title bar's actions are re-rendered
 * (the turn that just ended updates them) and be lost: seen once in a stress run, the button's tooltip shown and no
 * list. As a user would, it clicks again (at most three times) until the list's input shows.
 */
async function openHistory(page: Page): Promise<void> {
  const list = page.locator('.quick-input-widget input');
  for (let attempt = 1; ; attempt++) {
    await historyButton(page).click();
    try {
      await list.waitFor({ state: 'visible', timeout: 10_000 });
      return;
    } catch (error) {
      if (attempt === 3) throw error;
    }
  }
}

describe('e2e: history round-trip (issue 19, finding 5)', function () {
  this.timeout(180_000);
  const chat = useChatWorkbench();
  const idle = () => chat.frame.locator('button.stop').waitFor({ state: 'hidden', timeout: 60_000 });

  it('words and attachment apart: title, bubble and chip on resume, opened at the end; current marked; rename; delete with checkpoints', async () => {
    // A first message with an attachment: the selection in src/hello.ts.
    await openFile(chat.wb.page, 'hello.ts');
    await chat.wb.page.locator('.monaco-editor .view-lines').first().click();
    await chat.wb.page.keyboard.press('Control+A');
    chat.server.enqueue(textReply(paragraphs(6, 'first')));
    await runCommand(chat.wb.page, 'Turnstone: Ask Turnstone about Selection', 60_000, quickInputTitled(chat.wb.page, 'Ask Turnstone about'));
    const box = chat.wb.page.locator('.quick-input-widget input');
    await box.waitFor({ state: 'visible' });
    await box.fill('what does the greeting do?');
    await box.press('Enter');
    await chat.frame.locator('article.item.assistant', { hasText: 'first paragraph 6' }).waitFor({ timeout: 60_000 });
    await idle();
    assert.match(JSON.stringify(chat.server.bodies[0]), /<attachment kind=/, 'the model got the attachment');
    for (const tag of ['second', 'third']) {
      chat.server.enqueue(textReply(paragraphs(6, tag)));
      const input = chat.frame.locator('textarea.input');
      await input.fill(`tell me more (${tag})`);
      await input.press('Enter');
      await chat.frame.locator('article.item.assistant', { hasText: `${tag} paragraph 6` }).waitFor({ timeout: 60_000 });
      await idle();
    }

    // The list marks the current session, with a relative time.
    await openHistory(chat.wb.page);
    const current = rows(chat.wb.page).filter({ hasText: 'what does the greeting do?' }).first();
    await current.waitFor({ state: 'visible', timeout: 30_000 });
    assert.match(await current.innerText(), /current · (just now|\d+ seconds? ago)/);
    assert.doesNotMatch(await current.innerText(), /<attachment|<context|File:/, 'the title is the user\'s words');
    await screenshot(chat.wb.page, 'history-list.png');
    await chat.wb.page.keyboard.press('Escape');

    // Resume from a new session: the bubble is the words, the attachment a chip, and the view at the end.
    await newSession(chat.wb.page);
    await openHistory(chat.wb.page);
    const row = rows(chat.wb.page).filter({ hasText: 'what does the greeting do?' }).first();
    await row.waitFor({ state: 'visible' });
    assert.doesNotMatch(await row.innerText(), /current/, 'a new session is not the resumed one');
    await row.click();
    const first = chat.frame.locator('article.item.user').first();
    await first.waitFor({ timeout: 30_000 });
    assert.equal((await first.locator('.bubble').textContent())?.trim(), 'what does the greeting do?');
    assert.match((await first.locator('.chip').textContent()) ?? '', /hello\.ts:1-\d+/);
    assert.equal(await chat.frame.locator('article.item.user', { hasText: 'export const greeting' }).count(), 0, 'the file text is not a bubble');
    assert.equal(await chat.frame.locator('.header .title').innerText(), 'what does the greeting do?');
    await waitAtEnd(chat.frame);
    await screenshot(chat.wb.page, 'history-resumed-at-end.png');

    // Rename from the list: the header follows.
    await openHistory(chat.wb.page);
    const again = rows(chat.wb.page).filter({ hasText: 'what does the greeting do?' }).first();
    await again.hover();
    await again.locator('a[aria-label="Rename"], .action-label[aria-label="Rename"]').first().click();
    const name = chat.wb.page.locator('.quick-input-widget input');
    await chat.wb.page.locator('.quick-input-widget', { hasText: 'Rename session' }).waitFor();
    await name.fill('Greeting questions');
    await name.press('Enter');
    await chat.frame.locator('.header .title', { hasText: 'Greeting questions' }).waitFor({ timeout: 30_000 });
    const renamed = rows(chat.wb.page).filter({ hasText: 'Greeting questions' }).first();
    await renamed.waitFor({ state: 'visible' });

    // Delete: the file and its checkpoints folder go.
    const [file] = findSessionFiles(chat.wb.server.userDataDir);
    assert.ok(file, 'the session file exists');
    // Checkpoints are kept under the session file's name (src/host/session/checkpoints.ts).
    const checkpoints = path.join(path.dirname(path.dirname(file)), 'checkpoints', path.basename(file, '.jsonl'));
    mkdirSync(checkpoints, { recursive: true });
    writeFileSync(path.join(checkpoints, 'cp-1.json'), '{}');
    await renamed.hover();
    await renamed.locator('a[aria-label="Delete"], .action-label[aria-label="Delete"]').first().click();
    const dialog = chat.wb.page.locator('.monaco-dialog-box');
    await dialog.waitFor({ state: 'visible' });
    assert.match(await dialog.innerText(), /Delete the session "Greeting questions"\?/);
    await dialog.getByRole('button', { name: 'Delete', exact: true }).click();
    await chat.frame.locator('article.item.user').first().waitFor({ state: 'detached', timeout: 30_000 });
    const deadline = Date.now() + 15_000;
    while ((existsSync(file) || existsSync(checkpoints)) && Date.now() < deadline) await new Promise((r) => setTimeout(r, 100));
    assert.equal(existsSync(file), false, 'the session file is gone');
    assert.equal(existsSync(checkpoints), false, 'its checkpoints are gone');
    await chat.wb.page.keyboard.press('Escape');
  });
});
