// Issue 43, sessions side by side in one folder: the files a `bash` command changed, found by the checkpoint
// store's real scans of a real git repository before and after it (agent/command-claims.ts). The commands are
// real shell commands; the executor around them only runs them, as the bash tool would.
import * as assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import * as path from 'node:path';
import { changedBetween, claimingCommandChanges } from '../../../src/agent/command-claims';
import { type ToolExecutor } from '../../../src/runtime/types';
import { type CheckpointStore, openCheckpointStore } from '../../../src/tools/checkpoints';
import { NodeWorkspace } from '../../../src/tools/node-adapter';

describe('43 sessions: what a command changed is claimed for its session (command-claims.ts)', () => {
  let root: string;
  let storeDir: string;
  let store: CheckpointStore;
  const git = (...args: string[]) => execFileSync('git', ['-c', 'user.name=t', '-c', 'user.email=t@e', ...args], { cwd: root });

  beforeEach(async () => {
    root = mkdtempSync(path.join(tmpdir(), 'turnstone-claims-'));
    git('init', '-q');
    for (const name of ['tracked.txt', 'doomed.txt', 'edited-before.txt', 'untouched.txt']) writeFileSync(path.join(root, name), `${name}\n`);
    git('add', '.');
    git('commit', '-qm', 'base');
    // Already different from HEAD before the command: changing it again must still count.
    writeFileSync(path.join(root, 'edited-before.txt'), 'a first change\n');
    storeDir = mkdtempSync(path.join(tmpdir(), 'turnstone-claims-store-'));
    store = await openCheckpointStore({ dir: storeDir, root, workspace: new NodeWorkspace(root) });
  });
  afterEach(() => {
    for (const dir of [root, storeDir]) rmSync(dir, { recursive: true, force: true });
  });

  /** The bash tool's part here: the command run in the folder, failing as the tool reports a failure. */
  const shell: ToolExecutor = {
    definitions: () => [],
    isReadOnly: () => false,
    assess: async () => ({ readOnly: false }) as never,
    execute: async (name, input) => {
      if (name !== 'bash') return { content: 'not a command' } as never;
      execFileSync('bash', ['-c', String(input.command)], { cwd: root });
      return { content: 'done' } as never;
    },
  };
  const run = (tools: ToolExecutor, name: string, command: string) => tools.execute(name, { command }, {} as never);

  it('43: a new file, a file changed again and a deleted one are claimed; untouched ones are not', async () => {
    const claimed: string[][] = [];
    const tools = claimingCommandChanges(shell, () => store, { shared: () => true, now: () => 0, claim: (files) => claimed.push([...files]) });
    await run(tools, 'bash', "printf 'new\\n' > made.txt; printf 'again\\n' > edited-before.txt; rm doomed.txt");
    assert.deepEqual(claimed, [['doomed.txt', 'edited-before.txt', 'made.txt'].map((f) => path.join(root, f))]);
  });

  it('43: a command that fails is looked at all the same; one that changes nothing claims nothing', async () => {
    const claimed: string[][] = [];
    const tools = claimingCommandChanges(shell, () => store, { shared: () => true, now: () => 0, claim: (files) => claimed.push([...files]) });
    await assert.rejects(run(tools, 'bash', "printf 'half\\n' > tracked.txt; exit 3"));
    await run(tools, 'bash', 'cat untouched.txt > /dev/null');
    assert.deepEqual(claimed, [[path.join(root, 'tracked.txt')]]);
  });

  it('43: alone in the folder (not shared), and for tools other than bash, nothing is scanned or claimed', async () => {
    let scans = 0;
    const counting = new Proxy(store, { get: (t, p, r) => (p === 'snapshot' ? (scans++, t.snapshot.bind(t)) : Reflect.get(t, p, r)) });
    const claimed: string[][] = [];
    await run(claimingCommandChanges(shell, () => counting, { shared: () => false, now: () => 0, claim: (f) => claimed.push([...f]) }), 'bash', "printf 'x\\n' > alone.txt");
    await run(claimingCommandChanges(shell, () => counting, { shared: () => true, now: () => 0, claim: (f) => claimed.push([...f]) }), 'read_file', '');
    assert.deepEqual([scans, claimed], [0, []]);
  });

  it('43: changedBetween compares each file\'s state: made, changed, gone back to the base, deleted', () => {
    const blob = (id: string) => ({ kind: 'blob' as const, id });
    assert.deepEqual(
      changedBetween({ a: blob('1'), b: blob('2'), c: blob('3'), d: blob('4') }, { a: blob('1'), b: blob('9'), d: { kind: 'absent' }, e: blob('5') }),
      ['b', 'c', 'd', 'e'],
    );
  });
});
