// Model output is hostile: the XSS corpus streamed as assistant markdown must
// execute nothing, navigate nowhere, fetch nothing and fake no controls.
// Run without the CSP (the markdown DOM builder alone must hold) and with it.
import assert from 'node:assert/strict';
import { type Page } from 'playwright-core';
import { CANARY, XSS_CORPUS } from '../../fixtures/xss-corpus';
import { recordScenario } from '../../reliability/report';
import { hostSend, openPanel, posted, settle, usePanelHarness } from './harness';

const SAFE_HREF = /^(https?:|mailto:)/i;

async function streamCorpus(page: Page): Promise<void> {
  for (const [i, payload] of XSS_CORPUS.entries()) {
    const id = `a${i}`;
    // Odd-sized chunks so payloads are cut at every kind of boundary while the tail re-renders.
    for (let at = 0; at < payload.length; at += 7) {
      await hostSend(page, { type: 'assistant_delta', id, text: payload.slice(at, at + 7) });
      if (at % 21 === 0) await settle(page);
    }
    await hostSend(page, { type: 'block_end', id });
  }
  // One block holding the whole corpus, rendered as a single document.
  await hostSend(page, { type: 'assistant_delta', id: 'all', text: XSS_CORPUS.join('\n\n') }, { type: 'block_end', id: 'all' });
  await settle(page);
}

describe('chat panel: hostile model output', function () {
  before(() => {
    assert.ok(XSS_CORPUS.length >= 30);
  });
  const rig = usePanelHarness();

  it("the product's CSP blocks inline script and handlers in HTML that got past the markdown builder", async function () {
    const page = await openPanel(rig.browser, rig.harness, { csp: true });
    // The policy in force is the one the product rendered (src/webview/panel-html.ts).
    const policy = await page.evaluate(() => document.querySelector('meta[http-equiv="Content-Security-Policy"]')?.getAttribute('content') ?? null);
    assert.ok(policy, 'the panel HTML carries no CSP meta tag');
    assert.match(policy, /default-src 'none'/);
    assert.match(policy, /script-src 'nonce-[^' ]+'(;|$)/);
    assert.doesNotMatch(policy, /unsafe-inline|unsafe-eval/);

    // Raw HTML straight into the DOM, as if it had got past the markdown builder.
    await page.evaluate(() => {
      const w = window as unknown as { __violations: string[] };
      w.__violations = [];
      document.addEventListener('securitypolicyviolation', (e) => w.__violations.push(e.effectiveDirective));
      const host = document.createElement('div');
      document.body.append(host);
      host.innerHTML =
        '<img src="/dist/no-such-image.png" onerror="window.__cspCanary = \'onerror\'">' +
        '<div id="csp-click" onclick="window.__cspCanary = \'onclick\'">x</div>';
      (document.getElementById('csp-click') as HTMLElement).click();
      const script = document.createElement('script');
      script.textContent = "window.__cspCanary = 'inline-script'";
      document.body.append(script);
    });
    // Three payloads, three reports: wait for them (or for a payload that ran).
    await page
      .waitForFunction(() => {
        const w = window as unknown as { __violations: string[]; __cspCanary?: string };
        return w.__cspCanary !== undefined || w.__violations.length >= 3;
      }, undefined, { timeout: 20_000 })
      .catch(() => undefined);
    const { canary, violations } = await page.evaluate(() => {
      const w = window as unknown as { __violations: string[]; __cspCanary?: string };
      return { canary: w.__cspCanary ?? null, violations: [...w.__violations].sort() };
    });
    assert.equal(canary, null, `a payload ran: ${canary}`);
    assert.deepEqual(violations, ['script-src-attr', 'script-src-attr', 'script-src-elem']);
    await page.close();
  });

  for (const csp of [false, true]) {
    it(`renders the XSS corpus inert (${csp ? 'with' : 'without'} CSP)`, async function () {
      const page = await openPanel(rig.browser, rig.harness, { csp });
      const dialogs: string[] = [];
      const navigations: string[] = [];
      const foreign: string[] = [];
      page.on('dialog', (d) => {
        dialogs.push(d.message());
        void d.dismiss();
      });
      page.on('framenavigated', (f) => navigations.push(f.url()));
      page.on('request', (r) => !r.url().startsWith(rig.harness.origin) && foreign.push(r.url()));
      const startUrl = page.url();

      await streamCorpus(page);
      // Give anything delayed (onload, autofocus, animations) a chance to fire.
      await page.mouse.move(200, 300);
      await page.evaluate(() => new Promise((r) => setTimeout(r, 300)));

      const report = await page.evaluate((canary) => {
        const all = [...document.querySelectorAll('*')];
        const md = [...document.querySelectorAll('.markdown .md-chunk *, .markdown .md-tail *')];
        return {
          canary: (window as unknown as Record<string, unknown>)[canary],
          onAttrs: all.flatMap((el) => [...el.attributes].filter((a) => /^on/i.test(a.name)).map((a) => `${el.tagName}[${a.name}]`)),
          hrefs: [...document.querySelectorAll('[href], [src], [action], [xlink\\:href], [formaction]')]
            .filter((el) => el.closest('.markdown'))
            .map((el) => el.getAttribute('href') ?? el.getAttribute('src') ?? el.getAttribute('action') ?? '?'),
          forbidden: md.filter((el) => /^(SCRIPT|STYLE|SVG|MATH|FORM|INPUT|TEXTAREA|SELECT|IMG|IFRAME|OBJECT|EMBED|VIDEO|AUDIO|META|BASE|LINK|TEMPLATE|DETAILS|MARQUEE|NOSCRIPT)$/i.test(el.tagName)).map((el) => el.tagName),
          buttons: md.filter((el) => el.tagName === 'BUTTON' && !el.classList.contains('copy')).length,
          styled: md.filter((el) => el.hasAttribute('style') || el.hasAttribute('id') || el.hasAttribute('name')).length,
          classes: md.filter((el) => el.hasAttribute('class') && !(el.closest('.code-block'))).map((el) => el.className),
          dataAttrs: md.filter((el) => [...el.attributes].some((a) => a.name.startsWith('data-'))).length,
          permissionCards: document.querySelectorAll('.item.permission, .perm-allow, .perm-deny').length,
          frames: window.frames.length,
          appIsMain: document.getElementById('app')?.tagName,
          postedIsArray: Array.isArray((window as unknown as { __posted: unknown }).__posted),
          blocks: document.querySelectorAll('.item.assistant').length,
        };
      }, CANARY);

      // Clicking every link only asks the host to open safe URLs; the page never navigates.
      const links = page.locator('.markdown a');
      const count = await links.count();
      // A DOM click on each link (what the panel's handler and the browser's default action see): a pointer click
      // needs a still layout, and items sized lazily as they scroll into view moved links under the pointer on a busy machine.
      for (let i = 0; i < count; i++) await links.nth(i).dispatchEvent('click', { bubbles: true, cancelable: true, ctrlKey: i % 2 === 1, button: 0 });
      const opened = (await posted(page)).filter((m) => m.type === 'open_link');
      const canaryAfterClicks = await page.evaluate((c) => (window as unknown as Record<string, unknown>)[c], CANARY);
      const decisions = (await posted(page)).filter((m) => m.type === 'permission_decision');
      const unsafeHrefs = report.hrefs.filter((h) => !SAFE_HREF.test(h)).length + opened.filter((m) => !SAFE_HREF.test(m.href)).length;
      const passed =
        report.canary === undefined && canaryAfterClicks === undefined && dialogs.length === 0 && navigations.every((u) => u === startUrl) && page.url() === startUrl &&
        foreign.length === 0 && report.onAttrs.length === 0 && unsafeHrefs === 0 && report.forbidden.length === 0 && report.buttons === 0 && report.styled === 0 &&
        report.classes.length === 0 && report.dataAttrs === 0 && report.permissionCards === 0 && report.frames === 0 && decisions.length === 0 &&
        page.context().pages().length === 1 && report.blocks === XSS_CORPUS.length + 1;
      recordScenario({
        id: csp ? 'A-WEB-XSS-02' : 'A-WEB-XSS-01',
        area: 'webview',
        scenario: `the XSS corpus (${XSS_CORPUS.length} payloads) streamed as model markdown into the panel in 7-char chunks, then as one document, ${csp ? 'with' : 'without'} the CSP; every resulting link clicked`,
        expected: 'nothing runs, navigates, fetches or opens; no handlers, forbidden tags, styles, buttons or fake permission cards; only http(s)/mailto links',
        observed: `${XSS_CORPUS.length} payloads, ${report.blocks} blocks rendered; canary ${report.canary === undefined && canaryAfterClicks === undefined ? 'unset' : 'SET'}; ${dialogs.length} dialogs, ${foreign.length} foreign requests, ${navigations.filter((u) => u !== startUrl).length} navigations; ${report.onAttrs.length} on* attrs, ${report.forbidden.length} forbidden tags, ${unsafeHrefs} unsafe hrefs; ${count} links clicked → ${opened.length} open_link, ${decisions.length} permission decisions`,
        passed,
      });

      assert.equal(report.canary, undefined, 'canary set: a payload ran');
      assert.deepEqual(dialogs, []);
      assert.deepEqual(navigations.filter((u) => u !== startUrl), []);
      assert.equal(page.url(), startUrl);
      assert.deepEqual(foreign, []);
      assert.deepEqual(report.onAttrs, []);
      for (const href of report.hrefs) assert.match(href, SAFE_HREF, `unsafe link target ${href}`);
      assert.deepEqual(report.forbidden, []);
      assert.equal(report.buttons, 0, 'buttons from markdown');
      assert.equal(report.styled, 0, 'style/id/name attributes from markdown');
      assert.deepEqual(report.classes, [], 'class attributes from markdown');
      assert.equal(report.dataAttrs, 0);
      assert.equal(report.permissionCards, 0, 'fake permission UI');
      assert.equal(report.frames, 0);
      assert.equal(report.appIsMain, 'MAIN');
      assert.equal(report.postedIsArray, true);
      assert.equal(report.blocks, XSS_CORPUS.length + 1);

      for (const m of opened) assert.match(m.href, SAFE_HREF);
      assert.ok(opened.some((m) => m.href === 'https://evil.example/allow'), 'a plain link is still a link');
      assert.equal(page.url(), startUrl);
      assert.equal(canaryAfterClicks, undefined);
      assert.equal(page.context().pages().length, 1, 'no popups');
      assert.deepEqual(decisions, []);
      await page.close();
    });
  }
});
