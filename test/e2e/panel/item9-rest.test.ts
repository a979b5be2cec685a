// Issue 47 item 9, the rest, in real Chromium with the strict CSP at the default 300-px width (one page for all):
// a subagent's name shown whole ("explore", never "explo"); long URLs kept inside their cards (web_fetch and
// browser titles end in an ellipsis with the whole URL in the tooltip and the card's name; links in markdown,
// tables included, wrap); a finished plan folds to one line once the next turn starts (and opens again by click
// or keyboard, with aria-expanded); a draft stays with the session it was typed in (a fork's words are not in the
// composer of the session resumed after it, come back with the fork, and survive a reload).
import assert from 'node:assert/strict';
import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { type Locator, type Page } from 'playwright-core';
import { type PanelSnapshot, type PlanTodo } from '../../../src/webview/protocol';
import { toolViewFromInput } from '../../../src/webview/tool-view';
import { clearPosted, eventually, hostSend, openPanel, posted, settle, usePanelHarness } from './harness';

const OUT = join(__dirname, '../../../test-results');
const URL_LONG = 'https://example.com/a/very/long/path/that/does/not/break/anywhere/because/it/has/no/spaces/index.html?query=somethingverylongandunbroken&x=1';

const session = (id: string, title: string): PanelSnapshot => ({ items: [], turn: 'idle', notices: [], queued: [], session: { id, title, model: 'claude-sonnet-5-5' } });

interface Box {
  left: number;
  right: number;
  top: number;
  bottom: number;
}

/** Every line box of `inner` (a link wraps over several) within `outer`'s box. */
async function inside(inner: Locator, outer: Locator): Promise<{ ok: boolean; inner: Box[]; outer: Box }> {
  await inner.scrollIntoViewIfNeeded();
  const outerBox = await outer.evaluate((e) => {
    const r = e.getBoundingClientRect();
    return { left: r.left, right: r.right, top: r.top, bottom: r.bottom };
  });
  const rects = await inner.evaluate((e) => [...e.getClientRects()].map((r) => ({ left: r.left, right: r.right, top: r.top, bottom: r.bottom })));
  return { ok: rects.length > 0 && rects.every((r) => r.left >= outerBox.left - 0.5 && r.right <= outerBox.right + 0.5), inner: rects, outer: outerBox };
}

const notScrolling = (l: Locator) => l.evaluate((e) => ({ scroll: e.scrollWidth, client: e.clientWidth }));

async function shot(page: Page, name: string, target?: Locator): Promise<void> {
  mkdirSync(OUT, { recursive: true });
  if (target) await target.screenshot({ path: join(OUT, name) });
  else await page.screenshot({ path: join(OUT, name) });
}

describe('chat panel: issue 47 item 9, the rest (names, URLs, the finished plan, drafts per session) at 300 px', function () {
  this.timeout(120_000);
  const rig = usePanelHarness();

  it('explore whole, URLs inside their cards, a finished plan folds on the next turn, drafts stay with their session', async () => {
    const page = await openPanel(rig.browser, rig.harness, { width: 300, height: 1400 });
    await hostSend(page, { type: 'restore', snapshot: session('s-main', 'Look around') });

    // 1. A subagent's name whole, even with long counts and a running clock beside it.
    await hostSend(
      page,
      { type: 'turn', state: 'running' },
      { type: 'item_add', item: { kind: 'user', id: 'u1', text: `look around and read ${URL_LONG}` } },
      {
        type: 'item_add',
        item: {
          kind: 'tool', id: 'ag1', name: 'agent', status: 'running',
          view: { kind: 'agent', agent: 'explore', description: 'Find the greeting code', toolUses: 12, tokens: 34_567, elapsedMs: 65_000, steps: [{ id: 'st1', summary: `web_fetch ${URL_LONG}`, status: 'done' }] },
        },
      },
      { type: 'item_add', item: { kind: 'tool', id: 'ag2', name: 'agent', status: 'done', view: { kind: 'agent', agent: 'general', description: 'Check the tests', toolUses: 123, tokens: 1_234_567, elapsedMs: 3_725_000 } } },
    );
    await settle(page);
    for (const [id, name] of [['ag1', 'explore'], ['ag2', 'general']] as const) {
      const card = page.locator(`article.item.tool[data-id="${id}"]`);
      const label = card.locator('.agent-name');
      assert.equal(await label.innerText(), name);
      assert.equal(await label.getAttribute('title'), name);
      const fit = await notScrolling(label);
      assert.ok(fit.scroll <= fit.client, `the name "${name}" is not cut: ${JSON.stringify(fit)}`);
      for (const part of ['.tool-title', '.tool-meta', '.tool-status']) {
        const box = await inside(card.locator(part), card);
        assert.ok(box.ok, `${id} ${part} inside its card: ${JSON.stringify(box)}`);
      }
      const meta = await notScrolling(card.locator('.tool-meta'));
      assert.ok(meta.scroll <= meta.client, `${id}: its counts are whole too: ${JSON.stringify(meta)}`);
    }
    await shot(page, 'item9-explore-300.png', page.locator('article.item.tool[data-id="ag1"]'));

    // 2. Long URLs: web_fetch and browser titles end in an ellipsis (the whole URL in the tooltip and the name);
    // the browser card's page URL, a subagent's step, and links in markdown (paragraph, list, table) stay inside.
    await hostSend(
      page,
      { type: 'item_add', item: { kind: 'tool', id: 'f1', name: 'web_fetch', status: 'done', view: toolViewFromInput('web_fetch', { url: URL_LONG }) } },
      { type: 'item_add', item: { kind: 'tool', id: 'b1', name: 'browser', status: 'done', view: { kind: 'browser', action: 'navigate', url: URL_LONG, page: URL_LONG } } },
      {
        type: 'item_add',
        item: { kind: 'assistant', id: 'a1', text: `See [the docs](${URL_LONG}) and <${URL_LONG}>.\n\n- ${URL_LONG}\n\n| where | what |\n|---|---|\n| ${URL_LONG} | the page |\n` },
      },
    );
    await settle(page);
    for (const id of ['f1', 'b1']) {
      const card = page.locator(`article.item.tool[data-id="${id}"]`);
      const url = card.locator('.tool-title code.url');
      assert.equal(await url.getAttribute('title'), URL_LONG);
      assert.equal(await url.evaluate((e) => getComputedStyle(e).textOverflow), 'ellipsis');
      const box = await inside(url, card);
      assert.ok(box.ok, `${id}: the URL stays inside its card: ${JSON.stringify(box)}`);
      assert.ok(((await card.getAttribute('aria-label')) ?? '').includes(URL_LONG), `${id}: the card's name has the whole URL`);
      const header = await notScrolling(card.locator('.tool-header'));
      assert.ok(header.scroll <= header.client, `${id}: nothing runs past the header: ${JSON.stringify(header)}`);
    }
    const action = await notScrolling(page.locator('article.item.tool[data-id="b1"] .browser-action'));
    assert.ok(action.scroll <= action.client, `the browser's action is whole ("navigate", not "n"): ${JSON.stringify(action)}`);
    const pageUrl = await inside(page.locator('article.item.tool[data-id="b1"] .browser-page code'), page.locator('article.item.tool[data-id="b1"]'));
    assert.ok(pageUrl.ok, `the browser's page URL wraps inside the card: ${JSON.stringify(pageUrl)}`);
    const agent = page.locator('article.item.tool[data-id="ag1"]');
    await agent.locator('.agent-details > summary').click();
    const step = agent.locator('.agent-step').first();
    assert.equal(await step.getAttribute('title'), `web_fetch ${URL_LONG}`);
    assert.ok((await inside(step, agent)).ok, 'a step with a URL stays inside the subagent card');
    const answer = page.locator('article.item.assistant[data-id="a1"]');
    const links = answer.locator('a');
    assert.equal(await links.count(), 4);
    for (let i = 0; i < 4; i++) {
      const box = await inside(links.nth(i), answer);
      assert.ok(box.ok, `link ${i} wraps inside the answer: ${JSON.stringify(box)}`);
    }
    const table = await notScrolling(answer.locator('table'));
    assert.ok(table.scroll <= table.client, `the table does not run sideways for a URL: ${JSON.stringify(table)}`);
    const transcriptWidth = await notScrolling(page.locator('.transcript'));
    assert.ok(transcriptWidth.scroll <= transcriptWidth.client, `nothing runs past the panel: ${JSON.stringify(transcriptWidth)}`);
    await answer.scrollIntoViewIfNeeded();
    await shot(page, 'item9-urls-300.png');

    // 3. A finished plan stays open while its turn lasts, and folds to one line when the next turn starts.
    const todos: PlanTodo[] = Array.from({ length: 5 }, (_, i) => ({ content: `Step ${i + 1}`, activeForm: `Doing step ${i + 1}`, status: 'completed' }));
    await hostSend(
      page,
      { type: 'item_add', item: { kind: 'tool', id: 'p1', name: 'todo_write', status: 'done', view: toolViewFromInput('todo_write', { todos }) } },
      { type: 'plan', todos },
      { type: 'item_add', item: { kind: 'user', id: 'u-steer', text: 'and the README too', delivery: 'steer' } },
      { type: 'turn', state: 'idle' },
    );
    await settle(page);
    const plan = page.locator('details.plan');
    const summary = plan.locator('summary');
    assert.equal(await plan.getAttribute('open'), '', 'finished, in the turn that finished it (a steered message is no next turn): still open');
    assert.equal(await summary.getAttribute('aria-expanded'), 'true');
    await hostSend(page, { type: 'turn', state: 'running' }, { type: 'item_add', item: { kind: 'user', id: 'u2', text: 'something else now' } });
    await page.locator('details.plan:not([open])').waitFor({ state: 'attached' });
    assert.equal(await summary.getAttribute('aria-expanded'), 'false');
    assert.equal(await summary.getAttribute('aria-label'), 'Plan, 5 of 5 done');
    const [planBox, summaryBox] = await Promise.all([plan.boundingBox(), summary.boundingBox()]);
    assert.ok(planBox && summaryBox && planBox.height <= summaryBox.height + 2 && summaryBox.height < 30, `one line: ${JSON.stringify({ planBox, summaryBox })}`);
    assert.equal(await plan.locator('.plan-list').isVisible(), false);
    await shot(page, 'item9-plan-folded-300.png', page.locator('#app'));
    // Opened again by click, it stays open through later events; Enter on the summary folds it again.
    await summary.click();
    await page.locator('details.plan[open]').waitFor({ state: 'attached' });
    await eventually(() => summary.getAttribute('aria-expanded'), (v) => v === 'true');
    assert.equal(await summary.getAttribute('aria-expanded'), 'true');
    await hostSend(page, { type: 'usage', usage: { inputTokens: 10, outputTokens: 2, cacheReadTokens: 0, cacheWriteTokens: 0 } }, { type: 'item_add', item: { kind: 'assistant', id: 'a2', text: 'ok' } }, { type: 'turn', state: 'idle' });
    await settle(page);
    assert.equal(await plan.getAttribute('open'), '', 'the user opened it: later events leave it open');
    await summary.focus();
    await page.keyboard.press('Enter');
    await page.locator('details.plan:not([open])').waitFor({ state: 'attached' });
    await eventually(() => summary.getAttribute('aria-expanded'), (v) => v === 'false');
    assert.equal(await summary.getAttribute('aria-expanded'), 'false');
    await page.keyboard.press('Enter');
    await page.locator('details.plan[open]').waitFor({ state: 'attached' });
    // A resumed session whose finished plan was outlived opens with it folded; one finished in its last turn, open.
    await hostSend(page, { type: 'restore', snapshot: { ...session('s-old', 'Old work'), plan: todos, items: [{ kind: 'user', id: 'o1', text: 'plan it' }, { kind: 'tool', id: 'op', name: 'todo_write', status: 'done', view: toolViewFromInput('todo_write', { todos }) }, { kind: 'user', id: 'o2', text: 'other things' }] } });
    await page.locator('details.plan:not([open])').waitFor({ state: 'attached' });
    await hostSend(page, { type: 'restore', snapshot: { ...session('s-old2', 'Older work'), plan: todos, items: [{ kind: 'user', id: 'o1', text: 'plan it' }, { kind: 'tool', id: 'op', name: 'todo_write', status: 'done', view: toolViewFromInput('todo_write', { todos }) }] } });
    await page.locator('details.plan[open]').waitFor({ state: 'attached' });

    // 4. Drafts stay with their session: the fork's words leave with the fork and come back with it.
    const input = page.locator('textarea.input');
    await hostSend(page, { type: 'restore', snapshot: session('fork-1', 'Fork of Look around') });
    await input.fill('only for the fork');
    // The answer to `ready` (or the view shown again) brings the same session: the draft stays.
    await hostSend(page, { type: 'restore', snapshot: session('fork-1', 'Fork of Look around') });
    assert.equal(await input.inputValue(), 'only for the fork');
    await hostSend(page, { type: 'restore', snapshot: session('s-main', 'Look around') });
    assert.equal(await input.inputValue(), '', 'the resumed session does not get the fork\'s draft');
    await clearPosted(page);
    await input.press('Enter');
    assert.deepEqual((await posted(page)).filter((m) => m.type === 'send'), [], 'Enter sends nothing to the other session');
    await shot(page, 'item9-drafts-other-session-300.png', page.locator('#app'));
    await input.fill('words for the main session');
    await hostSend(page, { type: 'restore', snapshot: session('fork-1', 'Fork of Look around') });
    assert.equal(await input.inputValue(), 'only for the fork', 'the fork gets its own draft back');
    await shot(page, 'item9-drafts-fork-again-300.png', page.locator('#app'));
    // Kept in the webview's saved state: a reload (the view hidden and shown) keeps both.
    await page.reload();
    await page.waitForFunction(() => (window as unknown as { __posted: { type: string }[] }).__posted.some((m) => m.type === 'ready'));
    assert.equal(await input.inputValue(), 'only for the fork');
    await hostSend(page, { type: 'restore', snapshot: session('s-main', 'Look around') });
    assert.equal(await input.inputValue(), 'words for the main session');
    await clearPosted(page);
    await input.press('Enter');
    const sends = (await posted(page)).filter((m) => m.type === 'send');
    assert.deepEqual(sends.map((m) => (m.type === 'send' ? m.text : '')), ['words for the main session']);
    await page.close();
  });
});
