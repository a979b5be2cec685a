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

  it('29: a running subagent\'s time counts on between its events, and stops when it is done', async () => {
    const page = await openPanel(rig.browser, rig.harness, { width: 300, height: 700 });
    const agent = (id: string, status: 'running' | 'done', elapsedMs: number) => ({
      kind: 'tool', id, name: 'agent', status,
      view: { kind: 'agent', agent: 'explore', description: 'find the config loader', steps: [], toolUses: 1, tokens: 1200, elapsedMs },
    });
    await hostPost(page, { type: 'turn', state: 'running' }, { type: 'item_add', item: agent('ag1', 'running', 0) }, { type: 'item_add', item: agent('ag2', 'running', 0) });
    const timeOf = (id: string) => page.evaluate((i) => document.querySelector(`.item.tool[data-id="${i}"] .agent-time`)?.textContent ?? '', id);
    const advanced = (id: string, past: string) => page.waitForFunction(([i, p]) => { const t = document.querySelector(`.item.tool[data-id="${i}"] .agent-time`)?.textContent ?? ''; return /^\d+s$/.test(t) && t !== p; }, [id, past] as const, { timeout: 30_000 });
    // No event from the host meanwhile: the card counts on by itself.
    await advanced('ag1', '0s');
    assert.match(await page.locator('.item.tool[data-id="ag1"] .tool-meta').textContent() ?? '', /^1 tool use · 1\.2k tokens · [1-9]\d*s$/);
    // Done: the host's final time, which stays while the other subagent's clock ticks on twice.
    await hostPost(page, { type: 'tool_update', id: 'ag1', status: 'done', view: agent('ag1', 'done', 4000).view });
    await page.waitForFunction(() => document.querySelector('.item.tool[data-id="ag1"] .agent-time')?.textContent === '4s', undefined, { timeout: 30_000 });
    for (let i = 0; i < 2; i++) await advanced('ag2', await timeOf('ag2'));
    assert.equal(await timeOf('ag1'), '4s', 'a finished subagent\'s time stays as the host sent it');
    await page.close();
  });
});
