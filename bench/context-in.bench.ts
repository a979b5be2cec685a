// The `@` picker's ranking over a generated 50,000-file workspace listing (the
// host keeps the findFiles listing in memory, so a keystroke costs this), and
// the size of the panel bundle with its syntax-highlighting grammars.
import { existsSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { rankPaths, type IndexedPath } from '../src/host/context/fuzzy';
import { type BenchResult, round, sample } from './lib';

function syntheticWorkspace(n: number): IndexedPath[] {
  const areas = ['src', 'test', 'packages/core/src', 'packages/ui/src/components', 'docs', 'scripts', 'vendor/lib', 'apps/web/pages'];
  const words = ['button', 'index', 'utils', 'parser', 'session', 'render', 'config', 'store', 'client', 'server', 'router', 'schema'];
  const out: IndexedPath[] = [];
  for (let i = 0; i < n; i++) {
    const dir = `${areas[i % areas.length]}/${words[(i >> 3) % words.length]}${(i >> 7) % 50}`;
    const p = `${dir}/${words[i % words.length]}-${i}.${i % 3 ? 'ts' : 'md'}`;
    out.push({ path: p, kind: 'file', lower: p.toLowerCase() });
  }
  return out;
}

export default async function (): Promise<BenchResult[]> {
  const entries = syntheticWorkspace(50_000);
  const results: BenchResult[] = [];
  for (const query of ['b', 'sess', 'srvcfg', 'button-4711']) {
    const s = await sample(() => void rankPaths(entries, query), 9, 2);
    results.push({
      name: `picker: rank 50k paths for '${query}'`,
      measured: 'one keystroke of the @ picker: fuzzy ranking of a 50,000-file listing, top 50',
      unit: 'ms',
      ours: round(s.median),
      baseline: null,
      ratio: null,
      target: '< 100 ms',
      pass: s.median < 100,
      min: round(s.min),
      max: round(s.max),
    });
  }
  const bundle = join(__dirname, '..', 'dist', 'webview.js');
  if (existsSync(bundle)) {
    const extra = join(__dirname, '..', 'dist', 'webview-languages.js');
    results.push({
      name: 'panel bundle size (dist/webview.js)',
      measured: 'the panel script with 18 highlight.js grammars; the other grammars load on demand',
      unit: 'kB',
      ours: round(statSync(bundle).size / 1000),
      baseline: null,
      ratio: null,
      target: '< 400 kB',
      pass: statSync(bundle).size < 400_000,
      ...(existsSync(extra) ? { extra: { onDemandLanguagesKb: round(statSync(extra).size / 1000) } } : {}),
    });
  }
  return results;
}
