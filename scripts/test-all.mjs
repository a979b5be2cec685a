// `npm test`: typecheck, lint, unit and reliability tests (plain Node), integration tests (inside
// a real VS Code extension host) and e2e tests (Playwright driving the real
// workbench), in that order. Every part runs even when an earlier one fails, so
// one run shows everything; the exit code is non-zero if any part failed or ran
// no test. Every test part prints one machine-readable line,
// `TURNSTONE_RESULT {"passed","failed","skipped","skippedTitles"}`
// (test/support/result-reporter.cjs); a part without it has failed, whatever its
// exit code. The last line sums the tests: `tests: N passed, N failed, N skipped`,
// after the list of skipped tests.
import { spawn } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { resolve } from 'node:path';

// Every part (mocha, the extension host, the e2e runner) records its
// reliability scenarios here; `npm run reliability:table` renders them.
process.env.TURNSTONE_RELIABILITY_LOG ??= resolve('test-results/reliability.jsonl');

/** code-server of today's VS Code (1.139.1), beside 4.100.3 (1.100.3). */
const TODAY = '4.139.1';
const TODAY_VSCODE = '1.139.1';

const parts = [
  { name: 'typecheck', cmd: ['npx', 'tsc', '-p', '.', '--noEmit'], gate: true },
  { name: 'lint', cmd: ['npx', 'eslint', '--max-warnings', '0', '.'], gate: true },
  // The VSIX users install (production bundles), tested by test/e2e/vsix.test.ts; the
  // development build after it is what the other parts load.
  { name: 'package', cmd: ['npm', 'run', '--silent', 'package'], gate: true },
  { name: 'build', cmd: ['node', 'esbuild.mjs'], gate: true },
  { name: 'unit', cmd: ['npx', 'mocha', '--config', '.mocharc.json'] },
  { name: 'reliability', cmd: ['npx', 'mocha', '--config', '.mocharc.reliability.json'] },
  // The oldest VS Code we support (1.100.3, engines.vscode) and today's (1.139.1).
  { name: 'prepare VS Code', cmd: ['bash', 'scripts/prepare-vscode.sh', '4.100.3', TODAY], gate: true },
  { name: 'integration', cmd: ['npx', 'tsx', 'test/run-integration.ts'] },
  { name: 'e2e', cmd: ['npx', 'mocha', '--config', '.mocharc.e2e.json'] },
  // Today's VS Code ignores a development path: the installed VSIX runs the panel, approval,
  // checkpoint and MCP suites there.
  {
    name: `e2e on VS Code ${TODAY_VSCODE}`,
    cmd: ['npx', 'mocha', '--config', '.mocharc.e2e-today.json'],
    env: { CODE_SERVER_VERSION: TODAY, TURNSTONE_E2E_VSIX: resolve('turnstone.vsix') },
  },
];

function run(cmd, env = {}) {
  return new Promise((resolve) => {
    let out = '';
    const child = spawn(cmd[0], cmd.slice(1), { stdio: ['ignore', 'pipe', 'pipe'], env: { ...process.env, ...env, FORCE_COLOR: '0' } });
    child.stdout.on('data', (d) => {
      out += d;
      process.stdout.write(d);
    });
    child.stderr.on('data', (d) => {
      out += d;
      process.stderr.write(d);
    });
    child.on('close', (code, signal) => resolve({ code: code ?? (signal ? 1 : 0), out }));
  });
}

/** The part's own result line (its runner prints it last); undefined when it printed none (a crash, a cut run). */
function readResult(out) {
  const line = [...out.matchAll(/^TURNSTONE_RESULT (\{.*\})$/gm)].at(-1);
  if (!line) return undefined;
  const r = JSON.parse(line[1]);
  return [r.passed, r.failed, r.skipped].every(Number.isInteger) && Array.isArray(r.skippedTitles) ? r : undefined;
}

const TIMING_DIR = resolve('test-results/timing');
rmSync(TIMING_DIR, { recursive: true, force: true });
const timingFile = (part) => resolve(TIMING_DIR, `${part.name.replace(/[^\w.-]+/g, '-')}.jsonl`);
/** Each test's time in one part, as its reporter appended them (test/support/result-reporter.cjs). */
function readTimings(part) {
  const file = timingFile(part);
  if (!existsSync(file)) return [];
  return readFileSync(file, 'utf8').split('\n').filter(Boolean).map((line) => JSON.parse(line));
}
const timing = { parts: [], tests: [] };

const started = Date.now();
let passed = 0;
let failed = 0;
let skipped = 0;
const skippedTitles = [];
const failedTitles = [];
const summary = [];
for (const part of parts) {
  const t0 = Date.now();
  console.log(`\n━━ ${part.name} ━━ ${part.cmd.join(' ')}`);
  const { code, out } = await run(part.cmd, { ...part.env, TURNSTONE_TIMING_FILE: timingFile(part) });
  const secs = ((Date.now() - t0) / 1000).toFixed(1);
  timing.parts.push({ name: part.name, seconds: Number(secs) });
  timing.tests.push(...readTimings(part).map((t) => ({ part: part.name, ...t })));
  if (part.gate) {
    if (code !== 0) {
      failed++;
      failedTitles.push(`${part.name}: exit ${code}`);
    }
    summary.push(`${part.name}: ${code === 0 ? 'ok' : `FAILED (exit ${code})`} in ${secs}s`);
    continue;
  }
  const result = readResult(out);
  const c = result ?? { passed: 0, failed: 1, skipped: 0, skippedTitles: [], failedTitles: [] };
  let note = '';
  if (!result) note = ' (no result line: the part crashed or its count was lost)';
  else if (code !== 0 && c.failed === 0) {
    c.failed = 1; // it failed without reporting a failing test (e.g. the runner itself threw)
    note = ` (exit ${code})`;
  } else if (c.passed + c.failed === 0) {
    c.failed = 1;
    note = ' (ran no test)';
  }
  if (note) c.failedTitles = [...(c.failedTitles ?? []), note.trim()];
  failedTitles.push(...(c.failedTitles ?? []).map((t) => `${part.name}: ${t}`));
  passed += c.passed;
  failed += c.failed;
  skipped += c.skipped;
  skippedTitles.push(...c.skippedTitles.map((t) => `${part.name}: ${t}`));
  summary.push(`${part.name}: ${c.passed} passed, ${c.failed} failed, ${c.skipped} skipped${note} in ${secs}s`);
}
console.log(`\n━━ summary (${((Date.now() - started) / 1000).toFixed(0)}s) ━━`);
for (const line of summary) console.log(`  ${line}`);
if (skippedTitles.length > 0) {
  console.log('skipped:');
  for (const title of skippedTitles) console.log(`  - ${title}`);
}
if (failedTitles.length > 0) {
  console.log('failed:');
  for (const title of failedTitles) console.log(`  - ${title}`);
}
timing.totalSeconds = Math.round((Date.now() - started) / 1000);
timing.tests.sort((a, b) => b.ms - a.ms);
mkdirSync('test-results', { recursive: true });
writeFileSync('test-results/timing.json', JSON.stringify(timing, null, 1));
console.log('ten slowest tests (all of them in test-results/timing.json):');
for (const t of timing.tests.slice(0, 10)) console.log(`  ${(t.ms / 1000).toFixed(1).padStart(6)}s  ${t.part}: ${t.title}`);
// For scripts/test-stress.mjs, which runs this several times and compares the runs.
mkdirSync('test-results', { recursive: true });
writeFileSync('test-results/summary.json', JSON.stringify({ passed, failed, skipped, skippedTitles, failedTitles, parts: summary }, null, 2));
console.log(`tests: ${passed} passed, ${failed} failed, ${skipped} skipped`);
process.exit(failed === 0 ? 0 : 1);
