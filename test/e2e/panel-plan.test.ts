// Issue 28, the plan tool in the real workbench with the real runtime: a
// scripted turn calls todo_write three times; the plan pinned above the
// composer appears and moves 1/3 → 2/3 → 3/3, the running bar says what is
// being done, it folds, and it comes back when the session is resumed.
// Screenshots in light and dark.
import * as assert from 'node:assert/strict';
import { textReply, toolUseReply } from '../fixtures/mock-anthropic';
import { newSession, pickColorTheme, screenshot, useChatWorkbench } from './workbench';

const STEPS = ['Read the greeting code', 'Change the greeting', 'Run the tests'];
const ACTIVE = ['Reading the greeting code', 'Changing the greeting', 'Running the tests'];
const plan = (done: number) => STEPS.map((content, i) => ({ content, status: i < done ? 'completed' : i === done ? 'in_progress' : 'pending', activeForm: ACTIVE[i]! }));
const write = (id: string, done: number) => toolUseReply([{ id, name: 'todo_write', input: { todos: plan(done) } }]);

describe('e2e: the plan pinned above the composer (issue 28)', function () {
  this.timeout(300_000);
  const chat = useChatWorkbench();

  it('28.plan: three todo_write calls: the plan appears and updates 1/3 → 2/3 → 3/3, folds, and is restored on resume', async () => {
    const { server, wb } = chat;
    const frame = chat.frame;
    // Each later request waits until the test has looked at the plan the last write left.
    const gates: Array<() => void> = [];
    const opened = [1, 2, 3].map((i) => new Promise<void>((resolve) => (gates[i] = resolve)));
    server.beforeReply = (index) => (index >= 1 && index <= 3 ? opened[index - 1] : undefined);
    server.enqueue(write('tu_p1', 1), write('tu_p2', 2), write('tu_p3', 3), textReply('The greeting is changed and the tests pass.'));

    const input = frame.locator('textarea.input');
    await input.fill('make the greeting friendlier and test it');
    await input.press('Enter');

    const panel = frame.locator('details.plan');
    const count = panel.locator('.plan-count');
    for (const done of [1, 2]) {
      await frame.locator(`article.item.tool[data-id="tu_p${done}"][data-status="done"]`).waitFor({ timeout: 60_000 });
      await count.filter({ hasText: `${done}/3` }).waitFor({ timeout: 30_000 });
      assert.equal(await panel.getAttribute('open'), '', 'the plan is open');
      assert.deepEqual(await panel.locator('.plan-item').evaluateAll((els) => els.map((e) => e.className.replace('plan-item ', ''))), plan(done).map((t) => `plan-${t.status.replace('_', '-')}`));
      assert.equal(await panel.locator('.plan-in-progress .plan-text').innerText(), STEPS[done]);
      // The running bar names what is being done now.
      assert.equal(await frame.locator('.status .activity').innerText(), ACTIVE[done]);
      // Pinned above the composer, below the transcript.
      const [plannedAt, composerAt] = await Promise.all([panel.boundingBox(), frame.locator('.composer').boundingBox()]);
      assert.ok(plannedAt && composerAt && plannedAt.y + plannedAt.height <= composerAt.y + 1, 'the plan sits right above the composer');
      await screenshot(wb.page, `plan-${done}-of-3-dark.png`);
      gates[done]!();
    }
    await count.filter({ hasText: '3/3' }).waitFor({ timeout: 60_000 });
    gates[3]!();
    await frame.locator('article.item.assistant', { hasText: 'tests pass' }).waitFor({ timeout: 60_000 });
    await frame.locator('body:not(.turn-running)').waitFor({ state: 'attached', timeout: 60_000 });
    assert.equal(await panel.locator('.plan-completed').count(), 3);
    assert.equal(await frame.locator('.status .activity').count(), 0, 'nothing is running: the bar is empty');
    // The card of a write says where the plan stood.
    assert.match(await frame.locator('article.item.tool[data-id="tu_p2"]').innerText(), /2\/3 · Run the tests/);
    await screenshot(wb.page, 'plan-3-of-3-dark.png');

    // Folded: one line with the progress.
    await panel.locator('summary').click();
    await frame.locator('details.plan:not([open])').waitFor({ state: 'attached' });
    assert.equal(await panel.locator('.plan-list').isVisible(), false);
    assert.equal(await count.innerText(), '3/3');
    await screenshot(wb.page, 'plan-folded-dark.png');
    await panel.locator('summary').click();
    await frame.locator('details.plan[open]').waitFor({ state: 'attached' });

    await pickColorTheme(wb.page, 'Default Light Modern');
    await frame.locator('body.vscode-light').waitFor({ state: 'attached', timeout: 60_000 });
    await screenshot(wb.page, 'plan-3-of-3-light.png');

    // A new session has no plan; resuming this one brings it back with the transcript.
    await newSession(wb.page);
    await panel.waitFor({ state: 'hidden', timeout: 30_000 });
    assert.equal(await panel.locator('.plan-item').count(), 0, 'a new session starts without a plan');
    await wb.page.locator('a.action-label[aria-label^="Resume Session"]').first().click();
    const row = wb.page.locator('.quick-input-widget .monaco-list-row').filter({ hasText: 'make the greeting friendlier' }).first();
    await row.waitFor({ state: 'visible', timeout: 30_000 });
    await row.click();
    await frame.locator('article.item.user').first().waitFor({ timeout: 30_000 });
    await count.filter({ hasText: '3/3' }).waitFor({ timeout: 30_000 });
    assert.equal(await panel.locator('.plan-item').count(), 3);
    await screenshot(wb.page, 'plan-resumed-light.png');
  });
});
