// One search scale measurement, shared by the Node (CLI) half and the VS Code
// half (bundled into the extension host by bench/host/search.ts): grep_search
// and glob_search through a real tool executor against raw ripgrep on the same
// tree, interleaved run by run so both see the same machine load.
import { spawn } from 'node:child_process';
import { type ToolExecutor } from '../../src/runtime/types';
import { ripgrepArgs } from '../../src/tools/search/grep-search';
import { nameGlobOf, ripgrepListArgs } from '../../src/tools/search/list-files';
import { DEFAULT_SKIP_DIRS } from '../../src/tools/search/walk';
import { GLOB_PATTERN, GREP_PATTERN, expectedMatches } from './trees';

export interface SearchFigures {
  files: number;
  /** Every measured run, in ms. */
  grep: { ours: number[]; rg: number[]; rgSameFlags: number[] };
  glob: { ours: number[]; rg: number[]; rgSameFlags: number[] };
}

function rg(bin: string, args: string[], cwd: string): Promise<string> {
  return new Promise((resolve, reject) => {
    // stdin closed: given no path and a piped stdin, rg would search stdin.
    const child = spawn(bin, args, { cwd, stdio: ['ignore', 'pipe', 'pipe'] });
    const out: Buffer[] = [];
    const err: Buffer[] = [];
    child.stdout.on('data', (d: Buffer) => out.push(d));
    child.stderr.on('data', (d: Buffer) => err.push(d));
    child.on('error', reject);
    child.on('close', (code) => {
      // Exit 1 is "no match"; anything else is a failed baseline.
      if (code === 0 || code === 1) resolve(Buffer.concat(out).toString('utf8'));
      else reject(new Error(`${bin} ${args.join(' ')} exited ${code}: ${Buffer.concat(err).toString('utf8')}`));
    });
  });
}

const lines = (s: string) => s.split('\n').filter((l) => l !== '').length;

async function timed(fn: () => Promise<void>): Promise<number> {
  const t0 = performance.now();
  await fn();
  return performance.now() - t0;
}

export async function measureSearch(executor: ToolExecutor, rgBin: string, root: string, files: number, runs: number): Promise<SearchFigures> {
  const expected = expectedMatches(files);
  const signal = new AbortController().signal;
  const check = (what: string, got: number, want: number) => {
    if (got !== want) throw new Error(`${what} on ${files} files found ${got}, expected ${want}`);
  };
  const oursGrep = async () => {
    const out = await executor.execute('grep_search', { pattern: GREP_PATTERN }, { signal });
    if (out.isError) throw new Error(out.content);
    check('grep_search', Number(/^Found (\d+) file/.exec(out.content)?.[1]), expected.grep);
  };
  const rawGrep = async () => check('rg -l', lines(await rg(rgBin, ['--files-with-matches', '--regexp', GREP_PATTERN], root)), expected.grep);
  const sameFlags = ripgrepArgs(
    { pattern: GREP_PATTERN, target: root, targetIsFile: false, displayPrefix: '', glob: undefined, mode: 'files_with_matches', ignoreCase: false, lineNumbers: true, before: 0, after: 0, ignoreRoot: root, maxEntries: 0, excludeNames: [] },
    undefined,
  );
  const rawGrepSameFlags = async () => check('rg (our flags)', lines(await rg(rgBin, sameFlags, root)), expected.grep);
  const oursGlob = async () => {
    const out = await executor.execute('glob_search', { pattern: GLOB_PATTERN }, { signal });
    if (out.isError) throw new Error(out.content);
    const total = /(\d+) in total/.exec(out.content)?.[1];
    check('glob_search', total ? Number(total) : lines(out.content), expected.glob);
  };
  const rawGlob = async () => check('rg --files -g', lines(await rg(rgBin, ['--files', '--glob', GLOB_PATTERN], root)), expected.glob);
  // The listing glob_search asks rg for (it honours .gitignore without a git repository, which plain rg does not).
  const globFlags = ripgrepListArgs(DEFAULT_SKIP_DIRS, nameGlobOf(GLOB_PATTERN)).filter((a) => a !== '--null');
  const rawGlobSameFlags = async () => check('rg --files (our flags)', lines(await rg(rgBin, globFlags, root)), expected.glob);

  const figures: SearchFigures = { files, grep: { ours: [], rg: [], rgSameFlags: [] }, glob: { ours: [], rg: [], rgSameFlags: [] } };
  // One warm-up of each (page cache, JIT), then alternate which goes first.
  for (const fn of [oursGrep, rawGrep, rawGrepSameFlags, oursGlob, rawGlob, rawGlobSameFlags]) await fn();
  for (let i = 0; i < runs; i++) {
    const pairs: [() => Promise<void>, number[]][] = [
      [oursGrep, figures.grep.ours],
      [rawGrep, figures.grep.rg],
      [rawGrepSameFlags, figures.grep.rgSameFlags],
      [oursGlob, figures.glob.ours],
      [rawGlob, figures.glob.rg],
      [rawGlobSameFlags, figures.glob.rgSameFlags],
    ];
    if (i % 2 === 1) pairs.reverse();
    for (const [fn, into] of pairs) into.push(await timed(fn));
  }
  return figures;
}
