import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import { useNodeEnv } from './helpers';

describe('tools: read_file and write_file limits and safety (Node adapter)', () => {
  const { env: current, file, run } = useNodeEnv();

  it('refuses a 50 MB file with a clear message instead of its bytes', async () => {
    const line = `${'x'.repeat(99)}\n`;
    const fd = fs.openSync(file('huge.log'), 'w');
    const chunk = line.repeat(10_000);
    for (let i = 0; i < 50; i++) fs.writeSync(fd, chunk);
    fs.closeSync(fd);
    assert.equal(fs.statSync(file('huge.log')).size, 50_000_000);
    const out = await run('read_file', { path: 'huge.log' });
    assert.equal(out.isError, true);
    assert.match(out.content, /47\.7 MB, over the 10\.0 MB limit/);
    assert.match(out.content, /grep_search/);
    assert.ok(out.content.length < 1000);
  });

  it('detects binary content by NUL bytes even with a text extension', async () => {
    const data = Buffer.alloc(4096, 0x41);
    data[100] = 0;
    fs.writeFileSync(file('data.txt'), data);
    const out = await run('read_file', { path: 'data.txt' });
    assert.equal(out.isError, true);
    assert.match(out.content, /binary file \(4\.0 KB\)/);
    const write = await run('write_file', { path: 'data.txt', content: 'text' });
    assert.equal(write.isError, true);
    assert.ok(fs.readFileSync(file('data.txt')).equals(data));
  });

  it('stops at the byte cap and says which offset to read next', async () => {
    const lines = Array.from({ length: 1500 }, (_, i) => `${i}:${'y'.repeat(400)}`);
    fs.writeFileSync(file('wide.txt'), lines.join('\n'));
    const out = await run('read_file', { path: 'wide.txt' });
    assert.ok(Buffer.byteLength(out.content) <= 256 * 1024 + 500);
    const next = Number(/offset=(\d+)/.exec(out.content)?.[1]);
    assert.ok(next > 500 && next < 1500, `next offset ${next}`);
    assert.match(out.content, /256\.0 KB output limit/);
    const more = await run('read_file', { path: 'wide.txt', offset: next, limit: 1 });
    assert.match(more.content, new RegExp(`^ *${next + 1}\\t${next}:y`));
  });

  it('cuts very long lines and says so', async () => {
    fs.writeFileSync(file('min.js'), `${'a'.repeat(10_000)}\nshort\n`);
    const out = await run('read_file', { path: 'min.js' });
    assert.match(out.content, /… \[line cut: 8000 more characters\]\n {5}2\tshort/);
  });

  it('decodes UTF-16BE and UTF-8 with a BOM without showing the BOM', async () => {
    fs.writeFileSync(file('be.txt'), Buffer.concat([Buffer.from([0xfe, 0xff]), Buffer.from('hi\n', 'utf16le').swap16()]));
    fs.writeFileSync(file('bom.txt'), Buffer.concat([Buffer.from([0xef, 0xbb, 0xbf]), Buffer.from('hi\n')]));
    assert.match((await run('read_file', { path: 'be.txt' })).content, /^ {5}1\thi\n\n\[Encoding: UTF-16BE/);
    assert.match((await run('read_file', { path: 'bom.txt' })).content, /^ {5}1\thi\n\n\[Encoding: UTF-8 with BOM/);
  });

  it('refuses a stale write after a partial read when the file changed since', async () => {
    fs.writeFileSync(file('s.txt'), 'a\nb\nc\n');
    await run('read_file', { path: 's.txt', offset: 1, limit: 1 });
    fs.writeFileSync(file('s.txt'), 'a\nB\nc\n'); // same size, different content
    const out = await run('write_file', { path: 's.txt', content: 'new\n' });
    assert.equal(out.isError, true);
    assert.match(out.content, /read_file/);
    assert.equal(fs.readFileSync(file('s.txt'), 'utf8'), 'a\nB\nc\n');
    // Reading again makes the write possible.
    await run('read_file', { path: 's.txt' });
    assert.equal((await run('write_file', { path: 's.txt', content: 'new\n' })).isError, false);
  });

  it('accepts a write after a touch that changed only the modification time', async () => {
    fs.writeFileSync(file('t.txt'), 'same\n');
    await run('read_file', { path: 't.txt' });
    const later = new Date(Date.now() + 60_000);
    fs.utimesSync(file('t.txt'), later, later);
    assert.equal((await run('write_file', { path: 't.txt', content: 'next\n' })).isError, false);
  });

  it('writes atomically: no temp files left behind and the file mode kept', async () => {
    fs.writeFileSync(file('run.sh'), '#!/bin/sh\necho 1\n');
    fs.chmodSync(file('run.sh'), 0o755);
    await run('read_file', { path: 'run.sh' });
    await run('write_file', { path: 'run.sh', content: '#!/bin/sh\necho 2\n' });
    assert.deepEqual(fs.readdirSync(current().root), ['run.sh']);
    assert.equal(fs.statSync(file('run.sh')).mode & 0o777, 0o755);
  });

  it('says when the content is already identical and does not touch the file', async () => {
    fs.writeFileSync(file('same.txt'), 'x\r\ny\r\n');
    const before = fs.statSync(file('same.txt')).mtimeMs;
    await run('read_file', { path: 'same.txt' });
    const out = await run('write_file', { path: 'same.txt', content: 'x\ny\n' });
    assert.match(out.content, /No change/);
    assert.equal(out.fileChange, undefined);
    assert.equal(fs.statSync(file('same.txt')).mtimeMs, before);
  });

  it('refuses to write over a directory', async () => {
    fs.mkdirSync(file('d'));
    const out = await run('write_file', { path: 'd', content: 'x' });
    assert.equal(out.isError, true);
    assert.match(out.content, /is a directory/);
  });
});
