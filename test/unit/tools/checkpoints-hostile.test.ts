// Issue 24, class 7: checkpoints against a hostile repository. Turnstone's own
// git runs outside the sandbox, so taking a checkpoint must never run a program
// the repository's config names (fsmonitor, hooks, clean filters, submodules'
// own config), and a restore must never write through a folder that became a
// link since (out of the workspace, or into .git).
import * as assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, realpathSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import * as path from 'node:path';
import { openCheckpointStore } from '../../../src/tools/checkpoints';
import { NodeWorkspace } from '../../../src/tools/node-adapter';

const sh = (cwd: string, script: string) => execFileSync('bash', ['-c', script], { cwd, stdio: 'pipe' }).toString();

describe('checkpoints: a hostile repository runs nothing, and a restore never writes through a link (issue 24)', function () {
  // Dozens of git and shell processes per test: under a loaded stress run each start can cost a second or more
  // (32 s seen, 0.6–3 s alone), past the suite's 20 s.
  this.timeout(60_000);
  let base: string;
  let root: string;
  let canaries: string;

  beforeEach(() => {
    base = realpathSync(mkdtempSync(path.join(tmpdir(), 'ts-ckpt-hostile-')));
    root = path.join(base, 'ws');
    canaries = path.join(base, 'canaries');
    mkdirSync(root);
    mkdirSync(canaries);
    sh(root, 'git init -q && echo a > a.txt && echo "*.txt filter=evil" > .gitattributes && git add -A && git -c user.name=t -c user.email=t@t commit -qm init');
  });
  afterEach(() => rmSync(base, { recursive: true, force: true }));

  const open = async () => openCheckpointStore({ dir: path.join(base, 'store'), root, workspace: new NodeWorkspace(root) });
  const planted = () => readdirSync(canaries);

  it('24.7: taking checkpoints runs no fsmonitor, hook, clean filter or submodule config the repository planted', async () => {
    const touch = (name: string) => `touch ${path.join(canaries, name)}`;
    // A nested repository with its own fsmonitor, recorded as a gitlink (what a submodule is to git).
    sh(root, 'mkdir sub && cd sub && git init -q && echo s > s.txt && git add -A && git -c user.name=t -c user.email=t@t commit -qm s');
    sh(root, 'git add sub 2>/dev/null; git -c user.name=t -c user.email=t@t commit -qm sub');
    sh(root, `cd sub && git config core.fsmonitor '${touch('submodule-fsmonitor')}; #' && echo changed > s.txt`);
    sh(root, [
      `git config core.fsmonitor '${touch('fsmonitor')}; #'`,
      `git config filter.evil.clean '${touch('clean-filter')}; cat'`,
      `git config filter.evil.process '${touch('process-filter')}'`,
      'mkdir -p hooks-here',
      `printf '#!/bin/sh\\n${touch('hook')}\\n' > hooks-here/post-index-change && chmod +x hooks-here/post-index-change`,
      'git config core.hooksPath hooks-here',
      `git config diff.external '${touch('external-diff')}'`,
      `git config core.pager '${touch('pager')}'`,
    ].join(' && '));
    // Racily clean: same second as the index, so git re-reads the file (through its clean filter if it may).
    sh(root, 'echo b > a.txt');
    const store = await open();
    assert.equal(store.mode, 'git');
    const start = await store.take({ kind: 'turn-start', turn: 1, messageIndex: 0, prompt: 'p' });
    sh(root, 'echo c > a.txt && echo new > new.txt');
    await store.take({ kind: 'turn-end', turn: 1, messageIndex: 0, prompt: 'p' });
    const plan = await store.plan(start.id);
    assert.ok(plan.entries.some((e) => e.path === 'a.txt'), 'the scan still sees the change');
    assert.deepEqual(planted(), []);
    // Control: plain git does run what was planted, so the check can fail.
    sh(root, 'git status --porcelain >/dev/null 2>&1 || true');
    assert.ok(planted().includes('fsmonitor'));
  });

  it('24.7: a restore does not write through a folder replaced by a link (a tracked folder, and an ignored one the scan cannot see)', async () => {
    sh(root, 'mkdir -p src && echo one > src/x.txt && echo build/ > .gitignore && git add -A && git -c user.name=t -c user.email=t@t commit -qm src');
    mkdirSync(path.join(root, 'build'));
    writeFileSync(path.join(root, 'build', 'out.txt'), 'built\n');
    const outside = path.join(base, 'outside');
    mkdirSync(outside);
    const store = await open();
    const ws = new NodeWorkspace(root);
    const start = await store.take({ kind: 'turn-start', turn: 1, messageIndex: 0, prompt: 'p' });
    // A tool writes both (the ignored file is copied before the write), then both folders become links outside.
    await store.beforeWrite(path.join(root, 'build', 'out.txt'));
    writeFileSync(path.join(root, 'build', 'out.txt'), 'rebuilt\n');
    writeFileSync(path.join(root, 'src', 'x.txt'), 'two\n');
    await store.take({ kind: 'turn-end', turn: 1, messageIndex: 0, prompt: 'p' });
    for (const dir of ['src', 'build']) {
      rmSync(path.join(root, dir), { recursive: true });
      symlinkSync(outside, path.join(root, dir));
    }
    const plan = await store.plan(start.id);
    // The links are changes since the checkpoint (conflicts): keeping them while taking the files back
    // must not write the files through them.
    assert.deepEqual(plan.entries.filter((e) => e.path === 'src' || e.path === 'build').map((e) => e.conflict), [true, true]);
    const keepLinks = await store.apply(plan, ws, new Set(['src/x.txt', 'build/out.txt']));
    assert.deepEqual(readdirSync(outside), [], 'nothing was written outside the workspace');
    assert.match(keepLinks.failed.find((f) => f.path === 'src/x.txt')?.error ?? '', /src is a link now/);
    assert.match(keepLinks.failed.find((f) => f.path === 'build/out.txt')?.error ?? '', /build is a link now/);
    // Taking everything back removes the links first, and the folders come back real.
    const all = await store.plan(start.id);
    await store.apply(all, ws, new Set(all.entries.map((e) => e.path)));
    assert.deepEqual(readdirSync(outside), []);
    assert.equal(readFileSync(path.join(root, 'src', 'x.txt'), 'utf8'), 'one\n');
    assert.equal(readFileSync(path.join(root, 'build', 'out.txt'), 'utf8'), 'built\n');
  });
});
