// `npm run bench`: runs every bench/*.bench.ts (or those named on the command
// line), writes bench/results/latest.json and prints a table. Not run in CI:
// timings on shared 2-core machines are noisy, so each bench reports medians of
// several runs against a baseline measured in the same run.
import { spawnSync } from 'node:child_process';
import { mkdirSync, readdirSync, writeFileSync } from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import type { BenchResult } from './lib';

/**
 * The benches drive real Chromium and code-server, as `npm test` does: prepare
 * them the same way (idempotent and cached, so a prepared machine pays nothing).
 */
function prepare(): void {
  const script = path.join(__dirname, '..', 'scripts', 'prepare-vscode.sh');
  const r = spawnSync('bash', [script], { stdio: 'inherit' });
  if (r.status !== 0) throw new Error(`${script} failed (exit ${r.status ?? r.signal}); the benches need code-server and Chromium`);
}

async function main(): Promise<number> {
  const dir = __dirname;
  prepare();
  const only = process.argv.slice(2);
  const files = readdirSync(dir)
    .filter((f) => f.endsWith('.bench.ts'))
    .filter((f) => only.length === 0 || only.some((o) => f.includes(o)))
    .sort();
  const results: BenchResult[] = [];
  const errors: { file: string; error: string }[] = [];
  for (const file of files) {
    process.stderr.write(`[bench] ${file}…\n`);
    try {
      const mod = (await import(path.join(dir, file))) as { default: () => Promise<BenchResult[]> };
      results.push(...(await mod.default()));
    } catch (error) {
      errors.push({ file, error: error instanceof Error ? (error.stack ?? error.message) : String(error) });
      process.stderr.write(`[bench] ${file} failed: ${String(error)}\n`);
    }
  }
  const report = {
    date: new Date().toISOString(),
    machine: { cpus: os.cpus().length, cpu: os.cpus()[0]?.model ?? 'unknown', memGiB: Math.round(os.totalmem() / 2 ** 30), node: process.version },
    results,
    errors,
  };
  mkdirSync(path.join(dir, 'results'), { recursive: true });
  writeFileSync(path.join(dir, 'results', 'latest.json'), `${JSON.stringify(report, null, 2)}\n`);
  console.table(
    results.map((r) => ({
      name: r.name,
      ours: `${r.ours} ${r.unit}`,
      baseline: r.baseline === null ? '—' : `${r.baseline} ${r.unit}`,
      ratio: r.ratio ?? '—',
      target: r.target,
      pass: r.pass === null ? 'report' : r.pass ? 'PASS' : 'FAIL',
    })),
  );
  console.log(JSON.stringify(report));
  return errors.length > 0 ? 1 : 0;
}

main().then((code) => process.exit(code));
