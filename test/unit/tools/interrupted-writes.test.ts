import assert from 'node:assert/strict';
import { spawn, spawnSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { atomicTempPath, cleanUpInterruptedWrites, removeInterruptedWrites } from '../../../src/tools/files/interrupted-writes';
import { NodeWorkspace } from '../../../src/tools/node-adapter';
import { processStateLetter } from '../../../src/tools/os/process-state';
import { waitFor } from '../../fixtures/mcp-servers';

describe('tools: temp files of interrupted writes', () => {
  let dir: string;
  beforeEach(() => {
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'turnstone-interrupted-'));
  });
  afterEach(() => fs.rmSync(dir, { recursive: true, force: true }));

  // A pid that surely ran and is gone: a child that has exited.
  const deadPid = () => spawnSync(process.execPath, ['-e', '0']).pid!;

  it('removes what a dead writer left beside the file, never a live writer\'s or an unrelated file', async () => {
    const target = path.join(dir, 'a.txt');
    fs.writeFileSync(target, 'intact');
    const live = spawn('sleep', ['30']);
    try {
      const dead = path.join(dir, `.a.txt.turnstone-${deadPid()}-abcdef.tmp`);
      const alive = path.join(dir, `.a.txt.turnstone-${live.pid}-abcdef.tmp`);
      const mine = atomicTempPath(target);
      const other = path.join(dir, `.b.txt.turnstone-${deadPid()}-abcdef.tmp`);
      for (const f of [dead, alive, mine, other]) fs.writeFileSync(f, 'half');
      assert.deepEqual(await removeInterruptedWrites(target), [dead]);
      assert.deepEqual(fs.readdirSync(dir).sort(), ['a.txt', path.basename(alive), path.basename(mine), path.basename(other)].sort());
      assert.equal(fs.readFileSync(target, 'utf8'), 'intact');
    } finally {
      live.kill();
    }
  });

  it('counts a zombie writer as dead (a killed writer no one reaps never finishes its write)', async function () {
    if (process.platform !== 'linux') this.skip();
    // sh starts a child that exits at once, then execs into sleep, which never waits for it: a zombie.
    const parent = spawn('sh', ['-c', 'true & exec sleep 30']);
    try {
      let zombie: number | undefined;
      await waitFor(() => (zombie = childrenOf(parent.pid!).find((pid) => processStateLetter(pid) === 'Z')) !== undefined, "the shell's exited child to be a zombie");
      const target = path.join(dir, 'z.txt');
      const leftover = path.join(dir, `.z.txt.turnstone-${zombie}-abcdef.tmp`);
      fs.writeFileSync(leftover, 'half');
      assert.deepEqual(await removeInterruptedWrites(target), [leftover]);
    } finally {
      parent.kill();
    }
  });

  it('a later atomic write of the file and a resumed session both clean up', async () => {
    const target = path.join(dir, 'src', 'b.txt');
    fs.mkdirSync(path.dirname(target));
    const leftover = path.join(dir, 'src', `.b.txt.turnstone-${deadPid()}-0123ab.tmp`);
    fs.writeFileSync(leftover, 'half');
    await new NodeWorkspace(dir).writeFile(target, Buffer.from('new'));
    assert.equal(fs.existsSync(leftover), false);

    fs.writeFileSync(leftover, 'half again');
    const removed = await cleanUpInterruptedWrites(
      [{ role: 'assistant', content: [{ type: 'tool_use', id: 't', name: 'write_file', input: { path: 'src/b.txt', content: 'x' } }] }],
      dir,
    );
    assert.deepEqual(removed, [leftover]);
  });
});


function childrenOf(pid: number): number[] {
  try {
    return fs
      .readFileSync(`/proc/${pid}/task/${pid}/children`, 'utf8')
      .trim()
      .split(/\s+/)
      .filter(Boolean)
      .map(Number);
  } catch {
    return [];
  }
}
