// Issue 24.7: Turnstone's own files are never where a command can plant a link
// first: per-command folders are private (0700, random names), files are
// created exclusively without following links, and the full output of long
// commands goes to the user's cache folder, not the shared temp folder.
import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, rmSync, statSync, symlinkSync, writeFileSync } from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { createExclusive, privateSubdir, processPrivateDir, userCacheDir } from '../../../src/tools/os/private-dir';

describe('tools: private folders and exclusive files (issue 24.7)', () => {
  let dir: string;
  beforeEach(() => {
    dir = mkdtempSync(path.join(os.tmpdir(), 'turnstone-private-'));
  });
  afterEach(() => rmSync(dir, { recursive: true, force: true }));

  it('24.7: a link planted where Turnstone will write is refused, and what it points at is untouched', async () => {
    const victim = path.join(dir, 'victim.txt');
    writeFileSync(victim, 'keep me');
    const planted = path.join(dir, 'bash-output.log');
    symlinkSync(victim, planted);
    await assert.rejects(createExclusive(planted), (e: NodeJS.ErrnoException) => e.code === 'EEXIST' || e.code === 'ELOOP');
    assert.equal(readFileSync(victim, 'utf8'), 'keep me');
    // A dangling link (to where a file would be created) is refused too: nothing appears at its target.
    const target = path.join(dir, 'would-be-created.txt');
    const dangling = path.join(dir, 'dangling.log');
    symlinkSync(target, dangling);
    await assert.rejects(createExclusive(dangling));
    assert.throws(() => statSync(target), /ENOENT/);
    // An ordinary new file is made, readable by its owner only.
    const handle = await createExclusive(path.join(dir, 'fresh.log'));
    await handle.close();
    assert.equal(statSync(path.join(dir, 'fresh.log')).mode & 0o777, 0o600);
  });

  it('24.7: per-command folders are new, private (0700) and inside this process\'s own folder', async () => {
    const a = await privateSubdir('cmd-');
    const b = await privateSubdir('cmd-');
    assert.notEqual(a, b);
    for (const d of [a, b, processPrivateDir()]) assert.equal(statSync(d).mode & 0o777, 0o700, d);
    assert.ok(a.startsWith(processPrivateDir() + path.sep));
  });

  it('24.7: kept output goes to the user\'s cache folder (XDG_CACHE_HOME when absolute), never the shared temp folder', () => {
    assert.equal(userCacheDir({ XDG_CACHE_HOME: '/home/u/.cache-x' }), '/home/u/.cache-x/turnstone');
    assert.equal(userCacheDir({ XDG_CACHE_HOME: 'relative/cache' }), path.join(os.homedir(), '.cache', 'turnstone'));
    assert.ok(!userCacheDir({}).startsWith(os.tmpdir() + path.sep));
  });
});
