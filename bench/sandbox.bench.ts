// What the OS sandbox adds to every `bash` tool use: `true` run through the
// Node shell with the bubblewrap sandbox against the same shell without it,
// interleaved in one run. Target: within 30 ms of the unsandboxed spawn.
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { NodeShell } from '../src/tools/node-adapter';
import { CommandSandbox, sandboxStatus } from '../src/tools/shell/sandbox';
import { type BenchResult, round, type Sampled } from './lib';
import { ensureTree } from './scale/trees';

const RUNS = 31;
const MAX_ADDED_MS = 30;

function summarise(times: number[]): Sampled {
  const sorted = [...times].sort((a, b) => a - b);
  return { median: sorted[Math.floor(sorted.length / 2)]!, min: sorted[0]!, max: sorted[sorted.length - 1]! };
}

export default async function (): Promise<BenchResult[]> {
  const status = await sandboxStatus();
  if (!status.available) throw new Error(`no sandbox on this machine: ${status.reason}`);
  const empty = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), 'turnstone-bench-sandbox-')));
  try {
    // An empty folder, and a 10 000-file tree with secrets and control files (the layout scan, reused for 5 s, is part of the cost).
    const tree = ensureTree(10_000);
    return [await measure(empty, 'an empty workspace'), await measure(tree, 'a 10 000-file workspace')];
  } finally {
    fs.rmSync(empty, { recursive: true, force: true });
  }
}

async function measure(root: string, label: string): Promise<BenchResult> {
  const status = await sandboxStatus();
  if (!status.available) throw new Error(`no sandbox on this machine: ${status.reason}`);
  {
    const sandboxed = new NodeShell({ sandbox: new CommandSandbox(() => ({ mode: 'auto', network: 'allow', roots: [root] })) });
    const plain = new NodeShell();
    // drainMs 150 waits only when a pipe stays open; `true` closes both at once, so neither pays it.
    const once = async (shell: NodeShell) => {
      const t0 = performance.now();
      const r = await shell.run('true', { cwd: root, timeoutMs: 10_000 });
      if (r.exitCode !== 0) throw new Error(`true exited ${r.exitCode}: ${r.output}`);
      return performance.now() - t0;
    };
    for (let i = 0; i < 3; i++) {
      await once(sandboxed);
      await once(plain);
    }
    const ours: number[] = [];
    const base: number[] = [];
    for (let i = 0; i < RUNS; i++) {
      ours.push(await once(sandboxed));
      base.push(await once(plain));
    }
    const o = summarise(ours);
    const b = summarise(base);
    const added = o.median - b.median;
    return {
        name: `bash: sandboxed \`true\` vs unsandboxed, ${label}`,
        measured: `NodeShell.run('true') under bubblewrap (${status.program}: own /tmp, control files read-only, secrets hidden) vs without, median of ${RUNS} interleaved runs`,
        unit: 'ms',
        ours: round(o.median),
        baseline: round(b.median),
        ratio: round(o.median / b.median),
        target: `added <= ${MAX_ADDED_MS} ms`,
        pass: added <= MAX_ADDED_MS,
        min: round(o.min),
        max: round(o.max),
        extra: { addedMs: round(added) },
      };
  }
}
