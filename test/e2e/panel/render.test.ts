// A streamed reply with thinking, two tool cards and a code block renders
// correctly in real Chromium, in light and dark themes (screenshots saved).
import assert from 'node:assert/strict';
import { mkdirSync } from 'node:fs';
import { type Page } from 'playwright-core';
import { type HostToWebview } from '../../../src/webview/protocol';
import { diffStats } from '../../../src/webview/tool-view';
import { type Theme, eventually, hostPost, hostSend, openPanel, posted, settle, usePanelHarness } from './harness';

const REPLY = [
  'The failing test expects `parseRange` to accept an **open end**. ',
  'Here is the fix:\n\n',
  '```ts\nexport function parseRange(s: string): Range {\n',
  "  // \"10-\" means from line 10 to the end\n  const [a, b] = s.split('-');\n",
  '  return { start: Number(a), end: b ? Number(b) : Infinity };\n}\n```\n\n',
  'Then run the tests:\n\n1. `npm test`\n2. check [the docs](https://example.com/docs)\n',
];

/** Streams a whole turn in small pieces, rendering between some of them as a real stream would. */
async function streamTurn(page: Page): Promise<void> {
  const edit = diffStats('a\nb\nc\n', 'a\nB\nc\nd\n', 'src/range.ts');
  const steps: HostToWebview[][] = [
    [
      { type: 'session', session: { id: 's1', title: 'Fix parseRange open end', model: 'claude-sonnet-5-5' } },
      { type: 'turn', state: 'running' },
      { type: 'item_add', item: { kind: 'user', id: 'u1', text: 'Why does test/range.test.ts fail?', attachments: [{ kind: 'file', path: 'src/range.ts', label: 'range.ts' }] } },
    ],
    [{ type: 'thinking_delta', id: 'th1', text: 'The user asks about a failing test. ', stepId: 's1' }],
    [{ type: 'thinking_delta', id: 'th1', text: 'I should read the source first, then the test.' }],
    [{ type: 'block_end', id: 'th1', durationMs: 4000 }],
    [{ type: 'item_add', item: { kind: 'tool', id: 't1', stepId: 's1', name: 'read_file', status: 'running', view: { kind: 'read', path: 'src/range.ts', offset: 0, limit: 40 } } }],
    [{ type: 'tool_update', id: 't1', status: 'done', view: { kind: 'read', path: 'src/range.ts', offset: 0, limit: 40, lines: 40 } }],
    [{ type: 'item_add', item: { kind: 'tool', id: 't2', stepId: 's1', name: 'bash', status: 'running', view: { kind: 'bash', command: 'npm test -- range' } } }],
    [{ type: 'tool_output', id: 't2', chunk: '> mocha test/range.test.ts\n\n  parseRange\n' }],
    [{ type: 'tool_output', id: 't2', chunk: '    ✓ parses "3-7"\n    1) parses "10-"\n\n  1 passing\n  1 failing\n' }],
    [{ type: 'tool_update', id: 't2', status: 'error', view: { kind: 'bash', command: 'npm test -- range', output: '> mocha test/range.test.ts\n\n  parseRange\n    ✓ parses "3-7"\n    1) parses "10-"\n\n  1 passing\n  1 failing\n', exitCode: 1 } }],
    [{ type: 'item_add', item: { kind: 'tool', id: 't3', stepId: 's2', name: 'edit_file', status: 'done', view: { kind: 'edit', path: 'src/range.ts', ...edit } } }],
    ...REPLY.map((text): HostToWebview[] => [{ type: 'assistant_delta', id: 'a1', text, stepId: 's2' }]),
    [
      { type: 'block_end', id: 'a1' },
      { type: 'usage', usage: { inputTokens: 1_200, outputTokens: 345, cacheReadTokens: 10_800, cacheWriteTokens: 0, costUsd: 0.0123 } },
      { type: 'turn', state: 'idle' },
    ],
  ];
  for (const [i, step] of steps.entries()) {
    await hostSend(page, ...step);
    if (i % 3 === 0) await settle(page);
  }
  await settle(page);
}

describe('chat panel: streamed reply', function () {
  const rig = usePanelHarness();
  before(() => {
    mkdirSync('test-results', { recursive: true });
  });

  for (const theme of ['light', 'dark'] as Theme[]) {
    it(`renders thinking, tool cards, markdown and a highlighted code block (${theme})`, async function () {
      const page = await openPanel(rig.browser, rig.harness, { theme });
      const errors: string[] = [];
      page.on('pageerror', (e) => errors.push(e.message));
      page.on('console', (m) => m.type() === 'error' && errors.push(`${m.text()} (${m.location().url || 'no url'})`));
      await streamTurn(page);

      assert.equal(await page.locator('textarea.input').count(), 1);
      assert.equal(await page.locator('.header .title').textContent(), 'Fix parseRange open end');
      assert.equal((await page.locator('.composer-actions .model').textContent())?.trim(), 'Sonnet 5.5');
      assert.equal(await page.locator('.composer-actions .model').getAttribute('aria-label'), 'Model: claude-sonnet-5-5. Select model');

      // User message with its attachment chip.
      assert.equal(await page.locator('.item.user .bubble').textContent(), 'Why does test/range.test.ts fail?');
      assert.equal(await page.locator('.item.user .chip').textContent(), 'range.ts');

      // Thinking: one summary line, expandable to the text.
      const thinking = page.locator('.item.thinking');
      assert.match((await thinking.locator('summary').textContent()) ?? '', /^Thought for 4 s · 16 words$/);
      assert.equal(await thinking.locator('.thinking-text').isVisible(), false);
      await thinking.locator('summary').click();
      // The text is filled on the <details> toggle event, which fires after the click returns.
      const thought = await eventually(() => thinking.locator('.thinking-text').textContent(), (t) => /read the source first/.test(t ?? ''));
      assert.match(thought ?? '', /read the source first/);

      // Tool cards: icon per tool, path + range, command + output tail + exit code, +/- counts with a diff.
      const cards = page.locator('.item.tool');
      assert.equal(await cards.count(), 3);
      const read = cards.nth(0);
      assert.equal(await read.getAttribute('data-status'), 'done');
      assert.equal(await read.locator('.tool-icon .codicon-file').count(), 1);
      assert.equal(await read.locator('.tool-title .path').textContent(), 'src/range.ts');
      assert.equal(await read.locator('.tool-title .range').textContent(), 'L1–40');
      assert.equal(await read.locator('.tool-meta').textContent(), '40 lines');
      const bash = cards.nth(1);
      assert.equal(await bash.getAttribute('data-status'), 'error');
      assert.equal(await bash.locator('.tool-icon .codicon-terminal').count(), 1);
      assert.equal(await bash.locator('.tool-title code').textContent(), 'npm test -- range');
      assert.match((await bash.locator('pre.output').textContent()) ?? '', /1 failing$/);
      assert.equal(await bash.locator('.exit').textContent(), 'exit 1');
      const edit = cards.nth(2);
      assert.equal(await edit.locator('.codicon-edit').count(), 1);
      assert.equal(await edit.locator('.added').textContent(), '+2');
      assert.equal(await edit.locator('.removed').textContent(), '−1');
      await edit.locator('details.diff summary').click();
      assert.equal(await eventually(() => edit.locator('.dl.add').count(), (n) => n === 2), 2);
      assert.equal(await edit.locator('.dl.del').count(), 1);

      // Markdown: inline code, bold, list, link and a code block with copy button and highlighting.
      const md = page.locator('.item.assistant .markdown');
      assert.equal(await page.locator('.item.assistant').count(), 1);
      assert.equal(await md.locator('strong').textContent(), 'open end');
      assert.equal(await md.locator('ol > li').count(), 2);
      assert.equal(await md.locator('a').getAttribute('href'), 'https://example.com/docs');
      assert.equal(await md.locator('.code-block').count(), 1);
      assert.equal(await md.locator('.code-block .code-lang').textContent(), 'ts');
      assert.equal(await md.locator('.code-block button.copy').count(), 1);
      // Highlighting happens once the block is on screen, in idle time.
      await md.locator('.code-block .hljs-comment').waitFor();
      assert.ok((await md.locator('.code-block .hljs-keyword').count()) >= 3, 'keywords highlighted');
      assert.equal(await md.locator('.code-block .hljs-comment').textContent(), '// "10-" means from line 10 to the end');
      assert.match((await md.locator('.code-block code').textContent()) ?? '', /end: b \? Number\(b\) : Infinity/);
      assert.equal(await page.locator('.item.assistant.open').count(), 0);

      // Footer and turn state.
      assert.match((await page.locator('.usage').textContent()) ?? '', /12k.*345.*cache 90%.*\$0\.012/);
      assert.equal(await page.locator('button.stop').isVisible(), false);

      // The live region announced the finished reply once, not tokens.
      assert.match((await page.locator('[aria-live]').textContent()) ?? '', /^Turnstone: The failing test expects/);

      // Links go through the host.
      await md.locator('a').click();
      assert.deepEqual((await posted(page)).filter((m) => m.type === 'open_link'), [{ type: 'open_link', href: 'https://example.com/docs' }]);
      assert.equal(new URL(page.url()).pathname, '/harness.html');

      await page.locator('.transcript').evaluate((el) => (el.scrollTop = 0));
      await page.evaluate(() => document.fonts.ready);
      await page.screenshot({ path: `test-results/panel-${theme}.png` });
      assert.deepEqual(errors, []);
      await page.close();
    });
  }

  it('highlights a code block once it is seen: one a fast reply carried off screen waits until scrolled back to', async function () {
    const page = await openPanel(rig.browser, rig.harness);
    const filler = Array.from({ length: 80 }, (_, i) => `Paragraph ${i} of a long reply that pushes the code block far above the fold.`).join('\n\n');
    await hostSend(page,
      { type: 'turn', state: 'running' },
      { type: 'assistant_delta', id: 'a1', text: `\`\`\`ts\nexport const answer: number = 42; // the answer\n\`\`\`\n\n${filler}` },
      { type: 'block_end', id: 'a1' },
      { type: 'turn', state: 'idle' },
    );
    await settle(page);
    // Idle callbacks run in order: once this one has, the highlighter's own turn has come and gone.
    await page.evaluate(() => new Promise((resolve) => requestIdleCallback(() => requestIdleCallback(resolve))));
    assert.equal(await page.locator('.code-block code.hljs').count(), 0, 'a block never on screen is not highlighted');
    // As the user scrolls back (the wheel: scrolling by script would be pinned back to the bottom while following).
    await page.locator('.transcript').hover();
    const atTop = () => page.evaluate(() => document.querySelector('.transcript')!.scrollTop === 0);
    for (let i = 0; i < 100 && !(await atTop()); i++) await page.mouse.wheel(0, -2_000);
    await page.locator('.code-block .hljs-keyword').first().waitFor();
    assert.equal(await page.locator('.code-block .hljs-comment').textContent(), '// the answer');
    await page.close();
  });

  it('47.11: a code block that closes on screen mid-stream is coloured in place from the worker while the reply streams (inserted once, flat spans)', async function () {
    const page = await openPanel(rig.browser, rig.harness);
    await hostSend(page, { type: 'turn', state: 'running' }, { type: 'assistant_delta', id: 'a1', text: 'Here is the change:\n\n' });
    // Until an observer of our own has seen the reply's tail on screen: the panel's, watching it since it was made, has too.
    await page.evaluate(() => new Promise<void>((resolve) => {
      const seen = new IntersectionObserver((entries) => {
        if (entries.some((e) => e.isIntersecting)) {
          seen.disconnect();
          resolve();
        }
      });
      const wait = () => {
        const tail = document.querySelector('.item.assistant .md-tail');
        if (tail) seen.observe(tail);
        else requestAnimationFrame(wait);
      };
      wait();
    }));
    // Every code block frozen into the reply, as it is inserted.
    await page.evaluate(() => {
      const inserted: Element[] = ((window as unknown as { __inserted: Element[] }).__inserted = []);
      new MutationObserver((records) => {
        for (const r of records) for (const n of r.addedNodes) if (n instanceof HTMLElement && n.matches('.md-chunk')) inserted.push(...n.querySelectorAll('pre code'));
      }).observe(document.querySelector('.item.assistant .md-frozen')!, { childList: true });
    });
    await hostSend(page, { type: 'assistant_delta', id: 'a1', text: '```ts\nexport const answer: number = 42; // the answer\n```\n\nAnd then some more text' });
    // Coloured while the reply is still open: the block did not wait for the reply's end or for idle time.
    await page.locator('.item.assistant.open .md-frozen code.hljs .hljs-comment').waitFor();
    const block = await page.evaluate(() => {
      const inserted = (window as unknown as { __inserted: Element[] }).__inserted;
      const code = document.querySelector('.item.assistant .md-frozen code.hljs')!;
      return {
        inserted: inserted.length,
        same: inserted[0] === code,
        nested: code.querySelectorAll('span span').length,
        unstyled: code.querySelectorAll('span:not([class^="hljs-"])').length,
        // The on-demand bundle tokenises on this thread: a TypeScript block never needs it.
        extraLoaded: typeof (window as unknown as { __turnstoneTokenise?: unknown }).__turnstoneTokenise !== 'undefined',
      };
    });
    assert.deepEqual(block, { inserted: 1, same: true, nested: 0, unstyled: 0, extraLoaded: false });
    await hostSend(page, { type: 'assistant_delta', id: 'a1', text: ' while it streams.' }, { type: 'block_end', id: 'a1' }, { type: 'turn', state: 'idle' });
    await settle(page);
    assert.equal(await page.locator('.code-block .hljs-comment').textContent(), '// the answer');
    assert.equal(await page.locator('.code-block code').textContent(), 'export const answer: number = 42; // the answer\n');
    await page.close();
  });

  it('47.11: with no worker (none, or blocked), code is coloured on the panel\'s thread from the on-demand bundle, at close and when seen', async function () {
    const page = await openPanel(rig.browser, rig.harness, { beforeLoad: "Object.defineProperty(window, 'Worker', { value: undefined });" });
    const filler = Array.from({ length: 60 }, (_, i) => `Paragraph ${i} of a long reply.`).join('\n\n');
    await hostSend(page, { type: 'turn', state: 'running' }, { type: 'assistant_delta', id: 'a1', text: 'First:\n\n' });
    await page.locator('.item.assistant .md-tail').waitFor();
    await settle(page);
    // Closes on screen mid-stream (coloured in idle time on this thread), then one a fast reply carries away.
    await hostSend(page, { type: 'assistant_delta', id: 'a1', text: '```ts\nconst shown = 1; // on screen\n```\n\nThen ' });
    await settle(page);
    await hostSend(page, { type: 'assistant_delta', id: 'a1', text: `more.\n\n\`\`\`python\nprint("later")  # seen later\n\`\`\`\n\n${filler}` }, { type: 'block_end', id: 'a1' }, { type: 'turn', state: 'idle' });
    await page.locator('.code-block .hljs-comment', { hasText: '// on screen' }).waitFor();
    await page.locator('.transcript').hover();
    const atTop = () => page.evaluate(() => document.querySelector('.transcript')!.scrollTop === 0);
    for (let i = 0; i < 100 && !(await atTop()); i++) await page.mouse.wheel(0, -2_000);
    await page.locator('.code-block .hljs-comment', { hasText: '# seen later' }).waitFor();
    assert.equal(await page.evaluate(() => typeof (window as unknown as { __turnstoneTokenise?: unknown }).__turnstoneTokenise), 'function');
    await page.close();
  });

  it('47.11: a worker stuck on a block is replaced after its watchdog: that block stays plain, the blocks asked after it are coloured', async function () {
    // A stand-in for the browser's Worker (a grammar that never returns cannot be produced on purpose): from the batch
    // with the "stuck" block on, nothing is answered; before it, each block is answered as one keyword run.
    const page = await openPanel(rig.browser, rig.harness, {
      beforeLoad: `
      window.__workers = [];
      class StandIn {
        constructor() { this.onmessage = null; this.onerror = null; this.texts = []; this.stuck = false; this.terminated = false; window.__workers.push(this); }
        postMessage(batch) {
          this.texts.push(...batch.map((r) => r.text));
          // A worker works through its batches in order: once stuck, it answers nothing more.
          this.stuck = this.stuck || batch.some((r) => r.text.includes('stuck'));
          if (this.stuck) return;
          for (const r of batch) setTimeout(() => this.onmessage && this.onmessage({ data: { id: r.id, known: true, runs: { classes: ['hljs-keyword'], runs: [0, r.text.length] } } }), 0);
        }
        terminate() { this.terminated = true; }
      }
      Object.defineProperty(window, 'Worker', { value: StandIn });
    `,
    });
    await hostSend(page, { type: 'assistant_delta', id: 'a1', text: '```ts\nconst stuck = 1;\n```\n' }, { type: 'block_end', id: 'a1' });
    await page.waitForFunction(() => (window as unknown as { __workers: { texts: string[] }[] }).__workers.some((w) => w.texts.some((t) => t.includes('stuck'))));
    // Asked while the stuck batch waits: the same worker gets it, and it is asked again of the next one.
    await hostSend(page, { type: 'assistant_delta', id: 'a2', text: '```ts\nconst after = 2;\n```\n' }, { type: 'block_end', id: 'a2' });
    await page.locator('.item.assistant[data-id="a2"] code.hljs .hljs-keyword').waitFor({ timeout: 30_000 });
    const state = await page.evaluate(() => {
      const workers = (window as unknown as { __workers: { texts: string[]; terminated: boolean }[] }).__workers;
      const stuckIn = workers.find((w) => w.texts.some((t) => t.includes('stuck')))!;
      return {
        stuckWorkerTerminated: stuckIn.terminated,
        replaced: workers.indexOf(stuckIn) < workers.length - 1,
        // The later block was waiting behind the stuck one (asked 2 s before the watchdog could fire), then asked again.
        laterWaitedBehindIt: stuckIn.texts.some((t) => t.includes('after')),
        stuckAskedAgain: workers.slice(workers.indexOf(stuckIn) + 1).some((w) => w.texts.some((t) => t.includes('stuck'))),
        stuckPlain: !document.querySelector('.item.assistant[data-id="a1"] code')!.classList.contains('hljs'),
      };
    });
    assert.deepEqual(state, { stuckWorkerTerminated: true, replaced: true, laterWaitedBehindIt: true, stuckAskedAgain: false, stuckPlain: true });
    await page.close();
  });

  it('a reference link defined after the blocks that use it works once the streamed reply ends; a reply nested too deep for the lexer shows as text and the panel goes on', async function () {
    const page = await openPanel(rig.browser, rig.harness);
    const errors: string[] = [];
    page.on('pageerror', (e) => errors.push(e.message));
    await hostSend(page, { type: 'turn', state: 'running' }, { type: 'assistant_delta', id: 'a1', text: 'See [the docs][1] first.\n\n' });
    await settle(page);
    await hostSend(page, { type: 'assistant_delta', id: 'a1', text: 'More text.\n\n[1]: https://docs.example/guide\n' }, { type: 'block_end', id: 'a1' });
    const link = page.locator('.item.assistant[data-id="a1"] .markdown a');
    await link.waitFor();
    assert.equal(await link.getAttribute('href'), 'https://docs.example/guide');
    assert.equal(await link.textContent(), 'the docs');

    // marked's lexer recurses per level: thousands of nested quotes overflow its stack.
    const deep = `${'> '.repeat(6000)}deep`;
    await hostSend(page, { type: 'assistant_delta', id: 'a2', text: deep }, { type: 'block_end', id: 'a2' });
    await hostSend(page, { type: 'assistant_delta', id: 'a3', text: 'Still **drawing**.' }, { type: 'block_end', id: 'a3' }, { type: 'turn', state: 'idle' });
    await page.locator('.item.assistant[data-id="a3"] .markdown strong').waitFor();
    const shown = await page.locator('.item.assistant[data-id="a2"] .markdown').evaluate((md) => ({ text: md.textContent ?? '', elements: md.querySelectorAll('*').length }));
    assert.ok(shown.text.endsWith('> > deep'), shown.text.slice(-40));
    assert.ok(shown.elements < 10, `${shown.elements} elements for a reply shown as text`);
    assert.deepEqual(errors, []);
    await page.close();
  });

  it('shows reconnecting, errors with Retry, compaction, and drops a discarded step', async function () {
    const page = await openPanel(rig.browser, rig.harness);
    await hostSend(page,
      { type: 'turn', state: 'running' },
      { type: 'assistant_delta', id: 'a1', text: 'Partial answer that will be retri', stepId: 'step-1' },
      { type: 'item_add', item: { kind: 'tool', id: 't1', stepId: 'step-1', name: 'glob_search', status: 'running', view: { kind: 'search', mode: 'glob', pattern: '**/*.ts' } } },
      { type: 'reconnecting', attempt: 2, maxAttempts: 5, reason: 'overloaded' },
    );
    await settle(page);
    assert.match((await page.locator('.status').textContent()) ?? '', /Retrying… · attempt 2 of 5/);
    assert.equal(await page.locator('.item.assistant').count(), 1);
    await hostSend(page, { type: 'step_discarded', stepId: 'step-1' });
    await settle(page);
    assert.equal(await page.locator('.item.assistant').count(), 0);
    assert.equal(await page.locator('.item.tool').count(), 0);
    await hostSend(page,
      { type: 'assistant_delta', id: 'a2', text: 'Fresh answer.', stepId: 'step-1b' },
      { type: 'item_add', item: { kind: 'tool', id: 't2', name: 'grep_search', status: 'done', view: { kind: 'search', mode: 'grep', pattern: 'TODO', matches: 12, files: 3 } } },
      { type: 'item_add', item: { kind: 'compaction', id: 'c1', tokensBefore: 120_000, tokensAfter: 12_000, messagesRemoved: 30 } },
      { type: 'item_add', item: { kind: 'error', id: 'e1', message: 'The API rejected the request: overloaded', errorKind: 'retryable', retryable: true } },
      { type: 'turn', state: 'idle' },
    );
    await settle(page);
    assert.equal(await page.locator('.status').textContent(), '', 'reconnecting cleared by new content');
    assert.equal((await page.locator('.item.assistant .markdown').textContent())?.trim(), 'Fresh answer.');
    assert.equal(await page.locator('.item.tool .tool-meta').textContent(), '12 matches · 3 files');
    assert.equal(await page.locator('.item.tool .codicon-search').count(), 1);
    assert.match((await page.locator('.item.compaction').textContent()) ?? '', /Context compacted · 120\u202f000 → 12\u202f000 tokens · 30 messages summarised/);
    await page.locator('.item.error button').click();
    assert.deepEqual((await posted(page)).filter((m) => m.type === 'retry'), [{ type: 'retry', itemId: 'e1' }]);
    await page.close();
  });

  it('drops malformed host messages and logs them to the host', async function () {
    const page = await openPanel(rig.browser, rig.harness);
    await hostPost(page, { type: 'item_add', item: { kind: 'permission', id: 'p1' } }, { type: 'nope' }, 'garbage', null);
    await hostSend(page, { type: 'item_add', item: { kind: 'user', id: 'u1', text: 'still alive' } });
    await settle(page);
    assert.equal(await page.locator('.item').count(), 1);
    assert.equal(await page.locator('.item.permission').count(), 0);
    const logs = (await posted(page)).filter((m) => m.type === 'log');
    assert.equal(logs.length, 4);
    await page.close();
  });

  it('notices carry actions; header buttons post commands', async function () {
    const page = await openPanel(rig.browser, rig.harness);
    await hostSend(page, {
      type: 'notices',
      notices: [
        { id: 'n1', kind: 'restricted', text: 'Restricted Mode: Turnstone can only read and search.', actions: [{ id: 'trust', label: 'Manage Workspace Trust' }] },
        { id: 'n2', kind: 'no_api_key', text: 'No API key set.', actions: [{ id: 'setKey', label: 'Set API Key' }] },
      ],
    });
    await settle(page);
    assert.equal(await page.locator('.notice').count(), 2);
    await page.getByRole('button', { name: 'Set API Key' }).click();
    await page.locator('.composer-actions .model').click();
    // New session and history are in the view's title bar only (issue 19: one set of header buttons).
    assert.equal(await page.locator('.header .history, .header .new-session').count(), 0);
    const msgs = (await posted(page)).filter((m) => m.type !== 'ready');
    assert.deepEqual(msgs, [
      { type: 'notice_action', noticeId: 'n2', actionId: 'setKey' },
      { type: 'select_model' },
    ]);
    await page.close();
  });
});
