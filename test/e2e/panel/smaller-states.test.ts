// Issue 19, findings 9/10 (the smaller ones), at 300 px in light and dark
// (screenshots under test-results/): long code blocks capped at ~20 lines with
// "Show all N lines"; table headers and words never broken mid-word; thinking
// labelled by time and words; one set of header buttons.
import assert from 'node:assert/strict';
import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { type HostToWebview } from '../../../src/webview/protocol';
import { type Theme, hostPost, openPanel, settle, usePanelHarness } from './harness';

const OUT = join(__dirname, '..', '..', '..', 'test-results');
const code = Array.from({ length: 40 }, (_, i) => `const value${i + 1} = compute(${i + 1});`).join('\n');
const table = '| Configuration | Description | Default |\n| --- | --- | --- |\n| turnstone.permissionMode | what runs without asking | ask |\n| turnstone.approvalDialog | how a request asks | modal |';

const TURN: HostToWebview[] = [
  { type: 'session', session: { id: 's', title: 'Smaller things', model: 'claude-sonnet-5-5' } },
  { type: 'item_add', item: { kind: 'user', id: 'u1', text: 'show me the settings and the generated code' } },
  { type: 'thinking_delta', id: 'th1', text: 'The user wants a table and some code. Five more words here.' },
  { type: 'block_end', id: 'th1', durationMs: 3000 },
  { type: 'assistant_delta', id: 'a1', text: `${table}\n\n\`\`\`ts\n${code}\n\`\`\`\n\nThat is all.` },
  { type: 'block_end', id: 'a1' },
];

describe('chat panel: the smaller findings of issue 19 at 300 px', function () {
  this.timeout(120_000);
  before(() => {
    mkdirSync(OUT, { recursive: true });
  });
  const rig = usePanelHarness();

  for (const theme of ['light', 'dark'] as Theme[]) {
    it(`capped code, whole words in tables, thinking in words, one set of buttons (${theme})`, async () => {
      const page = await openPanel(rig.browser, rig.harness, { theme, width: 300, height: 700 });
      await hostPost(page, ...TURN);
      await settle(page);
      assert.equal((await page.locator('.item.thinking summary').textContent())?.trim(), 'Thought for 3 s · 12 words');
      assert.equal(await page.locator('.header .history, .header .new-session').count(), 0, 'history and new session only in the view title bar');

      const block = page.locator('.code-block');
      const expand = block.locator('button.code-expand');
      assert.equal((await expand.textContent())?.trim(), 'Show all 40 lines');
      const capped = await block.locator('pre').evaluate((el) => el.clientHeight);
      const lineHeight = await block.locator('pre').evaluate((el) => parseFloat(getComputedStyle(el).lineHeight) || 16);
      assert.ok(capped < lineHeight * 24, `capped at about 20 lines (${capped}px, line ${lineHeight}px)`);

      // Every header cell keeps its words whole: one line each.
      const headers = await page.locator('.markdown th').evaluateAll((ths) => ths.map((th) => ({ text: th.textContent, lines: Math.round(th.getBoundingClientRect().height / parseFloat(getComputedStyle(th).lineHeight || '16')) })));
      for (const h of headers) assert.ok(h.lines <= 1, `header "${h.text}" on one line (${h.lines})`);
      assert.ok(await page.evaluate(() => document.documentElement.scrollWidth <= 300), 'no horizontal overflow of the page');
      await page.screenshot({ path: join(OUT, `smaller-capped-${theme}-300.png`) });

      await expand.click();
      assert.equal((await expand.textContent())?.trim(), 'Show less');
      const full = await block.locator('pre').evaluate((el) => el.clientHeight);
      assert.ok(full > capped * 1.5, `expanded (${full}px > ${capped}px)`);
      await page.close();
    });
  }
});
