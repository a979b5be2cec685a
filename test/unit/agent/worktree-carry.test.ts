// Issue 43, a worktree that starts with the user's uncommitted work: tracked changes (staged or not, a deletion
// included) and untracked files git does not ignore come along unstaged; ignored files do not; the user's own
// work tree, index and stash list are left exactly as they were. Real git repositories in a temporary folder.
import * as assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { existsSync, lstatSync, mkdirSync, mkdtempSync, readFileSync, readlinkSync, realpathSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { createWorktree, uncommittedChanges } from '../../../src/agent/worktrees';

const ENV = { PATH: process.env.PATH, HOME: process.env.HOME };
const git = (cwd: string, ...args: string[]) => execFileSync('git', ['-c', 'commit.gpgsign=false', ...args], { cwd, encoding: 'utf8', env: ENV });

describe('worktree carrying uncommitted changes (issue 43)', function () {
  this.timeout(30_000);
  let tmp: string;
  let repo: string;
  const write = (rel: string, data: string) => {
    mkdirSync(path.dirname(path.join(repo, rel)), { recursive: true });
    writeFileSync(path.join(repo, rel), data);
  };

  beforeEach(() => {
    tmp = realpathSync(mkdtempSync(path.join(os.tmpdir(), 'turnstone-carry-')));
    repo = path.join(tmp, 'proj');
    mkdirSync(repo);
    git(repo, 'init', '-q', '-b', 'main');
    git(repo, 'config', 'user.name', 'Test');
    git(repo, 'config', 'user.email', 'test@example.com');
    write('a.txt', 'one\ntwo\n');
    write('b.txt', 'bee\n');
    write('gone.txt', 'bye\n');
    write('.gitignore', 'build/\n');
    git(repo, 'add', '-A');
    git(repo, 'commit', '-q', '-m', 'first');
  });
  afterEach(() => rmSync(tmp, { recursive: true, force: true }));

  it('43.worktree: carryUncommitted brings staged, unstaged, deleted and untracked work along, unstaged; ignored files stay; the user’s tree, index and stashes are untouched', async () => {
    write('a.txt', 'one\nTWO\n'); // unstaged
    write('b.txt', 'BEE\n');
    git(repo, 'add', 'b.txt'); // staged
    rmSync(path.join(repo, 'gone.txt'));
    write('notes/new.md', 'draft\n'); // untracked
    symlinkSync('a.txt', path.join(repo, 'link-to-a'));
    write('build/out.js', 'ignored\n');
    const statusBefore = git(repo, 'status', '--porcelain=v1');
    // What the index holds (a refresh of its cached file stats is not a change to it).
    const indexBefore = git(repo, 'ls-files', '--stage');
    assert.equal(await uncommittedChanges(repo), 5);

    const wt = await createWorktree({ cwd: repo, name: 'carry', dir: path.join(tmp, 'worktrees'), carryUncommitted: true });
    assert.equal(wt.carried, 5);
    assert.equal(wt.uncommitted, 0, 'nothing is left behind');
    assert.equal(readFileSync(path.join(wt.path, 'a.txt'), 'utf8'), 'one\nTWO\n');
    assert.equal(readFileSync(path.join(wt.path, 'b.txt'), 'utf8'), 'BEE\n');
    assert.equal(existsSync(path.join(wt.path, 'gone.txt')), false);
    assert.equal(readFileSync(path.join(wt.path, 'notes', 'new.md'), 'utf8'), 'draft\n');
    assert.ok(lstatSync(path.join(wt.path, 'link-to-a')).isSymbolicLink());
    assert.equal(readlinkSync(path.join(wt.path, 'link-to-a')), 'a.txt');
    assert.equal(existsSync(path.join(wt.path, 'build')), false, 'ignored files stay behind');
    assert.equal(git(wt.path, 'diff', '--cached', '--name-only'), '', 'carried unstaged');

    assert.equal(git(repo, 'status', '--porcelain=v1'), statusBefore);
    assert.equal(git(repo, 'ls-files', '--stage'), indexBefore, 'the user’s index holds what it held');
    assert.equal(git(repo, 'stash', 'list'), '', 'no stash entry is left');
    assert.equal(git(wt.path, 'log', '-1', '--format=%s').trim(), 'first', 'nothing is committed');
  });

  it('43.worktree: without carryUncommitted the worktree starts from HEAD and says what stayed behind', async () => {
    write('a.txt', 'changed\n');
    write('new.txt', 'x\n');
    const wt = await createWorktree({ cwd: repo, name: 'plain', dir: path.join(tmp, 'worktrees') });
    assert.equal(wt.carried, 0);
    assert.equal(wt.uncommitted, 2);
    assert.equal(readFileSync(path.join(wt.path, 'a.txt'), 'utf8'), 'one\ntwo\n');
    assert.equal(existsSync(path.join(wt.path, 'new.txt')), false);
  });

  it('43.worktree: a clean tree carries nothing and needs no stash', async () => {
    const wt = await createWorktree({ cwd: repo, name: 'clean', dir: path.join(tmp, 'worktrees'), carryUncommitted: true });
    assert.equal(wt.carried, 0);
    assert.equal(git(wt.path, 'status', '--porcelain=v1'), '');
  });
});
