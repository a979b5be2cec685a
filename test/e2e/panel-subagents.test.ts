// Issue 29, subagents in the real workbench with the real runtime: a scripted turn starts two explore
// subagents in one step. Two blocks appear, each follows its subagent (its latest tool use, while it is
// held), then each ends with its report; a block expands to what its subagent did and collapses again.
// Screenshots in dark and light.
import * as assert from 'node:assert/strict';
import { textReply, toolUseReply } from '../fixtures/mock-anthropic';
import { pickColorTheme, screenshot, useChatWorkbench } from './workbench';

describe('e2e: subagent blocks (issue 29)', function () {
  this.timeout(300_000);
  const chat = useChatWorkbench();

  it('29.agents: two subagent blocks appear, update while their subagents work, show their reports, expand and collapse', async () => {
    const { server, wb } = chat;
    const frame = chat.frame;
    // Requests: 0 the parent's fan-out; 1 and 2 each subagent's search; 3 and 4 their reports (held until the
    // test has seen both blocks working); 5 the parent's answer.
    let release!: () => void;
    const held = new Promise<void>((resolve) => (release = resolve));
    server.beforeReply = (index) => (index === 3 || index === 4 ? held : undefined);
    server.enqueue(
      toolUseReply([
        { id: 'tu_a1', name: 'agent', input: { description: 'Find the greeting code', prompt: 'Where is the greeting defined?' } },
        { id: 'tu_a2', name: 'agent', input: { description: 'Find the tests', prompt: 'Where are the tests?' } },
      ]),
      // Both subagents get the same replies, whichever asks first.
      toolUseReply([{ id: 'tu_g1', name: 'glob_search', input: { pattern: '**/*' } }]),
      toolUseReply([{ id: 'tu_g2', name: 'glob_search', input: { pattern: '**/*' } }]),
      textReply('Found the files the question is about.'),
      textReply('Found the files the question is about.'),
      textReply('Both subagents reported back.'),
    );

    const input = frame.locator('textarea.input');
    await input.fill('look around the project');
    await input.press('Enter');

    const blocks = frame.locator('article.item.tool:has(.agent-name)');
    const a1 = frame.locator('article.item.tool[data-id="tu_a1"]');
    const a2 = frame.locator('article.item.tool[data-id="tu_a2"]');
    // Working: each names its subagent and task, shows its latest tool use and spins.
    for (const block of [a1, a2]) {
      await block.locator('.agent-details summary', { hasText: 'Latest: glob_search **/*' }).waitFor({ timeout: 60_000 });
      assert.equal(await block.getAttribute('data-status'), 'running');
      assert.equal(await block.locator('.agent-name').innerText(), 'explore');
    }
    assert.equal(await a1.locator('.agent-description').innerText(), 'Find the greeting code');
    assert.equal(await a2.locator('.agent-description').innerText(), 'Find the tests');
    // The tokens come with the subagent's usage, which may reach the card just after its tool use does.
    await a1.locator('.tool-meta', { hasText: /1 tool use · [\d.]+k? tokens/ }).waitFor({ timeout: 60_000 });
    assert.equal(await blocks.count(), 2);
    await screenshot(wb.page, 'subagents-working-dark.png');
    release();

    await frame.locator('article.item.assistant', { hasText: 'Both subagents reported back.' }).waitFor({ timeout: 60_000 });
    await frame.locator('body:not(.turn-running)').waitFor({ state: 'attached', timeout: 60_000 });
    for (const block of [a1, a2]) {
      assert.equal(await block.getAttribute('data-status'), 'done');
      // Collapsed by default: one line; expanded: its tool use and its report.
      const details = block.locator('details.agent-details');
      assert.equal(await details.getAttribute('open'), null);
      await details.locator('summary').click();
      await block.locator('details.agent-details[open]').waitFor({ state: 'attached' });
      assert.match(await block.locator('.agent-steps').innerText(), /glob_search \*\*\/\*/);
      assert.equal(await block.locator('.agent-report-text').innerText(), 'Found the files the question is about.');
    }
    await screenshot(wb.page, 'subagents-expanded-dark.png');
    await a2.locator('details.agent-details summary').click();
    await a2.locator('details.agent-details:not([open])').waitFor({ state: 'attached' });
    assert.equal(await a2.locator('.agent-report-text').isVisible(), false);

    await pickColorTheme(wb.page, 'Default Light Modern');
    await frame.locator('body.vscode-light').waitFor({ state: 'attached', timeout: 60_000 });
    await screenshot(wb.page, 'subagents-done-light.png');
    // The subagents' requests had their own prompt and explore's tools; the parent's had `agent`.
    const bodies = server.bodies;
    assert.ok((bodies[0]!.tools as Array<{ name: string }>).some((t) => t.name === 'agent'));
    for (const body of bodies.filter((b) => JSON.stringify(b.system).includes('exploration subagent'))) {
      assert.ok(!(body.tools as Array<{ name: string }>).some((t) => t.name === 'agent' || t.name === 'bash'));
    }
  });
});
