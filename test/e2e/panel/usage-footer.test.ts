// Issue 47 item 7: the usage footer at the default 300-px sidebar stays on one line with large figures (short
// figures, the details in its tooltip), and is one focusable element named in words, its figures hidden from
// screen readers (never "34k 341 cache 82% $0.033 7%"). In real Chromium with the strict CSP.
import assert from 'node:assert/strict';
import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { hostSend, openPanel, settle, usePanelHarness } from './harness';

const OUT = join(__dirname, '../../../test-results');
/** Figures without the locale's group separators ("454,120", "454 120" → "454120"). */
const plain = (s: string | null) => (s ?? '').replace(/(\d)[\s,.\u00a0\u202f](?=\d{3}\b)/g, '$1');

describe('chat panel: the usage footer (issue 47 item 7)', function () {
  const rig = usePanelHarness();

  for (const theme of ['dark', 'light'] as const) {
    it(`one line at 300 px with large figures, one focusable element named in words (${theme})`, async () => {
      const page = await openPanel(rig.browser, rig.harness, { width: 300, theme });
      await hostSend(page, {
        type: 'usage',
        usage: { inputTokens: 4_000, outputTokens: 2_412, cacheReadTokens: 450_000, cacheWriteTokens: 120, costUsd: 12.345, contextTokens: 194_000, contextWindow: 200_000 },
      });
      await settle(page);
      const footer = page.locator('footer.usage');
      await footer.waitFor();
      // One line: every figure on the footer's first row, nothing wrapped or pushed out.
      const layout = await footer.evaluate((f) => {
        const tops = [...f.children].map((c) => Math.round(c.getBoundingClientRect().top));
        const right = f.getBoundingClientRect().right;
        return { tops, lineHeight: parseFloat(getComputedStyle(f).lineHeight) || 16, height: f.clientHeight, overflow: [...f.children].some((c) => c.getBoundingClientRect().right > right + 0.5) };
      });
      assert.equal(new Set(layout.tops).size, 1, `one row: ${JSON.stringify(layout)}`);
      assert.equal(layout.overflow, false, `nothing past the right edge: ${JSON.stringify(layout)}`);
      assert.ok(layout.height < 2 * layout.lineHeight + 8, `one line high: ${JSON.stringify(layout)}`);
      assert.equal(await page.locator('.usage-in').innerText(), '454k');
      assert.equal(await page.locator('.usage-out').innerText(), '2.4k');

      // One focusable element, named in words; the short figures are hidden from screen readers.
      assert.equal(await footer.getAttribute('tabindex'), '0');
      assert.equal(await footer.getAttribute('role'), 'group');
      assert.equal(plain(await footer.getAttribute('aria-label')), 'Session usage: 454120 tokens in, 2412 tokens out, cache 99%, cost $12.35, Context 97% of the window used');
      assert.equal(await footer.locator(':scope > :not([aria-hidden="true"])').count(), 0);
      assert.equal(plain(await footer.getAttribute('title')), 'Input 4000 · cache read 450000 · cache write 120 · output 2412\nContext 194000 of 200000 tokens');
      await page.locator('textarea.input').focus();
      await page.keyboard.press('Tab');
      // The footer is reachable from the keyboard (after the composer's own controls).
      for (let i = 0; i < 10 && !(await footer.evaluate((f) => f === document.activeElement)); i++) await page.keyboard.press('Tab');
      assert.equal(await footer.evaluate((f) => f === document.activeElement), true, 'Tab reaches the footer');
      mkdirSync(OUT, { recursive: true });
      await page.screenshot({ path: join(OUT, `usage-footer-300-${theme}.png`) });
      await page.close();
    });
  }
});
