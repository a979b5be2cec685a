// Issue 43 (`--worktree [name]`, CLI part, and the removal the editor uses) and
// issue 44 (the json result's `changes`): `node dist/cli.js` against the local
// Anthropic mock, on temporary git repositories.
import * as assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, realpathSync, rmSync, writeFileSync } from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { createWorktree, removeWorktree, worktreeNameProblem, worktreesDir } from '../../../src/agent/worktrees';
import { changesOf, lineCounts } from '../../../src/cli/changes';
import { MockAnthropicServer, textReply, toolUseReply } from '../../fixtures/mock-anthropic';
import { runCli } from '../../support/run-cli';

const GIT_ID = ['-c', 'user.name=Test', '-c', 'user.email=test@example.com', '-c', 'commit.gpgsign=false'];

function git(cwd: string, ...args: string[]): string {
  return execFileSync('git', [...GIT_ID, ...args], { cwd, encoding: 'utf8', env: { PATH: process.env.PATH, HOME: process.env.HOME } });
}

/** A repository with one commit on `main` holding greet.txt. */
function makeRepo(parent: string, name = 'proj'): string {
  const repo = path.join(parent, name);
  mkdirSync(repo);
  git(repo, 'init', '-q', '-b', 'main');
  writeFileSync(path.join(repo, 'greet.txt'), 'hello world\nsecond line\n');
  git(repo, 'add', 'greet.txt');
  git(repo, 'commit', '-q', '-m', 'first');
  return realpathSync(repo);
}

/** The porcelain `git worktree list`: each worktree's path and branch. */
function worktrees(repo: string): { path: string; branch: string | undefined }[] {
  return git(repo, 'worktree', 'list', '--porcelain')
    .split('\n\n')
    .filter((b) => b.trim())
    .map((block) => ({
      path: /^worktree (.*)$/m.exec(block)![1]!,
      branch: /^branch refs\/heads\/(.*)$/m.exec(block)?.[1],
    }));
}

const branches = (repo: string) => git(repo, 'branch', '--format=%(refname:short)').split('\n').filter(Boolean).sort();

describe('CLI --worktree and json changes (issues 43, 44)', function () {
  this.timeout(60_000);
  let server: MockAnthropicServer;
  let tmp: string;
  let data: string;
  let env: Record<string, string>;

  beforeEach(async () => {
    server = await MockAnthropicServer.start();
    tmp = realpathSync(mkdtempSync(path.join(os.tmpdir(), 'turnstone-wt-')));
    data = path.join(tmp, 'data');
    env = { ANTHROPIC_BASE_URL: server.url, ANTHROPIC_API_KEY: 'sk-test-cli', XDG_DATA_HOME: data };
  });
  afterEach(async () => {
    await server.close();
    rmSync(tmp, { recursive: true, force: true });
  });

  it('issue 43 worktree: --worktree feat1 runs the turn in a new worktree on turnstone/feat1; the main working tree is untouched', async () => {
    const repo = makeRepo(tmp);
    const before = readFileSync(path.join(repo, 'greet.txt'));
    server.enqueue(
      toolUseReply([{ id: 'tu_edit', name: 'edit_file', input: { path: 'greet.txt', old_string: 'world', new_string: 'turnstone\nthird line' } }]),
      textReply('Changed it.'),
    );
    const run = await runCli(['-p', 'greet turnstone', '--cwd', repo, '--worktree', 'feat1', '--permission-mode', 'acceptEdits', '--output-format', 'json'], { env });
    assert.equal(run.code, 0, run.stderr);
    const result = JSON.parse(run.stdout);

    // Where it went: the data folder, outside the repository.
    const listed = worktrees(repo);
    assert.equal(listed.length, 2, JSON.stringify(listed));
    const wt = listed.find((w) => w.branch === 'turnstone/feat1')!;
    assert.ok(wt, JSON.stringify(listed));
    assert.deepEqual(result.worktree, { path: wt.path, branch: 'turnstone/feat1' });
    const container = path.join(data, 'turnstone', 'worktrees');
    assert.equal(path.dirname(path.dirname(wt.path)), container);
    assert.match(path.basename(path.dirname(wt.path)), /^proj-[0-9a-f]{8}$/);
    assert.equal(path.basename(wt.path), 'feat1');
    assert.equal(git(wt.path, 'symbolic-ref', '--short', 'HEAD').trim(), 'turnstone/feat1');
    assert.equal(git(wt.path, 'rev-parse', 'HEAD').trim(), git(repo, 'rev-parse', 'main').trim());

    // The edit landed only in the worktree.
    assert.equal(readFileSync(path.join(wt.path, 'greet.txt'), 'utf8'), 'hello turnstone\nthird line\nsecond line\n');
    assert.deepEqual(readFileSync(path.join(repo, 'greet.txt')), before);
    assert.equal(git(repo, 'status', '--porcelain'), '');
    assert.equal(git(repo, 'symbolic-ref', '--short', 'HEAD').trim(), 'main');
    // The model was told the worktree is its workspace.
    assert.ok(JSON.stringify(server.bodies[0]).includes(wt.path));

    // issue 44: the turn's changes, relative to the session's folder.
    assert.deepEqual(result.changes, [{ path: 'greet.txt', added: 2, removed: 1 }]);
  });

  it('issue 43 worktree: a bare --worktree gets a generated name; turnstone.worktrees.dir sets the folder; text output names the worktree', async () => {
    const repo = makeRepo(tmp);
    const dir = path.join(tmp, 'elsewhere');
    const settings = path.join(tmp, 'settings.json');
    writeFileSync(settings, JSON.stringify({ 'turnstone.worktrees.dir': dir }));
    server.enqueue(textReply('Nothing to do.'));
    const run = await runCli(['--worktree', '-p', 'hi', '--cwd', repo, '--settings', settings], { env });
    assert.equal(run.code, 0, run.stderr);
    const wt = worktrees(repo).find((w) => w.branch?.startsWith('turnstone/'));
    assert.ok(wt);
    assert.match(wt.branch!, /^turnstone\/\d{8}-[a-z0-9]{4}$/);
    assert.equal(path.dirname(path.dirname(wt.path)), dir);
    assert.ok(!existsSync(path.join(data, 'turnstone')), 'the default folder was not used');
    assert.match(run.stderr, new RegExp(`worktree ${wt.path.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')} \\(branch ${wt.branch}, from main\\)`));
  });

  it('issue 43 worktree: a subfolder as --cwd runs in the same subfolder of the worktree; uncommitted changes are not carried (and said so)', async () => {
    const repo = makeRepo(tmp);
    mkdirSync(path.join(repo, 'pkg'));
    writeFileSync(path.join(repo, 'pkg', 'a.txt'), 'a\n');
    git(repo, 'add', '.');
    git(repo, 'commit', '-q', '-m', 'pkg');
    writeFileSync(path.join(repo, 'greet.txt'), 'uncommitted\n');
    server.enqueue(toolUseReply([{ id: 'tu_w', name: 'write_file', input: { path: 'b.txt', content: 'one\ntwo\n' } }]), textReply('Wrote b.'));
    const run = await runCli(['-p', 'write b', '--cwd', path.join(repo, 'pkg'), '--worktree', 'sub/one', '--permission-mode', 'acceptEdits', '--output-format', 'json'], { env });
    assert.equal(run.code, 0, run.stderr);
    const result = JSON.parse(run.stdout);
    assert.equal(result.worktree.branch, 'turnstone/sub/one');
    assert.equal(readFileSync(path.join(result.worktree.path, 'pkg', 'b.txt'), 'utf8'), 'one\ntwo\n');
    assert.ok(!existsSync(path.join(repo, 'pkg', 'b.txt')));
    assert.equal(readFileSync(path.join(result.worktree.path, 'greet.txt'), 'utf8'), 'hello world\nsecond line\n');
    assert.equal(readFileSync(path.join(repo, 'greet.txt'), 'utf8'), 'uncommitted\n');
    assert.match(run.stderr, /1 uncommitted change was not carried over/);
    assert.deepEqual(result.changes, [{ path: 'b.txt', added: 2, removed: 0 }]);
  });

  it('issue 43 worktree: --carry-changes brings the uncommitted edit and an untracked file into the worktree (the turn reads them there); the main tree keeps its own', async () => {
    const repo = makeRepo(tmp);
    writeFileSync(path.join(repo, 'greet.txt'), 'uncommitted\n');
    writeFileSync(path.join(repo, 'draft.md'), 'my notes\n');
    server.enqueue(toolUseReply([{ id: 'tu_r', name: 'read_file', input: { path: 'draft.md' } }]), textReply('Read it.'));
    const run = await runCli(['-p', 'read my draft', '--cwd', repo, '--worktree', 'carry', '--carry-changes', '--output-format', 'json'], { env });
    assert.equal(run.code, 0, run.stderr);
    const result = JSON.parse(run.stdout);
    assert.equal(readFileSync(path.join(result.worktree.path, 'greet.txt'), 'utf8'), 'uncommitted\n');
    assert.equal(readFileSync(path.join(result.worktree.path, 'draft.md'), 'utf8'), 'my notes\n');
    assert.match(run.stderr, /2 uncommitted changes were carried over/);
    const toolResult = JSON.stringify(server.bodies.at(-1)?.messages ?? '');
    assert.match(toolResult, /my notes/, 'the turn read the carried file in the worktree');
    assert.equal(git(repo, 'status', '--porcelain'), ' M greet.txt\n?? draft.md\n', 'the main working tree keeps its changes');
    const plain = await runCli(['-p', 'hi', '--cwd', repo, '--carry-changes'], { env });
    assert.equal(plain.code, 2);
    assert.match(plain.stderr, /--carry-changes goes with --worktree/);
  });

  it('issue 43 worktree: not a git repository → one line, exit 2, nothing created, no request', async () => {
    const plain = path.join(tmp, 'plain');
    mkdirSync(plain);
    const run = await runCli(['-p', 'hi', '--cwd', plain, '--worktree', 'feat1', '--output-format', 'json'], { env });
    assert.equal(run.code, 2);
    assert.equal(run.stdout, '');
    assert.equal(run.stderr.trim().split('\n').length, 1, run.stderr);
    assert.match(run.stderr, /^turnstone: --worktree: .*plain is not in a git repository/);
    assert.ok(!existsSync(data));
    assert.deepEqual(readdirSync(plain), []);
    assert.equal(server.bodies.length, 0);
  });

  it('issue 43 worktree: a name whose branch exists → one line, exit 2, nothing created', async () => {
    const repo = makeRepo(tmp);
    git(repo, 'branch', 'turnstone/feat1');
    const run = await runCli(['-p', 'hi', '--cwd', repo, '--worktree', 'feat1'], { env });
    assert.equal(run.code, 2);
    assert.equal(run.stderr.trim().split('\n').length, 1, run.stderr);
    assert.match(run.stderr, /branch turnstone\/feat1 already exists/);
    assert.equal(worktrees(repo).length, 1);
    assert.deepEqual(branches(repo), ['main', 'turnstone/feat1']);
    assert.ok(!existsSync(data));
    assert.equal(server.bodies.length, 0);
  });

  it('issue 43 worktree: a repository without a commit, a bad name and a worktrees.dir inside the repository → exit 2, nothing created', async () => {
    const empty = path.join(tmp, 'empty');
    mkdirSync(empty);
    git(empty, 'init', '-q', '-b', 'main');
    let run = await runCli(['-p', 'hi', '--cwd', empty, '--worktree', 'x'], { env });
    assert.equal(run.code, 2);
    assert.match(run.stderr, /has no commit yet/);
    assert.equal(git(empty, 'branch', '--list').trim(), '');

    const repo = makeRepo(tmp);
    for (const bad of ['../up', 'a/b/c', '-x', 'a..b', 'x.lock', 'sp ace']) {
      run = await runCli(['-p', 'hi', '--cwd', repo, `--worktree=${bad}`], { env });
      assert.equal(run.code, 2, bad);
      assert.equal(run.stderr.trim().split('\n').length, 1, run.stderr);
      assert.match(run.stderr, /^turnstone: bad --worktree/, bad);
    }
    const settings = path.join(tmp, 'inside.json');
    writeFileSync(settings, JSON.stringify({ 'turnstone.worktrees.dir': path.join(repo, 'wts') }));
    run = await runCli(['-p', 'hi', '--cwd', repo, '--worktree', 'ok', '--settings', settings], { env });
    assert.equal(run.code, 2);
    assert.match(run.stderr, /inside the repository/);
    assert.ok(!existsSync(path.join(repo, 'wts')));
    assert.deepEqual(branches(repo), ['main']);
    assert.equal(worktrees(repo).length, 1);
    assert.equal(server.bodies.length, 0);
  });

  it('issue 44 changes: without --worktree the json has worktree null and the changes of each file the tools changed', async () => {
    const ws = path.join(tmp, 'ws');
    mkdirSync(ws);
    writeFileSync(path.join(ws, 'a.txt'), 'one\ntwo\nthree\n');
    server.enqueue(
      toolUseReply([{ id: 'tu_1', name: 'edit_file', input: { path: 'a.txt', old_string: 'two\n', new_string: '' } }]),
      toolUseReply([{ id: 'tu_2', name: 'write_file', input: { path: 'dir/new.txt', content: 'x\ny\nz' } }]),
      toolUseReply([{ id: 'tu_3', name: 'edit_file', input: { path: 'a.txt', old_string: 'three', new_string: '3' } }]),
      textReply('done'),
    );
    const run = await runCli(['-p', 'edit', '--cwd', ws, '--permission-mode', 'acceptEdits', '--output-format', 'json'], { env });
    assert.equal(run.code, 0, run.stderr);
    const result = JSON.parse(run.stdout);
    assert.equal(result.worktree, null);
    assert.deepEqual(result.changes, [
      { path: 'a.txt', added: 1, removed: 2 },
      { path: 'dir/new.txt', added: 3, removed: 0 },
    ]);
  });

  it('issue 44 changes: line counts and paths relative to the folder', () => {
    assert.deepEqual(lineCounts(null, 'a\nb\n'), { added: 2, removed: 0 });
    assert.deepEqual(lineCounts('a\nb\n', null), { added: 0, removed: 2 });
    assert.deepEqual(lineCounts('a\nb\nc\n', 'a\nB\nc\n'), { added: 1, removed: 1 });
    assert.deepEqual(lineCounts('a', 'a\n'), { added: 1, removed: 1 });
    assert.deepEqual(lineCounts('same\n', 'same\n'), { added: 0, removed: 0 });
    const root = path.join(tmp, 'root');
    assert.deepEqual(
      changesOf([
        { path: path.join(root, 'src', 'x.ts'), before: 'a\n', after: 'b\n' },
        { path: path.join(tmp, 'outside.txt'), before: null, after: 'o\n' },
      ], root),
      [
        { path: 'src/x.ts', added: 1, removed: 1 },
        { path: path.join(tmp, 'outside.txt'), added: 1, removed: 0 },
      ],
    );
  });

  it('issue 43 worktree: the folder: the data folder by default, else the setting (absolute or ~/)', () => {
    assert.equal(worktreesDir('', { XDG_DATA_HOME: '/data' }, '/home/u'), path.join('/data', 'turnstone', 'worktrees'));
    assert.equal(worktreesDir('~/wt', {}, '/home/u'), path.join('/home/u', 'wt'));
    assert.equal(worktreesDir(' /abs/wt ', {}, '/home/u'), path.resolve('/abs/wt'));
    assert.throws(() => worktreesDir('relative/wt', {}, '/home/u'), /must be an absolute path/);
  });

  it('issue 43 worktree: names', () => {
    for (const ok of ['feat1', 'fix/login', 'a.b_c-d', '20261206-k3f9']) assert.equal(worktreeNameProblem(ok), undefined, ok);
    for (const bad of ['', '../x', 'a/b/c', '.hidden', '-x', 'a..b', 'x.lock', 'x.', 'a b', 'a~1', 'a^', 'a:b', 'a@{1}', 'x/', '/x', 'a\\b', 'x'.repeat(65)]) {
      assert.ok(worktreeNameProblem(bad), bad);
    }
  });

  it('issue 43 worktree: removal refuses while the branch has commits not merged into its base or uncommitted changes, unless forced', async () => {
    const repo = makeRepo(tmp);
    const made = await createWorktree({ cwd: repo, name: 'feat2', dir: path.join(tmp, 'wts') });
    assert.equal(made.branch, 'turnstone/feat2');
    assert.deepEqual(made.base.ref, 'refs/heads/main');

    // An uncommitted change.
    writeFileSync(path.join(made.path, 'greet.txt'), 'changed\n');
    let r = await removeWorktree(made.path);
    assert.equal(r.removed, false);
    assert.match((r as { reason: string }).reason, /1 uncommitted change/);

    // Committed, but not merged into main.
    git(made.path, 'commit', '-q', '-am', 'work');
    r = await removeWorktree(made.path);
    assert.equal(r.removed, false);
    assert.match((r as { reason: string }).reason, /turnstone\/feat2 has 1 commit not merged into main/);
    assert.ok(existsSync(made.path));
    assert.deepEqual(branches(repo), ['main', 'turnstone/feat2']);

    // Merged: removed with its branch, no force needed.
    git(repo, 'merge', '-q', '--ff-only', 'turnstone/feat2');
    r = await removeWorktree(made.path);
    assert.deepEqual(r, { removed: true, branch: 'turnstone/feat2' });
    assert.ok(!existsSync(made.path));
    assert.deepEqual(branches(repo), ['main']);
    assert.equal(worktrees(repo).length, 1);

    // Forced: unmerged commits and uncommitted changes go.
    const other = await createWorktree({ cwd: repo, name: 'feat3', dir: path.join(tmp, 'wts') });
    writeFileSync(path.join(other.path, 'new.txt'), 'n\n');
    git(other.path, 'add', 'new.txt');
    git(other.path, 'commit', '-q', '-m', 'more');
    writeFileSync(path.join(other.path, 'untracked.txt'), 'u\n');
    assert.equal((await removeWorktree(other.path)).removed, false);
    assert.deepEqual(await removeWorktree(other.path, { force: true }), { removed: true, branch: 'turnstone/feat3' });
    assert.ok(!existsSync(other.path));
    assert.deepEqual(branches(repo), ['main']);

    // Never the main work tree, nor a worktree on another branch.
    assert.match((await removeWorktree(repo, { force: true }) as { reason: string }).reason, /main work tree/);
    git(repo, 'worktree', 'add', '-q', '-b', 'mine', path.join(tmp, 'mine'));
    assert.match((await removeWorktree(path.join(tmp, 'mine'), { force: true }) as { reason: string }).reason, /not on a turnstone\/… branch/);
    assert.ok(existsSync(path.join(tmp, 'mine')));
  });

  it('issue 43 worktree: without its record, removal compares the branch with every other branch', async () => {
    const repo = makeRepo(tmp);
    const made = await createWorktree({ cwd: repo, name: 'lost', dir: path.join(tmp, 'wts') });
    rmSync(`${made.path}.turnstone.json`);
    git(made.path, 'commit', '-q', '--allow-empty', '-m', 'only here');
    const r = await removeWorktree(made.path);
    assert.equal(r.removed, false);
    assert.match((r as { reason: string }).reason, /1 commit not merged into any other branch/);
    git(repo, 'branch', 'keep', 'turnstone/lost');
    assert.deepEqual(await removeWorktree(made.path), { removed: true, branch: 'turnstone/lost' });
  });

  it('issue 43 worktree: making one runs no hook or filter program of the repository', async () => {
    const repo = makeRepo(tmp);
    const marker = path.join(tmp, 'hook-ran');
    const smudged = path.join(tmp, 'filter-ran');
    const hook = path.join(repo, '.git', 'hooks', 'post-checkout');
    writeFileSync(hook, `#!/bin/sh\ntouch '${marker}'\n`, { mode: 0o755 });
    git(repo, 'config', 'filter.evil.smudge', `touch '${smudged}'; cat`);
    writeFileSync(path.join(repo, '.gitattributes'), '*.txt filter=evil\n');
    git(repo, 'add', '.gitattributes');
    git(repo, 'commit', '-q', '-m', 'attributes');
    // The hook and the filter run when git is run plainly…
    git(repo, 'worktree', 'add', '-q', '-b', 'plain', path.join(tmp, 'plain-wt'));
    assert.ok(existsSync(marker));
    assert.ok(existsSync(smudged));
    rmSync(marker);
    rmSync(smudged);
    // …and not when Turnstone makes a worktree (the file is checked out as committed).
    const made = await createWorktree({ cwd: repo, name: 'safe', dir: path.join(tmp, 'wts') });
    assert.ok(!existsSync(marker));
    assert.ok(!existsSync(smudged));
    assert.equal(readFileSync(path.join(made.path, 'greet.txt'), 'utf8'), 'hello world\nsecond line\n');
  });
});
