// Activation measured outside VS Code, as anchors.md measures peers: a fresh
// Node process loads dist/extension.js from the packaged VSIX (production
// build, as `npm run package` makes it) with a vscode stand-in that records
// registrations (bench/activation/vscode-stand-in.cjs), calls activate() with
// a fresh ExtensionContext, and reports the wall time of the bundle load and
// of activate(), and the memory added. Medians over fresh processes,
// interleaved with the baseline: an extension of the same shape that does
// nothing else (bench/activation/empty-extension.ts), built and loaded the same
// way. `extension-host.bench.ts` measures the same in the real host. A third
// side, the production bundle of the commit named in bench/activation/reference.txt
// built in the same run, makes the growth row: activation may not grow by more
// than 10 % over it (move the reference on purpose, with the reason, when a
// feature pays for its start).
import { execFileSync, spawnSync } from 'node:child_process';
import { cpSync, existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, statSync, symlinkSync } from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { build } from 'esbuild';
import { type BenchResult, round } from './lib';

const ROOT = path.resolve(__dirname, '..');
const RUNS = 15;
const WARMUP = 2;
const TARGET_MS = 60;
const TARGET_RSS_MB = 5;
/** Most the activation's CPU time may grow over the reference build's. */
const MAX_GROWTH = 1.1;

/** What one fresh process reports (bench/activation/child.cjs). */
interface Activation {
  loadMs: number;
  activateMs: number;
  settledMs: number;
  loadCpuMs: number;
  activateCpuMs: number;
  rssAtActivateMB: number;
  rssSettledMB: number;
  heapAfterGcMB: number;
  commands: number;
  providers: string[];
  subscriptions: number;
  misses: string[];
  processes: string[];
  loadedFromDist: string[];
}

/** The VSIX users install, unpacked: `npm run package`'s vsce call on the production dist/ that `npm run bench` built. */
function unpackedVsix(dir: string): string {
  const bundle = path.join(ROOT, 'dist', 'extension.js');
  if (!existsSync(bundle)) throw new Error('dist/extension.js is missing: run `node esbuild.mjs --production` (npm run bench does)');
  if (readFileSync(bundle, 'utf8').includes('sourceMappingURL=')) throw new Error('dist/ holds a development build: run `node esbuild.mjs --production` first (npm run bench does)');
  const vsix = path.join(dir, 'turnstone.vsix');
  const vsce = path.join(ROOT, 'node_modules', '@vscode', 'vsce', 'vsce');
  execFileSync(process.execPath, [vsce, 'package', '--no-dependencies', '--allow-missing-repository', '--no-rewrite-relative-links', '--skip-license', '-o', vsix], { cwd: ROOT, stdio: 'pipe' });
  const out = path.join(dir, 'vsix');
  const unzip = spawnSync('unzip', ['-q', vsix, 'extension/*', '-d', out], { encoding: 'utf8' });
  if (unzip.error || unzip.status !== 0) throw new Error(`unzip of the VSIX failed (${unzip.error?.message ?? unzip.stderr}); install unzip`);
  return path.join(out, 'extension');
}

/** The empty extension, minified CommonJS with vscode external as esbuild.mjs builds ours, beside the same package.json. */
async function emptyExtension(dir: string, manifest: string): Promise<string> {
  const root = path.join(dir, 'empty');
  mkdirSync(path.join(root, 'dist'), { recursive: true });
  cpSync(manifest, path.join(root, 'package.json'));
  await build({
    entryPoints: [path.join(__dirname, 'activation', 'empty-extension.ts')],
    outfile: path.join(root, 'dist', 'extension.js'),
    bundle: true,
    minify: true,
    platform: 'node',
    format: 'cjs',
    target: 'node20',
    external: ['vscode'],
    legalComments: 'none',
    logLevel: 'warning',
  });
  return root;
}

/** The commit activation is held to (the first word of bench/activation/reference.txt) and why it is that one. */
function referenceCommit(): { commit: string; note: string } {
  const text = readFileSync(path.join(__dirname, 'activation', 'reference.txt'), 'utf8').trim();
  const [commit = '', ...note] = text.split(/\s+/);
  if (!/^[0-9a-f]{7,40}$/.test(commit)) throw new Error(`bench/activation/reference.txt must start with a commit id, not '${commit}'`);
  return { commit, note: note.join(' ') };
}

/** The reference commit's production extension bundle, built from its own sources with today's node_modules. */
function referenceExtension(dir: string, commit: string): string {
  const root = path.join(dir, 'reference');
  mkdirSync(root, { recursive: true });
  const tar = spawnSync('sh', ['-c', `git -C "$1" archive "$2" | tar -x -C "$3"`, 'sh', ROOT, commit, root], { encoding: 'utf8' });
  if (tar.status !== 0) throw new Error(`could not read the reference commit ${commit} (${tar.stderr.trim()}): fetch it, or name another in bench/activation/reference.txt`);
  symlinkSync(path.join(ROOT, 'node_modules'), path.join(root, 'node_modules'), 'dir');
  execFileSync(process.execPath, ['esbuild.mjs', '--production'], { cwd: root, stdio: 'pipe' });
  return root;
}

function activateOnce(extensionRoot: string, dir: string): Activation {
  const workspace = path.join(dir, 'workspace');
  const storage = mkdtempSync(path.join(dir, 'storage-'));
  const r = spawnSync(process.execPath, ['--expose-gc', path.join(__dirname, 'activation', 'child.cjs'), extensionRoot, workspace, storage], { encoding: 'utf8', timeout: 60_000 });
  const line = /^ACTIVATION (\{.*\})$/m.exec(r.stdout ?? '');
  if (!line) throw new Error(`activation of ${extensionRoot} reported nothing (exit ${r.status ?? r.signal}): ${r.stderr}`);
  return JSON.parse(line[1]!) as Activation;
}

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;

export default async function (): Promise<BenchResult[]> {
  const dir = mkdtempSync(path.join(os.tmpdir(), 'turnstone-bench-activation-'));
  try {
    // A small real project as the open folder (activation must not read it).
    cpSync(path.join(ROOT, 'test', 'fixtures', 'workspace'), path.join(dir, 'workspace'), { recursive: true });
    const ours = unpackedVsix(dir);
    const empty = await emptyExtension(dir, path.join(ours, 'package.json'));
    const reference = referenceCommit();
    const referenceRoot = referenceExtension(dir, reference.commit);
    for (let i = 0; i < WARMUP; i++) {
      activateOnce(ours, dir);
      activateOnce(empty, dir);
      activateOnce(referenceRoot, dir);
    }
    const runs: { ours: Activation; empty: Activation; reference: Activation }[] = [];
    for (let i = 0; i < RUNS; i++) runs.push({ ours: activateOnce(ours, dir), empty: activateOnce(empty, dir), reference: activateOnce(referenceRoot, dir) });

    const of = (side: 'ours' | 'empty' | 'reference', f: (a: Activation) => number) => runs.map((r) => f(r[side]));
    const cpu = (a: Activation) => a.loadCpuMs + a.activateCpuMs;
    const oursCpu = median(of('ours', cpu));
    const referenceCpu = median(of('reference', cpu));
    const total = (a: Activation) => a.loadMs + a.activateMs;
    const oursMs = of('ours', total);
    const emptyMs = of('empty', total);
    const oursRss = of('ours', (a) => a.rssSettledMB);
    const emptyRss = of('empty', (a) => a.rssSettledMB);
    const last = runs[runs.length - 1]!.ours;
    const bundleKb = statSync(path.join(ours, 'dist', 'extension.js')).size / 1024;
    return [
      {
        name: 'activation outside VS Code (VSIX bundle load + activate())',
        measured: `a fresh Node ${process.version} process loads dist/extension.js from the packaged VSIX with a vscode stand-in and calls activate(); wall time, median of ${RUNS} processes interleaved with the baseline (an empty extension of the same shape)`,
        unit: 'ms',
        ours: round(median(oursMs)),
        baseline: round(median(emptyMs)),
        ratio: round(median(oursMs) / median(emptyMs)),
        target: `< ${TARGET_MS} ms`,
        pass: median(oursMs) < TARGET_MS,
        min: round(Math.min(...oursMs)),
        max: round(Math.max(...oursMs)),
        extra: {
          loadMs: round(median(of('ours', (a) => a.loadMs))),
          activateMs: round(median(of('ours', (a) => a.activateMs))),
          // CPU time of the same parts: what a busy machine's scheduling does not inflate.
          loadCpuMs: round(median(of('ours', (a) => a.loadCpuMs))),
          activateCpuMs: round(median(of('ours', (a) => a.activateCpuMs))),
          baselineCpuMs: round(median(of('empty', (a) => a.loadCpuMs + a.activateCpuMs))),
          // Until the file reads and processes activation started have finished.
          settledMs: round(median(of('ours', (a) => a.settledMs))),
          bundleKb: round(bundleKb),
          loadedFromDist: last.loadedFromDist.join(' '),
          commands: last.commands,
          registrations: last.providers.join(' '),
          standInMisses: last.misses.join(' ') || 'none',
          processesStarted: last.processes.join(' ') || 'none',
        },
      },
      {
        name: 'activation growth over the reference build',
        measured: `CPU time of bundle load + activate() against the production build of ${reference.commit} (bench/activation/reference.txt: ${reference.note || 'no reason given'}), built in this run from its own sources; medians of the same ${RUNS} interleaved processes`,
        unit: 'ms',
        ours: round(oursCpu),
        baseline: round(referenceCpu),
        ratio: round(oursCpu / referenceCpu),
        target: `< ${MAX_GROWTH}× the reference`,
        pass: oursCpu / referenceCpu < MAX_GROWTH,
        extra: {
          referenceWallMs: round(median(of('reference', total))),
          referenceBundleKb: round(statSync(path.join(referenceRoot, 'dist', 'extension.js')).size / 1024),
          bundleKb: round(bundleKb),
        },
      },
      {
        name: 'activation outside VS Code: memory added',
        measured: `RSS growth of the same processes from before the bundle load until activation's own file and process work has finished (median of ${RUNS}); heap after a forced GC in extra`,
        unit: 'MB',
        ours: round(median(oursRss)),
        baseline: round(median(emptyRss)),
        ratio: null,
        target: `< ${TARGET_RSS_MB} MB`,
        pass: median(oursRss) < TARGET_RSS_MB,
        min: round(Math.min(...oursRss)),
        max: round(Math.max(...oursRss)),
        extra: {
          rssAtActivateMB: round(median(of('ours', (a) => a.rssAtActivateMB))),
          heapAfterGcMB: round(median(of('ours', (a) => a.heapAfterGcMB))),
          baselineHeapAfterGcMB: round(median(of('empty', (a) => a.heapAfterGcMB))),
        },
      },
    ];
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}
