// Issue 25, item 10, in the panel's real bundle at the sidebar's default 300 px
// (the workbench test, test/e2e/panel-small-items.test.ts, goes through the
// host): the header fits with the model in the composer row; a sent message's
// chips show an icon per kind; a custom slash command reads as typed; counts
// are said with the right plural.
import assert from 'node:assert/strict';
import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { type HostToWebview } from '../../../src/webview/protocol';
import { type Theme, hostPost, hostSend, openPanel, posted, settle, usePanelHarness } from './harness';

const OUT = join(__dirname, '..', '..', '..', 'test-results');

const CHIPS: HostToWebview = {
  type: 'item_add',
  item: {
    kind: 'user',
    id: 'u1',
    text: 'look at all of this',
    attachments: [
      { kind: 'file', path: 'src/a.ts', label: 'a.ts' },
      { kind: 'folder', path: 'src/ui', label: 'ui/' },
      { kind: 'selection', path: 'src/a.ts', label: 'a.ts:3-9' },
      { kind: 'problems', path: '@problems', label: '@problems' },
      { kind: 'terminal', path: '@terminal', label: '@terminal' },
      { kind: 'git', path: '@git', label: '@git' },
      { kind: 'file', path: 'docs/logo.png', label: 'logo.png' },
    ],
  },
};

describe('chat panel: the small items of issue 25 (item 10) at 300 px', function () {
  this.timeout(120_000);
  before(() => mkdirSync(OUT, { recursive: true }));
  const rig = usePanelHarness();

  for (const theme of ['light', 'dark'] as Theme[]) {
    it(`25.10: the header fits at 300 px; the model is in the composer row, also while a turn runs (${theme})`, async () => {
      const page = await openPanel(rig.browser, rig.harness, { theme, width: 300, height: 600 });
      await hostSend(
        page,
        { type: 'session', session: { id: 's', title: 'Refactor the parser and its tests', model: 'claude-sonnet-5-5' } },
        { type: 'permission_mode', info: { mode: 'acceptEdits', restricted: false } },
        { type: 'instructions', files: [{ label: 'AGENTS.md', chars: 40, included: 40 }], notes: [], restricted: false },
      );
      await settle(page);
      assert.equal(await page.locator('.header .model').count(), 0, 'no model button in the header');
      const fits = () =>
        page.evaluate(() => {
          const clipped = (e: Element | null) => (e ? e.scrollWidth > e.clientWidth + 1 : false);
          const header = document.querySelector('.header')!;
          const row = document.querySelector('.composer-actions')!;
          return {
            headerOverflow: clipped(header),
            chipClipped: clipped(document.querySelector('.instructions-chip button.instructions .label')),
            titleWidth: document.querySelector('.header .title')!.getBoundingClientRect().width,
            rowOverflow: clipped(row) || row.getBoundingClientRect().right > document.documentElement.clientWidth,
            model: document.querySelector('.composer-actions .model .label')?.textContent,
            modelClipped: clipped(document.querySelector('.composer-actions .model .label')),
            // A <select> shows its chosen option's text: cut when narrower than that text needs.
            modeClipped: (() => {
              const select = document.querySelector<HTMLSelectElement>('.mode-switch')!;
              const probe = document.createElement('span');
              probe.style.font = getComputedStyle(select).font;
              probe.textContent = select.selectedOptions[0]?.textContent ?? '';
              document.body.append(probe);
              const need = probe.getBoundingClientRect().width;
              probe.remove();
              return select.clientWidth < need + 8;
            })(),
            page: document.documentElement.scrollWidth,
          };
        });
      const idle = await fits();
      assert.equal(idle.headerOverflow, false, JSON.stringify(idle));
      assert.equal(idle.chipClipped, false, `the instructions chip is not cut: ${JSON.stringify(idle)}`);
      assert.ok(idle.titleWidth > 120, `the title has room: ${JSON.stringify(idle)}`);
      assert.equal(idle.rowOverflow, false, JSON.stringify(idle));
      assert.equal(idle.modelClipped, false, JSON.stringify(idle));
      assert.equal(idle.modeClipped, false, JSON.stringify(idle));
      assert.equal(idle.model, 'Sonnet 5.5');
      assert.ok(idle.page <= 300, `no horizontal scroll: ${idle.page}`);
      await page.screenshot({ path: join(OUT, `small-items-header-300-${theme}.png`) });
      // Stop and Queue join the row while a turn runs: the model label shrinks, nothing overflows.
      await hostSend(page, { type: 'turn', state: 'running' });
      await settle(page);
      const running = await fits();
      assert.equal(running.rowOverflow, false, JSON.stringify(running));
      assert.equal(running.modelClipped, false, `the model label is not cut: ${JSON.stringify(running)}`);
      assert.equal(running.modeClipped, false, `the mode switch is not cut: ${JSON.stringify(running)}`);
      await page.screenshot({ path: join(OUT, `small-items-header-300-running-${theme}.png`) });
      await page.locator('.composer-actions .model').click();
      assert.deepEqual((await posted(page)).filter((m) => m.type === 'select_model'), [{ type: 'select_model' }]);
      await page.close();
    });
  }

  it('issue 46: the instructions chip lists the path-scoped rules that applied, with the file each came with; its list opens by keyboard', async () => {
    const page = await openPanel(rig.browser, rig.harness, { width: 300, height: 600 });
    await hostSend(
      page,
      { type: 'session', session: { id: 's', title: 'Rules', model: 'claude-sonnet-5-5' } },
      {
        type: 'instructions',
        files: [{ label: 'AGENTS.md', chars: 40, included: 40 }],
        notes: [],
        restricted: false,
        applied: [
          { label: '.github/instructions/sh.instructions.md', path: 'scripts/deploy-all-the-things.sh' },
          { label: '.cursor/rules/py.mdc' },
        ],
      },
    );
    await settle(page);
    const chip = page.locator('.instructions-chip button.instructions');
    assert.equal(await chip.locator('.label').textContent(), 'AGENTS.md, 2 rules applied');
    assert.match((await chip.getAttribute('aria-label')) ?? '', /AGENTS\.md, \.github\/instructions\/sh\.instructions\.md \(for scripts\/deploy-all-the-things\.sh\), \.cursor\/rules\/py\.mdc/);
    await chip.focus();
    await page.keyboard.press('Enter');
    const applied = page.locator('.instructions-list .instructions-applied');
    await applied.first().waitFor({ state: 'visible' });
    assert.deepEqual(await applied.allTextContents(), [' .github/instructions/sh.instructions.md (for scripts/deploy-all-the-things.sh)', ' .cursor/rules/py.mdc'].map((t) => t.trim()).map((t) => ` ${t}`));
    const inside = await page.evaluate(() => {
      const list = document.querySelector('.instructions-list')!.getBoundingClientRect();
      return [...document.querySelectorAll('.instructions-applied')].every((e) => e.getBoundingClientRect().right <= Math.max(list.right, document.documentElement.clientWidth) + 1);
    });
    assert.ok(inside, 'the applied rules stay inside the list at 300 px');
    assert.ok((await page.evaluate(() => document.documentElement.scrollWidth)) <= 300, 'no horizontal scroll');
    await page.screenshot({ path: join(OUT, 'instructions-chip-applied-300.png') });
    // Only rules, no instruction file: the chip still shows, and says how many applied.
    await hostSend(page, { type: 'instructions', files: [], notes: [], restricted: false, applied: [{ label: '.cursor/rules/py.mdc', path: 'run.py' }] });
    await settle(page);
    assert.equal(await page.locator('.instructions-chip').isHidden(), false);
    assert.equal(await chip.locator('.label').textContent(), '1 rule applied');
    await page.close();
  });

  it('25.10: a sent message shows one icon per kind of chip (file, folder, selection, problems, terminal, git, image file)', async () => {
    const page = await openPanel(rig.browser, rig.harness, { width: 300, height: 600 });
    await hostSend(page, CHIPS);
    await settle(page);
    const chips = await page.locator('.item.user .chip').evaluateAll((els) => els.map((e) => [e.textContent, [...e.querySelector('.codicon')!.classList].find((c) => c !== 'codicon')]));
    assert.deepEqual(chips, [
      ['a.ts', 'codicon-file'],
      ['ui/', 'codicon-folder'],
      ['a.ts:3-9', 'codicon-selection'],
      ['@problems', 'codicon-warning'],
      ['@terminal', 'codicon-terminal'],
      ['@git', 'codicon-git-compare'],
      ['logo.png', 'codicon-file-media'],
    ]);
    await page.screenshot({ path: join(OUT, 'small-items-chips-300.png') });
    await page.close();
  });

  it('25.10: a custom slash command shows as typed (/review …), not its expanded text; ArrowUp recalls it', async () => {
    const page = await openPanel(rig.browser, rig.harness, { width: 300, height: 600 });
    await hostSend(page, { type: 'item_add', item: { kind: 'user', id: 'u1', text: 'Review src/a.ts for bugs. Check every branch and report findings as a list.', slashCommand: '/review src/a.ts' } });
    await settle(page);
    const bubble = page.locator('.item.user .bubble');
    assert.equal(await bubble.textContent(), '/review src/a.ts');
    assert.match((await bubble.getAttribute('title')) ?? '', /Review src\/a\.ts for bugs/);
    await page.locator('textarea.input').focus();
    await page.keyboard.press('ArrowUp');
    assert.equal(await page.locator('textarea.input').inputValue(), '/review src/a.ts');
    await page.close();
  });

  it('25.10: screen readers hear "1 line added", "1 match", "1 file", "1 token"', async () => {
    const page = await openPanel(rig.browser, rig.harness, { width: 300, height: 600 });
    await hostPost(
      page,
      { type: 'item_add', item: { kind: 'tool', id: 't1', name: 'edit_file', status: 'done', view: { kind: 'edit', path: 'a.ts', added: 1, removed: 1 } } },
      { type: 'item_add', item: { kind: 'tool', id: 't2', name: 'edit_file', status: 'done', view: { kind: 'edit', path: 'b.ts', added: 2, removed: 0 } } },
      { type: 'item_add', item: { kind: 'tool', id: 't3', name: 'grep_search', status: 'done', view: { kind: 'search', mode: 'grep', pattern: 'x', matches: 1, files: 1 } } },
      { type: 'item_add', item: { kind: 'tool', id: 't4', name: 'read_file', status: 'done', view: { kind: 'read', path: 'c.ts', lines: 1 } } },
      { type: 'usage', usage: { inputTokens: 1, outputTokens: 1, cacheReadTokens: 0, cacheWriteTokens: 0 } },
      { type: 'item_add', item: { kind: 'compaction', id: 'c1', tokensBefore: 9, tokensAfter: 1, messagesRemoved: 1 } },
    );
    await settle(page);
    const one = page.locator('.item.tool[data-id="t1"]');
    assert.equal(await one.getAttribute('aria-label'), 'Edited a.ts, 1 line added, 1 removed');
    assert.equal(await one.locator('.added').getAttribute('aria-label'), '1 line added');
    assert.equal(await one.locator('.removed').getAttribute('aria-label'), '1 line removed');
    assert.equal(await page.locator('.item.tool[data-id="t2"]').getAttribute('aria-label'), 'Edited b.ts, 2 lines added, 0 removed');
    assert.equal(await page.locator('.item.tool[data-id="t2"] .removed').getAttribute('aria-label'), '0 lines removed');
    assert.equal(await page.locator('.item.tool[data-id="t3"]').getAttribute('aria-label'), 'Searched x, 1 match');
    assert.equal((await page.locator('.item.tool[data-id="t3"] .tool-meta').textContent())?.trim(), '1 match · 1 file');
    assert.equal(await page.locator('.item.tool[data-id="t4"]').getAttribute('aria-label'), 'Read c.ts, 1 line');
    assert.equal(await page.locator('.usage-in').getAttribute('aria-label'), '1 token in');
    assert.equal(await page.locator('.usage-out').getAttribute('aria-label'), '1 token out');
    assert.match((await page.locator('.item.compaction').textContent()) ?? '', /9 → 1 token · 1 message summarised/);
    await page.close();
  });
});
