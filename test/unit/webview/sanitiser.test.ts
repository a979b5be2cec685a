// Issue 25: each layer of the panel's markdown sanitiser, unit-tested on its
// own. End to end the layers mask each other (DOMPurify would strip raw HTML
// that a broken renderer let through, and so on), so a test per layer is the
// only way turning one off is noticed. Layer 1 (marked's renderer) needs no
// DOM; layers 2–4 run DOMPurify on a jsdom window, the others switched off.
// test/e2e/panel/markdown-layers.test.ts runs the same layers in real Chromium.
import assert from 'node:assert/strict';
import { JSDOM } from 'jsdom';
import { markdownToHtml } from '../../../src/webview/ui/markdown-html';
import { createSanitiser, filterLink, keepsClass, type SanitiserLayers } from '../../../src/webview/ui/sanitize';

const { window } = new JSDOM('<!DOCTYPE html><html><body></body></html>');

type Win = Parameters<typeof createSanitiser>[0];

/** Layers 2–4 with only the named hooks on (all of them, as the panel builds it, without `layers`); returns the resulting HTML. */
function sanitised(html: string, layers?: SanitiserLayers): string {
  const frag = createSanitiser(window as unknown as Win, layers)(html);
  const div = window.document.createElement('div');
  div.append(frag);
  return div.innerHTML;
}
const allowListOnly = (html: string) => sanitised(html, { classFilter: false, linkFilter: false });
const all = (html: string) => sanitised(html);

describe('webview: the markdown sanitiser, layer by layer (issue 25)', () => {
  describe('layer 1: marked with our renderer (no DOM)', () => {
    it('25.sanitiser.1: raw HTML in model text leaves marked as visible text', () => {
      const out = markdownToHtml('Hi <b>bold</b> <img src=x onerror="alert(1)">\n\n<div onclick="alert(2)">block</div>\n\n<script>alert(3)</script>\n\n<a href="javascript:alert(4)">x</a>\n');
      assert.doesNotMatch(out, /<(b|img|div|script)\b/i, `raw HTML passed through marked: ${out}`);
      assert.doesNotMatch(out, /<a href="javascript/i, out);
      assert.match(out, /&#60;b&#62;bold&#60;\/b&#62;/);
      assert.match(out, /<p>&#60;div onclick=&#34;alert\(2\)&#34;&#62;block&#60;\/div&#62;/);
      assert.match(out, /&#60;script&#62;alert\(3\)&#60;\/script&#62;/);
    });

    it('25.sanitiser.1: a markdown image becomes a link, never an <img> that would load remote content', () => {
      const out = markdownToHtml('![tracking pixel](https://evil.example/p.png) and ![](https://evil.example/q.png)');
      assert.doesNotMatch(out, /<img\b/i, out);
      assert.match(out, /<a href="https:\/\/evil\.example\/p\.png">image: tracking pixel<\/a>/);
      assert.match(out, /<a href="https:\/\/evil\.example\/q\.png">https:\/\/evil\.example\/q\.png<\/a>/);
    });

    it('25.sanitiser.1: a quote in an image URL or title cannot break out of the attribute', () => {
      const out = markdownToHtml('![x" onmouseover="alert(1)](https://e.example/"onerror="alert(2))');
      // The quotes are escaped, so the whole thing stays one href and the link's text.
      assert.doesNotMatch(out, /<[^>]*\s(onmouseover|onerror)=/i, out);
      assert.match(out, /<a href="https:\/\/e\.example\/&#34;onerror=&#34;alert\(2\)">/);
    });

    it('25.sanitiser.1: task-list checkboxes are text, not <input>s', () => {
      const out = markdownToHtml('- [x] done\n- [ ] todo\n');
      assert.doesNotMatch(out, /<input\b/i, out);
      assert.match(out, /☑ done/);
      assert.match(out, /☐ todo/);
    });
  });

  describe('layer 2: the DOMPurify allow-list (hooks off)', () => {
    it('25.sanitiser.2: forbidden tags go, whatever produced the HTML', () => {
      const out = allowListOnly(
        '<form action="https://evil.example"><button>Allow</button><input value="x"><textarea>t</textarea><select></select></form>' +
          '<img src="https://evil.example/i.png"><svg><circle r="1"></circle></svg><math><mi>x</mi></math><style>*{}</style><script>alert(1)</script>' +
          '<iframe src="https://evil.example"></iframe><object data="x"></object><embed src="x"><link rel="stylesheet" href="x"><meta http-equiv="refresh" content="0"><base href="https://evil.example/"><span>span</span><p>kept</p>',
      );
      assert.doesNotMatch(out, /<(form|button|input|textarea|select|img|svg|math|style|script|iframe|object|embed|link|meta|base|span)\b/i, out);
      assert.match(out, /<p>kept<\/p>/);
    });

    it('25.sanitiser.2: forbidden attributes and schemes go; title stays', () => {
      const out = allowListOnly(
        '<p style="color:red" id="app" name="n" data-x="1" aria-label="fake" title="kept" onclick="alert(1)">para</p>' +
          '<a href="javascript:alert(1)" target="_blank">js</a><a href="data:text/html,x">data</a><a href="vbscript:x">vb</a>',
      );
      assert.doesNotMatch(out, /\s(style|id|name|data-x|aria-label|onclick|target)=/i, out);
      assert.doesNotMatch(out, /javascript:|data:|vbscript:/i, out);
      assert.match(out, /<p title="kept">para<\/p>/);
    });
  });

  describe('layer 3: the class filter', () => {
    it('25.sanitiser.3: only language-* on <code> keeps a class', () => {
      assert.equal(keepsClass('CODE', 'language-ts'), true);
      assert.equal(keepsClass('CODE', 'language-x y'), false);
      assert.equal(keepsClass('CODE', 'perm-deny'), false);
      assert.equal(keepsClass('P', 'language-ts'), false);
      assert.equal(keepsClass('CODE', `language-${'a'.repeat(31)}`), false);
    });

    it('25.sanitiser.3: model HTML cannot borrow the panel classes (only this hook removes them)', () => {
      const html = '<p class="perm-allow item permission">p</p><code class="language-ts">a</code><code class="language-x y">b</code><code class="perm-deny">c</code><pre class="code-block">d</pre>';
      assert.equal(sanitised(html, { classFilter: true, linkFilter: false }), '<p>p</p><code class="language-ts">a</code><code>b</code><code>c</code><pre>d</pre>');
      // Without this layer the allow-list alone keeps them: the layer is what guards.
      assert.match(allowListOnly(html), /class="perm-allow item permission"/);
    });
  });

  describe('layer 4: the link filter', () => {
    it('25.sanitiser.4: an href DOMPurify lets through but that is no valid http(s)/mailto URL is dropped; kept links get rel=noopener', () => {
      // `https:` and `http://` pass DOMPurify's scheme regex but are no URL (no host).
      const html = '<a href="https:">a</a><a href="http://">b</a><a href="https://ok.example/x">c</a><a href="mailto:me@example.com">d</a>';
      assert.equal(
        sanitised(html, { classFilter: false, linkFilter: true }),
        '<a>a</a><a>b</a><a href="https://ok.example/x" rel="noopener noreferrer">c</a><a href="mailto:me@example.com" rel="noopener noreferrer">d</a>',
      );
      assert.match(allowListOnly(html), /<a href="https:">a<\/a>/, 'the allow-list alone keeps it: this layer is what drops it');
    });

    it('25.sanitiser.4: filterLink leaves other elements alone', () => {
      const p = window.document.createElement('p');
      p.setAttribute('href', 'javascript:x');
      filterLink(p);
      assert.equal(p.getAttribute('href'), 'javascript:x');
      assert.equal(p.hasAttribute('rel'), false);
    });
  });

  it('25.sanitiser: all four layers together, as the panel builds them, on a hostile reply', () => {
    const out = all(markdownToHtml('# T\n\n<img src=x onerror=alert(1)>\n\n[ok](https://ok.example) [bad](javascript:alert(1)) [empty](https:)\n\n```ts\nconst a = 1;\n```\n'));
    assert.doesNotMatch(out, /<img\b|<[^>]*\sonerror=|javascript:/i, out);
    assert.match(out, /<a>bad<\/a> <a>empty<\/a>/);
    assert.match(out, /<a href="https:\/\/ok\.example" rel="noopener noreferrer">ok<\/a>/);
    assert.match(out, /<code class="language-ts">const a = 1;\n<\/code>/);
  });
});
