// Issue 42 item 8: command output kept on disk (bash's spilled output, a
// background command's log) is capped as it streams, private, and pruned.
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { NodeShell, NodeWorkspace } from '../../../src/tools/node-adapter';
import { type Shell, type ShellResult } from '../../../src/tools/ports';
import { createToolExecutor } from '../../../src/tools/registry';
import { CappedLog, capKeptFile, isLiveKeptFile, pruneKeptOutput, pruneKeptOutputOnce } from '../../../src/tools/shell/kept-output';
import { until } from '../../support/process-tree';
import { ctx, tempDir } from './helpers';

const MB = 1024 * 1024;
const MARKER = /\[… (\d+) bytes cut by Turnstone: output over the (.+?) cap …\] *\n/;

/** Splits a kept file into head, the marker's count and tail (bytes), checking they are the output's own. */
function parts(file: Buffer, output: Buffer): { head: Buffer; cut: number; tail: Buffer } {
  const at = file.indexOf('[… ');
  assert.ok(at >= 0, 'the cut is marked');
  const end = file.indexOf('\n', at);
  const m = /^\[… (\d+) bytes cut by Turnstone: output over the (.+?) cap …\] *$/.exec(file.subarray(at, end).toString('utf8'));
  assert.ok(m, `the marker line: ${file.subarray(at, end).toString('utf8')}`);
  const cut = Number(m[1]);
  const tail = file.subarray(end + 1);
  const headLength = output.length - cut - tail.length;
  // The marker starts a line of its own: after the head's own line break, or after one it adds.
  assert.ok(at === headLength || (at === headLength + 1 && file[headLength] === 0x0a && output[headLength - 1] !== 0x0a), 'head + cut + tail is the whole output');
  const head = file.subarray(0, headLength);
  assert.ok(output.subarray(0, head.length).equals(head), "the head is the output's beginning");
  assert.ok(output.subarray(output.length - tail.length).equals(tail), "the tail is the output's end");
  return { head, cut, tail };
}

/** A deterministic generator, so a failing case can be run again. */
function random(seed: number): () => number {
  let s = seed >>> 0;
  return () => {
    s = (Math.imul(s, 1664525) + 1013904223) >>> 0;
    return s / 2 ** 32;
  };
}

describe('tools: output kept on disk (issue 42 item 8)', function () {
  this.timeout(60_000);
  let base: string;
  beforeEach(() => {
    base = tempDir('turnstone-kept-');
  });
  afterEach(() => fs.rmSync(base, { recursive: true, force: true }));

  it('issue 42 item 8: a capped log is the output byte for byte up to the cap, past it head + marked cut + tail, whatever the chunks', async () => {
    const next = random(42);
    for (let trial = 0; trial < 40; trial++) {
      const cap = 16 * 1024 + Math.floor(next() * 48 * 1024);
      const lines = Math.floor(next() * 12_000);
      // Multi-byte characters too: no cut may split one.
      const output = Buffer.from(Array.from({ length: lines }, (_, i) => (trial % 2 ? `line ${i} ${'é'.repeat(i % 5)}\n` : `é${'a'.repeat(i % 4)}`)).join(''), 'utf8');
      const log = new CappedLog(path.join(base, `t${trial}.log`), cap);
      for (let at = 0; at < output.length; ) {
        const size = 1 + Math.floor(next() * (next() < 0.1 ? 80_000 : 4000));
        log.write(output.subarray(at, at + size));
        at += size;
        if (next() < 0.05) await log.flush();
      }
      // A read of the whole output gives the head, the cut (as a count, where it falls) and the tail.
      const read: string[] = [];
      await log.read(0, output.length, (b) => read.push(b.toString('latin1')), (n) => read.push(`<cut ${n}>`));
      const summary = await log.close();
      const file = fs.readFileSync(log.file);
      assert.ok(file.length <= cap, `trial ${trial}: ${file.length} bytes over the ${cap}-byte cap`);
      if (output.length <= cap) {
        assert.ok(file.equals(output), `trial ${trial}: under the cap the file is the output`);
        assert.equal(summary.cutBytes, 0);
        continue;
      }
      const { head, cut, tail } = parts(file, output);
      assert.equal(summary.cutBytes, cut);
      assert.equal(read.join(''), `${head.toString('latin1')}<cut ${cut}>${tail.toString('latin1')}`);
      assert.ok(!file.toString('utf8').includes('\ufffd'), `trial ${trial}: a character was split`);
      if (trial % 2) assert.ok(head.toString().endsWith('\n') && tail.toString().startsWith('line '), `trial ${trial}: cuts land on line breaks`);
      assert.ok(tail.length >= (cap - 160) / 4 - 4096, `trial ${trial}: tail of ${tail.length} bytes is too short`);
    }
  });

  it('issue 42 item 8: a 1 GB flood keeps head and tail under the cap (here 128 MB under a 4 MB cap; the file never grows past it while the command runs)', async () => {
    // The full 1 GB under the default 64 MB cap was measured by hand (report): too slow for the unit budget here.
    const outputDir = path.join(base, 'out');
    const cap = 4 * MB;
    const tools = createToolExecutor({ workspace: new NodeWorkspace(base), shell: new NodeShell() }, { outputDir, limits: { maxKeptOutputBytes: cap } });
    let largest = 0;
    let chunks = 0;
    const sample = () => {
      for (const name of fs.existsSync(outputDir) ? fs.readdirSync(outputDir) : []) largest = Math.max(largest, fs.statSync(path.join(outputDir, name)).size);
    };
    const flood = 128 * MB;
    const out = await tools.execute('bash', { command: `echo HEAD-START; head -c ${flood} /dev/zero | tr '\\0' 'a'; echo; echo TAIL-END` }, {
      signal: new AbortController().signal,
      // Counted as it streams: sampled while the command runs, the file is never over the cap.
      onProgress: () => {
        if (++chunks % 64 === 0) sample();
      },
    });
    sample();
    assert.equal(out.isError, false);
    assert.ok(largest > 0 && largest <= cap, `the kept file reached ${largest} bytes (cap ${cap})`);
    const saved = /are saved to (\S+)\]/.exec(out.content)?.[1];
    assert.ok(saved, `the result names the file: ${out.content.slice(-600)}`);
    assert.match(out.content, /is over the 4 MB kept on disk: its beginning and end, the middle \(\d+ bytes\) cut/);
    const file = fs.readFileSync(saved);
    assert.ok(file.length <= cap, `${file.length} bytes kept`);
    const text = file.toString('utf8');
    assert.ok(text.startsWith('HEAD-START\naaaa'), 'the head is kept');
    assert.ok(text.endsWith('aaaa\nTAIL-END\n'), 'the tail is kept');
    const m = MARKER.exec(text);
    assert.ok(m, 'the cut is marked in the file');
    assert.equal(m[2], '4 MB');
    // What is not in the file is exactly what the marker says was cut (the head's last line ends before the marker).
    const printed = 'HEAD-START\n'.length + flood + '\nTAIL-END\n'.length;
    assert.equal(file.length - Buffer.byteLength(m[0]) - 1 + Number(m[1]), printed);
    // Private: the folder 0700, the file 0600.
    assert.equal(fs.statSync(outputDir).mode & 0o777, 0o700);
    assert.equal(fs.statSync(saved).mode & 0o777, 0o600);
  });

  it('issue 42 item 8: output under the cap is kept whole, in a 0600 file of a 0700 folder', async () => {
    const outputDir = path.join(base, 'deep', 'out');
    const tools = createToolExecutor({ workspace: new NodeWorkspace(base), shell: new NodeShell() }, { outputDir });
    const out = await tools.execute('bash', { command: 'seq 1 200000' }, ctx());
    const saved = /saved to (\S+)\]/.exec(out.content)?.[1];
    assert.ok(saved);
    assert.equal(fs.readFileSync(saved, 'utf8'), Array.from({ length: 200_000 }, (_, i) => i + 1).join('\n') + '\n');
    assert.equal(fs.statSync(saved).mode & 0o777, 0o600);
    assert.equal(fs.statSync(outputDir).mode & 0o777, 0o700);
  });

  it('issue 42 item 8: a shell that cannot cap as it streams (the editor terminal\'s capture) has its kept file capped afterwards', async () => {
    const outputDir = path.join(base, 'out');
    const cap = 64 * 1024;
    const whole = Buffer.from(Array.from({ length: 100_000 }, (_, i) => `row ${i}\n`).join(''));
    const capture: Shell = {
      async run(_command, options): Promise<ShellResult> {
        // As keepCapture does: the whole capture moved to the spill path.
        fs.mkdirSync(path.dirname(options.spill!.path), { recursive: true, mode: 0o700 });
        fs.writeFileSync(options.spill!.path, whole, { mode: 0o600 });
        const text = whole.toString();
        return { exitCode: 0, output: `${text.slice(0, 40_000)}\n…\n${text.slice(-40_000)}`, timedOut: false, interrupted: false, totalChars: whole.length, savedTo: options.spill!.path };
      },
    };
    const tools = createToolExecutor({ workspace: new NodeWorkspace(base), shell: capture }, { outputDir, limits: { maxKeptOutputBytes: cap } });
    const out = await tools.execute('bash', { command: 'make' }, ctx());
    const saved = /are saved to (\S+)\]/.exec(out.content)?.[1];
    assert.ok(saved, out.content.slice(-500));
    const file = fs.readFileSync(saved);
    assert.ok(file.length <= cap, `${file.length} bytes kept`);
    const { head, tail } = parts(file, whole);
    assert.ok(head.toString().startsWith('row 0\n') && tail.toString().endsWith('row 99999\n'));
    // A file already under the cap is left alone.
    const small = path.join(base, 'small.log');
    fs.writeFileSync(small, 'short\n');
    assert.equal(await capKeptFile(small, cap), 0);
    assert.equal(fs.readFileSync(small, 'utf8'), 'short\n');
  });

  it('issue 42 item 8: pruning removes kept output older than 7 days, then the oldest over the total; never a live or recent file, nor other files', async () => {
    const dir = path.join(base, 'out');
    fs.mkdirSync(dir, { mode: 0o755 });
    fs.chmodSync(dir, 0o755);
    const now = Date.now();
    const day = 24 * 60 * 60 * 1000;
    const make = (name: string, size: number, ageMs: number) => {
      const file = path.join(dir, name);
      fs.writeFileSync(file, Buffer.alloc(size, 0x61));
      const t = (now - ageMs) / 1000;
      fs.utimesSync(file, t, t);
      return file;
    };
    const ancient = make('bash-ancient.log', 10, 8 * day);
    const old1 = make('bash-old1.log', 400, 3 * day);
    const old2 = make('bash-old2.log', 400, 2 * day);
    const newer = make('bash-newer.log', 400, 1 * day);
    const recent = make('bash-recent.log', 400, 60_000);
    const notOurs = make('notes.txt', 10, 30 * day);
    // A log being written (a live background command, a spill in progress) is never removed, however old.
    const liveFile = path.join(dir, 'bash-live.log');
    const live = new CappedLog(liveFile, 64 * 1024);
    live.write('still running\n');
    await live.flush();
    const t = (now - 9 * day) / 1000;
    fs.utimesSync(liveFile, t, t);
    assert.ok(isLiveKeptFile(liveFile));
    const removed = await pruneKeptOutput(dir, { now, maxTotalBytes: 1000 });
    assert.deepEqual(removed.sort(), [ancient, old1, old2].sort());
    for (const kept of [newer, recent, notOurs, liveFile]) assert.ok(fs.existsSync(kept), `${kept} kept`);
    // Over the total with only recent files left: they stay (another process may still be writing one).
    assert.deepEqual(await pruneKeptOutput(dir, { now, maxTotalBytes: 10 }), [newer]);
    assert.ok(fs.existsSync(recent) && fs.existsSync(liveFile));
    // The folder an older version left open is private again.
    assert.equal(fs.statSync(dir).mode & 0o777, 0o700);
    await live.close();
    assert.ok(!isLiveKeptFile(liveFile));
  });

  it('issue 42 item 8: bash prunes the output folder once per process, at its first command, not at every command', async () => {
    const outputDir = path.join(base, 'out');
    fs.mkdirSync(outputDir, { mode: 0o700 });
    const stale = (name: string) => {
      const file = path.join(outputDir, name);
      fs.writeFileSync(file, 'old output\n');
      const t = (Date.now() - 8 * 24 * 60 * 60 * 1000) / 1000;
      fs.utimesSync(file, t, t);
      return file;
    };
    const first = stale('bash-first.log');
    const tools = createToolExecutor({ workspace: new NodeWorkspace(base), shell: new NodeShell() }, { outputDir });
    await tools.execute('bash', { command: 'true' }, ctx());
    await until('the first command\'s prune to remove the stale file', () => !fs.existsSync(first));
    await pruneKeptOutputOnce(outputDir);
    const second = stale('bash-second.log');
    await tools.execute('bash', { command: 'true' }, ctx());
    await pruneKeptOutputOnce(outputDir);
    assert.ok(fs.existsSync(second), 'a later command does not prune again');
  });
});
