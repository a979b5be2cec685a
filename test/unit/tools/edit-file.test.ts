import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { type NodeToolEnv, ctx, makeNodeEnv } from './helpers';

describe('tools: edit_file edge cases (Node adapter)', () => {
  let env: NodeToolEnv;
  const file = (name: string) => path.join(env.root, name);
  const edit = (input: Record<string, unknown>) => env.executor.execute('edit_file', input, ctx());
  beforeEach(async () => {
    env = await makeNodeEnv();
  });
  afterEach(() => env.cleanup());

  it('keeps CRLF when old_string and new_string span several lines', async () => {
    fs.writeFileSync(file('w.cs'), 'class A\r\n{\r\n    int x;\r\n}\r\n');
    const out = await edit({ path: 'w.cs', old_string: '{\n    int x;\n}', new_string: '{\n    int x;\n    int y;\n}' });
    assert.equal(out.isError, false, out.content);
    assert.ok(fs.readFileSync(file('w.cs')).equals(Buffer.from('class A\r\n{\r\n    int x;\r\n    int y;\r\n}\r\n')));
    assert.match(out.content, /^\+ {4}int y;$/m);
    assert.doesNotMatch(out.content, /\r/);
  });

  it('leaves a CRLF file byte-identical after a missing match', async () => {
    const original = Buffer.from('one\r\ntwo\r\n');
    fs.writeFileSync(file('w.txt'), original);
    const out = await edit({ path: 'w.txt', old_string: 'one\nthree', new_string: 'x' });
    assert.equal(out.isError, true);
    assert.ok(fs.readFileSync(file('w.txt')).equals(original));
  });

  it('handles multi-byte characters on both sides of the edit', async () => {
    const original = '// ±½ — naïve\nconst s = "日本語テキスト";\nconst e = "👩‍💻";\n';
    fs.writeFileSync(file('m.ts'), original);
    const out = await edit({ path: 'm.ts', old_string: '"日本語テキスト"', new_string: '"中文 😀"' });
    assert.equal(out.isError, false, out.content);
    assert.equal(fs.readFileSync(file('m.ts'), 'utf8'), original.replace('"日本語テキスト"', '"中文 😀"'));
    assert.match(out.content, /changed line 2\./);
  });

  it('leaves the file byte-identical after ambiguous and missing matches, and names candidates', async () => {
    const original = Buffer.from('ünïcode a\nünïcode a\n\tindented(x)\n');
    fs.writeFileSync(file('u.txt'), original);
    const ambiguous = await edit({ path: 'u.txt', old_string: 'ünïcode a', new_string: 'b' });
    assert.equal(ambiguous.isError, true);
    assert.match(ambiguous.content, /2 times.*lines 1, 2/);
    const missing = await edit({ path: 'u.txt', old_string: '    indented( x )', new_string: 'y' });
    assert.equal(missing.isError, true);
    assert.match(missing.content, /Lines? 3 \(same text except for whitespace\)/);
    assert.ok(fs.readFileSync(file('u.txt')).equals(original));
  });

  it('tells the model when old_string carries read_file line-number prefixes', async () => {
    fs.writeFileSync(file('p.txt'), 'alpha\nbeta\n');
    const out = await edit({ path: 'p.txt', old_string: '     1\talpha\n     2\tbeta', new_string: 'x' });
    assert.equal(out.isError, true);
    assert.match(out.content, /line-number prefixes/);
  });

  it('inserts new_string literally: $& and $1 are not replacement patterns', async () => {
    fs.writeFileSync(file('d.txt'), 'price: X\n');
    const out = await edit({ path: 'd.txt', old_string: 'X', new_string: '$&$1$$' });
    assert.equal(out.isError, false);
    assert.equal(fs.readFileSync(file('d.txt'), 'utf8'), 'price: $&$1$$\n');
  });

  it('keeps UTF-16LE encoding and its BOM', async () => {
    fs.writeFileSync(file('u16.txt'), Buffer.concat([Buffer.from([0xff, 0xfe]), Buffer.from('hello\r\nworld\r\n', 'utf16le')]));
    const out = await edit({ path: 'u16.txt', old_string: 'world', new_string: 'wörld' });
    assert.equal(out.isError, false, out.content);
    assert.ok(fs.readFileSync(file('u16.txt')).equals(Buffer.concat([Buffer.from([0xff, 0xfe]), Buffer.from('hello\r\nwörld\r\n', 'utf16le')])));
  });

  it('refuses to edit a file that is not valid UTF-8, leaving it unchanged', async () => {
    const original = Buffer.from([0x61, 0x62, 0xff, 0xfe, 0x41, 0x0a, 0x63, 0x0a]);
    fs.writeFileSync(file('bad.txt'), original);
    const out = await edit({ path: 'bad.txt', old_string: 'c', new_string: 'd' });
    assert.equal(out.isError, true);
    assert.match(out.content, /not valid UTF-8/);
    assert.ok(fs.readFileSync(file('bad.txt')).equals(original));
  });

  it('reports a missing file and an empty old_string', async () => {
    const missing = await edit({ path: 'nope.txt', old_string: 'a', new_string: 'b' });
    assert.equal(missing.isError, true);
    assert.match(missing.content, /does not exist/);
    fs.writeFileSync(file('e.txt'), 'x');
    const empty = await edit({ path: 'e.txt', old_string: '', new_string: 'b' });
    assert.equal(empty.isError, true);
    assert.match(empty.content, /write_file/);
  });

  it('gives real line numbers in the diff deep inside a large file', async () => {
    const lines = Array.from({ length: 20_000 }, (_, i) => `line ${i + 1}`);
    fs.writeFileSync(file('big.txt'), `${lines.join('\n')}\n`);
    const out = await edit({ path: 'big.txt', old_string: 'line 15000\n', new_string: 'changed 15000\nadded\n' });
    assert.equal(out.isError, false, out.content);
    assert.match(out.content, /changed lines 15000-15001/);
    assert.match(out.content, /@@ -14997,7 \+14997,8 @@/);
    assert.match(out.content, /^ line 14997$/m);
    assert.match(out.content, /^ line 15003$/m);
  });

  it('shows one hunk per distant occurrence with replace_all, line numbers shifted by earlier growth', async () => {
    const lines = Array.from({ length: 100 }, (_, i) => (i === 9 || i === 59 ? 'TARGET' : `l${i + 1}`));
    fs.writeFileSync(file('r.txt'), `${lines.join('\n')}\n`);
    const out = await edit({ path: 'r.txt', old_string: 'TARGET', new_string: 'A\nB', replace_all: true });
    assert.equal(out.isError, false);
    assert.match(out.content, /changed lines 10-11, 61-62/);
    assert.match(out.content, /@@ -7,7 \+7,8 @@/);
    assert.match(out.content, /@@ -57,7 \+58,8 @@/);
  });
});
