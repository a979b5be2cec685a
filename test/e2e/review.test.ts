// Issue 44, reviewing the agent's edits in the real workbench, by keyboard: with turnstone.edits.review =
// afterTurn a turn edits a file in two places without asking; the editor's gutter marks both hunks and the
// Source Control view lists the file under Turnstone; "Show Next Change" opens the quick diff peek on the first
// hunk with our Keep and Undo; Undo, reached with Ctrl+M (Tab moves focus) and Tab, puts that hunk back (bytes on
// disk); Keep on the other, by its key (Ctrl+Alt+Enter), leaves the file as is and the list empties. A comment on a changed line
// ("Add Comment on Current Selection", Ctrl+Enter to send) reaches the API with the file and line. Screenshots of
// the gutter and the peek in the dark, light and high contrast light themes (looked at); only the theme picker
// (the shared pickColorTheme) clicks.
import * as assert from 'node:assert/strict';
import { readFileSync, writeFileSync } from 'node:fs';
import * as path from 'node:path';
import type { Locator, Page } from 'playwright-core';
import { textReply, toolUseReply } from '../fixtures/mock-anthropic';
import { eventually } from './panel/harness';
import { openFile, openPalette, pickColorTheme, runCommand, screenshot, sendFromPanel, untilDone, useChatWorkbench } from './workbench';

const DEMO = 'review-demo.py';
const BASE = [
  'def greet(name):',
  '    return "Hello, " + name',
  '',
  '',
  'def farewell(name):',
  '    return "Goodbye, " + name',
  '',
  '',
  'def main():',
  '    print(greet("world"))',
  '    print(farewell("world"))',
  '',
].join('\n');
const FIRST_HUNK = ['    return "Hello, " + name', '    return "Howdy, " + name'] as const;
const SECOND_HUNK = ['    print(farewell("world"))', '    print(farewell("world"))\n    print("done")'] as const;
const EDITED = BASE.replace(FIRST_HUNK[0], FIRST_HUNK[1]).replace(SECOND_HUNK[0], SECOND_HUNK[1]);

describe('e2e: reviewing the agent\'s edits hunk by hunk (issue 44)', function () {
  this.timeout(300_000);
  const chat = useChatWorkbench({
    workbench: {
      // Ask mode: with afterTurn the edits are written without asking (and a question, if one came, waits in the panel).
      userSettings: { 'turnstone.edits.review': 'afterTurn', 'turnstone.permissionMode': 'ask', 'turnstone.approvalDialog': undefined },
    },
    prepare: (wb) => writeFileSync(path.join(wb.server.workspace, DEMO), BASE),
  });
  const page = (): Page => chat.wb.page;
  const file = (name: string) => path.join(chat.wb.server.workspace, name);
  const editor = () => page().locator('.editor-group-container.active .monaco-editor').first();
  /** The file's own editor has the keyboard (not one of the peek's editors inside it). */
  const editorKeyboard = () => editor().locator(':scope > .overflow-guard > textarea.inputarea:focus');
  const peek = () => page().locator('.monaco-editor .zone-widget.dirty-diff');
  const peekAction = (name: string): Locator => peek().locator(`.peekview-actions .action-label[aria-label^="${name}"]`);
  const scmRows = () => page().locator('.scm-view .monaco-list-row');

  /** A prompt from the panel's composer (the chat brought back if Source Control took the side bar), and the turn's end. */
  async function turn(prompt: string, reply: string): Promise<void> {
    await runCommand(page(), 'Turnstone: Focus Chat');
    const frame = await sendFromPanel(page(), prompt);
    await frame.locator('article.item.assistant', { hasText: reply }).waitFor({ timeout: 60_000 });
    await frame.locator('body:not(.turn-running)').waitFor({ state: 'attached', timeout: 60_000 });
  }

  /**
   * "Go to Line/Column", as Ctrl+G opens it: the cursor on `line` of the active editor, as the status bar says. Tried
   * again until it is: the picker closes without going anywhere (and puts the cursor back) when something takes the
   * keyboard from it, as an open quick diff peek does when its changes move (it focuses the editor).
   */
  async function goToLine(line: number): Promise<void> {
    const picker = page().locator('.quick-input-widget');
    await untilDone(
      90_000,
      async (left) => {
        const input = await openPalette(page(), `:${line}`, left());
        await input.press('Enter', { timeout: left() });
        await picker.waitFor({ state: 'hidden', timeout: left(10_000) });
        await cursorOnLine(line, false, left(5_000));
      },
      async () => {
        if (await picker.isVisible()) await page().keyboard.press('Escape');
      },
    );
  }

  /** The status bar shows the active editor's cursor on `line` (column 1 when `col1`). */
  async function cursorOnLine(line: number, col1 = false, timeout = 30_000): Promise<void> {
    await page()
      .locator('[id="status.editor.selection"]', { hasText: new RegExp(`Ln ${line}, Col ${col1 ? '1\\b' : ''}`) })
      .waitFor({ state: 'visible', timeout });
  }

  /**
   * No quick diff peek open, by Escape until none shows. Checked once, a peek that was being laid out again could
   * read as closed; and with one open, Show Next Change moves along inside it, or with one change left does nothing.
   */
  async function closePeek(): Promise<void> {
    const shown = peek().filter({ visible: true });
    await untilDone(30_000, async (left) => {
      if ((await shown.count()) === 0) return;
      await page().keyboard.press('Escape');
      await shown.first().waitFor({ state: 'detached', timeout: left(5_000) });
    });
  }

  /**
   * The quick diff peek on the file's first change: the keyboard in the file, a peek already open closed (Escape: with it
   * open "Show Next Change" moves along inside it), the cursor to line 1, then "Show Next Change" (Alt+F5) from the palette.
   */
  async function peekFirstChange(title: RegExp): Promise<void> {
    // The keyboard into the file first (Ctrl+1), as a user would: after a peek action it may be on a button that is gone.
    await page().keyboard.press('Control+1');
    await editorKeyboard().waitFor({ state: 'attached', timeout: 30_000 });
    // Closed before Go to Line: an open peek whose changes move (after Undo, the file is written, saved and its
    // original read again) shows the next change, which puts the cursor there and takes the keyboard from the picker.
    await closePeek();
    await goToLine(1);
    const shown = peek().locator('.peekview-title', { hasText: title });
    await runCommand(page(), 'Show Next Change', 60_000, shown);
    await shown.waitFor({ state: 'visible', timeout: 30_000 });
  }

  /**
   * The peek's Undo by its title action, by keyboard: "Toggle Tab Key Moves Focus" (Ctrl+M), Tab from the editor to the
   * peek's first action (Undo), Enter; Ctrl+M again gives Tab back to the editor. (Keep is tried by its own key.)
   */
  async function choosePeekUndo(): Promise<void> {
    const focused = () => page().evaluate(() => document.activeElement?.getAttribute('aria-label') ?? '');
    // The actions first: Tab pressed before they can take the keyboard would land elsewhere.
    await peekAction('Undo').waitFor({ state: 'visible', timeout: 30_000 });
    await peekAction('Keep').waitFor({ state: 'visible', timeout: 30_000 });
    // And the keyboard back in the file: Show Next Change came from the palette, which may still be handing it back.
    await editorKeyboard().waitFor({ state: 'attached', timeout: 30_000 });
    await setTabMovesFocus(true);
    try {
      await page().keyboard.press('Tab');
      // The actions' names carry their keys.
      assert.match(await eventually(focused, (l) => l.startsWith('Undo'), 10_000), /^Undo \(Ctrl\+Alt\+Backspace\)$/, 'Tab reaches the peek\'s first action, which names its key');
    } finally {
      // Tab goes back to the editor whatever happened, so a failure here does not change the next test's keys.
      await setTabMovesFocus(false);
    }
    await page().keyboard.press('Enter');
  }

  /**
   * "Toggle Tab Key Moves Focus" (Ctrl+M) until the status bar says the mode is as wanted: a toggle pressed blind,
   * and lost on a busy workbench, would leave it the other way round for every later test.
   */
  async function setTabMovesFocus(on: boolean): Promise<void> {
    const indicator = page().locator('.statusbar-item[id="status.editor.tabFocusMode"]');
    await untilDone(30_000, async (left) => {
      if (((await indicator.count()) > 0) === on) return;
      await page().keyboard.press('Control+M');
      await indicator.waitFor({ state: on ? 'attached' : 'detached', timeout: left(5_000) });
    });
  }

  async function shot(name: string): Promise<void> {
    // Away from the gutter and the actions: a hover would cover them.
    await page().mouse.move(1300, 850);
    await screenshot(page(), name);
  }

  it('44.e2e gutter: an afterTurn turn edits a file in two places; the gutter marks both hunks and Source Control lists the file under Turnstone', async () => {
    chat.server.enqueue(
      toolUseReply([
        { id: 'tu_e1', name: 'edit_file', input: { path: DEMO, old_string: FIRST_HUNK[0], new_string: FIRST_HUNK[1] } },
        { id: 'tu_e2', name: 'edit_file', input: { path: DEMO, old_string: SECOND_HUNK[0], new_string: SECOND_HUNK[1] } },
      ]),
      textReply('Changed the greeting and added a last line.'),
    );
    await turn('make the greeting friendlier and say when done', 'Changed the greeting and added a last line.');
    assert.equal(readFileSync(file(DEMO), 'utf8'), EDITED, 'both edits written without asking');

    // The edit's card in the panel links to the review: the diff of what is left to review in its file.
    const frame = await chat.liveFrame();
    const link = frame.locator('article.item.tool[data-id="tu_e1"] button.review-link');
    await link.waitFor({ state: 'visible', timeout: 30_000 });
    await screenshot(page(), 'review-card-link-dark.png');
    await link.click();
    await page().locator('.tabs-container .tab.active', { hasText: `${DEMO} (changes by the agent)` }).waitFor({ state: 'visible', timeout: 30_000 });

    await openFile(page(), DEMO);
    // The quick diff's marks in the editor's line decorations: line 2 modified, line 12 added.
    const marks = editor().locator('.margin-view-overlays .dirty-diff-modified, .margin-view-overlays .dirty-diff-added');
    await editor().locator('.margin-view-overlays .dirty-diff-modified').first().waitFor({ state: 'attached', timeout: 30_000 });
    await editor().locator('.margin-view-overlays .dirty-diff-added').first().waitFor({ state: 'attached', timeout: 30_000 });
    const kinds = await marks.evaluateAll((els) => els.map((e) => (e.classList.contains('dirty-diff-added') ? 'added' : 'modified')).sort());
    assert.deepEqual(kinds, ['added', 'modified'], 'one mark per changed line');

    // The Source Control view (Ctrl+Shift+G): Turnstone's group for the session ("<its name> · changed by the agent") holds the file.
    await runCommand(page(), 'Source Control: Focus on Changes View');
    await scmRows().filter({ hasText: DEMO }).first().waitFor({ state: 'visible', timeout: 30_000 });
    const labels = await scmRows().evaluateAll((els) => els.map((e) => `${e.getAttribute('aria-label') ?? ''} | ${e.textContent ?? ''}`));
    console.log(`      scm rows: ${JSON.stringify(labels)}`);
    assert.ok(labels.some((l) => /changed by the agent/i.test(l)), `Turnstone's group is listed: ${JSON.stringify(labels)}`);
    await screenshot(page(), 'review-scm-dark.png');
  });

  it('44.e2e peek: Show Next Change opens the peek on the first hunk with Keep and Undo; Undo puts it back, Keep on the other leaves the file and empties the list', async () => {
    await openFile(page(), DEMO);
    await peekFirstChange(/1 of 2 changes/);
    await peekAction('Keep').waitFor({ state: 'visible', timeout: 30_000 });
    await peekAction('Undo').waitFor({ state: 'visible', timeout: 30_000 });
    assert.match(await peek().locator('.peekview-title').innerText(), /Turnstone/, 'the peek names the quick diff: Turnstone');

    for (const [theme, slug, kind] of [
      ['Default Dark Modern', 'dark', 'vs-dark'],
      ['Default Light Modern', 'light', 'vs'],
      ['Default High Contrast Light', 'hc-light', 'hc-light'],
    ] as const) {
      await pickColorTheme(page(), theme);
      // The theme applied (its kind's class on the workbench), and its colours on the peek's frame.
      await page().locator(`.monaco-workbench.${kind}`).waitFor({ state: 'attached', timeout: 30_000 });
      // Opened afresh: the theme picker may have closed it, and whether it did is not something to check once.
      await peekFirstChange(/1 of 2 changes/);
      await peekAction('Undo').waitFor({ state: 'visible', timeout: 30_000 });
      await shot(`review-peek-${slug}.png`);
    }
    await pickColorTheme(page(), 'Default Dark Modern');
    // The cursor back in the editor, on the first change.
    await peekFirstChange(/1 of 2 changes/);

    await choosePeekUndo();
    const afterUndo = BASE.replace(SECOND_HUNK[0], SECOND_HUNK[1]);
    assert.equal(await eventually(async () => readFileSync(file(DEMO), 'utf8'), (t) => t === afterUndo, 30_000), afterUndo, 'the first hunk back, the second intact');
    await editor().locator('.margin-view-overlays .dirty-diff-modified').first().waitFor({ state: 'detached', timeout: 30_000 });

    // Keep by its key (Ctrl+Alt+Enter), straight from where Show Next Change left the cursor.
    await peekFirstChange(/1 of 1 change/);
    // As a user would, once the cursor is back in the file: pressed while the palette still gives the keyboard back,
    // the keys would go wherever it was.
    await editorKeyboard().waitFor({ state: 'attached', timeout: 30_000 });
    // The key takes the change at the cursor: Show Next Change put it on the added line, as the status bar says.
    await cursorOnLine(12, true);
    await page().keyboard.press('Control+Alt+Enter');
    await editor().locator('.margin-view-overlays .dirty-diff-added').first().waitFor({ state: 'detached', timeout: 30_000 });
    assert.equal(readFileSync(file(DEMO), 'utf8'), afterUndo, 'Keep leaves the file as it is');
    await runCommand(page(), 'Source Control: Focus on Changes View');
    await scmRows().filter({ hasText: DEMO }).first().waitFor({ state: 'detached', timeout: 30_000 });
    assert.equal(await scmRows().filter({ hasText: 'Changed by the agent' }).count(), 0, 'the group is gone once empty');
  });

  it('44.e2e comment: a comment on a changed line, sent with Ctrl+Enter, reaches the API with the file and the line', async () => {
    const name = 'review-comment.py';
    writeFileSync(file(name), 'def answer():\n    return 41\n');
    chat.server.enqueue(
      toolUseReply([{ id: 'tu_c1', name: 'edit_file', input: { path: name, old_string: 'return 41', new_string: 'return 42' } }]),
      textReply('Fixed the answer.'),
    );
    await turn('fix the answer', 'Fixed the answer.');
    await openFile(page(), name);
    await editor().locator('.margin-view-overlays .dirty-diff-modified').first().waitFor({ state: 'attached', timeout: 30_000 });
    await goToLine(2);
    const widget = page().locator('.review-widget').last();
    const input = widget.locator('.comment-form .monaco-editor textarea, .comment-form textarea').first();
    await runCommand(page(), 'Comments: Add Comment on Current Selection', 60_000, input);
    await input.waitFor({ state: 'visible', timeout: 30_000 });
    // The box takes the keyboard a moment after it shows: typed before that, the words would go into the file.
    assert.ok(await eventually(() => page().evaluate(() => Boolean(document.activeElement?.closest('.comment-form'))), (inForm) => inForm, 30_000), 'the comment box has the keyboard');
    await page().keyboard.type('Return it as a constant instead.');
    await widget.locator('.monaco-button', { hasText: 'Send to Agent' }).waitFor({ state: 'visible', timeout: 30_000 });
    await shot('review-comment-dark.png');
    chat.server.enqueue(textReply('Made it a constant.'));
    const before = chat.server.requests.length;
    await page().keyboard.press('Control+Enter');
    await chat.server.waitForRequests(before + 1);
    const prompt = JSON.stringify(chat.server.bodies[before]!.messages);
    assert.match(prompt, /Review comment on review-comment\.py, line 2/);
    assert.match(prompt, /return 42/);
    assert.match(prompt, /Return it as a constant instead\./);
    await widget.getByText('Sent to the agent').first().waitFor({ state: 'visible', timeout: 30_000 });
    const frame = await chat.liveFrame();
    await frame.locator('article.item.assistant', { hasText: 'Made it a constant.' }).waitFor({ timeout: 60_000 });
    await shot('review-comment-sent-dark.png');
  });
});
