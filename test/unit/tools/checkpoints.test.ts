// Checkpoints against a real git repository and a plain folder: files changed by
// the edit tools and by shell commands go back to how they were, byte for byte;
// hand edits are conflicts; what cannot be restored is said, never guessed.
import * as assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync, utimesSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import * as path from 'node:path';
import { afterCheckpoint, openCheckpointStore, withCheckpointCapture, type CheckpointStore } from '../../../src/tools/checkpoints';
import { type ToolExecutor } from '../../../src/runtime/types';
import { blobId, captureFileNow, gitRunner } from '../../../src/tools/checkpoints/scan';
import { NodeWorkspace } from '../../../src/tools/node-adapter';

const sh = (cwd: string, script: string) => execFileSync('bash', ['-c', script], { cwd, stdio: 'pipe' });

function gitRepo(files: Record<string, string | Buffer>): string {
  const root = mkdtempSync(path.join(tmpdir(), 'ts-ckpt-repo-'));
  for (const [rel, content] of Object.entries(files)) {
    mkdirSync(path.dirname(path.join(root, rel)), { recursive: true });
    writeFileSync(path.join(root, rel), content);
  }
  sh(root, 'git init -q && git add -A && git -c user.name=t -c user.email=t@t commit -qm init');
  return root;
}

function plainFolder(files: Record<string, string>): string {
  const root = mkdtempSync(path.join(tmpdir(), 'ts-ckpt-plain-'));
  for (const [rel, content] of Object.entries(files)) writeFileSync(path.join(root, rel), content);
  return root;
}

describe('checkpoints (files)', () => {
  const cleanup: string[] = [];
  afterEach(() => {
    for (const dir of cleanup.splice(0)) rmSync(dir, { recursive: true, force: true });
  });

  async function open(root: string, maxFileBytes?: number): Promise<{ store: CheckpointStore; dir: string; ws: NodeWorkspace }> {
    const dir = mkdtempSync(path.join(tmpdir(), 'ts-ckpt-store-'));
    cleanup.push(root, dir);
    const ws = new NodeWorkspace(root);
    return { store: await openCheckpointStore({ dir, root, workspace: ws, maxFileBytes }), dir, ws };
  }

  const turn = (store: CheckpointStore, n: number, kind: 'turn-start' | 'turn-end' = 'turn-start') =>
    store.take({ kind, turn: n, messageIndex: (n - 1) * 2, prompt: `prompt ${n}` });

  it('a git that exits before reading its input (its repository deleted meanwhile) fails the call, with no uncaught EPIPE', async () => {
    const gone = path.join(tmpdir(), `turnstone-no-repo-${process.pid}-${Date.now()}`);
    const git = execFileSync('sh', ['-c', 'command -v git'], { encoding: 'utf8' }).trim();
    // More than a pipe holds: the write is still going when git has exited (it cannot enter the folder). An EPIPE
    // left without a handler would reach mocha as an uncaught error and fail this test.
    await assert.rejects(gitRunner(gone, git)(['hash-object', '-w', '--stdin'], { input: 'x'.repeat(4 * 1024 * 1024) }));
  });

  it('restores what a shell command wrote, moved and deleted in a git repository, and removes what it created', async () => {
    const root = gitRepo({ 'a.txt': 'alpha\n', 'b.txt': 'bravo\n', 'src/c.ts': 'export const c = 1;\n', 'keep.txt': 'same\n' });
    writeFileSync(path.join(root, 'dirty.txt'), 'untracked before the turn\n'); // not committed: must be copied
    const { store, ws } = await open(root);
    assert.equal(store.mode, 'git');
    const start = await turn(store, 1);
    sh(root, 'echo changed >> a.txt && mv b.txt moved.txt && rm src/c.ts && echo new > created.txt && echo more >> dirty.txt');
    await turn(store, 1, 'turn-end');

    const plan = await store.plan(start.id);
    assert.deepEqual(plan.entries.map((e) => e.path), ['a.txt', 'b.txt', 'created.txt', 'dirty.txt', 'moved.txt', 'src/c.ts']);
    assert.ok(plan.entries.every((e) => !e.conflict));
    const result = await store.apply(plan, ws, new Set());
    assert.equal(result.failed.length, 0);
    assert.equal(readFileSync(path.join(root, 'a.txt'), 'utf8'), 'alpha\n');
    assert.equal(readFileSync(path.join(root, 'b.txt'), 'utf8'), 'bravo\n');
    assert.equal(readFileSync(path.join(root, 'src/c.ts'), 'utf8'), 'export const c = 1;\n');
    assert.equal(readFileSync(path.join(root, 'dirty.txt'), 'utf8'), 'untracked before the turn\n');
    assert.ok(!existsSync(path.join(root, 'moved.txt')));
    assert.ok(!existsSync(path.join(root, 'created.txt')));
    assert.equal(sh(root, 'git status --porcelain').toString(), '?? dirty.txt\n', 'the repository is as it was');
  });

  it('keeps encodings and line endings byte for byte (UTF-16 with BOM, CRLF)', async () => {
    const utf16 = Buffer.concat([Buffer.from([0xff, 0xfe]), Buffer.from('héllo\r\nwörld\r\n', 'utf16le')]);
    const root = gitRepo({ 'u16.txt': utf16, 'crlf.txt': 'one\r\ntwo\r\n' });
    const { store, ws } = await open(root);
    const start = await turn(store, 1);
    writeFileSync(path.join(root, 'u16.txt'), 'now utf-8\n');
    writeFileSync(path.join(root, 'crlf.txt'), 'one\ntwo\n');
    await store.apply(await store.plan(start.id), ws, new Set());
    assert.deepEqual(readFileSync(path.join(root, 'u16.txt')), utf16);
    assert.deepEqual(readFileSync(path.join(root, 'crlf.txt')), Buffer.from('one\r\ntwo\r\n'));
  });

  it('shows a file changed by hand between turns as a conflict, and keeps the hand edit unless told otherwise', async () => {
    const root = gitRepo({ 'a.txt': 'v0\n', 'b.txt': 'b0\n' });
    const { store, ws } = await open(root);
    const first = await turn(store, 1);
    writeFileSync(path.join(root, 'a.txt'), 'v1 by the agent\n');
    writeFileSync(path.join(root, 'b.txt'), 'b1 by the agent\n');
    await turn(store, 1, 'turn-end');
    writeFileSync(path.join(root, 'a.txt'), 'v1 + my hand edit\n'); // after the agent's turn

    const plan = await store.plan(first.id);
    assert.deepEqual(
      plan.entries.map((e) => [e.path, e.conflict]),
      [
        ['a.txt', true],
        ['b.txt', false],
      ],
    );
    const kept = await store.apply(plan, ws, new Set());
    assert.deepEqual(kept.keptMine, ['a.txt']);
    assert.equal(readFileSync(path.join(root, 'a.txt'), 'utf8'), 'v1 + my hand edit\n');
    assert.equal(readFileSync(path.join(root, 'b.txt'), 'utf8'), 'b0\n');

    const again = await store.plan(first.id);
    assert.deepEqual(again.entries.map((e) => e.path), ['a.txt']);
    await store.apply(again, ws, new Set(['a.txt']));
    assert.equal(readFileSync(path.join(root, 'a.txt'), 'utf8'), 'v0\n');
  });

  it('a restore can itself be undone from the checkpoint it takes first', async () => {
    const root = gitRepo({ 'a.txt': 'v0\n' });
    const { store, ws } = await open(root);
    const start = await turn(store, 1);
    writeFileSync(path.join(root, 'a.txt'), 'v1\n');
    await turn(store, 1, 'turn-end');
    const { undo } = await store.apply(await store.plan(start.id), ws, new Set());
    assert.equal(readFileSync(path.join(root, 'a.txt'), 'utf8'), 'v0\n');
    await store.apply(await store.plan(undo.id), ws, new Set());
    assert.equal(readFileSync(path.join(root, 'a.txt'), 'utf8'), 'v1\n');
  });

  it('reports files over the size limit as not restorable instead of copying them', async () => {
    const root = gitRepo({ 'small.txt': 's\n' });
    writeFileSync(path.join(root, 'big.bin'), Buffer.alloc(4096, 1)); // untracked, over the limit below
    const { store, ws } = await open(root, 1024);
    const start = await turn(store, 1);
    writeFileSync(path.join(root, 'big.bin'), Buffer.alloc(4096, 2));
    writeFileSync(path.join(root, 'small.txt'), 'changed\n');
    const plan = await store.plan(start.id);
    assert.deepEqual(plan.unrestorable.map((e) => [e.path, e.target.kind === 'unrestorable' && e.target.why]), [['big.bin', 'too large']]);
    await store.apply(plan, ws, new Set());
    assert.equal(readFileSync(path.join(root, 'small.txt'), 'utf8'), 's\n');
  });

  it('copies a gitignored file before a tool writes it, and restores it', async () => {
    const root = gitRepo({ '.gitignore': '.env\n', 'a.txt': 'a\n' });
    writeFileSync(path.join(root, '.env'), 'TOKEN=old\n');
    const { store, ws } = await open(root);
    const captured = withCheckpointCapture(ws, () => store);
    const start = await turn(store, 1);
    await captured.writeFile(path.join(root, '.env'), Buffer.from('TOKEN=new\n'));
    await turn(store, 1, 'turn-end');
    const plan = await store.plan(start.id);
    assert.deepEqual(plan.entries.map((e) => e.path), ['.env']);
    await store.apply(plan, ws, new Set());
    assert.equal(readFileSync(path.join(root, '.env'), 'utf8'), 'TOKEN=old\n');
  });

  it('outside git: tool writes are restored, created files removed, and a command-changed file is named as not restorable', async () => {
    const root = plainFolder({ 'edited.txt': 'before\n', 'by-command.txt': 'cmd before\n' });
    const { store, ws } = await open(root);
    assert.equal(store.mode, 'plain');
    const captured = withCheckpointCapture(ws, () => store);
    const start = await turn(store, 1);
    await captured.writeFile(path.join(root, 'edited.txt'), Buffer.from('after\n'));
    sh(root, 'echo changed > by-command.txt && echo new > created.txt');
    await turn(store, 1, 'turn-end');
    const plan = await store.plan(start.id);
    assert.deepEqual(plan.entries.map((e) => e.path), ['created.txt', 'edited.txt']);
    assert.deepEqual(plan.unrestorable.map((e) => e.path), ['by-command.txt']);
    await store.apply(plan, ws, new Set());
    assert.equal(readFileSync(path.join(root, 'edited.txt'), 'utf8'), 'before\n');
    assert.ok(!existsSync(path.join(root, 'created.txt')));
  });

  it('outside git: a file a tool wrote two turns ago is no hand edit, and goes back', async () => {
    const root = plainFolder({ 'a.txt': 'v0\n' });
    const { store, ws } = await open(root);
    const captured = withCheckpointCapture(ws, () => store);
    const first = await turn(store, 1);
    await captured.writeFile(path.join(root, 'a.txt'), Buffer.from('v1 by the agent\n'));
    await turn(store, 1, 'turn-end');
    await turn(store, 2);
    sh(root, 'echo other > b.txt');
    await turn(store, 2, 'turn-end');
    const plan = await store.plan(first.id);
    assert.deepEqual(
      plan.entries.map((e) => [e.path, e.conflict]),
      [
        ['a.txt', false],
        ['b.txt', false],
      ],
    );
    await store.apply(plan, ws, new Set());
    assert.equal(readFileSync(path.join(root, 'a.txt'), 'utf8'), 'v0\n');
  });

  it('survives reopening (a VS Code restart or a crash) and goes back several turns', async () => {
    const root = gitRepo({ 'a.txt': 't0\n' });
    const { store, dir, ws } = await open(root);
    const ids: string[] = [];
    for (let n = 1; n <= 3; n++) {
      ids.push((await turn(store, n)).id);
      writeFileSync(path.join(root, 'a.txt'), `t${n}\n`);
      writeFileSync(path.join(root, `new-${n}.txt`), `${n}\n`);
      await turn(store, n, 'turn-end');
    }
    const reopened = await openCheckpointStore({ dir, root, workspace: ws });
    assert.equal(reopened.turns().length, 3);
    await reopened.apply(await reopened.plan(ids[0]!), ws, new Set());
    assert.equal(readFileSync(path.join(root, 'a.txt'), 'utf8'), 't0\n');
    assert.deepEqual(readdirSync(root).filter((f) => f.startsWith('new-')), []);
  });

  it('stores only the content that changed: a repository of tracked files costs one listing, not a copy', async () => {
    const files: Record<string, string> = {};
    for (let i = 0; i < 200; i++) files[`f${i}.txt`] = `file ${i}\n`.repeat(50);
    const root = gitRepo(files);
    const { store, dir } = await open(root);
    for (let n = 1; n <= 5; n++) {
      await turn(store, n);
      writeFileSync(path.join(root, `f${n}.txt`), `turn ${n}\n`);
      await turn(store, n, 'turn-end');
    }
    const bytes = (d: string): number => readdirSync(d, { withFileTypes: true }).reduce((sum, e) => sum + (e.isDirectory() ? bytes(path.join(d, e.name)) : statSync(path.join(d, e.name)).size), 0);
    const tree = Object.values(files).reduce((s, f) => s + f.length, 0);
    assert.ok(bytes(path.join(dir, 'objects')) < tree / 4, `objects ${bytes(path.join(dir, 'objects'))} B vs tree ${tree} B`);
  });

  it('every state a changed file had at a turn start comes back byte for byte, small files read at once and large ones through the thread pool', async () => {
    // A take reads a small changed file there and then, and one it read before (same size, mtime and inode) not
    // again; a file over 256 kB goes through the asynchronous path. Each turn below changes both kinds, and
    // some files keep their size from turn to turn, so only the mtime tells the content changed.
    const big = (n: number) => Buffer.alloc(300 * 1024, n);
    const root = gitRepo({ 'a.txt': 'a0\n', 'b.txt': 'b0\n', 'big.bin': big(0) });
    writeFileSync(path.join(root, 'untracked.txt'), 'u0\n');
    const { store, ws, dir } = await open(root);
    const starts: string[] = [];
    const expected: Array<Record<string, Buffer>> = [];
    const files = ['a.txt', 'b.txt', 'big.bin', 'untracked.txt'];
    for (let n = 1; n <= 4; n++) {
      expected.push(Object.fromEntries(files.map((f) => [f, readFileSync(path.join(root, f))])));
      starts.push((await turn(store, n)).id);
      writeFileSync(path.join(root, 'a.txt'), `a${n}\n`);
      if (n % 2 === 0) writeFileSync(path.join(root, 'b.txt'), `b${n}\n`);
      writeFileSync(path.join(root, 'big.bin'), big(n));
      writeFileSync(path.join(root, 'untracked.txt'), `u${n}\n`);
      await turn(store, n, 'turn-end');
    }
    for (let n = 4; n >= 1; n--) {
      const result = await store.apply(await store.plan(starts[n - 1]!), ws, new Set(files));
      assert.deepEqual(result.failed, []);
      for (const f of files) assert.deepEqual(readFileSync(path.join(root, f)), expected[n - 1]![f], `${f} at the start of turn ${n}`);
    }
    const objects = readdirSync(path.join(dir, 'objects'), { recursive: true }) as string[];
    assert.deepEqual(objects.filter((f) => f.endsWith('.tmp')), [], 'no temporary file is left');
  });

  // The scans keep an index of their own in the store (stat and untracked caches, git-index), reused from take to
  // take. A file rewritten with the same size and mtime is told apart only by git's racy-clean rule (an entry not
  // older than its index file is compared by content); ctime is switched off below so that nothing else can.
  it('a file changed between takes with the same size and mtime (racily clean) is still captured, and the repository\'s index is never written', async () => {
    const root = gitRepo({ 'a.txt': 'v1\n', 'b.txt': 'b\n' });
    sh(root, 'git config core.trustctime false');
    const a = path.join(root, 'a.txt');
    const future = Math.floor(Date.now() / 1000) + 3600; // not older than any index written during the test
    utimesSync(a, future, future);
    const theirs = () => ({ bytes: readFileSync(path.join(root, '.git', 'index')), mtimeMs: statSync(path.join(root, '.git', 'index')).mtimeMs });
    const before = theirs();
    const { store, dir, ws } = await open(root);
    const first = await turn(store, 1);
    assert.deepEqual(first.overlay, {});
    assert.ok(existsSync(path.join(dir, 'git-index')), 'the scans\' own index is kept in the store');
    for (const content of ['v2\n', 'v3\n']) {
      writeFileSync(a, content);
      utimesSync(a, future, future);
      const next = await turn(store, 2);
      assert.deepEqual(next.overlay['a.txt'], { kind: 'blob', id: blobId(Buffer.from(content)) }, `a.txt holding ${content.trim()}`);
    }
    assert.deepEqual(theirs(), before, "the repository's index is neither rewritten nor touched");
    await store.apply(await store.plan(first.id), ws, new Set());
    assert.equal(readFileSync(a, 'utf8'), 'v1\n');
  });

  it("a file changed in the same second as the repository's index was written is captured by the first take (the copy of that index stays racy)", async () => {
    const root = gitRepo({ 'a.txt': 'v1\n' });
    sh(root, 'git config core.trustctime false');
    const a = path.join(root, 'a.txt');
    const index = path.join(root, '.git', 'index');
    const second = Math.floor(Date.now() / 1000) - 100;
    utimesSync(a, second, second);
    sh(root, 'git update-index --refresh -q'); // the entry records that mtime
    writeFileSync(a, 'v2\n'); // same size, same mtime, in the second the index was written in
    utimesSync(a, second, second);
    utimesSync(index, second + 0.5, second + 0.5);
    const { store } = await open(root);
    const first = await turn(store, 1);
    assert.deepEqual(first.overlay['a.txt'], { kind: 'blob', id: blobId(Buffer.from('v2\n')) });
  });

  it('follows HEAD when a commit moves it: committed changes leave the overlay, and a tracked file .gitignore matches is still seen', async () => {
    const root = gitRepo({ 'a.txt': 'a0\n', '.gitignore': 'gen.txt\n' });
    writeFileSync(path.join(root, 'gen.txt'), 'g0\n');
    sh(root, 'git add -f gen.txt && git -c user.name=t -c user.email=t@t commit -qm gen');
    const { store, ws } = await open(root);
    const start = await turn(store, 1);
    writeFileSync(path.join(root, 'a.txt'), 'a1\n');
    writeFileSync(path.join(root, 'new.txt'), 'n\n');
    assert.deepEqual(Object.keys((await turn(store, 1, 'turn-end')).overlay).sort(), ['a.txt', 'new.txt']);
    sh(root, 'git add a.txt new.txt && git -c user.name=t -c user.email=t@t commit -qm turn1 && git rm -q --cached gen.txt');
    const committed = await turn(store, 2);
    assert.equal(committed.base, sh(root, 'git rev-parse HEAD').toString().trim());
    assert.deepEqual(committed.overlay, {}, "the work tree is HEAD's tree (the repository's index is not what a scan compares)");
    writeFileSync(path.join(root, 'gen.txt'), 'g1\n');
    assert.deepEqual((await turn(store, 2, 'turn-end')).overlay, { 'gen.txt': { kind: 'blob', id: blobId(Buffer.from('g1\n')) } });
    await store.apply(await store.plan(start.id), ws, new Set());
    assert.equal(readFileSync(path.join(root, 'a.txt'), 'utf8'), 'a0\n');
    assert.equal(readFileSync(path.join(root, 'gen.txt'), 'utf8'), 'g0\n');
    assert.ok(!existsSync(path.join(root, 'new.txt')));
  });

  it('a take reads at once only regular files it has not read before; a FIFO is left to the thread pool', async () => {
    const root = mkdtempSync(path.join(tmpdir(), 'ts-ckpt-now-'));
    cleanup.push(root);
    const written: string[] = [];
    const sink = { put: async () => undefined, putNow: (id: string) => void written.push(id), seen: new Map<string, { sig: string; id: string }>() };
    writeFileSync(path.join(root, 'a.txt'), 'alpha\n');
    const first = captureFileNow(path.join(root, 'a.txt'), sink, 1024);
    assert.equal(first?.kind === 'blob' && first.id, blobId(Buffer.from('alpha\n')));
    assert.equal(written.length, 1);
    assert.deepEqual(captureFileNow(path.join(root, 'a.txt'), sink, 1024), first, 'read again while racily new (written in the last tick)');
    assert.equal(written.length, 2);
    await new Promise((r) => setTimeout(r, statSync(path.join(root, 'a.txt')).ctimeMs % 1000 === 0 ? 2100 : 100));
    captureFileNow(path.join(root, 'a.txt'), sink, 1024);
    assert.equal(written.length, 3);
    assert.deepEqual(captureFileNow(path.join(root, 'a.txt'), sink, 1024), first, 'unchanged since: not read again');
    assert.equal(written.length, 3);
    assert.deepEqual(captureFileNow(path.join(root, 'gone.txt'), sink, 1024), { kind: 'absent' });
    writeFileSync(path.join(root, 'big.bin'), Buffer.alloc(2048));
    assert.equal(captureFileNow(path.join(root, 'big.bin'), sink, 1024)?.kind, 'unrestorable');
    sh(root, 'mkfifo pipe');
    assert.equal(captureFileNow(path.join(root, 'pipe'), sink, 1024), undefined, 'never read on the event loop');
    assert.equal(captureFileNow(path.join(root, 'a.txt'), { put: sink.put }, 1024), undefined, 'a sink that writes only later gets the asynchronous path');
  });

  it('a tool runs only once the turn\'s checkpoint, taken while the first request streams, is written', async () => {
    const root = gitRepo({ 'a.txt': 'before the turn\n' });
    const { store, ws } = await open(root);
    const ran: string[] = [];
    const tools = {
      definitions: () => [],
      isReadOnly: () => false,
      assess: async () => ({ need: 'write' }),
      execute: async (name: string) => {
        ran.push(name);
        sh(root, 'echo by the command > a.txt');
        return { content: 'ok', isError: false };
      },
    } as unknown as ToolExecutor;
    let release!: () => void;
    const taking = new Promise<void>((resolve) => (release = resolve)).then(async () => void (await turn(store, 1)));
    const gated = afterCheckpoint(tools, () => taking);
    assert.deepEqual(gated.definitions(), [], 'the rest passes straight through');
    const execution = gated.execute('bash', { command: 'x' }, { signal: new AbortController().signal });
    // Nothing runs while the checkpoint is not written, however long that takes.
    await new Promise((r) => setImmediate(r));
    assert.deepEqual(ran, []);
    release();
    assert.equal((await execution).content, 'ok');
    assert.deepEqual(ran, ['bash']);
    const start = store.turns().at(-1)!;
    await store.apply(await store.plan(start.id), ws, new Set());
    assert.equal(readFileSync(path.join(root, 'a.txt'), 'utf8'), 'before the turn\n', 'the checkpoint saw the file before the command');
  });
});
