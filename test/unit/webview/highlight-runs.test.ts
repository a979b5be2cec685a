// Issue 47 item 11: a highlighted block as flat runs, spans only for scopes with a style of their own
// (src/webview/ui/highlight-runs.ts), the tokeniser's answer to the panel.
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { createLowlight } from 'lowlight';
import { COMMON_GRAMMARS, addAliases } from '../../../src/webview/ui/highlight-grammars';
import { STYLED_SCOPES, runsLength, toRuns } from '../../../src/webview/ui/highlight-runs';

const lowlight = addAliases(createLowlight(COMMON_GRAMMARS));

/** The runs as [classes, text] pairs, for reading. */
function pieces(text: string, lang: string): [string, string][] {
  const r = toRuns(lowlight.highlight(lang, text));
  const out: [string, string][] = [];
  let at = 0;
  for (let i = 0; i < r.runs.length; i += 2) {
    const cls = r.runs[i]!;
    out.push([cls < 0 ? '' : r.classes[cls]!, text.slice(at, (at += r.runs[i + 1]!))]);
  }
  return out;
}

describe('webview: highlighted code as flat runs (issue 47 item 11)', () => {
  it('the runs cover the text exactly, and neighbours with the same classes are one run', () => {
    const text = 'export function f(x: string) {\n  return `a ${x.length} b`; // done\n}\n';
    const r = toRuns(lowlight.highlight('ts', text));
    assert.equal(runsLength(r), text.length);
    for (let i = 2; i < r.runs.length; i += 2) assert.notEqual(r.runs[i], r.runs[i - 2], `runs ${i / 2 - 1} and ${i / 2} have the same classes`);
    assert.ok(r.runs.every((n, i) => i % 2 === 0 || n > 0), 'no empty run');
  });

  it('a run takes its innermost styled scope; scopes with no style of their own make no run', () => {
    const got = pieces('const s = `a ${x} b`; // c', 'ts');
    assert.deepEqual(got.find(([, t]) => t === 'const'), ['hljs-keyword', 'const']);
    assert.deepEqual(got.find(([, t]) => t.includes('// c')), ['hljs-comment', '// c']);
    // hljs-subst (no colour of its own) inside the template string: the template string's run goes on through it.
    const tpl = got.filter(([c]) => c === 'hljs-string').map(([, t]) => t).join('');
    assert.equal(tpl, '`a ${x} b`');
    assert.ok(got.every(([c]) => !c.split(' ').includes('hljs-subst') && !c.split(' ').includes('hljs-operator')));
  });

  it('fonts carry through nesting: a JSDoc tag in a comment stays italic, bold in a markdown quote keeps the quote', () => {
    const doc = pieces('/**\n * @param x the value\n */\nfunction f(x) {}', 'js');
    assert.deepEqual(doc.find(([, t]) => t === '@param'), ['hljs-doctag hljs-emphasis', '@param']);
    const quote = pieces('> a **bold** word\n', 'markdown');
    assert.deepEqual(quote.find(([, t]) => t.includes('bold')), ['hljs-quote hljs-emphasis hljs-strong', '**bold**']);
    const both = pieces('_very **much**_\n', 'markdown');
    assert.deepEqual(both.find(([, t]) => t.includes('much')), ['hljs-emphasis hljs-strong', '**much**']);
  });

  it('compound scopes keep all their classes (.hljs-title.function_ still matches)', () => {
    assert.deepEqual(pieces('function parseRange() {}', 'js').find(([, t]) => t === 'parseRange'), ['hljs-title function_', 'parseRange']);
  });

  it('only highlight.js class names reach a run', () => {
    const r = toRuns({ type: 'root', children: [{ type: 'element', tagName: 'span', properties: { className: ['hljs-keyword', 'perm-allow', 'x"y'] }, children: [{ type: 'text', value: 'if' }] }] } as never);
    assert.deepEqual(r.classes, ['hljs-keyword']);
  });

  it('STYLED_SCOPES are the scopes media/highlight.css styles, less the ones it gives no colour of their own', () => {
    const css = readFileSync(join(__dirname, '..', '..', '..', 'media', 'highlight.css'), 'utf8').replace(/\/\*[\s\S]*?\*\//g, '');
    const styled = new Set<string>();
    const unstyled = new Set<string>();
    for (const rule of css.matchAll(/([^{}]+)\{([^}]*)\}/g)) {
      const scopes = [...rule[1]!.matchAll(/\.(hljs-[\w-]+)/g)].map((m) => m[1]!);
      for (const s of scopes) (/--tok:\s*currentColor/.test(rule[2]!) ? unstyled : styled).add(s);
    }
    for (const s of unstyled) styled.delete(s);
    assert.deepEqual([...STYLED_SCOPES].sort(), [...styled].sort());
  });
});
