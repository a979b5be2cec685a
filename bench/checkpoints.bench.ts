// Checkpoints on a generated 20 000-file git repository: taking one when 10 files
// changed (against `git status`, the least any change detector does), storage
// after 50 turns against the bytes those turns changed, and restoring 100 files
// (against writing the same 100 files directly).
import { execFileSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { openCheckpointStore } from '../src/tools/checkpoints';
import { NodeWorkspace } from '../src/tools/node-adapter';
import { type BenchResult, ratioResult, round, sample } from './lib';

const FILES = 20_000;
const rel = (i: number) => `pkg${i % 40}/mod${Math.floor(i / 40) % 25}/file${i}.ts`;
const body = (i: number, version: number) => `// file ${i} version ${version}\nexport const value${i} = ${version};\n${'// padding line\n'.repeat(8)}`;

function bytesUnder(dir: string): number {
  let total = 0;
  for (const e of fs.readdirSync(dir, { withFileTypes: true })) {
    const p = path.join(dir, e.name);
    total += e.isDirectory() ? bytesUnder(p) : fs.statSync(p).size;
  }
  return total;
}

export default async function (): Promise<BenchResult[]> {
  const base = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), 'turnstone-bench-ckpt-')));
  const root = path.join(base, 'repo');
  const git = (...args: string[]) => execFileSync('git', ['-c', 'user.name=b', '-c', 'user.email=b@b', ...args], { cwd: root, stdio: 'pipe', maxBuffer: 1 << 28 });
  try {
    for (let i = 0; i < FILES; i++) {
      fs.mkdirSync(path.dirname(path.join(root, rel(i))), { recursive: true });
      fs.writeFileSync(path.join(root, rel(i)), body(i, 0));
    }
    git('init', '-q');
    git('add', '-A');
    // No automatic gc: committing 20 000 loose objects starts `git gc --auto` in the background, which packs them
    // on these 2 cores while the takes (and then the status baseline) are timed, and those rows measured its
    // finishing time. Packed here instead, before anything is timed, as a repository this size is.
    git('-c', 'gc.auto=0', 'commit', '-qm', 'generated');
    git('gc', '--quiet');
    git('status', '--porcelain'); // warm the index's stat cache, as an editor's git extension keeps it
    const workspace = new NodeWorkspace(root);
    const store = await openCheckpointStore({ dir: path.join(base, 'store'), root, workspace });

    // 1. Taking a checkpoint with 10 changed files.
    let version = 1;
    const touch = (count: number, offset: number) => {
      let written = 0;
      for (let k = 0; k < count; k++) {
        const i = (offset + k * 97) % FILES;
        const content = body(i, version);
        fs.writeFileSync(path.join(root, rel(i)), content);
        written += Buffer.byteLength(content);
      }
      version++;
      return written;
    };
    let turn = 0;
    const take = await sample(async () => {
      touch(10, turn * 10);
      await store.take({ kind: 'turn-start', turn: ++turn, messageIndex: turn * 2, prompt: 'bench' });
    }, 9, 2);
    const status = await sample(() => {
      touch(10, 5000 + turn++ * 10);
      git('status', '--porcelain');
    }, 9, 2);

    // 2. Storage after 50 turns that each change 10 files (start and end checkpoints, as in the editor).
    const storeDir = path.join(base, 'store50');
    const store50 = await openCheckpointStore({ dir: storeDir, root, workspace });
    // The first checkpoint copies what was already uncommitted before the session (here: the files the
    // first part touched); the 50 turns are measured from there.
    await store50.take({ kind: 'turn-end', turn: 0, messageIndex: 0, prompt: 'bench' });
    const before = bytesUnder(storeDir);
    let changedBytes = 0;
    for (let t = 1; t <= 50; t++) {
      await store50.take({ kind: 'turn-start', turn: t, messageIndex: t * 2, prompt: 'bench' });
      changedBytes += touch(10, 10_000 + t * 10);
      await store50.take({ kind: 'turn-end', turn: t, messageIndex: t * 2, prompt: 'bench' });
    }
    const stored = bytesUnder(storeDir) - before;

    // 3. Restoring 100 files.
    const restoreStore = await openCheckpointStore({ dir: path.join(base, 'store-restore'), root, workspace });
    let restoreTurn = 0;
    const restore = await sample(async () => {
      const checkpoint = await restoreStore.take({ kind: 'turn-start', turn: ++restoreTurn, messageIndex: 0, prompt: 'bench' });
      touch(100, 15_000);
      await restoreStore.apply(await restoreStore.plan(checkpoint.id), workspace, new Set());
    }, 5, 1);
    const direct = await sample(() => {
      for (let k = 0; k < 100; k++) {
        const i = (15_000 + k * 97) % FILES;
        fs.writeFileSync(path.join(root, rel(i)), body(i, version));
      }
      version++;
    }, 5, 1);

    return [
      {
        ...ratioResult('checkpoints: take (20k files, 10 changed)', 'CheckpointStore.take on a 20 000-file git repository after 10 files changed', take, status, Infinity),
        target: '< 50 ms',
        pass: take.median < 50,
      },
      {
        name: 'checkpoints: storage after 50 turns',
        measured: 'bytes added to the checkpoint store by 50 turns that each changed 10 files, against the bytes those files held after the changes',
        unit: 'bytes',
        ours: stored,
        baseline: changedBytes,
        ratio: round(stored / changedBytes),
        target: 'ratio <= 2',
        pass: stored / changedBytes <= 2,
      },
      {
        ...ratioResult('checkpoints: restore 100 files', 'plan + apply of a checkpoint 100 changed files away (includes the undo checkpoint it takes first)', restore, direct, Infinity),
        target: '< 1000 ms',
        pass: restore.median < 1000,
      },
    ];
  } finally {
    fs.rmSync(base, { recursive: true, force: true });
  }
}
