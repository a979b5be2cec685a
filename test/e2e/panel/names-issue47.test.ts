// Issue 47 item 9, in real Chromium with the strict CSP at the default 300-px width: card titles in words (never
// raw JSON such as {"id":"bash_1"}), accessible names in words (never `todo_write` / `bash_output`), "Plan, 5 of 5
// done", long titles ending in an ellipsis, each "Restore checkpoint" button named by its message, and code blocks
// that scroll sideways reachable by keyboard (axe-core: scrollable-region-focusable, and names, at 0 violations).
import assert from 'node:assert/strict';
import { mkdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { toolViewFromInput } from '../../../src/webview/tool-view';
import { hostSend, openPanel, settle, usePanelHarness } from './harness';

const OUT = join(__dirname, '../../../test-results');
const AXE_RUN = (rules: string[]) => `(async () => {
  const r = await axe.run(document, { runOnly: { type: 'rule', values: ${JSON.stringify(rules)} } });
  return r.violations.map((v) => v.id + ': ' + v.nodes.map((n) => n.target.join(' ')).join(', '));
})()`;

describe('chat panel: names and clipping (issue 47 item 9)', function () {
  const rig = usePanelHarness();

  it('titles and names in words, ellipses, restore buttons by message, code blocks reachable', async () => {
    const page = await openPanel(rig.browser, rig.harness, { width: 300 });
    const todos = Array.from({ length: 5 }, (_, i) => ({ content: `Step ${i + 1}`, activeForm: `Doing step ${i + 1}`, status: 'completed' as const }));
    const long = 'a-very-long-argument-that-cannot-fit-in-the-card-title-at-three-hundred-pixels-wide';
    await hostSend(
      page,
      { type: 'item_add', item: { kind: 'user', id: 'u1', text: 'first' } },
      { type: 'item_add', item: { kind: 'tool', id: 'o1', name: 'bash_output', status: 'done', view: toolViewFromInput('bash_output', { id: 'bash_1' }) } },
      { type: 'item_add', item: { kind: 'user', id: 'u2', text: 'second' } },
      { type: 'item_add', item: { kind: 'tool', id: 'p1', name: 'todo_write', status: 'done', view: toolViewFromInput('todo_write', { todos }) } },
      { type: 'item_add', item: { kind: 'tool', id: 'x1', name: 'some_tool', status: 'done', view: toolViewFromInput('some_tool', { arg: long }) } },
      { type: 'item_add', item: { kind: 'user', id: 'u3', text: 'third' } },
      { type: 'item_add', item: { kind: 'assistant', id: 'a1', text: `Here:\n\n\`\`\`ts\nconst x = '${long}${long}';\n\`\`\`\n` } },
      { type: 'plan', todos },
    );
    await settle(page);

    // Titles in words, never JSON; names in words, never tool ids.
    const output = page.locator('article.item.tool[data-id="o1"]');
    const title = (await output.locator('.tool-title').innerText()).trim();
    assert.doesNotMatch(title, /[{}"]/, title);
    assert.match(title, /^Command output\s+bash_1$/, title);
    assert.match((await output.getAttribute('aria-label')) ?? '', /^Command output: bash_1\b/);
    assert.match((await page.locator('article.item.tool[data-id="p1"]').getAttribute('aria-label')) ?? '', /^Plan, 5 of 5 done\b/);
    for (const label of await page.locator('article.item.tool').evaluateAll((els) => els.map((e) => e.getAttribute('aria-label') ?? ''))) {
      assert.doesNotMatch(label, /todo_write|bash_output|some_tool/, label);
    }
    // The pinned plan: "Plan, 5 of 5 done", never "Plan5/5".
    assert.equal(await page.locator('details.plan > summary').getAttribute('aria-label'), 'Plan, 5 of 5 done');

    // A long title ends in an ellipsis.
    const summary = page.locator('article.item.tool[data-id="x1"] .tool-summary');
    const clip = await summary.evaluate((e) => ({ overflow: getComputedStyle(e).textOverflow, cut: e.scrollWidth > e.clientWidth }));
    assert.deepEqual(clip, { overflow: 'ellipsis', cut: true });

    // Each restore button is named by the message it goes back before.
    const names = await page.locator('button.restore-checkpoint').evaluateAll((els) => els.map((e) => e.getAttribute('aria-label')));
    assert.deepEqual(names, ['Restore checkpoint before message 1', 'Restore checkpoint before message 2', 'Restore checkpoint before message 3']);

    // The code block scrolls sideways and the keyboard reaches it.
    const pre = page.locator('article.item.assistant pre').first();
    assert.equal(await pre.evaluate((e) => e.scrollWidth > e.clientWidth), true, 'the block scrolls sideways');
    assert.equal(await pre.getAttribute('tabindex'), '0');
    assert.equal(await pre.getAttribute('aria-label'), 'Code block, ts');

    await page.evaluate(readFileSync(require.resolve('axe-core/axe.min.js'), 'utf8'));
    const violations = (await page.evaluate(AXE_RUN(['scrollable-region-focusable', 'button-name', 'aria-prohibited-attr', 'aria-allowed-attr', 'nested-interactive']))) as string[];
    assert.deepEqual(violations, []);
    mkdirSync(OUT, { recursive: true });
    await page.screenshot({ path: join(OUT, 'names-issue47-300.png') });
    await page.close();
  });
});
