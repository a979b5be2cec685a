// Issue 25, item 7: @terminal in browser VS Code (code-server), as a user meets
// it. A command run before Turnstone started cannot be read, and the composer
// says so under the chip; a command run after it is attached with its output,
// read through shell integration. The clipboard is never touched: before, every
// @terminal in a browser workbench raised "Unable to read from the browser's
// clipboard".
import * as assert from 'node:assert/strict';
import type { Frame, Page } from 'playwright-core';
import { textReply } from '../fixtures/mock-anthropic';
import { eventually } from './panel/harness';
import { chatFrame, runCommand, screenshot, untilDone, useChatWorkbench } from './workbench';

/**
 * Runs a line in the terminal panel's active terminal and waits until `expect` is printed. Typed once the terminal
 * has the keyboard and its shell has drawn a prompt; a line whose keys or Enter a busy workbench dropped (a CI-like
 * run saw nothing arrive in 60 s) is cleared with Ctrl+C and typed again.
 */
async function runInTerminal(page: Page, line: string, expect: string): Promise<void> {
  const rows = page.locator('.terminal-wrapper.active .xterm-rows');
  await untilDone(
    180_000,
    async (left) => {
      await page.locator('.terminal-wrapper.active .xterm').click({ timeout: left() });
      await page.locator('.terminal-wrapper.active .xterm-helper-textarea:focus').waitFor({ timeout: left() });
      await rows.filter({ hasText: /\S/ }).waitFor({ timeout: left(60_000) });
      await page.keyboard.type(line);
      await rows.filter({ hasText: line.slice(0, 16) }).waitFor({ timeout: left() });
      await page.keyboard.press('Enter');
      await rows.filter({ hasText: expect }).waitFor({ timeout: left(30_000) });
    },
    () => page.keyboard.press('Control+C'),
  );
}

/** Types `@terminal` into the composer and picks it, as a user would; waits until the host measured it. */
async function attachTerminal(page: Page, frame: Frame): Promise<void> {
  await frame.locator('textarea.input').click();
  await page.keyboard.type('@termin');
  await frame.getByRole('listbox', { name: 'Attach context' }).getByRole('option', { name: /terminal/ }).first().waitFor({ timeout: 30_000 });
  await page.keyboard.press('Enter');
  await frame.locator('.composer .attachments .chip-terminal .chip-tokens', { hasText: /^~\d/ }).waitFor({ timeout: 30_000 });
}

describe('e2e: @terminal in browser VS Code (issue 25, item 7)', function () {
  this.timeout(300_000);
  // The DOM renderer, so the test can read what the terminal shows. (Every test workbench gives its terminals'
  // shells a home of their own: see startCodeServer.)
  const chat = useChatWorkbench({ focusChat: false, workbench: { userSettings: { 'terminal.integrated.gpuAcceleration': 'off' } } });

  it('25.7: says it cannot read what ran before Turnstone started; attaches a later command with its output; never touches the clipboard', async () => {
    const page = chat.wb.page;
    // Turnstone is not active yet (nothing of it opened): this terminal and its command come first.
    assert.equal(await page.locator('.statusbar-item', { hasText: 'claude-sonnet' }).count(), 0, 'Turnstone is not active yet');
    await runCommand(page, 'Terminal: Create New Terminal');
    await runInTerminal(page, 'echo before-turnstone-$((20+1))', 'before-turnstone-21');

    await runCommand(page, 'Turnstone: Focus Chat');
    let frame = await chatFrame(page);
    await attachTerminal(page, frame);
    const note = frame.locator('.attachment-notes .attachment-note');
    await note.waitFor({ timeout: 30_000 });
    assert.match(await note.innerText(), /^@terminal: No command has run in terminal "[^"]+" since Turnstone started at \d\d:\d\d; commands run before then cannot be read\. Run the command again to attach its output\.$/);
    assert.equal(await frame.locator('.composer .chip-terminal.chip-limited .chip-note').count(), 1, 'the chip is marked too');
    await screenshot(page, 'terminal-before-turnstone.png');
    await frame.locator('.composer .chip-terminal').getByRole('button', { name: 'Remove @terminal' }).click();

    // Run again, now that Turnstone watches: attached with its output. VS Code forwards a command's output
    // only from data that arrives after the shell said the command started: an `echo` that starts, prints
    // and ends within one chunk of terminal data reports no output at all (a busy CI machine did just
    // that). So the command waits for a line typed once its start has been shown, and prints after it.
    await runInTerminal(page, 'echo started-$((1+1)); read -r n; echo after-turnstone-$((40+n))', 'started-2');
    await page.keyboard.type('2');
    await page.keyboard.press('Enter');
    await page.locator('.terminal-wrapper.active .xterm-rows', { hasText: 'after-turnstone-42' }).waitFor({ timeout: 60_000 });
    frame = await chatFrame(page);
    await attachTerminal(page, frame);
    assert.equal(await eventually(() => frame.locator('.attachment-notes').isVisible(), (v) => !v, 10_000), false, 'no note: the command is attached');
    await page.keyboard.type('what did it print?');
    chat.server.enqueue(textReply('It printed 42.'));
    await page.keyboard.press('Enter');
    await chat.server.waitForRequests(1, 60_000);
    const body = JSON.stringify(chat.server.bodies[0]!.messages);
    assert.match(body, /<attachment kind=\\"terminal\\" label=\\"@terminal\\">\\nLast command in terminal \\"[^"\\]+\\" \((exit code 0|still running)\):\\n\$ echo started-\$\(\(1\+1\)\); read -r n; echo after-turnstone-\$\(\(40\+n\)\)\\n/);
    assert.ok(body.includes('after-turnstone-42'), 'the output is attached');
    assert.ok(!body.includes('before-turnstone-21'), 'nothing from before Turnstone started');
    await frame.locator('article.item.assistant', { hasText: 'It printed 42.' }).waitFor({ timeout: 60_000 });
    // The sent message's chip has the terminal icon.
    await frame.locator('article.item.user .chip .codicon-terminal').waitFor();
    await screenshot(page, 'terminal-attached.png');

    // No clipboard prompt at any point: the notification centre lists every notification of the window.
    await runCommand(page, 'Notifications: Show Notifications');
    await page.locator('.notifications-center').waitFor({ state: 'visible' });
    const notices = await page.locator('.notifications-center .notification-list-item-message').allInnerTexts();
    assert.ok(!notices.some((n) => /clipboard/i.test(n)), `no clipboard notification: ${JSON.stringify(notices)}`);
  });
});
