// Issue 28, a background command in the real workbench with the real runtime:
// a scripted turn starts a node process that keeps printing; its bash card says
// it runs in the background and shows its lines as they come; the card's Stop
// ends it (no process left in /proc) and the card says it was stopped.
// Screenshots in dark and light.
import * as assert from 'node:assert/strict';
import { textReply, toolUseReply } from '../fixtures/mock-anthropic';
import { processesWith, until } from '../support/process-tree';
import { allowUntil, pickColorTheme, runCommand, screenshot, useChatWorkbench } from './workbench';

describe('e2e: a background command in its card (issue 28)', function () {
  this.timeout(300_000);
  // Approvals in the panel only: the card's Allow, no modal dialog over it.
  const chat = useChatWorkbench({ workbench: { userSettings: { 'turnstone.approvalDialog': 'panel' } } });
  const marker = `bgcard-e2e-${process.pid}`;

  after(() => {
    // Whatever happened above, nothing this test started stays.
    for (const pid of processesWith(marker)) process.kill(pid, 'SIGKILL');
  });

  it('28.bg card: the card shows the running command live, its Stop ends the process tree, and the card says stopped', async () => {
    const { server, wb } = chat;
    const frame = chat.frame;
    const command = `node -e "let i = 0; setInterval(() => console.log('tick ' + ++i + ' ${marker}'), 100)"`;
    server.enqueue(
      toolUseReply([{ id: 'tu_bg', name: 'bash', input: { command, description: 'tick server', run_in_background: true } }]),
      textReply('The ticker runs in the background.'),
    );
    const input = frame.locator('textarea.input');
    await input.fill('start a ticker in the background');
    await input.press('Enter');
    const card = frame.locator('article.item.tool[data-id="tu_bg"]');
    await allowUntil(chat, (f) => f.locator('article.item.tool[data-id="tu_bg"] .background-line[data-state="running"]'));
    await frame.locator('article.item.assistant', { hasText: 'runs in the background' }).waitFor({ timeout: 60_000 });

    // Live: the lines keep coming after the turn ended.
    const output = card.locator('pre.output');
    await output.filter({ hasText: 'tick 3 ' }).waitFor({ timeout: 60_000 });
    const first = lastTick(await output.innerText());
    await until('a later line in the card', async () => lastTick(await output.innerText()) > first + 2, 60_000);
    assert.match(await card.locator('.background-line').innerText(), /Running in the background as bash_1/);
    assert.equal(await card.locator('.tool-status').getAttribute('aria-label'), 'Running in the background', 'the header follows the command (not a check while it runs)');
    // "Open in terminal" brings back the command's own terminal, named after its description.
    const panelPart = wb.page.locator('.part.panel');
    await runCommand(wb.page, 'View: Hide Panel');
    await panelPart.waitFor({ state: 'hidden', timeout: 30_000 });
    await card.locator('button.open-background-terminal').click();
    await panelPart.locator('.terminal-wrapper.active, .xterm').first().waitFor({ state: 'visible', timeout: 30_000 });
    await panelPart.getByText('tick server').first().waitFor({ timeout: 30_000 });
    assert.ok(processesWith(marker).length > 0, 'the command runs');
    const stop = card.locator('button.stop-background');
    assert.equal(await stop.getAttribute('aria-label'), `Stop ${command}`, 'the Stop button names the command');
    // The card keeps a tail, never the whole output.
    await output.filter({ hasText: 'tick 45 ' }).waitFor({ timeout: 60_000 });
    const shown = (await output.innerText()).trim().split('\n');
    assert.ok(shown.length <= 40, `${shown.length} lines shown`);
    await screenshot(wb.page, 'background-running-dark.png');

    await stop.click();
    await card.locator('.background-line[data-state="killed"]').waitFor({ timeout: 60_000 });
    assert.match(await card.locator('.background-line').innerText(), /bash_1 stopped/);
    assert.equal(await card.locator('button.stop-background').count(), 0, 'no Stop once it ended');
    assert.equal(await card.locator('button.open-background-terminal').count(), 0, 'its terminal went with it');
    assert.equal(await card.locator('.tool-status').getAttribute('aria-label'), 'Stopped');
    await until('no process of the command left', () => processesWith(marker).length === 0, 30_000);
    // It stays stopped: no more lines come.
    const last = lastTick(await output.innerText());
    await until('the card settled', async () => lastTick(await output.innerText()) === last, 5_000);
    await screenshot(wb.page, 'background-stopped-dark.png');

    await pickColorTheme(wb.page, 'Default Light Modern');
    await frame.locator('body.vscode-light').waitFor({ state: 'attached', timeout: 60_000 });
    await screenshot(wb.page, 'background-stopped-light.png');
  });
});

const lastTick = (text: string) => Number(/tick (\d+) [^\n]*\n?$/.exec(text.trim())?.[1] ?? 0);

/** Answers the turn's permission requests with the card's Allow until `done` shows. */
