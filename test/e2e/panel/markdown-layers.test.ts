// One test per layer of the panel's markdown sanitiser (src/webview/ui/markdown.ts),
// each with the other layers out of the way: end to end, the layers mask each
// other (DOMPurify would strip raw HTML that escaping let through, and so on),
// so turning any single one off was caught by nothing. Runs the real module,
// bundled from source, in real Chromium (DOMPurify needs a real DOM).
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { build } from 'esbuild';
import { inlineWorker } from '../../../scripts/inline-worker.mjs';
import { type Browser, type Page } from 'playwright-core';
import { launchChromium } from './harness';

const ROOT = join(__dirname, '..', '..', '..');

interface Layers {
  /** marked with the product's renderer; no sanitiser. */
  html(src: string): string;
  /** DOMPurify with the product's config and hooks, on arbitrary HTML (no marked, no escaping); returns the resulting HTML. */
  sanitized(html: string): string;
}

describe('chat panel: markdown sanitiser, layer by layer', function () {
  let browser: Browser;
  let page: Page;

  before(async function () {
    const bundle = await build({
      stdin: {
        contents: `import { markdownToHtml, sanitizeHtml } from './src/webview/ui/markdown';
window.__layers = {
  html: markdownToHtml,
  sanitized: (html) => { const d = document.createElement('div'); d.append(sanitizeHtml(html)); return d.innerHTML; },
};`,
        resolveDir: ROOT,
        loader: 'ts',
      },
      bundle: true,
      write: false,
      format: 'iife',
      platform: 'browser',
      plugins: [inlineWorker()],
      logLevel: 'silent',
    });
    browser = await launchChromium();
    page = await browser.newPage();
    await page.setContent('<!DOCTYPE html><html><head><meta charset="UTF-8"></head><body></body></html>');
    await page.addScriptTag({ content: bundle.outputFiles[0]!.text });
  });
  after(async function () {
    await browser?.close();
  });

  const html = (src: string) => page.evaluate((s) => (window as unknown as { __layers: Layers }).__layers.html(s), src);
  const sanitized = (s: string) => page.evaluate((h) => (window as unknown as { __layers: Layers }).__layers.sanitized(h), s);

  it('layer 1, raw HTML escaping: HTML in model text leaves marked as visible text, before any sanitiser', async function () {
    const out = await html('Hi <b>bold</b> <img src=x onerror="alert(1)">\n\n<div onclick="alert(2)">block</div>\n\n<script>alert(3)</script>\n');
    assert.doesNotMatch(out, /<(b|img|div|script)\b/i, `raw HTML passed through marked: ${out}`);
    assert.match(out, /&#60;b&#62;bold&#60;\/b&#62;/);
    assert.match(out, /&#60;script&#62;alert\(3\)&#60;\/script&#62;/);
  });

  it('layer 1, images: a markdown image becomes a link, never an <img> that would load remote content', async function () {
    const out = await html('![tracking pixel](https://evil.example/p.png)');
    assert.doesNotMatch(out, /<img\b/i, out);
    assert.match(out, /<a href="https:\/\/evil\.example\/p\.png">image: tracking pixel<\/a>/);
  });

  it('layer 2, DOMPurify allow-list: forbidden tags and attributes go, whatever produced the HTML', async function () {
    const out = await sanitized(
      '<form action="https://evil.example"><button>Allow</button><input value="x"><textarea>t</textarea><select></select></form>' +
        '<img src="https://evil.example/i.png"><svg><circle r="1"></circle></svg><math><mi>x</mi></math><style>*{}</style>' +
        '<iframe src="https://evil.example"></iframe><object data="x"></object><embed src="x"><link rel="stylesheet" href="x"><meta http-equiv="refresh" content="0"><base href="https://evil.example/">' +
        '<p style="color:red" id="app" name="n" data-x="1" aria-label="fake" title="kept" onclick="alert(1)">para</p>' +
        '<a href="javascript:alert(1)" target="_blank">js</a><a href="data:text/html,x">data</a><span>span</span>',
    );
    assert.doesNotMatch(out, /<(form|button|input|textarea|select|img|svg|math|style|iframe|object|embed|link|meta|base|span)\b/i, out);
    assert.doesNotMatch(out, /\s(style|id|name|data-x|aria-label|onclick|target|src|action)=/i, out);
    assert.doesNotMatch(out, /javascript:|data:/i, out);
    assert.match(out, /<p title="kept">para<\/p>/);
  });

  it('layer 3, class filter: only language-* on <code> keeps a class (no panel classes from model HTML)', async function () {
    const out = await sanitized('<p class="perm-allow item permission">p</p><code class="language-ts">a</code><code class="language-x y">b</code><code class="perm-deny">c</code><pre class="code-block">d</pre>');
    assert.equal(out, '<p>p</p><code class="language-ts">a</code><code>b</code><code>c</code><pre>d</pre>');
  });

  it('layer 4, link filter: a href DOMPurify lets through but that is no valid http(s)/mailto URL is dropped; kept links get rel=noopener', async function () {
    // `https:` and `http://` pass DOMPurify's scheme regex but are no URL (no host).
    const out = await sanitized('<a href="https:">a</a><a href="http://">b</a><a href="https://ok.example/x">c</a><a href="mailto:me@example.com">d</a>');
    assert.equal(
      out,
      '<a>a</a><a>b</a><a href="https://ok.example/x" rel="noopener noreferrer">c</a><a href="mailto:me@example.com" rel="noopener noreferrer">d</a>',
    );
  });
});
