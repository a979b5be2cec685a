// Issue 30: the pure half of the lsp tool: the column of a name the model gave,
// and the text of its answers.
import * as assert from 'node:assert/strict';
import { ToolError } from '../../../src/tools/errors';
import { formatHover, formatLocations, MAX_HOVER_CHARS, namesOnLine, resolveSymbolOnLine } from '../../../src/tools/lsp/lsp-format';

describe('30.lsp: a symbol on a line', () => {
  it('30.lsp: finds the whole word before a longer name that contains it', () => {
    assert.deepEqual(resolveSymbolOnLine('const areaOf = area(1);', 3, 'area', 'a.ts'), { line: 3, column: 16 });
  });

  it('30.lsp: takes the last name of `obj.method` or `fn()` as the model may write them', () => {
    assert.deepEqual(resolveSymbolOnLine('  return this.cache.get(key);', 1, 'this.cache.get', 'a.ts'), { line: 1, column: 21 });
    assert.deepEqual(resolveSymbolOnLine('const x = build();', 1, 'build()', 'a.ts'), { line: 1, column: 11 });
  });

  it('30.lsp: counts columns in UTF-16 units, as the editor does', () => {
    assert.deepEqual(resolveSymbolOnLine('const s = "😀"; use(s);', 1, 'use', 'a.ts'), { line: 1, column: 17 });
  });

  it('30.lsp: a name that is not there is an error naming the line and what is on it', () => {
    assert.throws(
      () => resolveSymbolOnLine('export const size = area(2, 3);', 2, 'volume', 'src/use.ts'),
      (e: unknown) =>
        e instanceof ToolError &&
        e.kind === 'no_match' &&
        e.message.includes('"volume" is not on line 2 of src/use.ts') &&
        e.message.includes('Names on it: export, const, size, area'),
    );
    assert.deepEqual(namesOnLine('x1 = 2 + y_2 + 3e5 + x1'), ['x1', 'y_2']);
  });
});

describe('30.lsp: answers as text', () => {
  it('30.lsp: one line per place with its text, withheld text named, the cap said', () => {
    const text = formatLocations(
      'References of f (a.ts:1)',
      [
        { display: 'a.ts', line: 1, column: 17, context: '  export function f() {  ' },
        { display: '/usr/lib/x.d.ts', line: 9, column: 1, withheld: 'outside the workspace' },
      ],
      60,
    );
    assert.equal(text, 'References of f (a.ts:1): 60 locations (showing the first 2)\na.ts:1:17: export function f() {\n/usr/lib/x.d.ts:9:1 (outside the workspace)');
    assert.equal(formatLocations('Definition of g (a.ts:2)', [], 0), 'Definition of g (a.ts:2): none found.');
  });

  it('30.lsp: hover texts are joined and cut at the cap', () => {
    assert.equal(formatHover('a.ts', { line: 1, column: 2 }, ['', '  ']), 'No hover information at a.ts:1:2.');
    const long = formatHover('a.ts', { line: 1, column: 2 }, ['x'.repeat(MAX_HOVER_CHARS + 10)]);
    assert.match(long, /\n… \[cut: 10 more characters\]$/);
  });
});
