// edit_file end to end (read, match, write atomically, diff for the result) on
// a 100 000-line file, against the least any editor must do: read, replace, write.
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { NodeWorkspace } from '../src/tools/node-adapter';
import { createToolExecutor } from '../src/tools/registry';
import { type BenchResult, ratioResult, sample } from './lib';

const LINES = 100_000;

function makeFile(file: string, lineCount = LINES): void {
  const lines: string[] = [];
  // About 50 bytes a line: 100 000 lines ≈ 5 MB.
  for (let i = 0; i < lineCount; i++) lines.push(`  const value${i} = compute(${i}, "text"); // ${i % 10}`);
  fs.writeFileSync(file, `${lines.join('\n')}\n`);
}

/** Longest stretch the event loop was blocked while `fn` ran (what the extension host would feel). */
async function longestBlock(fn: () => Promise<void>): Promise<number> {
  let last = performance.now();
  let worst = 0;
  const timer = setInterval(() => {
    const now = performance.now();
    worst = Math.max(worst, now - last);
    last = now;
  }, 1);
  try {
    last = performance.now();
    await fn();
    const now = performance.now();
    worst = Math.max(worst, now - last);
  } finally {
    clearInterval(timer);
  }
  return worst;
}

export default async function (): Promise<BenchResult[]> {
  const root = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), 'turnstone-bench-edit-')));
  try {
    const oursFile = path.join(root, 'ours.ts');
    const baseFile = path.join(root, 'base.ts');
    makeFile(oursFile);
    makeFile(baseFile);
    const size = fs.statSync(oursFile).size;
    const executor = createToolExecutor({ workspace: new NodeWorkspace(root) });
    const signal = new AbortController().signal;
    // Alternate between two edits near the middle so every run changes the file.
    const target = Math.floor(LINES / 2);
    const a = `const value${target} = compute(${target},`;
    const b = `const renamed${target} = compute(${target},`;
    let flip = false;
    let diffChars = 0;

    const ours = await sample(async () => {
      flip = !flip;
      const out = await executor.execute(
        'edit_file',
        { path: 'ours.ts', old_string: flip ? a : b, new_string: flip ? b : a },
        { signal },
      );
      if (out.isError) throw new Error(out.content);
      diffChars = out.content.length;
    }, 9, 2);

    let flipBase = false;
    const baseline = await sample(async () => {
      flipBase = !flipBase;
      const text = await fs.promises.readFile(baseFile, 'utf8');
      await fs.promises.writeFile(baseFile, text.replace(flipBase ? a : b, flipBase ? b : a));
    }, 9, 2);

    // A 1 MB file: the longest synchronous stretch should stay under one frame (16 ms).
    const smallFile = path.join(root, 'small.ts');
    makeFile(smallFile, 20_000);
    const smallTarget = 10_000;
    const blocks: number[] = [];
    let flipSmall = false;
    for (let i = 0; i < 9; i++) {
      flipSmall = !flipSmall;
      const from = `const value${smallTarget} =`;
      const to = `const renamed${smallTarget} =`;
      blocks.push(
        await longestBlock(async () => {
          const out = await executor.execute('edit_file', { path: 'small.ts', old_string: flipSmall ? from : to, new_string: flipSmall ? to : from }, { signal });
          if (out.isError) throw new Error(out.content);
        }),
      );
    }
    blocks.sort((x, y) => x - y);
    const blockMedian = blocks[Math.floor(blocks.length / 2)]!;
    // The same probe around the baseline, for scale on a slow or busy machine.
    const baseBlocks: number[] = [];
    for (let i = 0; i < 9; i++) {
      baseBlocks.push(
        await longestBlock(async () => {
          const text = await fs.promises.readFile(smallFile, 'utf8');
          await fs.promises.writeFile(smallFile, text.replace('compute(', 'compute ('));
        }),
      );
    }
    baseBlocks.sort((x, y) => x - y);

    return [
      {
        name: 'edit_file event-loop block on a 1 MB file',
        measured: 'longest gap between 1 ms timer ticks while edit_file runs (median of 9)',
        unit: 'ms',
        ours: Math.round(blockMedian * 1000) / 1000,
        baseline: null,
        ratio: null,
        target: '< 16 ms',
        pass: blockMedian < 16,
        min: Math.round(blocks[0]! * 1000) / 1000,
        max: Math.round(blocks[blocks.length - 1]! * 1000) / 1000,
        extra: { fileBytes: fs.statSync(smallFile).size, baselineBlockMs: Math.round(baseBlocks[4]! * 1000) / 1000 },
      },
      ratioResult(
        'edit_file on a 100k-line file',
        'edit_file end to end (read, unique-match check, atomic write, diff) vs readFile + String.replace + writeFile',
        ours,
        baseline,
        3,
        { fileBytes: size, lines: LINES, resultChars: diffChars },
      ),
    ];
  } finally {
    fs.rmSync(root, { recursive: true, force: true });
  }
}
