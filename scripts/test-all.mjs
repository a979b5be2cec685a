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
import { judge, partsToStart, TODAY_CODE_SERVER, TODAY_VSCODE } from './test-graph.mjs';

// Every part (mocha, the extension host, the e2e runner) records its
// reliability scenarios here; `npm run reliability:table` renders them.
process.env.TURNSTONE_RELIABILITY_LOG ??= resolve('test-results/reliability.jsonl');

const TODAY = TODAY_CODE_SERVER;
const MAX_AT_ONCE = Number(process.env.TURNSTONE_TEST_JOBS ?? 2);
if (!Number.isInteger(MAX_AT_ONCE) || MAX_AT_ONCE < 1) {
  console.error(`TURNSTONE_TEST_JOBS is '${process.env.TURNSTONE_TEST_JOBS}': give how many parts may run at once, 1 or more`);
  process.exit(2);
}

const allParts = [
  // The oldest VS Code we support (1.100.3, engines.vscode) and today's (1.139.1). First, so
  // that on a new machine its downloads and native builds overlap the checks and plain tests.
  { name: 'prepare VS Code', cmd: ['bash', 'scripts/prepare-vscode.sh', '4.100.3', TODAY], gate: true },
  // The VSIX users install (production bundles), tested by test/e2e/vsix.test.ts; the
  // development build after it is what the other parts load.
  { name: 'package', cmd: ['npm', 'run', '--silent', 'package'], gate: true },
  { name: 'build', cmd: ['node', 'esbuild.mjs'], gate: true, needs: ['package'] },
  // Two workers, as unit: its files mostly wait on the CLIs they start and kill (the crash file alone is half the
  // part). Before unit, so that waiting overlaps the preparation of VS Code rather than the parts that need it.
  { name: 'reliability', cmd: ['npx', 'mocha', '--config', '.mocharc.reliability.json'], needs: ['build'] },
  // Two workers (.mocharc.json): the unit files are independent, and many wait on a child process.
  { name: 'unit', cmd: ['npx', 'mocha', '--config', '.mocharc.json'], needs: ['build'] },
  { name: 'typecheck', cmd: ['npx', 'tsc', '-p', '.', '--noEmit'], gate: true },
  { name: 'lint', cmd: ['npx', 'eslint', '--max-warnings', '0', '.'], gate: true },
  { name: 'integration', cmd: ['npx', 'tsx', 'test/run-integration.ts'], needs: ['build', 'prepare VS Code'], alone: true },
  // The suites the next part runs on today's VS Code (approvals, MCP) run there only: on both builds they cost
  // two minutes of a twenty-minute budget for what differs least between them. The VSIX's own check stays on
  // both, since installing the package on the oldest supported VS Code is what `engines.vscode` promises.
  { name: 'e2e', cmd: ['npx', 'mocha', '--config', '.mocharc.e2e.json', ...onTodayOnly().flatMap((f) => ['--ignore', f])], needs: ['build', 'prepare VS Code'], alone: true },
  // Today's VS Code ignores a development path: the installed VSIX runs the panel, approval,
  // checkpoint and MCP suites there. One file at a time (unlike the part above): its suites time the user's
  // typing against the approval dialog's pause, which a second workbench beside them stretched past 1.5 s.
  {
    name: `e2e on VS Code ${TODAY_VSCODE}`,
    cmd: ['npx', 'mocha', '--config', '.mocharc.e2e-today.json'],
    env: { CODE_SERVER_VERSION: TODAY, TURNSTONE_E2E_VSIX: resolve('turnstone.vsix') },
    needs: ['package', 'prepare VS Code'],
    alone: true,
  },
];

/** The e2e files that run on today's VS Code only (`.mocharc.e2e-today.json` but the VSIX check). */
function onTodayOnly() {
  const today = JSON.parse(readFileSync('.mocharc.e2e-today.json', 'utf8')).spec;
  return today.filter((file) => file !== 'test/e2e/vsix.test.ts');
}

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
  // A part killed mid-write leaves a cut last line: the times are a report, never a reason to lose the run's summary.
  return readFileSync(file, 'utf8')
    .split('\n')
    .flatMap((line) => {
      try {
        return line ? [JSON.parse(line)] : [];
      } catch {
        return [];
      }
    });
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
      // A part that ends before it was shown prints now, whole, so its lines stay together; the live part's
      // header is said again after it, so what follows is not read as this part's.
      if (!entry.live) {
        header(part, ' (ran beside another part)');
        for (const [stream, chunk] of entry.held) stream.write(chunk);
        const live = running.find((r) => r.live);
        if (live) header(live.part, ' (continued)');
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

function record(part, outcome) {
  timing.parts.push({ name: part.name, seconds: Number(outcome.seconds.toFixed(1)), startedAt: Number(((part.startedAt - started) / 1000).toFixed(1)) });
  timing.tests.push(...readTimings(part).map((t) => ({ part: part.name, ...t })));
  const r = judge(part, outcome, outcome.seconds);
  passed += r.passed;
  failed += r.failed;
  skipped += r.skipped;
  skippedTitles.push(...r.skippedTitles);
  failedTitles.push(...r.failedTitles);
  summary.push(r.line);
}

/** Starts every part as soon as partsToStart lets it; resolves when all have ended. */
await new Promise((allDone) => {
  const waiting = [...parts];
  const schedule = () => {
    for (const part of partsToStart(waiting, running.map((r) => r.part), done, MAX_AT_ONCE)) {
      waiting.splice(waiting.indexOf(part), 1);
      part.startedAt = Date.now();
      void start(part)
        .then((outcome) => record(part, outcome))
        .catch((error) => {
          // Counting a part must never end the run without a summary.
          failed++;
          failedTitles.push(`${part.name}: its result could not be counted (${error instanceof Error ? error.message : String(error)})`);
        })
        .finally(() => {
          done.set(part.name, true);
          schedule();
        });
    }
    if (running.length > 0) return;
    if (waiting.length > 0) {
      // Nothing runs and nothing may start: a part needs one that is not in this run.
      for (const part of waiting) {
        failed++;
        failedTitles.push(`${part.name}: never started (it needs ${(part.needs ?? []).filter((n) => !done.has(n)).join(', ')})`);
      }
    }
    allDone();
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
