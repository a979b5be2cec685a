import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { type NodeToolEnv, ctx, makeNodeEnv } from './helpers';

describe('tools: paths outside the workspace (Node adapter)', () => {
  let env: NodeToolEnv;
  let outside: string;
  beforeEach(async () => {
    env = await makeNodeEnv();
    outside = path.join(env.base, 'outside');
    fs.mkdirSync(outside);
    fs.writeFileSync(path.join(outside, 'secret.txt'), 'top secret\n');
  });
  afterEach(() => env.cleanup());

  it('flags .. escapes, even when they pass through folders of the workspace', async () => {
    fs.mkdirSync(path.join(env.root, 'src'));
    const a = await env.executor.assess('read_file', { path: 'src/../../outside/secret.txt' });
    assert.deepEqual(a.outsideWorkspace, [path.join(outside, 'secret.txt')]);
    assert.equal(a.subject, path.join(outside, 'secret.txt'));
  });

  it('flags absolute paths outside and accepts absolute paths inside', async () => {
    const a = await env.executor.assess('edit_file', { path: path.join(outside, 'secret.txt'), old_string: 'a', new_string: 'b' });
    assert.deepEqual(a.outsideWorkspace, [path.join(outside, 'secret.txt')]);
    const b = await env.executor.assess('edit_file', { path: path.join(env.root, 'x.txt'), old_string: 'a', new_string: 'b' });
    assert.equal(b.outsideWorkspace, undefined);
    assert.equal(b.subject, 'x.txt');
  });

  it('expands ~ to the home folder and flags it', async () => {
    const a = await env.executor.assess('write_file', { path: '~/.ssh/authorized_keys', content: 'x' });
    assert.deepEqual(a.outsideWorkspace, [path.join(env.base, 'home', '.ssh', 'authorized_keys')]);
  });

  it('flags a symlink inside the workspace that points to a folder outside', async () => {
    fs.symlinkSync(outside, path.join(env.root, 'link'));
    const read = await env.executor.assess('read_file', { path: 'link/secret.txt' });
    assert.deepEqual(read.outsideWorkspace, [path.join(outside, 'secret.txt')]);
    // A file that does not exist yet, under a symlinked parent, escapes just the same.
    const write = await env.executor.assess('write_file', { path: 'link/new/dir/file.txt', content: 'x' });
    assert.deepEqual(write.outsideWorkspace, [path.join(outside, 'new', 'dir', 'file.txt')]);
    const glob = await env.executor.assess('glob_search', { pattern: '*', path: 'link' });
    assert.deepEqual(glob.outsideWorkspace, [outside]);
  });

  it('flags a symlinked file whose target is outside, and not one whose target is inside', async () => {
    fs.symlinkSync(path.join(outside, 'secret.txt'), path.join(env.root, 'innocent.txt'));
    fs.writeFileSync(path.join(env.root, 'real.txt'), 'x');
    fs.symlinkSync(path.join(env.root, 'real.txt'), path.join(env.root, 'alias.txt'));
    assert.deepEqual((await env.executor.assess('read_file', { path: 'innocent.txt' })).outsideWorkspace, [path.join(outside, 'secret.txt')]);
    assert.equal((await env.executor.assess('read_file', { path: 'alias.txt' })).outsideWorkspace, undefined);
  });

  it('writes through a symlink to the real file, which is what the check saw', async () => {
    fs.symlinkSync(outside, path.join(env.root, 'link'));
    const out = await env.executor.execute('write_file', { path: 'link/made.txt', content: 'hi\n' }, ctx());
    assert.equal(out.isError, false);
    assert.equal(out.fileChange?.path, path.join(outside, 'made.txt'));
    assert.equal(fs.readFileSync(path.join(outside, 'made.txt'), 'utf8'), 'hi\n');
  });

  it('reports a workspace whose root is reached through a symlink as inside', async () => {
    const linkedRoot = path.join(env.base, 'root-link');
    fs.symlinkSync(env.root, linkedRoot);
    const a = await env.executor.assess('read_file', { path: path.join(linkedRoot, 'a.txt') });
    assert.equal(a.outsideWorkspace, undefined);
    assert.equal(a.subject, 'a.txt');
  });
});

describe('tools: searches that leave the workspace (Node adapter)', () => {
  let env: NodeToolEnv;
  beforeEach(async () => {
    env = await makeNodeEnv();
  });
  afterEach(() => env.cleanup());

  it('flags an absolute glob pattern outside the workspace, not just the path input', async () => {
    const outside = path.join(env.base, 'outside');
    fs.mkdirSync(outside);
    fs.writeFileSync(path.join(outside, 'k.pem'), '');
    const a = await env.executor.assess('glob_search', { pattern: `${outside}/**/*.pem` });
    assert.deepEqual(a.outsideWorkspace, [outside]);
    const out = await env.executor.execute('glob_search', { pattern: `${outside}/**/*.pem` }, ctx());
    assert.equal(out.content, path.join(outside, 'k.pem'));
  });

  it('flags grep_search on a file outside the workspace', async () => {
    fs.writeFileSync(path.join(env.base, 'notes.txt'), 'x\n');
    const a = await env.executor.assess('grep_search', { pattern: 'x', path: '../notes.txt' });
    assert.deepEqual(a.outsideWorkspace, [path.join(env.base, 'notes.txt')]);
  });
});
