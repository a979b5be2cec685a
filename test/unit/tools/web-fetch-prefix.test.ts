// Issue 28, web_fetch speed: a page that marks its content is converted only as
// far as the model reads. What it returns must be exactly the whole
// conversion's prefix, whatever the page holds where the cut falls.
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import * as path from 'node:path';
import { htmlToMarkdown } from '../../../src/tools/web-fetch/html-markdown';

const fixture = (name: string) => readFileSync(path.join(__dirname, '../../fixtures/web', name), 'utf8');

/** A docs page made long: its article's sections repeated (as the bench builds its 1 MB page). */
function longDocs(bytes: number): string {
  const page = fixture('docs-page.html');
  const start = page.indexOf('<article id="apicontent">') + '<article id="apicontent">'.length;
  const end = page.indexOf('</article>');
  let body = '';
  for (let i = 0; page.length + body.length < bytes; i++) body += page.slice(start, end).replace(/id="/g, `id="s${i}-`);
  return page.slice(0, start) + body + page.slice(end);
}

/** Every kind of block a cut could land near: lists, tables, code, quotes, nested sections, inline runs, chrome inside. */
function mixedPage(): string {
  const blocks: string[] = [];
  for (let i = 0; i < 60; i++) {
    blocks.push(
      `<section><h2>Part ${i}</h2><p>Paragraph ${i} with <a href="rel/${i}.html">a link</a> and <code>code</code> &amp; entities.</p>`,
      `<ul><li>one ${i}</li><li>two <ul><li>nested ${i}</li></ul></li></ul>`,
      `<table><tr><th>a</th><th>b</th></tr><tr><td>${i}</td><td>x</td><td>wider row</td></tr></table>`,
      `<pre><code class="language-js">const n = ${i};\n\nconsole.log(n);\n</code></pre>`,
      `<div><div><blockquote>quoted ${i}</blockquote>loose text ${i} <em>inline</em></div></div>`,
      `<nav>menu ${i}</nav><div hidden>hidden ${i}</div><aside>aside kept in content ${i}</aside></section>`,
      `text directly in the content ${i} <strong>bold</strong>`,
    );
  }
  return `<!doctype html><html><head><title>Mixed &amp; long</title><base href="https://docs.example.org/v2/"></head><body>
<header><nav><a href="/">Home</a></nav></header>
<template><main>not this one</main></template>
<main id="content">${blocks.join('\n')}</main>
<footer>site footer</footer></body></html>`;
}

async function assertSamePrefix(html: string, wants: number[]): Promise<void> {
  const url = 'https://example.org/page';
  const whole = await htmlToMarkdown(html, url);
  assert.equal(whole.complete, true);
  for (const want of wants) {
    const part = await htmlToMarkdown(html, url, want);
    assert.equal(part.title, whole.title, 'the same title');
    if (part.complete) {
      assert.equal(part.markdown, whole.markdown, `want ${want}: a complete conversion is the whole`);
    } else {
      assert.ok(part.markdown.length > want, `want ${want}: the prefix reaches past what is read (${part.markdown.length})`);
      assert.ok(part.markdown.length < whole.markdown.length, `want ${want}: a partial conversion is shorter`);
      assert.equal(part.markdown.slice(0, want), whole.markdown.slice(0, want), `want ${want}: the prefix is the whole conversion's`);
    }
  }
}

describe('tools: web_fetch converts only what is read (issue 28)', () => {
  it('28.fetch: a long docs page: every page the model can ask for is the whole conversion\'s, cut there', async function () {
    this.timeout(120_000);
    const html = longDocs(300 * 1024);
    const whole = await htmlToMarkdown(html, 'https://example.org/page');
    const wants = [1, 500, 20_000, 20_001, 40_000, 100_000, Math.floor(whole.markdown.length / 2), whole.markdown.length - 1, whole.markdown.length + 10];
    await assertSamePrefix(html, wants);
    const first = await htmlToMarkdown(html, 'https://example.org/page', 20_000);
    assert.equal(first.complete, false, 'the first page of a long page is a partial conversion');
    assert.ok(first.markdown.length < whole.markdown.length / 4, `only a little past the page is converted (${first.markdown.length} of ${whole.markdown.length})`);
  });

  it('28.fetch: cuts never land inside a list, table, code block or quote, and links resolve against <base>', async function () {
    this.timeout(120_000);
    const html = mixedPage();
    const whole = await htmlToMarkdown(html, 'https://example.org/page');
    assert.match(whole.markdown, /\[a link\]\(https:\/\/docs\.example\.org\/v2\/rel\/0\.html\)/);
    assert.ok(!whole.markdown.includes('not this one') && !whole.markdown.includes('menu 0') && !whole.markdown.includes('hidden 0'), 'chrome left out');
    assert.ok(whole.markdown.includes('aside kept in content 0'), "an aside inside the content is the content's");
    const wants: number[] = [];
    for (let w = 50; w < whole.markdown.length + 100; w += 97) wants.push(w);
    await assertSamePrefix(html, wants);
  });

  it('28.fetch: a long table is converted whole (its width comes from its widest row, which may be its last)', async function () {
    this.timeout(120_000);
    const rows = Array.from({ length: 1500 }, (_, i) => `<tr><td>row ${i}</td><td>value</td>${i === 1499 ? '<td>wide</td>' : ''}</tr>`);
    const html = `<html><body><main><h1>Table</h1><table><tr><th>name</th><th>value</th></tr>${rows.join('')}</table><p>after the table</p></main></body></html>`;
    await assertSamePrefix(html, [100, 5_000, 20_000]);
  });

  it('28.fetch: which content is marked follows the DOM path: one <main>, else one <article>; none or two: the whole page', async () => {
    const pages = [
      '<html><body><nav>n</nav><article><p>only article</p></article><p>outside</p></body></html>',
      '<html><body><main><p>main one</p></main><main><p>main two</p></main><article><p>an article</p></article></body></html>',
      '<html><body><div role="main"><p>role main</p></div><article><p>a</p></article><article><p>b</p></article></body></html>',
      '<html><body><main>   </main><p>the real text is outside the empty main, long enough to be a paragraph of content here.</p></body></html>',
      '<html><body><aside><main>in a page-level aside</main></aside><article><p>the article</p></article></body></html>',
      '<html><body><main><p>unclosed main <ul><li>item</li></ul></body></html>',
    ];
    for (const html of pages) {
      const whole = await htmlToMarkdown(html, 'https://example.org/');
      const part = await htmlToMarkdown(html, 'https://example.org/', 20_000);
      assert.deepEqual(part, whole, html);
    }
  });
});
