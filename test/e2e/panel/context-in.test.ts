// The composer's `@` picker and `/` menu, and the header's instruction chip,
// from the keyboard only, with their ARIA roles; screenshots in light and dark.
import assert from 'node:assert/strict';
import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { type Page } from 'playwright-core';
import { type Attachment } from '../../../src/webview/protocol';
import { type Theme, clearPosted, hostSend, openPanel, posted, settle, usePanelHarness } from './harness';

const RESULTS = join(__dirname, '..', '..', '..', 'test-results');

const CANDIDATES: Attachment[] = [
  { kind: 'problems', label: 'problems', path: 'Diagnostics: file, line, severity, message' },
  { kind: 'terminal', label: 'terminal', path: "The active terminal's selection, else its last command and output" },
  { kind: 'git', label: 'git', path: 'Working-tree diff (git diff HEAD)' },
  { kind: 'folder', label: 'components/', path: 'src/components' },
  { kind: 'file', label: 'Button.tsx', path: 'src/components/Button.tsx' },
  { kind: 'file', label: 'button.test.ts', path: 'test/unit/button.test.ts' },
];

const SLASH = [
  { name: 'compact', description: 'Summarise older messages now to free context', source: 'builtin' as const },
  { name: 'new', description: 'Start a new session', source: 'builtin' as const },
  { name: 'model', description: 'Pick a model (or /model <id>)', source: 'builtin' as const },
  { name: 'undo', description: 'Revert the files the last turn changed', source: 'builtin' as const },
  { name: 'resume', description: 'Resume a saved session', source: 'builtin' as const },
  { name: 'mcp', description: 'Show MCP servers: status, tools, restart', source: 'builtin' as const },
  { name: 'review', description: 'Review a file for bugs', source: 'custom' as const, file: '.turnstone/commands/review.md' },
];

async function activeOption(page: Page): Promise<string | null> {
  return page.evaluate(() => {
    const input = document.querySelector('textarea.input')!;
    const id = input.getAttribute('aria-activedescendant');
    return id ? document.getElementById(id)?.querySelector('.picker-label')?.textContent ?? null : null;
  });
}

describe('chat panel: @ mentions, / commands, instruction chip', function () {
  const rig = usePanelHarness();

  it('@ opens an ARIA listbox the keyboard drives; the chosen file becomes a chip with its token estimate', async function () {
    const page = await openPanel(rig.browser, rig.harness);
    const input = page.locator('textarea.input');
    await clearPosted(page);
    await input.focus();
    await page.keyboard.type('check @butt');
    const asks = (await posted(page)).filter((m) => m.type === 'attach').map((m) => (m as { query: string }).query);
    assert.deepEqual(asks, ['', 'b', 'bu', 'but', 'butt']);
    // An answer for an older query is ignored once the current one is in.
    await hostSend(page, { type: 'attach_candidates', query: 'butt', candidates: CANDIDATES.slice(4) });
    await hostSend(page, { type: 'attach_candidates', query: 'bu', candidates: CANDIDATES });
    await settle(page);
    const listbox = page.getByRole('listbox', { name: 'Attach context' });
    assert.equal(await listbox.isVisible(), true);
    assert.equal(await input.getAttribute('role'), 'combobox');
    assert.equal(await input.getAttribute('aria-expanded'), 'true');
    assert.equal(await input.getAttribute('aria-controls'), await listbox.getAttribute('id'));
    assert.equal(await listbox.getByRole('option').count(), 2);
    assert.equal(await activeOption(page), 'Button.tsx');
    await page.keyboard.press('ArrowDown');
    assert.equal(await activeOption(page), 'button.test.ts');
    assert.equal(await listbox.getByRole('option', { selected: true }).count(), 1);
    await page.keyboard.press('ArrowUp');
    await page.keyboard.press('Enter');
    assert.equal(await listbox.isVisible(), false);
    assert.equal(await input.inputValue(), 'check ');
    const measure = (await posted(page)).filter((m) => m.type === 'attach_measure');
    assert.deepEqual(measure, [{ type: 'attach_measure', attachment: CANDIDATES[4] }]);
    await hostSend(page, { type: 'attachment_measured', kind: 'file', path: 'src/components/Button.tsx', tokens: 1234 });
    await settle(page);
    const chip = page.locator('.composer .attachments .chip');
    assert.equal(await chip.locator('.chip-text').textContent(), 'Button.tsx');
    assert.equal(await chip.locator('.chip-tokens').textContent(), '~1.2k');

    // Escape closes without choosing; a special (@problems) by keyboard.
    await page.keyboard.type('@');
    await hostSend(page, { type: 'attach_candidates', query: '', candidates: CANDIDATES });
    await page.keyboard.press('Escape');
    assert.equal(await listbox.isVisible(), false);
    assert.equal(await input.inputValue(), 'check @');
    await page.keyboard.press('Backspace');
    await page.keyboard.type('@pro');
    await hostSend(page, { type: 'attach_candidates', query: 'pro', candidates: CANDIDATES.slice(0, 1) });
    await settle(page);
    assert.equal(await activeOption(page), '@problems');
    await page.keyboard.press('Tab');
    await page.keyboard.type('fix these');
    await page.keyboard.press('Enter');
    const sent = (await posted(page)).filter((m) => m.type === 'send');
    assert.deepEqual(sent, [{ type: 'send', text: 'check fix these', attachments: [CANDIDATES[4], CANDIDATES[0]] }]);
    await page.close();
  });

  it('/ lists built-in and custom commands; Tab completes, Enter sends the command text', async function () {
    const page = await openPanel(rig.browser, rig.harness);
    const input = page.locator('textarea.input');
    await input.focus();
    await clearPosted(page);
    await page.keyboard.type('/');
    assert.deepEqual(await posted(page), [{ type: 'slash_list' }]);
    await hostSend(page, { type: 'slash_commands', commands: SLASH });
    await settle(page);
    const menu = page.getByRole('listbox', { name: 'Slash commands' });
    assert.equal(await menu.getByRole('option').count(), 7);
    await page.keyboard.type('re');
    assert.deepEqual(await menu.getByRole('option').locator('.picker-label').allTextContents(), ['/resume', '/review']);
    await page.keyboard.press('ArrowDown');
    assert.equal(await activeOption(page), '/review');
    await page.keyboard.press('Tab');
    assert.equal(await input.inputValue(), '/review ');
    assert.equal(await menu.isVisible(), false);
    await page.keyboard.type('src/app.ts');
    // The menu stays shut once arguments follow.
    assert.equal(await menu.isVisible(), false);
    await page.keyboard.press('Enter');
    const sent = (await posted(page)).filter((m) => m.type === 'send');
    assert.deepEqual(sent, [{ type: 'send', text: '/review src/app.ts', attachments: [] }]);

    // Escape leaves the typed text alone.
    await page.keyboard.type('/comp');
    await page.keyboard.press('Escape');
    assert.equal(await input.inputValue(), '/comp');
    assert.equal(await menu.isVisible(), false);
    await page.close();
  });

  it('the header chip names the instruction files, opens one by keyboard, and says when in Restricted Mode', async function () {
    const page = await openPanel(rig.browser, rig.harness);
    await hostSend(page, { type: 'instructions', files: [{ label: 'AGENTS.md', chars: 120, included: 120 }, { label: '.clinerules/style.md', chars: 50_000, included: 32_000 }], notes: ['.clinerules/style.md was cut to its first 32,000 of 50,000 characters (the 32,000-character cap per file).'], restricted: true });
    await settle(page);
    const chip = page.locator('button.instructions');
    assert.equal(await chip.locator('.label').textContent(), '2 instruction files');
    assert.match((await chip.getAttribute('aria-label')) ?? '', /AGENTS\.md, \.clinerules\/style\.md \(Restricted Mode, plan mode only\)/);
    await chip.focus();
    await clearPosted(page);
    await page.keyboard.press('Enter');
    const menu = page.getByRole('menu', { name: 'Instruction files in use' });
    assert.equal(await menu.isVisible(), true);
    assert.match(await menu.innerText(), /Restricted Mode: read, plan mode only/);
    assert.match(await menu.innerText(), /cut to its first 32,000/);
    await page.keyboard.press('ArrowDown');
    await page.keyboard.press('Enter');
    assert.deepEqual(await posted(page), [{ type: 'open_instructions', label: '.clinerules/style.md' }]);
    // No files: no chip.
    await hostSend(page, { type: 'instructions', files: [], notes: [], restricted: false });
    assert.equal(await chip.isVisible(), false);
    await page.close();
  });

  for (const theme of ['light', 'dark'] as Theme[]) {
    it(`screenshots of the @ picker, the / menu and the chip (${theme})`, async function () {
      const page = await openPanel(rig.browser, rig.harness, { theme, height: 520 });
      await hostSend(page, { type: 'instructions', files: [{ label: 'AGENTS.md', chars: 120, included: 120 }], notes: [], restricted: false });
      await page.locator('textarea.input').focus();
      await page.keyboard.type('look at @comp');
      await hostSend(page, { type: 'attach_candidates', query: 'comp', candidates: [CANDIDATES[3]!, CANDIDATES[4]!, { kind: 'file', label: 'compose.ts', path: 'src/webview/ui/compose.ts' }] });
      await hostSend(page, { type: 'attachment_measured', kind: 'file', path: 'x', tokens: 1 });
      await settle(page);
      mkdirSync(RESULTS, { recursive: true });
      await page.screenshot({ path: join(RESULTS, `mention-picker-${theme}.png`) });
      await page.keyboard.press('Enter');
      await hostSend(page, { type: 'attachment_measured', kind: 'folder', path: 'src/components', tokens: 310 });
      await page.locator('textarea.input').fill('');
      await page.keyboard.type('/');
      await hostSend(page, { type: 'slash_commands', commands: SLASH });
      await settle(page);
      await page.screenshot({ path: join(RESULTS, `slash-menu-${theme}.png`) });
      await page.close();
    });
  }
});

describe('chat panel: syntax highlighting (highlight.js grammars, theme colours)', function () {
  const rig = usePanelHarness();

  const REPLY = [
    'TypeScript, Python, a diff and Haskell (loaded on demand):',
    '```ts',
    '// parse a range',
    'export function parseRange(spec: string): { start: number; end: number } {',
    '  const [a, b] = spec.split("-");',
    '  return { start: Number(a), end: b ? Number(b) : Infinity };',
    '}',
    '```',
    '```python',
    'def greet(name: str) -> str:',
    '    return f"hello {name}"  # greet',
    '```',
    '```diff',
    '-const x = 1;',
    '+const x = 2;',
    '```',
    '```haskell',
    'main :: IO ()',
    'main = putStrLn "hi"',
    '```',
    '```html',
    '<img src=x onerror="window.__xss=1"><script>window.__xss=2</script>',
    '```',
  ].join('\n');

  for (const theme of ['light', 'dark'] as Theme[]) {
    it(`colours code blocks by language, loads a rare grammar on demand, and keeps code as text (${theme})`, async function () {
      const page = await openPanel(rig.browser, rig.harness, { theme, height: 760 });
      const errors: string[] = [];
      page.on('pageerror', (e) => errors.push(e.message));
      await hostSend(page, { type: 'item_add', item: { kind: 'user', id: 'u1', text: 'show me code' } }, { type: 'assistant_delta', id: 'a1', text: REPLY }, { type: 'block_end', id: 'a1' });
      await settle(page);
      const blocks = page.locator('.item.assistant .code-block');
      assert.equal(await blocks.count(), 5);
      const ts = blocks.nth(0);
      // Highlighting happens once a block is on screen, in idle time.
      for (const i of [0, 1, 2]) {
        await blocks.nth(i).scrollIntoViewIfNeeded();
        await blocks.nth(i).locator('code.hljs').waitFor();
      }
      assert.ok((await ts.locator('.hljs-keyword').count()) >= 3);
      assert.equal(await ts.locator('.hljs-comment').textContent(), '// parse a range');
      assert.equal(await ts.locator('.hljs-title.function_').first().textContent(), 'parseRange');
      assert.ok((await blocks.nth(1).locator('.hljs-string').count()) >= 1);
      assert.equal(await blocks.nth(2).locator('.hljs-addition').textContent(), '+const x = 2;');
      // Theme colours, not a fixed palette: a keyword takes the theme's variable.
      const colours = await ts.locator('.hljs-keyword').first().evaluate((n) => [getComputedStyle(n).color, getComputedStyle(document.body).getPropertyValue('--vscode-debugTokenExpression-boolean').trim()]);
      assert.ok(colours[1], 'the harness theme defines the variable');
      // Haskell is not in the main bundle: its grammar arrives from dist/webview-languages.js.
      // Blocks below the fold are highlighted when they scroll into view.
      await blocks.nth(3).scrollIntoViewIfNeeded();
      await blocks.nth(3).locator('.hljs-string').waitFor({ timeout: 15_000 });
      assert.equal(await blocks.nth(3).locator('code').textContent(), 'main :: IO ()\nmain = putStrLn "hi"\n');
      // Markup inside a code block is coloured text, never elements.
      assert.equal(await blocks.nth(4).locator('img, script').count(), 0);
      assert.match((await blocks.nth(4).locator('code').textContent()) ?? '', /<img src=x onerror=/);
      assert.equal(await page.evaluate(() => (window as unknown as { __xss?: number }).__xss), undefined);
      assert.deepEqual(errors, []);
      mkdirSync(RESULTS, { recursive: true });
      await page.screenshot({ path: join(RESULTS, `code-highlight-${theme}.png`) });
      await page.close();
    });
  }
});
