// The Workspace port promises atomic writes: a reader sees the old bytes or the
// new ones, never a mix or an empty file, and a writer killed mid-write leaves
// the target intact. A real 2 MB write takes about a millisecond, so racing it
// proves nothing; instead every write is split in two by construction
// (test/support/halfway-writes.ts) and the target is inspected at that point.
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { NodeWorkspace } from '../../../src/tools/node-adapter';
import { splitWritesHalfway } from '../../support/halfway-writes';

const SIZE = 2 * 1024 * 1024;
const repoRoot = path.join(__dirname, '..', '..', '..');

describe('tools: atomic writes (NodeWorkspace.writeFile)', () => {
  let dir: string;
  beforeEach(() => {
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'turnstone-atomic-'));
  });
  afterEach(() => fs.rmSync(dir, { recursive: true, force: true }));

  it('a reader looking at the target while the write is half done sees the complete old content', async () => {
    const target = path.join(dir, 'big.txt');
    const before = Buffer.alloc(SIZE, 'o');
    const after = Buffer.alloc(SIZE, 'n');
    fs.writeFileSync(target, before);
    const seen: (Buffer | 'missing')[] = [];
    const restore = splitWritesHalfway(() => {
      try {
        seen.push(fs.readFileSync(target));
      } catch {
        seen.push('missing');
      }
    });
    try {
      await new NodeWorkspace(dir).writeFile(target, after);
    } finally {
      restore();
    }
    assert.ok(seen.length >= 1, 'the write went through no split point: nothing was observed');
    for (const s of seen) {
      assert.notEqual(s, 'missing', 'the target was gone while being written');
      assert.ok((s as Buffer).equals(before), `mid-write the target held ${(s as Buffer).length} bytes, not the complete old content`);
    }
    assert.ok(fs.readFileSync(target).equals(after));
  });

  it('a writer SIGKILLed half-way through leaves the target intact; the next write removes its temp file', async () => {
    const target = path.join(dir, 'big.txt');
    const before = Buffer.alloc(SIZE, 'o');
    fs.writeFileSync(target, before);
    const child = spawn(process.execPath, ['--import', 'tsx', path.join(repoRoot, 'test/fixtures/killed-writer.ts'), target, String(SIZE)], { cwd: repoRoot, stdio: ['ignore', 'pipe', 'pipe'] });
    let out = '';
    child.stdout.on('data', (d: Buffer) => (out += d.toString()));
    child.stderr.on('data', (d: Buffer) => (out += d.toString()));
    const signal = await new Promise<NodeJS.Signals | null>((resolve) => child.on('exit', (_code, sig) => resolve(sig)));
    assert.equal(signal, 'SIGKILL', `the writer was not killed mid-write: ${out}`);

    assert.ok(fs.readFileSync(target).equals(before), 'the killed write changed the target');
    const leftovers = fs.readdirSync(dir).filter((n) => n !== 'big.txt');
    assert.equal(leftovers.length, 1, `expected the killed writer's temp file, found ${leftovers.join(', ')}`);
    assert.equal(fs.statSync(path.join(dir, leftovers[0]!)).size, SIZE / 2, 'the temp file holds the half that was written');

    await new NodeWorkspace(dir).writeFile(target, Buffer.from('next'));
    assert.deepEqual(fs.readdirSync(dir), ['big.txt']);
    assert.equal(fs.readFileSync(target, 'utf8'), 'next');
  });
});
