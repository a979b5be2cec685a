// Issue 19: the states the panel shows all day, at 300 px in light and dark
// (screenshots under test-results/): a tool waiting for approval inside its
// card, answered requests as one line, bash output kept, the Latest pill.
import assert from 'node:assert/strict';
import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { type HostToWebview } from '../../../src/webview/protocol';
import { type Theme, hostPost, openPanel, settle, usePanelHarness } from './harness';

const OUT = join(__dirname, '..', '..', '..', 'test-results');

const lines = (n: number) => Array.from({ length: n }, (_, i) => `line-${i + 1}`).join('\n') + '\n';

const TURN: HostToWebview[] = [
  { type: 'session', session: { id: 's', title: 'Clean the build', model: 'claude-sonnet-5-5' } },
  { type: 'turn', state: 'running' },
  { type: 'item_add', item: { kind: 'user', id: 'u1', text: 'print the lines, then clean the build folder' } },
  { type: 'item_add', item: { kind: 'tool', id: 't1', name: 'bash', status: 'running', view: { kind: 'bash', command: "seq 1 30 | sed 's/^/line-/'" } } },
  { type: 'item_add', item: { kind: 'permission', id: 'perm:t1', toolId: 't1', toolName: 'bash', title: 'Run this command?', subject: "seq 1 30 | sed 's/^/line-/'" } },
  { type: 'permission_settled', requestId: 'perm:t1', settlement: { decision: 'allow', by: 'dialog' } },
  { type: 'tool_output', id: 't1', chunk: lines(30) },
  { type: 'tool_update', id: 't1', status: 'done', view: { kind: 'bash', command: "seq 1 30 | sed 's/^/line-/'", exitCode: 0 } },
  { type: 'item_add', item: { kind: 'tool', id: 't2', name: 'bash', status: 'running', view: { kind: 'bash', command: 'rm -rf build' } } },
  { type: 'item_add', item: { kind: 'permission', id: 'perm:t2', toolId: 't2', toolName: 'bash', title: 'Run this command?', subject: 'rm -rf build' } },
];

describe('chat panel: the states of issue 19 at 300 px', function () {
  this.timeout(120_000);
  before(() => {
    mkdirSync(OUT, { recursive: true });
  });
  const rig = usePanelHarness();

  for (const theme of ['light', 'dark'] as Theme[]) {
    it(`waiting, answered, output kept and the Latest pill (${theme})`, async () => {
      const page = await openPanel(rig.browser, rig.harness, { theme, width: 300, height: 700 });
      await hostPost(page, ...TURN);
      await settle(page);
      const waiting = page.locator('.item.tool[data-id="t2"]');
      assert.equal(await waiting.getAttribute('data-status'), 'waiting');
      assert.equal(await waiting.locator('.codicon-modifier-spin').count(), 0);
      assert.equal(await page.locator('.items > .item.permission').count(), 0);
      assert.match(await page.locator('.item.tool[data-id="t1"] pre.output').innerText(), /line-30$/);
      // Nothing in the panel is wider than the panel (no sideways scrolling at 300 px).
      assert.ok(await page.evaluate(() => document.documentElement.scrollWidth <= 300), 'no horizontal overflow');
      await page.screenshot({ path: join(OUT, `daily-waiting-${theme}-300.png`) });

      await hostPost(page,
        { type: 'permission_settled', requestId: 'perm:t2', settlement: { decision: 'deny', by: 'panel', feedback: 'use make clean' } },
        { type: 'tool_update', id: 't2', status: 'denied', error: 'Permission denied' },
        { type: 'assistant_delta', id: 'a1', text: Array.from({ length: 12 }, (_, i) => `Paragraph ${i + 1} of the answer.`).join('\n\n') },
        { type: 'block_end', id: 'a1' },
        { type: 'turn', state: 'idle' },
      );
      await settle(page);
      await page.locator('.item.tool[data-id="t2"] .perm-state', { hasText: 'Denied: use make clean' }).waitFor();
      await page.locator('.transcript').evaluate((el) => {
        el.dispatchEvent(new WheelEvent('wheel', { deltaY: -400, bubbles: true }));
        el.scrollTop = 0;
      });
      await page.locator('button.latest').waitFor({ state: 'visible' });
      await page.screenshot({ path: join(OUT, `daily-answered-latest-${theme}-300.png`) });
      await page.close();
    });
  }
});
