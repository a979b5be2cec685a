// Issue 43, the Sessions view in the real workbench: three sessions of one window in three states (one
// done, one waiting for an answer, one running), each row naming its state, with Stop only on the busy
// ones; Show on a row puts that session in the panel. Screenshots in the dark, light and high contrast
// light themes (looked at, not compared).
import * as assert from 'node:assert/strict';
import { textReply, toolUseReply } from '../fixtures/mock-anthropic';
import { newSession, pickColorTheme, runCommand, screenshot, sendFromPanel, useChatWorkbench } from './workbench';

describe('e2e: the Sessions view (issue 43)', function () {
  this.timeout(300_000);
  // Approvals in the panel (the default): a waiting session shows a card, no modal covers the view.
  const chat = useChatWorkbench({ workbench: { userSettings: { 'turnstone.approvalDialog': undefined, 'turnstone.permissionMode': 'ask' } } });

  const rows = () => chat.wb.page.locator('.pane:has(.pane-header[aria-label*="Sessions"]) .monaco-list-row');
  const row = (state: string) => rows().filter({ hasText: state });

  it('43.sessions e2e: three sessions in three states, each row naming its state; Show puts a session in the panel', async () => {
    // 1: a turn that ends.
    chat.server.enqueue(textReply('The first task is done.'));
    let frame = await sendFromPanel(chat.wb.page, 'first task: summarise the README');
    await frame.locator('article.item.assistant', { hasText: 'The first task is done.' }).waitFor({ timeout: 60_000 });
    await frame.locator('body:not(.turn-running)').waitFor({ state: 'attached', timeout: 60_000 });

    // 2: a turn that waits for an answer (a command in Ask mode).
    await newSession(chat.wb.page);
    chat.server.enqueue(toolUseReply([{ id: 'tu_wait', name: 'bash', input: { command: 'touch sessions-e2e.txt', description: 'make a file' } }]));
    frame = await sendFromPanel(chat.wb.page, 'second task: run the tests');
    await frame.locator('button.perm-allow').first().waitFor({ timeout: 60_000 });

    // 3: a turn still running (its request never answered).
    await newSession(chat.wb.page);
    chat.server.enqueue({ kind: 'hang' });
    frame = await sendFromPanel(chat.wb.page, 'third task: refactor the parser');
    await frame.locator('body.turn-running').waitFor({ state: 'attached', timeout: 60_000 });

    await runCommand(chat.wb.page, 'Turnstone: Focus on Sessions View');
    await rows().nth(2).waitFor({ timeout: 30_000 });
    assert.equal(await rows().count(), 3, 'one row per open session');
    for (const state of ['done', 'waiting for you', 'running']) await row(state).first().waitFor({ timeout: 30_000 });
    const labels = await rows().evaluateAll((els) => els.map((e) => e.getAttribute('aria-label') ?? ''));
    assert.ok(labels.some((l) => /first task/.test(l) && /done/.test(l)), labels.join(' | '));
    assert.ok(labels.some((l) => /second task/.test(l) && /waiting for you/.test(l)), labels.join(' | '));
    assert.ok(labels.some((l) => /third task/.test(l) && /running/.test(l) && /shown/.test(l)), labels.join(' | '));

    for (const [theme, bodyClass] of [
      ['Default Dark Modern', 'vscode-dark'],
      ['Default Light Modern', 'vscode-light'],
      ['Default High Contrast Light', 'vscode-high-contrast-light'],
    ] as const) {
      await pickColorTheme(chat.wb.page, theme);
      await (await chat.liveFrame()).locator(`body.${bodyClass}`).waitFor({ state: 'attached', timeout: 30_000 });
      // Away from the rows: a row's tooltip would cover the one above it.
      await chat.wb.page.mouse.move(900, 300);
      await screenshot(chat.wb.page, `issue43-sessions-view-${theme.replace(/\s+/g, '-').toLowerCase()}.png`);
    }

    // Show on the waiting row: the panel holds that session, with its card still waiting to be answered.
    await row('waiting for you').first().click();
    frame = await chat.liveFrame();
    await frame.locator('article.item.user', { hasText: 'second task: run the tests' }).waitFor({ timeout: 30_000 });
    await frame.locator('button.perm-allow').first().waitFor({ timeout: 30_000 });
    assert.equal(await frame.locator('article.item.user', { hasText: 'third task' }).count(), 0, "the panel shows one session's transcript");
    chat.server.enqueue(textReply('Tests ran.'));
    await frame.locator('button.perm-allow').first().click();
    await frame.locator('article.item.assistant', { hasText: 'Tests ran.' }).waitFor({ timeout: 60_000 });
    await row('done').nth(1).waitFor({ timeout: 30_000 });
  });
});
