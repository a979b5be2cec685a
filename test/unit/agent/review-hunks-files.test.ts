// Issue 44, listing the changed files: a file decoded by its BOM as the editor opens it, a cache of what was
// read keyed by (mtime, size), the listing with its reused hunk counts, and refreshes that never pile up.
import * as assert from 'node:assert/strict';
import { changedFiles, coalescing, FileTextCache, type FileSource, type FileStamp, type HunkCount, reviewText } from '../../../src/agent/review-hunks';
import { encodeText } from '../../../src/tools/files/text';

/** Files in memory, counting reads; `now` is the clock the cache reads. */
function memoryFiles(now: { t: number }) {
  const files = new Map<string, { bytes: Uint8Array; stamp: FileStamp }>();
  const reads: string[] = [];
  const source: FileSource = {
    stat: async (file) => files.get(file)?.stamp ?? null,
    read: async (file) => {
      reads.push(file);
      const f = files.get(file);
      if (!f) throw new Error('ENOENT');
      return f.bytes;
    },
  };
  const write = (file: string, text: string, mtime = now.t, encoding: Parameters<typeof encodeText>[1] = 'utf8') => {
    const bytes = encodeText(text, encoding);
    files.set(file, { bytes, stamp: { mtime, size: bytes.length } });
  };
  return { files, reads, source, write };
}

describe('review hunks: reading and listing changed files (issue 44)', () => {
  it('issue 44 files: UTF-16 LE/BE and UTF-8 with a BOM decode to the text the editor shows, BOM dropped', () => {
    const text = 'héllo\r\nwörld ✓\n';
    assert.equal(reviewText(encodeText(text, 'utf8')), text);
    assert.equal(reviewText(encodeText(text, 'utf8bom')), text);
    assert.equal(reviewText(encodeText(text, 'utf16le')), text);
    assert.equal(reviewText(encodeText(text, 'utf16be')), text);
    // Not a BOM-less misread: the bytes really are UTF-16.
    assert.equal(encodeText(text, 'utf16le')[0], 0xff);
    assert.equal(reviewText(new Uint8Array()), '');
  });

  it('issue 44 files: a file in UTF-16 or with a BOM whose text matches its review point is not listed; one changed line is one hunk', async () => {
    const now = { t: 100_000 };
    const disk = memoryFiles(now);
    const base = 'one\ntwo\nthree\n';
    disk.write('/le.txt', base, 1, 'utf16le');
    disk.write('/be.txt', base, 1, 'utf16be');
    disk.write('/bom.txt', base, 1, 'utf8bom');
    disk.write('/changed.txt', 'one\nTWO\nthree\n', 1, 'utf16le');
    const cache = new FileTextCache(disk.source, () => now.t);
    const bases = new Map<string, string | null>([['/le.txt', base], ['/be.txt', base], ['/bom.txt', base], ['/changed.txt', base]]);
    assert.deepEqual(await changedFiles(bases, (f) => cache.read(f)), [{ path: '/changed.txt', base, hunks: 1 }]);
  });

  it('issue 44 files: an unchanged file is read once; a new (mtime, size), forget() or a recent stamp reads it again; a missing file is null', async () => {
    const now = { t: 100_000 };
    const disk = memoryFiles(now);
    disk.write('/a.txt', 'a\n', 50_000);
    const cache = new FileTextCache(disk.source, () => now.t);
    assert.equal(await cache.read('/a.txt'), 'a\n');
    assert.equal(await cache.read('/a.txt'), 'a\n');
    assert.deepEqual(disk.reads, ['/a.txt'], 'the second read came from the cache');

    disk.write('/a.txt', 'b\n', 50_000); // same mtime and size: only forget() (a tool's write, a save) can tell
    assert.equal(await cache.read('/a.txt'), 'a\n');
    cache.forget('/a.txt');
    assert.equal(await cache.read('/a.txt'), 'b\n');
    disk.write('/a.txt', 'bc\n', 50_000); // the size changed
    assert.equal(await cache.read('/a.txt'), 'bc\n');
    disk.write('/a.txt', 'cd\n', 60_000); // the mtime changed
    assert.equal(await cache.read('/a.txt'), 'cd\n');
    assert.equal(disk.reads.length, 4);

    // Written in the same second it was read: another write in that tick could keep the stamp, so it is read each time.
    disk.write('/racy.txt', 'x\n', now.t);
    await cache.read('/racy.txt');
    await cache.read('/racy.txt');
    assert.equal(disk.reads.filter((f) => f === '/racy.txt').length, 2);
    now.t += 5_000;
    await cache.read('/racy.txt'); // read once more, now that its stamp is old enough to trust…
    await cache.read('/racy.txt'); // …and then reused
    assert.equal(disk.reads.filter((f) => f === '/racy.txt').length, 3);

    disk.files.delete('/a.txt');
    assert.equal(await cache.read('/a.txt'), null);
    disk.write('/a.txt', 'cd\n', 60_000); // back with the stamp it had: read again, not the forgotten entry
    assert.equal(await cache.read('/a.txt'), 'cd\n');
    assert.equal(disk.reads.filter((f) => f === '/a.txt').length, 5);

    const failing = new FileTextCache({ stat: async () => ({ mtime: 1, size: 1 }), read: async () => Promise.reject(new Error('EISDIR')) });
    assert.equal(await failing.read('/dir'), null);
    const statFails = new FileTextCache({ stat: async () => Promise.reject(new Error('ENOENT')), read: async () => new Uint8Array() });
    assert.equal(await statFails.read('/gone'), null);
  });

  it('issue 44 files: retain() keeps only the files still under review', async () => {
    const now = { t: 100_000 };
    const disk = memoryFiles(now);
    disk.write('/a', 'a', 1);
    disk.write('/b', 'b', 1);
    const cache = new FileTextCache(disk.source, () => now.t);
    await cache.read('/a');
    await cache.read('/b');
    cache.retain(new Map([['/a', null]]));
    await cache.read('/a');
    await cache.read('/b');
    assert.deepEqual(disk.reads, ['/a', '/b', '/b']);
  });

  it('issue 44 files: the listing keeps the order of the review points, counts created/deleted/binary files as one change, and reuses a count while neither side changed', async () => {
    const texts = new Map<string, string | null>([
      ['/same', 'x\n'],
      ['/edited', 'a\nB\nc\nD\n'],
      ['/created', 'new\n'],
      ['/deleted', null],
      ['/binary', 'PNG\0\u0001'],
    ]);
    const bases = new Map<string, string | null>([
      ['/edited', 'a\nb\nc\nd\n'],
      ['/same', 'x\n'],
      ['/created', null],
      ['/deleted', 'gone\n'],
      ['/binary', 'PNG\0\u0000'],
    ]);
    const counts = new Map<string, HunkCount>();
    const listed = await changedFiles(bases, async (f) => texts.get(f) ?? null, counts);
    assert.deepEqual(
      listed.map((f) => [f.path, f.hunks]),
      [['/edited', 2], ['/created', 1], ['/deleted', 1], ['/binary', 1]],
    );
    // A count is reused while base and text are the ones it was counted for (planted here to see it reused)…
    counts.set('/edited', { base: bases.get('/edited')!, current: texts.get('/edited')!, hunks: 42 });
    assert.equal((await changedFiles(bases, (f) => texts.get(f) ?? null, counts))[0]!.hunks, 42);
    // …and counted again once the text changes; a file that left the review leaves the counts.
    texts.set('/edited', 'a\nB\nc\nd\n');
    bases.delete('/binary');
    assert.equal((await changedFiles(bases, (f) => texts.get(f) ?? null, counts))[0]!.hunks, 1);
    assert.equal(counts.has('/binary'), false);
  });

  it('issue 44 files: refreshes fired in a row run one at a time: one running, one waiting, which does the latest', async () => {
    const run = coalescing();
    const log: string[] = [];
    let release!: () => void;
    const gate = new Promise<void>((r) => (release = r));
    let active = 0;
    let most = 0;
    const task = (name: string, wait?: Promise<void>) => async () => {
      active++;
      most = Math.max(most, active);
      log.push(`start ${name}`);
      if (wait) await wait;
      log.push(`end ${name}`);
      active--;
    };
    const first = run(task('1', gate));
    const second = run(task('2'));
    const third = run(task('3'));
    const fourth = run(task('4'));
    assert.equal(second, third, 'the calls while one runs share the one waiting');
    assert.equal(third, fourth);
    release();
    await Promise.all([first, second, third, fourth]);
    assert.deepEqual(log, ['start 1', 'end 1', 'start 4', 'end 4']);
    assert.equal(most, 1, 'never two at once');
    // Idle again: the next call runs at once; a failed run does not stop the one waiting.
    const failing = run(async () => Promise.reject(new Error('boom')));
    const after = run(task('5'));
    await assert.rejects(failing, /boom/);
    await after;
    assert.deepEqual(log.slice(-2), ['start 5', 'end 5']);
  });
});
