// Issue 44, bringing a worktree's work home: the kept hunks of a worktree session applied into a working
// tree the user changed meanwhile (the non-conflicting ones applied, the conflicting one listed, nothing
// else touched, bytes compared), CRLF, created, deleted and binary files, an unreviewed hunk that stays
// behind, and Merge branch refused on a dirty tree and done on a clean one. Real git repositories in a
// temporary folder.
import * as assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, realpathSync, rmSync, statSync, symlinkSync, writeFileSync } from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { applyWorktree, mergeWorktreeBranch, planWorktreeApply } from '../../../src/agent/worktree-apply';
import { createWorktree, type CreatedWorktree } from '../../../src/agent/worktrees';

const ENV = { PATH: process.env.PATH, HOME: process.env.HOME };

function git(cwd: string, ...args: string[]): string {
  return execFileSync('git', ['-c', 'commit.gpgsign=false', ...args], { cwd, encoding: 'utf8', env: ENV });
}

const lines = (n: number, tag = 'line', eol = '\n') => Array.from({ length: n }, (_, i) => `${tag} ${i + 1}${eol}`).join('');

/** Replaces line `at` (1-based) of a text with `by`, keeping its line ending. */
function changeLine(text: string, at: number, by: string): string {
  const ls = text.match(/[^\n]*\n|[^\n]+$/g)!;
  const eol = ls[at - 1]!.endsWith('\r\n') ? '\r\n' : ls[at - 1]!.endsWith('\n') ? '\n' : '';
  ls[at - 1] = `${by}${eol}`;
  return ls.join('');
}

describe('worktree apply and merge (issue 44)', function () {
  this.timeout(30_000);
  let tmp: string;
  let repo: string;
  let wt: CreatedWorktree;
  const read = (root: string, rel: string) => readFileSync(path.join(root, rel));
  const write = (root: string, rel: string, data: string | Buffer) => {
    mkdirSync(path.dirname(path.join(root, rel)), { recursive: true });
    writeFileSync(path.join(root, rel), data);
  };

  beforeEach(async () => {
    tmp = realpathSync(mkdtempSync(path.join(os.tmpdir(), 'turnstone-wta-')));
    repo = path.join(tmp, 'proj');
    mkdirSync(repo);
    git(repo, 'init', '-q', '-b', 'main');
    git(repo, 'config', 'user.name', 'Test');
    git(repo, 'config', 'user.email', 'test@example.com');
    git(repo, 'config', 'core.autocrlf', 'false');
    write(repo, 'a.txt', lines(30, 'a'));
    write(repo, 'b.txt', lines(10, 'b'));
    write(repo, 'c.txt', lines(10, 'c'));
    write(repo, 'crlf.txt', lines(12, 'r', '\r\n'));
    write(repo, 'gone.txt', 'to be deleted\n');
    write(repo, 'logo.bin', Buffer.from([0, 1, 2, 3, 255, 254, 0, 10]));
    write(repo, 'run.sh', '#!/bin/sh\necho one\n');
    execFileSync('chmod', ['755', path.join(repo, 'run.sh')]);
    git(repo, 'add', '-A');
    git(repo, 'commit', '-q', '-m', 'first');
    repo = realpathSync(repo);
    wt = await createWorktree({ cwd: repo, name: 'task', dir: path.join(tmp, 'worktrees') });
  });
  afterEach(() => {
    rmSync(tmp, { recursive: true, force: true });
  });

  it('applies the kept hunks into a tree the user changed meanwhile: the conflicting hunk listed, every other byte as it was', async () => {
    // The agent's edits in the worktree: two hunks in a.txt (lines 3 and 25), one in b.txt, one in c.txt (committed).
    write(wt.path, 'a.txt', changeLine(changeLine(lines(30, 'a'), 3, 'a THREE (agent)'), 25, 'a TWENTY-FIVE (agent)'));
    write(wt.path, 'b.txt', changeLine(lines(10, 'b'), 5, 'b FIVE (agent)'));
    write(wt.path, 'c.txt', `${lines(10, 'c')}c 11 (agent)\n`);
    git(wt.path, 'add', 'c.txt');
    git(wt.path, 'commit', '-q', '-m', 'agent commit');
    // Meanwhile the user edited a.txt where the agent's second hunk is, and added lines at its top.
    const userA = `user top\n${changeLine(lines(30, 'a'), 25, 'a 25 (user)')}`;
    write(repo, 'a.txt', userA);
    const before = { b: read(repo, 'b.txt'), other: read(repo, 'crlf.txt') };

    const report = await applyWorktree({ repo, worktree: wt.cwd, branch: wt.branch });
    assert.deepEqual(
      report.applied.map((a) => `${a.path}:${a.hunks}`),
      ['a.txt:1', 'b.txt:1', 'c.txt:1'],
    );
    assert.equal(report.conflicts.length, 1);
    assert.equal(report.conflicts[0]!.path, 'a.txt');
    assert.equal(report.conflicts[0]!.reason, 'changed-meanwhile');
    assert.equal(report.conflicts[0]!.hunks[0]!.baseStart, 24);
    // a.txt: the user's lines and the agent's first hunk, shifted by the user's line at the top; line 25 stays the user's.
    assert.deepEqual(read(repo, 'a.txt'), Buffer.from(`user top\n${changeLine(changeLine(lines(30, 'a'), 3, 'a THREE (agent)'), 25, 'a 25 (user)')}`));
    assert.deepEqual(read(repo, 'b.txt'), Buffer.from(changeLine(before.b.toString(), 5, 'b FIVE (agent)')));
    assert.deepEqual(read(repo, 'c.txt'), Buffer.from(`${lines(10, 'c')}c 11 (agent)\n`));
    assert.deepEqual(read(repo, 'crlf.txt'), before.other);
    // Applying again brings nothing twice: the applied hunks are there, the conflicting one is still listed.
    const again = await applyWorktree({ repo, worktree: wt.cwd, branch: wt.branch });
    assert.deepEqual(again.applied, []);
    assert.deepEqual(again.conflicts.map((c) => `${c.path}:${c.hunks.map((h) => h.baseStart).join()}`), ['a.txt:24']);
    assert.deepEqual(again.skipped.map((s) => `${s.path}:${s.reason}`), ['b.txt:already-there', 'c.txt:already-there']);
    // Never a commit, never the index.
    assert.equal(git(repo, 'rev-list', '--count', 'HEAD').trim(), '1');
    assert.equal(git(repo, 'diff', '--cached', '--name-only').trim(), '');
  });

  it('keeps CRLF line endings, creates and deletes files, and keeps a file mode', async () => {
    write(wt.path, 'crlf.txt', changeLine(lines(12, 'r', '\r\n'), 6, 'r SIX (agent)'));
    write(wt.path, 'src/new.ts', 'export const x = 1;\n');
    rmSync(path.join(wt.path, 'gone.txt'));
    write(wt.path, 'run.sh', '#!/bin/sh\necho two\n');
    // The user changed crlf.txt elsewhere (line 1): both survive, CRLF throughout.
    write(repo, 'crlf.txt', changeLine(lines(12, 'r', '\r\n'), 1, 'r ONE (user)'));
    const report = await applyWorktree({ repo, worktree: wt.path, branch: wt.branch });
    assert.deepEqual(report.conflicts, []);
    assert.deepEqual(report.applied.map((a) => a.path).sort(), ['crlf.txt', 'gone.txt', 'run.sh', 'src/new.ts']);
    assert.deepEqual(read(repo, 'crlf.txt'), Buffer.from(changeLine(changeLine(lines(12, 'r', '\r\n'), 1, 'r ONE (user)'), 6, 'r SIX (agent)')));
    assert.ok(!read(repo, 'crlf.txt').toString().replace(/\r\n/g, '').includes('\n'), 'no bare LF');
    assert.equal(read(repo, 'src/new.ts').toString(), 'export const x = 1;\n');
    assert.ok(!existsSync(path.join(repo, 'gone.txt')));
    assert.equal(statSync(path.join(repo, 'run.sh')).mode & 0o777, 0o755);
    assert.equal(read(repo, 'run.sh').toString(), '#!/bin/sh\necho two\n');
  });

  it('lists a binary file and applies it whole only when the user’s copy is still the base’s', async () => {
    const agentBin = Buffer.from([0, 9, 9, 9, 0]);
    write(wt.path, 'logo.bin', agentBin);
    let report = await applyWorktree({ repo, worktree: wt.path, branch: wt.branch });
    assert.deepEqual(report.applied, [{ path: 'logo.bin', hunks: 1 }]);
    assert.deepEqual(read(repo, 'logo.bin'), agentBin);
    // Applying again: already there.
    report = await applyWorktree({ repo, worktree: wt.path, branch: wt.branch });
    assert.deepEqual(report.skipped, [{ path: 'logo.bin', reason: 'already-there' }]);
    // The user changed it too: a conflict, and the user's bytes stay.
    const userBin = Buffer.from([0, 7, 7]);
    write(repo, 'logo.bin', userBin);
    report = await applyWorktree({ repo, worktree: wt.path, branch: wt.branch });
    assert.deepEqual(report.conflicts.map((c) => `${c.path}:${c.reason}`), ['logo.bin:binary-changed']);
    assert.deepEqual(read(repo, 'logo.bin'), userBin);
  });

  it('brings only kept hunks: one still under review (the review’s base) does not travel', async () => {
    const base = lines(10, 'b');
    const keptOnly = changeLine(base, 2, 'b TWO (agent, kept)');
    write(wt.path, 'b.txt', changeLine(keptOnly, 9, 'b NINE (agent, not reviewed)'));
    write(wt.path, 'c.txt', changeLine(lines(10, 'c'), 1, 'c ONE (agent, not reviewed)'));
    const kept = ({ worktreeFile }: { worktreeFile: string }) =>
      worktreeFile === path.join(wt.path, 'b.txt') ? keptOnly : worktreeFile === path.join(wt.path, 'c.txt') ? lines(10, 'c') : undefined;
    const plan = await planWorktreeApply({ repo, worktree: wt.path, branch: wt.branch, kept });
    assert.deepEqual(plan.files.map((f) => `${f.path}:${f.skipped ?? f.applied.length}`), ['b.txt:1', 'c.txt:nothing-kept']);
    const report = await applyWorktree({ repo, worktree: wt.path, branch: wt.branch, kept });
    assert.deepEqual(report.applied, [{ path: 'b.txt', hunks: 1 }]);
    assert.equal(read(repo, 'b.txt').toString(), keptOnly);
    assert.deepEqual(read(repo, 'c.txt'), Buffer.from(lines(10, 'c')));
  });

  it('leaves a file the review never saw (false: changed by a command) in the worktree, unless the user’s tree has it already', async () => {
    write(wt.path, 'b.txt', changeLine(lines(10, 'b'), 4, 'b FOUR (a command wrote it)'));
    write(wt.path, 'c.txt', changeLine(lines(10, 'c'), 4, 'c FOUR (carried, yours too)'));
    write(repo, 'c.txt', changeLine(lines(10, 'c'), 4, 'c FOUR (carried, yours too)'));
    const report = await applyWorktree({ repo, worktree: wt.path, branch: wt.branch, kept: () => false });
    assert.deepEqual(report.applied, []);
    assert.deepEqual(report.skipped, [
      { path: 'b.txt', reason: 'not-reviewed' },
      { path: 'c.txt', reason: 'already-there' },
    ]);
    assert.deepEqual(read(repo, 'b.txt'), Buffer.from(lines(10, 'b')), 'byte-identical');
  });

  it('merges the branch only into a clean working tree, committing the worktree’s work first', async () => {
    write(wt.path, 'b.txt', changeLine(lines(10, 'b'), 5, 'b FIVE (agent)'));
    write(wt.path, 'added.txt', 'new\n');
    write(repo, 'a.txt', 'the user is editing\n');
    const refused = await mergeWorktreeBranch({ repo, worktree: wt.path, branch: wt.branch, message: 'Turnstone: the session’s work' });
    assert.equal(refused.merged, false);
    assert.match(!refused.merged ? refused.reason : '', /uncommitted changes/);
    // Nothing changed: no commit on either side, the worktree's work still uncommitted.
    assert.equal(git(repo, 'rev-list', '--count', 'HEAD').trim(), '1');
    assert.equal(git(wt.path, 'rev-list', '--count', 'HEAD').trim(), '1');
    assert.notEqual(git(wt.path, 'status', '--porcelain').trim(), '');

    git(repo, 'checkout', '--', 'a.txt');
    const done = await mergeWorktreeBranch({ repo, worktree: wt.path, branch: wt.branch, message: 'Turnstone: the session’s work' });
    assert.ok(done.merged, !done.merged ? done.reason : '');
    assert.equal(done.committed, true);
    assert.equal(git(repo, 'log', '--format=%s', '-1').trim(), "Merge branch 'turnstone/task'");
    assert.equal(git(repo, 'log', '--format=%s', '-1', 'HEAD^2').trim(), 'Turnstone: the session’s work');
    assert.equal(git(repo, 'log', '--format=%s', '-1', 'HEAD^1').trim(), 'first');
    assert.equal(git(repo, 'rev-list', '--parents', '-n', '1', 'HEAD').trim().split(' ').length, 3, 'a merge commit (--no-ff)');
    assert.equal(read(repo, 'added.txt').toString(), 'new\n');
    assert.equal(git(repo, 'status', '--porcelain').trim(), '');
  });

  it('runs no hook, filter or signing program of the repository while applying and merging', async () => {
    const marker = path.join(tmp, 'program-ran');
    for (const name of ['pre-commit', 'commit-msg', 'post-commit', 'pre-merge-commit', 'post-merge']) {
      writeFileSync(path.join(repo, '.git', 'hooks', name), `#!/bin/sh\necho ${name} >> '${marker}'\n`, { mode: 0o755 });
    }
    git(repo, 'config', 'filter.evil.clean', `echo clean >> '${marker}'; cat`);
    git(repo, 'config', 'filter.evil.smudge', `echo smudge >> '${marker}'; cat`);
    git(repo, 'config', 'gpg.program', path.join(tmp, 'no-such-gpg'));
    git(repo, 'config', 'commit.gpgsign', 'true');
    write(repo, '.git/info/attributes', '*.txt filter=evil\n');
    write(wt.path, 'b.txt', changeLine(lines(10, 'b'), 5, 'b FIVE (agent)'));
    const report = await applyWorktree({ repo, worktree: wt.path, branch: wt.branch });
    assert.deepEqual(report.applied, [{ path: 'b.txt', hunks: 1 }]);
    git(repo, '-c', 'core.hooksPath=/dev/null', '-c', 'filter.evil.clean=cat', '-c', 'filter.evil.smudge=cat', 'checkout', '--', 'b.txt');
    const merged = await mergeWorktreeBranch({ repo, worktree: wt.path, branch: wt.branch, message: 'work' });
    assert.ok(merged.merged, !merged.merged ? merged.reason : '');
    assert.ok(!existsSync(marker), existsSync(marker) ? readFileSync(marker, 'utf8') : '');
  });

  it('writes nothing through a link: a folder of the user’s tree that is a link, replaced by a real one in the worktree, stays as it was', async () => {
    const outside = path.join(tmp, 'outside');
    mkdirSync(outside);
    symlinkSync('../outside', path.join(repo, 'lib'));
    git(repo, 'add', 'lib');
    git(repo, 'commit', '-q', '-m', 'lib is a link');
    const linked = await createWorktree({ cwd: repo, name: 'linked', dir: path.join(tmp, 'worktrees') });
    // The agent, in its worktree: the link becomes a folder with a file (git lists lib/x as new).
    rmSync(path.join(linked.path, 'lib'));
    write(linked.path, 'lib/x', 'planted\n');
    // And a link of its own, to a folder outside the worktree, with a file git lists through it.
    write(linked.path, 'b.txt', changeLine(lines(10, 'b'), 5, 'b FIVE (agent)'));
    const report = await applyWorktree({ repo, worktree: linked.path, branch: linked.branch });
    assert.deepEqual(readdirSync(outside), [], 'nothing written outside the repository');
    assert.ok(report.skipped.some((f) => f.path === 'lib/x' && f.reason === 'symlink'), JSON.stringify(report.skipped));
    assert.deepEqual(report.applied, [{ path: 'b.txt', hunks: 1 }], 'the rest is applied');
  });

  it('issue 44 worktree: merges a UTF-16 file hunk by hunk in its own encoding, byte for byte, the conflicting hunk listed', async () => {
    const le = (text: string) => Buffer.concat([Buffer.from([0xff, 0xfe]), Buffer.from(text, 'utf16le')]);
    const be = (text: string) => Buffer.concat([Buffer.from([0xfe, 0xff]), Buffer.from(text, 'utf16le').swap16()]);
    // Not only ASCII: a character outside the BMP is a surrogate pair in UTF-16.
    const base = lines(30, 'ü 😀');
    write(repo, 'u16.txt', le(base));
    write(repo, 'u16be.txt', be(lines(10, 'ß')));
    git(repo, 'add', '-A');
    git(repo, 'commit', '-q', '-m', 'utf-16 files');
    const u16 = await createWorktree({ cwd: repo, name: 'utf16', dir: path.join(tmp, 'worktrees') });
    // The agent changed three regions of u16.txt; the review kept two (lines 3 and 25), line 15 is still under review.
    const kept = changeLine(changeLine(base, 3, 'ü THREE (agent)'), 25, 'ü TWENTY-FIVE (agent)');
    write(u16.path, 'u16.txt', le(changeLine(kept, 15, 'ü FIFTEEN (agent, not reviewed)')));
    write(u16.path, 'u16be.txt', be(changeLine(lines(10, 'ß'), 2, 'ß TWO (agent)')));
    // Meanwhile the user added a line at the top and changed line 25, where the agent's second kept hunk is; and line 9 of u16be.txt.
    const userText = `user top\n${changeLine(base, 25, 'ü 25 (user)')}`;
    write(repo, 'u16.txt', le(userText));
    write(repo, 'u16be.txt', be(changeLine(lines(10, 'ß'), 9, 'ß NINE (user)')));
    // The review's text has no byte-order mark (reviewText); u16be.txt was settled whole.
    const review = ({ worktreeFile }: { worktreeFile: string }) => (worktreeFile === path.join(u16.path, 'u16.txt') ? kept : undefined);

    const plan = await planWorktreeApply({ repo, worktree: u16.path, branch: u16.branch, kept: review });
    const planned = plan.files.find((f) => f.path === 'u16.txt')!;
    assert.equal(planned.binary, false);
    assert.deepEqual(planned.kept, le(kept), 'the kept text in the worktree file’s encoding, its mark included');
    const report = await applyWorktree({ repo, worktree: u16.path, branch: u16.branch, kept: review });
    assert.deepEqual(report.applied.map((a) => `${a.path}:${a.hunks}`), ['u16.txt:1', 'u16be.txt:1']);
    assert.deepEqual(report.conflicts.map((c) => `${c.path}:${c.reason}:${c.hunks.map((h) => h.baseStart).join()}`), ['u16.txt:changed-meanwhile:24']);
    assert.deepEqual(read(repo, 'u16.txt'), le(`user top\n${changeLine(changeLine(base, 3, 'ü THREE (agent)'), 25, 'ü 25 (user)')}`));
    assert.deepEqual(read(repo, 'u16be.txt'), be(changeLine(changeLine(lines(10, 'ß'), 2, 'ß TWO (agent)'), 9, 'ß NINE (user)')));
    // Applying again: the applied hunks are there, the conflicting one is still listed.
    const again = await applyWorktree({ repo, worktree: u16.path, branch: u16.branch, kept: review });
    assert.deepEqual(again.applied, []);
    assert.deepEqual(again.conflicts.map((c) => `${c.path}:${c.reason}`), ['u16.txt:changed-meanwhile']);
    assert.deepEqual(again.skipped, [{ path: 'u16be.txt', reason: 'already-there' }]);
  });

  it('issue 44 worktree: a file that is not text in its encoding stays binary (NUL in UTF-8, a UTF-16 mark on bytes that are not UTF-16)', async () => {
    const nul = (first: string, last: string) => Buffer.from(`${first}\nline 2 \0\nline 3\nline 4\nline 5\n${last}\n`);
    // An odd length: FF FE and then no UTF-16 at all.
    const fake = (tail: string) => Buffer.concat([Buffer.from([0xff, 0xfe]), Buffer.from(`x${tail}`)]);
    write(repo, 'nul.dat', nul('line 1', 'line 6'));
    write(repo, 'fake.dat', fake('base\n'));
    git(repo, 'add', '-A');
    git(repo, 'commit', '-q', '-m', 'binary files');
    const bin = await createWorktree({ cwd: repo, name: 'bin', dir: path.join(tmp, 'worktrees') });
    // Changes far apart, which as text would merge.
    write(bin.path, 'nul.dat', nul('line 1 (agent)', 'line 6'));
    write(bin.path, 'fake.dat', fake('agent\n'));
    const userNul = nul('line 1', 'line 6 (user)');
    const userFake = fake('user\n');
    write(repo, 'nul.dat', userNul);
    write(repo, 'fake.dat', userFake);
    const plan = await planWorktreeApply({ repo, worktree: bin.path, branch: bin.branch });
    assert.deepEqual(plan.files.map((f) => `${f.path}:${f.binary}`), ['fake.dat:true', 'nul.dat:true']);
    const report = await applyWorktree({ repo, worktree: bin.path, branch: bin.branch });
    assert.deepEqual(report.applied, []);
    assert.deepEqual(report.conflicts.map((c) => `${c.path}:${c.reason}`), ['fake.dat:binary-changed', 'nul.dat:binary-changed']);
    assert.deepEqual(read(repo, 'nul.dat'), userNul);
    assert.deepEqual(read(repo, 'fake.dat'), userFake);
  });

  it('never looks into a submodule: a filter in an embedded repository’s own configuration does not run, applying or merging', async () => {
    const marker = path.join(tmp, 'program-ran');
    const sub = path.join(wt.path, 'sub');
    mkdirSync(sub);
    git(sub, 'init', '-q', '-b', 'main');
    git(sub, 'config', 'filter.evil.clean', `echo clean >> '${marker}'; cat`);
    write(sub, '.gitattributes', '*.txt filter=evil\n');
    write(sub, 'inner.txt', 'one\n');
    git(sub, 'add', '-A');
    git(sub, '-c', 'filter.evil.clean=cat', 'commit', '-q', '-m', 'inner');
    git(wt.path, 'add', 'sub');
    git(wt.path, 'commit', '-q', '-m', 'a submodule');
    // A changed file inside it, newer than its index: a git that looked in would run the clean filter.
    write(sub, 'inner.txt', 'two\n');
    write(wt.path, 'b.txt', changeLine(lines(10, 'b'), 5, 'b FIVE (agent)'));
    // The set-up's own git (plain, as a user's) may have run it already: only what Turnstone does from here counts.
    rmSync(marker, { force: true });
    const report = await applyWorktree({ repo, worktree: wt.path, branch: wt.branch });
    assert.ok(report.applied.some((a) => a.path === 'b.txt'));
    assert.ok(!existsSync(marker), `applying: ${existsSync(marker) ? readFileSync(marker, 'utf8') : ''}`);
    git(repo, 'checkout', '--', 'b.txt');
    await mergeWorktreeBranch({ repo, worktree: wt.path, branch: wt.branch, message: 'work' });
    assert.ok(!existsSync(marker), existsSync(marker) ? readFileSync(marker, 'utf8') : '');
  });
});
