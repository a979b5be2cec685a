// Issue 26: every file Turnstone stores is written whole or not at all, and a
// content-addressed file is trusted only when its bytes match its name. The
// checkpoint manifest repairs a torn last line, and a lost line never makes a
// later checkpoint restore the wrong files.
import * as assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { appendFileSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import * as path from 'node:path';
import { openCheckpointStore, type CheckpointStore } from '../../../src/tools/checkpoints';
import { blobId } from '../../../src/tools/checkpoints/scan';
import { imageFromBytes } from '../../../src/runtime/context/images';
import { JsonlSessionStore, loadSession } from '../../../src/runtime/session/session';
import { imagesDirFor } from '../../../src/runtime/session/session-images';
import { NodeWorkspace } from '../../../src/tools/node-adapter';
import { makePng } from '../../fixtures/images';

const sh = (cwd: string, script: string) => execFileSync('bash', ['-c', script], { cwd, stdio: 'pipe' });

describe('storage: written atomically, trusted only when intact (issue 26)', () => {
  const cleanup: string[] = [];
  afterEach(() => {
    for (const dir of cleanup.splice(0)) rmSync(dir, { recursive: true, force: true });
  });
  const temp = (prefix: string) => {
    const dir = mkdtempSync(path.join(tmpdir(), prefix));
    cleanup.push(dir);
    return dir;
  };

  /** A git repository whose a.txt changes every turn, with checkpoints of three turns. */
  async function threeTurns(): Promise<{ root: string; dir: string; ws: NodeWorkspace; store: CheckpointStore; starts: string[] }> {
    const root = temp('ts-atomic-repo-');
    writeFileSync(path.join(root, 'a.txt'), 't0\n');
    sh(root, 'git init -q && git add -A && git -c user.name=t -c user.email=t@t commit -qm init');
    const dir = temp('ts-atomic-store-');
    const ws = new NodeWorkspace(root);
    const store = await openCheckpointStore({ dir, root, workspace: ws });
    const starts: string[] = [];
    for (let n = 1; n <= 3; n++) {
      starts.push((await store.take({ kind: 'turn-start', turn: n, messageIndex: 2 * n, prompt: `p${n}` })).id);
      writeFileSync(path.join(root, 'a.txt'), `t${n}\n`);
      await store.take({ kind: 'turn-end', turn: n, messageIndex: 2 * n, prompt: `p${n}` });
    }
    return { root, dir, ws, store, starts };
  }

  it('26: a torn last manifest line (a crash mid-append) is cut off on open, and the next checkpoint is not glued to it', async () => {
    const { root, dir, ws, starts } = await threeTurns();
    const manifest = path.join(dir, 'checkpoints.jsonl');
    appendFileSync(manifest, '{"t":"cp","id":"torn-by-a-cra');
    const reopened = await openCheckpointStore({ dir, root, workspace: ws });
    assert.equal(reopened.turns().length, 3);
    assert.ok(readFileSync(manifest, 'utf8').endsWith('\n'), 'repaired: ends on a whole line');
    const fourth = await reopened.take({ kind: 'turn-start', turn: 4, messageIndex: 8, prompt: 'p4' });
    const again = await openCheckpointStore({ dir, root, workspace: ws });
    assert.deepEqual(again.turns().map((c) => c.id), [...starts, fourth.id], 'the checkpoint after the torn line is whole');
    await again.apply(await again.plan(starts[1]!), ws, new Set());
    assert.equal(readFileSync(path.join(root, 'a.txt'), 'utf8'), 't1\n');
  });

  it('26: a line lost in the middle never makes a later checkpoint restore the wrong files: those after it are dropped, not rebuilt on the wrong base', async () => {
    const { root, dir, ws, starts } = await threeTurns();
    const manifest = path.join(dir, 'checkpoints.jsonl');
    const lines = readFileSync(manifest, 'utf8').split('\n').filter(Boolean);
    // Damage the second turn's start: the lines after it are deltas from a checkpoint that is no longer known.
    const i = lines.findIndex((l) => l.includes(starts[1]!));
    lines[i] = lines[i]!.slice(0, 20);
    writeFileSync(manifest, `${lines.join('\n')}\n`);
    const reopened = await openCheckpointStore({ dir, root, workspace: ws });
    assert.deepEqual(reopened.turns().map((c) => c.id), [starts[0]], 'only what is known for sure');
    // What happened after the last known checkpoint counts as a hand edit: restored only when asked to.
    await reopened.apply(await reopened.plan(starts[0]!), ws, new Set(['a.txt']));
    assert.equal(readFileSync(path.join(root, 'a.txt'), 'utf8'), 't0\n');
    assert.ok(readFileSync(manifest, 'utf8').split('\n').every((l) => l === '' || JSON.parse(l)), 'rewritten whole');
  });

  it('26: a checkpoint object cut short under its id is not trusted: stored again when seen again, and never restored over a file', async () => {
    const root = temp('ts-atomic-repo-');
    writeFileSync(path.join(root, 'a.txt'), 'tracked\n');
    sh(root, 'git init -q && git add -A && git -c user.name=t -c user.email=t@t commit -qm init');
    // Untracked: git does not have it, so the checkpoint keeps its own copy.
    writeFileSync(path.join(root, 'notes.txt'), 'the whole original text\n');
    const dir = temp('ts-atomic-store-');
    const ws = new NodeWorkspace(root);
    const store = await openCheckpointStore({ dir, root, workspace: ws });
    const start = await store.take({ kind: 'turn-start', turn: 1, messageIndex: 0, prompt: 'p' });
    const id = blobId(Buffer.from('the whole original text\n'));
    const object = path.join(dir, 'objects', id.slice(0, 2), id.slice(2));
    writeFileSync(object, 'the whole'); // what a crash mid-copy left under a valid id
    writeFileSync(path.join(root, 'notes.txt'), 'changed by the turn\n');
    await store.take({ kind: 'turn-end', turn: 1, messageIndex: 0, prompt: 'p' });
    const reopened = await openCheckpointStore({ dir, root, workspace: ws });
    const result = await reopened.apply(await reopened.plan(start.id), ws, new Set());
    assert.deepEqual(result.restored, []);
    assert.match(result.failed[0]?.error ?? '', /no longer available/);
    assert.equal(readFileSync(path.join(root, 'notes.txt'), 'utf8'), 'changed by the turn\n', 'the user\'s file is not overwritten with a torn copy');
    // Seen again (the next scan of the same content), the object is written whole.
    writeFileSync(path.join(root, 'notes.txt'), 'the whole original text\n');
    await reopened.take({ kind: 'turn-start', turn: 2, messageIndex: 2, prompt: 'p2' });
    assert.equal(readFileSync(object, 'utf8'), 'the whole original text\n');
    assert.deepEqual(readdirSync(path.dirname(object)).filter((f) => f.endsWith('.tmp')), [], 'no temp file left');
  });

  it('26: a session image cut short under its content address is rewritten on the next save and, until then, loads as a note, not as broken bytes', async () => {
    const dir = temp('ts-atomic-session-');
    const shot = imageFromBytes(makePng(40, 30, 3), 'shot.png');
    const store = await JsonlSessionStore.create(dir);
    await store.append({ type: 'message', ts: 1, message: { role: 'user', content: [{ type: 'text', text: 'look' }, shot] } });
    await store.flush();
    const images = imagesDirFor(store.path);
    const [name] = readdirSync(images);
    const file = path.join(images, name!);
    const whole = readFileSync(file);
    writeFileSync(file, whole.subarray(0, whole.length - 1)); // same name, one byte short
    const damaged = await loadSession(store.path);
    assert.deepEqual(damaged.messages[0]!.content[1], { type: 'text', text: '[image 40×30 no longer available]' });
    assert.match(damaged.warnings.join('\n'), /is damaged \(its bytes do not match its name\)/);
    // The same image saved again (by a new store for the file, as a resume does): written whole again.
    const resumed = JsonlSessionStore.open(store.path);
    await resumed.append({ type: 'message', ts: 2, message: { role: 'user', content: [{ type: 'text', text: 'again' }, shot] } });
    await resumed.flush();
    assert.deepEqual(readFileSync(file), whole);
    assert.deepEqual((await loadSession(store.path)).warnings, []);
  });
});
