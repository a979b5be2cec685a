// `npm test`: typecheck, lint, unit and reliability tests (plain Node), integration tests (inside
// a real VS Code extension host) and e2e tests (Playwright driving the real workbench). Every
// part runs even when an earlier one fails, so one run shows everything; the exit code is
// non-zero if any part failed or ran no test. Every test part prints one machine-readable line,
// `TURNSTONE_RESULT {"passed","failed","skipped","skippedTitles"}`
// (test/support/result-reporter.cjs); a part without it has failed, whatever its exit code.
// The last line sums the tests: `tests: N passed, N failed, N skipped`, after the list of
// skipped tests.
//
// The parts form a small graph (`needs`), run two at a time: the plain-Node parts and the
// checks overlap each other and the preparation of VS Code, and the parts that drive a real
// VS Code (`alone`) run with nothing beside them, since a workbench, its extension host and
// Chromium already fill both cores of a CI machine. One part's output streams live (the
// oldest still running); the other's is held and printed whole when its turn comes, so no
// two parts' lines interleave.
//
// `TURNSTONE_TEST_PARTS=build,unit` runs only the named parts (and not what they need: name
// those too); `--quick` (`npm run test:quick`) runs the build, the checks, unit and reliability.
import { spawn } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { resolve } from 'node:path';

// Every part (mocha, the extension host, the e2e runner) records its
// reliability scenarios here; `npm run reliability:table` renders them.
process.env.TURNSTONE_RELIABILITY_LOG ??= resolve('test-results/reliability.jsonl');

/** code-server of today's VS Code (1.139.1), beside 4.100.3 (1.100.3). */
const TODAY = '4.139.1';
const TODAY_VSCODE = '1.139.1';
const MAX_AT_ONCE = Number(process.env.TURNSTONE_TEST_JOBS ?? 2);

const allParts = [
  // The oldest VS Code we support (1.100.3, engines.vscode) and today's (1.139.1). First, so
  // that on a new machine its downloads and native builds overlap the checks and plain tests.
  { name: 'prepare VS Code', cmd: ['bash', 'scripts/prepare-vscode.sh', '4.100.3', TODAY], gate: true },
  // The VSIX users install (production bundles), tested by test/e2e/vsix.test.ts; the
  // development build after it is what the other parts load.
  { name: 'package', cmd: ['npm', 'run', '--silent', 'package'], gate: true },
  { name: 'build', cmd: ['node', 'esbuild.mjs'], gate: true, needs: ['package'] },
  // Two workers (.mocharc.json): the unit files are independent, and many wait on a child process.
  { name: 'unit', cmd: ['npx', 'mocha', '--config', '.mocharc.json'], needs: ['build'] },
  { name: 'typecheck', cmd: ['npx', 'tsc', '-p', '.', '--noEmit'], gate: true },
  { name: 'lint', cmd: ['npx', 'eslint', '--max-warnings', '0', '.'], gate: true },
  { name: 'reliability', cmd: ['npx', 'mocha', '--config', '.mocharc.reliability.json'], needs: ['build'] },
  { name: 'integration', cmd: ['npx', 'tsx', 'test/run-integration.ts'], needs: ['build', 'prepare VS Code'], alone: true },
  { name: 'e2e', cmd: ['npx', 'mocha', '--config', '.mocharc.e2e.json'], needs: ['build', 'prepare VS Code'], alone: true },
  // Today's VS Code ignores a development path: the installed VSIX runs the panel, approval,
  // checkpoint and MCP suites there.
  {
    name: `e2e on VS Code ${TODAY_VSCODE}`,
    cmd: ['npx', 'mocha', '--config', '.mocharc.e2e-today.json'],
    env: { CODE_SERVER_VERSION: TODAY, TURNSTONE_E2E_VSIX: resolve('turnstone.vsix') },
    needs: ['package', 'prepare VS Code'],
    alone: true,
  },
];

/** `--quick` (npm run test:quick): the contributors' loop, everything that needs no VS Code. */
const QUICK = ['build', 'typecheck', 'lint', 'unit', 'reliability'];
const only = process.argv.includes('--quick') ? QUICK : process.env.TURNSTONE_TEST_PARTS?.split(',').map((s) => s.trim()).filter(Boolean);
const parts = only ? allParts.filter((p) => only.includes(p.name)).map((p) => ({ ...p, needs: (p.needs ?? []).filter((n) => only.includes(n)) })) : allParts;
if (only && parts.length !== only.length) {
  console.error(`TURNSTONE_TEST_PARTS names a part that does not exist; the parts are: ${allParts.map((p) => p.name).join(', ')}`);
  process.exit(2);
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

/** The part's own result line (its runner prints it last); undefined when it printed none (a crash, a cut run). */
function readResult(out) {
  const line = [...out.matchAll(/^TURNSTONE_RESULT (\{.*\})$/gm)].at(-1);
  if (!line) return undefined;
  const r = JSON.parse(line[1]);
  return [r.passed, r.failed, r.skipped].every(Number.isInteger) && Array.isArray(r.skippedTitles) ? r : undefined;
}

const started = Date.now();
const running = []; // oldest first: running[0] streams live
const done = new Map(); // name → outcome

function header(part, note = '') {
  console.log(`\n━━ ${part.name} ━━ ${part.cmd.join(' ')}${note}`);
}

/** Hands the live output to the oldest running part: what it printed so far, then the rest as it comes. */
function promoteLive() {
  const live = running[0];
  if (!live || live.live) return;
  live.live = true;
  header(live.part, ` (started ${((Date.now() - live.t0) / 1000).toFixed(0)}s ago, beside another part)`);
  for (const [stream, chunk] of live.held) stream.write(chunk);
  live.held = [];
}

function start(part) {
  const entry = { part, t0: Date.now(), out: '', held: [], live: false };
  running.push(entry);
  if (running.length === 1) {
    entry.live = true;
    header(part);
  }
  return new Promise((resolveRun) => {
    const env = { ...process.env, ...part.env, FORCE_COLOR: '0', TURNSTONE_TIMING_FILE: timingFile(part) };
    const child = spawn(part.cmd[0], part.cmd.slice(1), { stdio: ['ignore', 'pipe', 'pipe'], env });
    const take = (stream) => (d) => {
      entry.out += d;
      if (entry.live) stream.write(d);
      else entry.held.push([stream, d]);
    };
    child.stdout.on('data', take(process.stdout));
    child.stderr.on('data', take(process.stderr));
    child.on('close', (code, signal) => {
      // A part that ends before it was shown prints now, whole, so its lines stay together.
      if (!entry.live) {
        header(part, ' (ran beside another part)');
        for (const [stream, chunk] of entry.held) stream.write(chunk);
      }
      running.splice(running.indexOf(entry), 1);
      resolveRun({ code: code ?? (signal ? 1 : 0), out: entry.out, seconds: (Date.now() - entry.t0) / 1000 });
      promoteLive();
    });
  });
}

let passed = 0;
let failed = 0;
let skipped = 0;
const skippedTitles = [];
const failedTitles = [];
const summary = [];
const timing = { parts: [], tests: [] };

function record(part, { code, out, seconds }) {
  const secs = seconds.toFixed(1);
  timing.parts.push({ name: part.name, seconds: Number(secs), startedAt: Number(((part.startedAt - started) / 1000).toFixed(1)) });
  timing.tests.push(...readTimings(part).map((t) => ({ part: part.name, ...t })));
  if (part.gate) {
    if (code !== 0) {
      failed++;
      failedTitles.push(`${part.name}: exit ${code}`);
    }
    summary.push(`${part.name}: ${code === 0 ? 'ok' : `FAILED (exit ${code})`} in ${secs}s`);
    return;
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

/** Starts every part whose needs are done, in the listed order, within the limits; resolves when all have ended. */
await new Promise((allDone) => {
  const waiting = [...parts];
  const schedule = () => {
    if (waiting.length === 0 && running.length === 0) return allDone();
    for (const part of [...waiting]) {
      if (!(part.needs ?? []).every((n) => done.has(n))) continue;
      const aloneRunning = running.some((r) => r.part.alone);
      if (aloneRunning || running.length >= MAX_AT_ONCE || (part.alone && running.length > 0)) {
        // A part that must run alone holds back the ones after it, or it would wait for ever.
        if (part.alone) break;
        continue;
      }
      waiting.splice(waiting.indexOf(part), 1);
      part.startedAt = Date.now();
      void start(part).then((outcome) => {
        record(part, outcome);
        done.set(part.name, outcome);
        schedule();
      });
    }
  };
  schedule();
});

console.log(`\n━━ summary (${((Date.now() - started) / 1000).toFixed(0)}s) ━━`);
for (const line of summary) console.log(`  ${line}`);
timing.totalSeconds = Math.round((Date.now() - started) / 1000);
timing.tests.sort((a, b) => b.ms - a.ms);
mkdirSync('test-results', { recursive: true });
writeFileSync('test-results/timing.json', JSON.stringify(timing, null, 1));
console.log('ten slowest tests (all of them in test-results/timing.json):');
for (const t of timing.tests.slice(0, 10)) console.log(`  ${(t.ms / 1000).toFixed(1).padStart(6)}s  ${t.part}: ${t.title}`);
if (skippedTitles.length > 0) {
  console.log('skipped:');
  for (const title of skippedTitles) console.log(`  - ${title}`);
}
if (failedTitles.length > 0) {
  console.log('failed:');
  for (const title of failedTitles) console.log(`  - ${title}`);
}
// For scripts/test-stress.mjs, which runs this several times and compares the runs.
writeFileSync('test-results/summary.json', JSON.stringify({ passed, failed, skipped, skippedTitles, failedTitles, parts: summary }, null, 2));
console.log(`tests: ${passed} passed, ${failed} failed, ${skipped} skipped`);
process.exit(failed === 0 ? 0 : 1);
