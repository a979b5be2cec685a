// Issue 25's guarantees for assistant markdown, now by construction: the panel
// builds DOM from marked's tokens (src/webview/ui/markdown-dom.ts) and parses no
// HTML. Run on jsdom here; test/e2e/panel/markdown-dom.test.ts runs the same
// builder in Chromium and test/e2e/panel/xss.test.ts streams the corpus end to end.
import assert from 'node:assert/strict';
import { JSDOM } from 'jsdom';
import { Marked } from 'marked';
import { CANARY, XSS_CORPUS } from '../../fixtures/xss-corpus';
import { reply, rng } from '../../../bench/panel.bench';
import { ALLOWED_ATTRIBUTES, ALLOWED_TAGS, MAX_DEPTH, markdownDom } from '../../../src/webview/ui/markdown-dom';
import { plainText } from '../../../src/webview/ui/markdown';
import { md } from '../../../src/webview/ui/markdown-lexer';
import { isSafeLinkHref } from '../../../src/webview/protocol';

const { window } = new JSDOM('<!DOCTYPE html><html><body></body></html>');
const doc = window.document;

function render(src: string): HTMLDivElement {
  const div = doc.createElement('div');
  div.append(markdownDom(md.lexer(src), doc as unknown as Document));
  return div;
}

/** Every element and attribute the builder made, checked against what it may make; returns the problems. */
function violations(root: Element): string[] {
  const out: string[] = [];
  for (const node of root.querySelectorAll('*')) {
    if (!ALLOWED_TAGS.has(node.tagName)) out.push(`element <${node.tagName}>`);
    for (const attr of Array.from(node.attributes)) {
      const ok =
        ALLOWED_ATTRIBUTES.has(attr.name) &&
        (attr.name !== 'href' || (node.tagName === 'A' && isSafeLinkHref(attr.value))) &&
        (attr.name !== 'rel' || attr.value === 'noopener noreferrer') &&
        (attr.name !== 'class' || (node.tagName === 'CODE' && /^language-[\w+#.-]{1,30}$/.test(attr.value))) &&
        (attr.name !== 'align' || /^(left|center|right)$/.test(attr.value)) &&
        (attr.name !== 'start' || (node.tagName === 'OL' && /^-?\d+$/.test(attr.value))) &&
        (attr.name !== 'style' || (node.tagName === 'OL' && /^--marker-digits: \d+;$/.test(attr.value)));
      if (!ok) out.push(`<${node.tagName} ${attr.name}="${attr.value}">`);
    }
  }
  return out;
}

describe('webview: assistant markdown built as DOM from tokens (issue 25, by construction)', () => {
  it('25.sanitiser.1: raw HTML in model text is shown as text, never made into elements', () => {
    const div = render('Hi <b>bold</b> <img src=x onerror="alert(1)">\n\n<div onclick="alert(2)">block</div>\n\n<script>alert(3)</script>\n');
    assert.deepEqual(violations(div), []);
    assert.equal(div.querySelector('b, img, div, script'), null);
    assert.match(div.textContent ?? '', /Hi <b>bold<\/b> <img src=x onerror="alert\(1\)">/);
    const blocks = Array.from(div.children).map((c) => `${c.tagName}:${c.textContent?.trim()}`);
    assert.deepEqual(blocks.slice(1), ['P:<div onclick="alert(2)">block</div>', 'P:<script>alert(3)</script>']);
  });

  it('25.sanitiser.1: a markdown image becomes a link, never an <img> that would load remote content', () => {
    const div = render('![tracking pixel](https://evil.example/p.png) and ![](https://evil.example/q.png) and ![x](javascript:alert(1)) ![sp](< https://a.example>) ![a &amp; **b**](https://u.example "the title")');
    assert.equal(div.querySelector('img'), null);
    const links = Array.from(div.querySelectorAll('a')).map((a) => [a.getAttribute('href'), a.textContent, a.getAttribute('title')]);
    assert.deepEqual(links, [
      ['https://evil.example/p.png', 'image: tracking pixel', null],
      ['https://evil.example/q.png', 'https://evil.example/q.png', null],
      [null, 'image: x', null],
      // The URL parser would trim the space the host's strict parse refuses: the href is checked as written.
      [null, 'image: sp', null],
      ['https://u.example', 'image: a & b', 'the title'],
    ]);
  });

  it('25.sanitiser.1: a quote in an image URL or a link title stays inside its attribute', () => {
    const div = render('![x" onmouseover="alert(1)](https://e.example/"onerror="alert(2)) [a](https://example.com "t\\" onmouseover=\\"alert(3)")');
    assert.deepEqual(violations(div), []);
    const [image, link] = Array.from(div.querySelectorAll('a'));
    assert.equal(image!.getAttribute('href'), 'https://e.example/%22onerror=%22alert(2)');
    assert.equal(link!.getAttribute('title'), 't" onmouseover="alert(3)');
  });

  it('25.sanitiser.1: task-list checkboxes are text, not <input>s', () => {
    const div = render('- [x] done\n- [ ] todo\n\n1. [x] loose\n\n2. [ ] item\n');
    assert.equal(div.querySelector('input'), null);
    assert.deepEqual(Array.from(div.querySelectorAll('li')).map((li) => li.textContent?.trim()), ['☑ done', '☐ todo', '☑ loose', '☐ item']);
  });

  it('25.sanitiser.2: the whole XSS corpus, one payload at a time and together, builds only allowed elements and checked attributes', () => {
    for (const payload of [...XSS_CORPUS, XSS_CORPUS.join('\n\n')]) {
      const div = render(payload);
      assert.deepEqual(violations(div), [], payload);
      // Raw HTML's text is all still there, as text.
      if (payload.startsWith('<') && payload.includes(CANARY)) assert.ok((div.textContent ?? '').includes(CANARY), payload);
    }
  });

  it('25.sanitiser.2: cut anywhere (as the streaming tail is), no prefix of a payload builds anything else either', () => {
    for (const payload of XSS_CORPUS) {
      for (let at = 1; at < payload.length; at += 3) assert.deepEqual(violations(render(payload.slice(0, at))), [], payload.slice(0, at));
    }
  });

  it('25.sanitiser.3: model text cannot borrow the panel classes; only a code block names its language', () => {
    const div = render('<p class="perm-allow item permission">p</p>\n\n```ts\nconst a = 1;\n```\n\n```perm-deny extra\nx\n```\n\n```"><x>\ny\n```\n\n```' + 'a'.repeat(31) + '\nz\n```\n\n```hljs-keyword\nw\n```');
    assert.deepEqual(violations(div), []);
    assert.deepEqual(Array.from(div.querySelectorAll('[class]')).map((e) => e.className), ['language-ts', 'language-perm-deny']);
    assert.match(div.textContent ?? '', /<p class="perm-allow item permission">p<\/p>/);
  });

  it('25.sanitiser.4: a link keeps its href only when it is a real http(s)/mailto URL, and then opens without an opener', () => {
    const div = render('[ok](https://ok.example/x) [mail](mailto:me@example.com) [bad](javascript:alert(1)) [empty](https:) [nohost](http://) [data](data:text/html,x) <https://auto.example> www.bare.example');
    const links = Array.from(div.querySelectorAll('a')).map((a) => `${a.textContent} ${a.getAttribute('href')} ${a.getAttribute('rel')}`);
    assert.deepEqual(links, [
      'ok https://ok.example/x noopener noreferrer',
      'mail mailto:me@example.com noopener noreferrer',
      'bad null null',
      'empty null null',
      'nohost null null',
      'data null null',
      'https://auto.example https://auto.example noopener noreferrer',
      'www.bare.example http://www.bare.example noopener noreferrer',
    ]);
  });

  it('shows character references as HTML would, and code and escapes exactly as written', () => {
    const div = render('AT&amp;T &copy; &#60;b&#62; &unknownthing; \\&amp; `&amp; <b>` [x&amp;y](https://e.example/?a=1&amp;b=2)\n\n```\n&amp; <i>\n```');
    const [p, pre] = Array.from(div.children);
    assert.equal(p!.textContent, 'AT&T © <b> &unknownthing; &amp; &amp; <b> x&y');
    assert.equal(p!.querySelector('a')!.getAttribute('href'), 'https://e.example/?a=1&b=2');
    assert.equal(pre!.textContent, '&amp; <i>\n');
  });

  it('an autolink opens its URL exactly as written; <br> in a table cell is a line break, other tags stay text', () => {
    const div = render('https://a.example/?x&amp;y\n\n| a | b |\n|---|---|\n| one<br>two | <br/> <b>x</b> |');
    assert.equal(div.querySelector('a')!.getAttribute('href'), 'https://a.example/?x&amp;y');
    const cells = Array.from(div.querySelectorAll('td'));
    assert.deepEqual(cells.map((td) => td.innerHTML), ['one<br>two', '<br> &lt;b&gt;x&lt;/b&gt;']);
    assert.deepEqual(violations(div), []);
  });

  it('HTML comments are hidden, as markdown viewers hide them; the tags beside them stay text; an unclosed one stays text', () => {
    const div = render('<!-- a note to self -->\n\nbefore <!-- inline --> after\n\n<!--\nmulti\nline\n-->\nnext\n\n<!-- a --> <b>x</b>\n\n<!-- unclosed');
    assert.deepEqual(
      Array.from(div.children).map((c) => `${c.tagName}:${c.textContent}`),
      ['P:before  after', 'P:next', 'P: <b>x</b>', 'P:<!-- unclosed'],
    );
    assert.deepEqual(violations(div), []);
    // What a screen reader is told of the finished reply leaves them out too.
    assert.equal(plainText('Done. <!-- a note -->\n\n**Bold** `x`'), 'Done. Bold x');
  });

  it(`nesting deeper than ${MAX_DEPTH} levels is shown as its text, whatever the lexer hands over`, () => {
    for (const src of [`${'> '.repeat(300)}deep`, `${'- '.repeat(300)}deep`, `${'*a '.repeat(300)}deep${' a*'.repeat(300)}`]) {
      const div = render(src);
      let depth = 0;
      for (let node: Element | null = div.querySelector('*:not(:has(*))'); node && node !== div; node = node.parentElement) depth++;
      assert.ok(depth <= MAX_DEPTH + 2, `${depth} levels`);
      assert.match(div.textContent ?? '', /deep/);
      assert.deepEqual(violations(div), []);
    }
  });

  it('character references cost one decode per text: a reply full of unknown ones does not slow the known ones', () => {
    render(Array.from({ length: 2_000 }, (_, i) => `&junk${i};`).join(' '));
    const div = render(`${'&copy; &mdash; &amp; '.repeat(500)}&junk1;`);
    assert.equal(div.textContent, `${'© — & '.repeat(500)}&junk1;`);
  });

  it('ordered lists past 9 carry their marker width (issue 47 item 3); start is kept', () => {
    const div = render(`${Array.from({ length: 12 }, (_, i) => `${i + 1}. item`).join('\n')}\n\ntext\n\n7. a\n8. b\n\ntext\n\n99. a\n100. b\n`);
    const lists = Array.from(div.querySelectorAll('ol')).map((ol) => [ol.getAttribute('start'), ol.style.getPropertyValue('--marker-digits')]);
    assert.deepEqual(lists, [
      [null, '2'],
      ['7', ''],
      ['99', '3'],
    ]);
  });

  it('builds the same document marked would write as HTML, for ordinary replies (no deliberate differences in them)', () => {
    const plain = new Marked({ gfm: true, breaks: false, async: false });
    const sources = [
      reply(rng(3), 60),
      '# H1\n## H2\n###### H6\nSetext\n===\n\n> quote with **bold** and *em* and ~~del~~\n> - in a list\n\n---\n\nline  \nbreak\\\nand `code`',
      '| a | b | c |\n|:--|:-:|--:|\n| 1 | **2** | `3` |\n| 4 |\n\n| only | head |\n|---|---|',
      '- tight\n- list\n  - nested\n    1. deep\n\n* loose\n\n* list\n\n  second paragraph\n\n3) paren\n4) list',
      '    indented code\n    block\n\n```\nno lang\n```\n\n~~~py\nfenced tilde\n~~~\n\nhttps://auto.link and <mailto:a@b.example>',
    ];
    const normal = (html: string) => html.replace(/>\n+/g, '>').replace(/\n+</g, '<');
    for (const src of sources) {
      const expected = doc.createElement('div');
      expected.innerHTML = plain.parse(src) as string;
      // Ours adds rel to links it keeps; marked's HTML has none.
      for (const a of expected.querySelectorAll('a[href]')) a.setAttribute('rel', 'noopener noreferrer');
      assert.equal(normal(render(src).innerHTML), normal(expected.innerHTML), src.slice(0, 80));
    }
  });
});
