// How search cost grows with the tree: grep_search and glob_search on generated
// trees of 1k, 10k and 100k files against raw ripgrep on the same tree, in the
// same run, through both ways the tools are built:
//  - the CLI's Node path (NodeWorkspace + NodeShell, rg from PATH, as src/cli.ts);
//  - the VS Code path (VsCodeWorkspace + the terminal's child shell, VS Code's
//    bundled rg) inside the real extension host (code-server).
// Target: ≤ 1.3× raw rg at 100k files; the whole curve is reported.
import * as path from 'node:path';
import { findOnPath } from '../src/cli/which';
import { NodeShell, NodeWorkspace } from '../src/tools/node-adapter';
import { createToolExecutor } from '../src/tools/registry';
import { runInHost } from './host/run-in-host';
import { type BenchResult, type Sampled, round } from './lib';
import { measureSearch, type SearchFigures } from './scale/search-measure';
import { ensureTree, removeTrees } from './scale/trees';

const SIZES = [1_000, 10_000, 100_000];
const MAX_RATIO = 1.3;
const runsFor = (files: number) => (files >= 100_000 ? 5 : 9);

const stats = (xs: number[]): Sampled => {
  const s = [...xs].sort((a, b) => a - b);
  return { median: s[Math.floor(s.length / 2)]!, min: s[0]!, max: s[s.length - 1]! };
};

function rows(where: string, f: SearchFigures): BenchResult[] {
  const label = `${f.files / 1000}k files`;
  const row = (tool: string, ours: number[], base: number[], baseWhat: string, extra: Record<string, number | string>): BenchResult => {
    const o = stats(ours);
    const b = stats(base);
    const ratio = o.median / b.median;
    // The target is set at 100k; the smaller trees are the curve (reported, not judged).
    const judged = f.files >= 100_000;
    return {
      name: `${tool} ${label} (${where})`,
      measured: `${tool} through the tool executor (${where}) vs ${baseWhat} on the same generated tree; median of ${ours.length} interleaved runs`,
      unit: 'ms',
      ours: round(o.median),
      baseline: round(b.median),
      ratio: round(ratio),
      target: judged ? `ratio <= ${MAX_RATIO}` : 'report',
      pass: judged ? ratio <= MAX_RATIO : null,
      min: round(o.min),
      max: round(o.max),
      extra,
    };
  };
  return [
    row('grep_search', f.grep.ours, f.grep.rg, '`rg -l PATTERN`', { rg_with_our_flags_ms: round(stats(f.grep.rgSameFlags).median) }),
    row('glob_search', f.glob.ours, f.glob.rg, '`rg --files -g "**/*.md"`', { rg_with_our_flags_ms: round(stats(f.glob.rgSameFlags).median) }),
  ];
}

export default async function (): Promise<BenchResult[]> {
  const rgBin = findOnPath('rg');
  if (!rgBin) throw new Error('rg is not on PATH (scripts/prepare-vscode.sh installs ripgrep)');
  try {
    const trees = SIZES.map((files) => {
      const t0 = performance.now();
      const root = ensureTree(files);
      process.stderr.write(`[bench] tree of ${files} files ready in ${Math.round(performance.now() - t0)} ms: ${root}\n`);
      return { files, root, runs: runsFor(files) };
    });
    const results: BenchResult[] = [];
    for (const tree of trees) {
      // As src/cli.ts builds the tools.
      const executor = createToolExecutor({ workspace: new NodeWorkspace(tree.root), shell: new NodeShell() }, { ripgrepPath: rgBin });
      results.push(...rows('CLI, Node', await measureSearch(executor, rgBin, tree.root, tree.files, tree.runs)));
    }
    const host = await runInHost<{ rg: string; trees: SearchFigures[] }>(path.join(__dirname, 'host', 'search.ts'), {
      env: { TURNSTONE_BENCH_TREES: JSON.stringify(trees) },
    });
    for (const f of host.trees) results.push(...rows('VS Code host', f));
    return results;
  } finally {
    removeTrees();
  }
}
