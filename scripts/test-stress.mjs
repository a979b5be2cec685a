// `npm run test:stress`: the whole `npm test`, RUNS times in a row (default 3),
// while a competing process keeps one core busy, as on a shared CI machine.
// Reports every test that failed in any run and exits non-zero if there was one:
// a test that fails 1 run in 10 is a bug in the test.
import { spawn } from 'node:child_process';
import { readFileSync, rmSync } from 'node:fs';

const runs = Number(process.env.TURNSTONE_STRESS_RUNS ?? 3);

// One core busy for the whole stress run: a plain spin loop in its own process.
const hog = spawn(process.execPath, ['-e', 'for (;;) {}'], { stdio: 'ignore' });
const stopHog = () => hog.exitCode === null && hog.kill('SIGKILL');
process.on('exit', stopHog);
for (const sig of ['SIGINT', 'SIGTERM']) process.on(sig, () => process.exit(130));

function testRun() {
  return new Promise((resolve) => {
    // The differential bash test runs its full count here; `npm test` runs a sample.
    const child = spawn('node', ['scripts/test-all.mjs'], { stdio: 'inherit', env: { ...process.env, TURNSTONE_DIFFERENTIAL_FULL: '1' } });
    child.on('close', (code) => resolve(code ?? 1));
  });
}

const failures = new Map(); // title → runs it failed in
const results = [];
for (let run = 1; run <= runs; run++) {
  console.log(`\n════ stress run ${run}/${runs} (one core kept busy) ════`);
  rmSync('test-results/summary.json', { force: true });
  const t0 = Date.now();
  const code = await testRun();
  let summary;
  try {
    summary = JSON.parse(readFileSync('test-results/summary.json', 'utf8'));
  } catch {
    summary = { passed: 0, failed: 1, failedTitles: [`run ${run}: npm test wrote no summary (exit ${code})`] };
  }
  for (const title of summary.failedTitles) failures.set(title, [...(failures.get(title) ?? []), run]);
  results.push(`run ${run}: ${summary.passed} passed, ${summary.failed} failed in ${((Date.now() - t0) / 1000).toFixed(0)}s`);
}
stopHog();

console.log('\n════ stress summary ════');
for (const line of results) console.log(`  ${line}`);
if (failures.size > 0) {
  console.log('failed in some run:');
  for (const [title, inRuns] of failures) console.log(`  - ${title} (run ${inRuns.join(', ')})`);
}
console.log(`stress: ${runs} runs, ${failures.size} tests failed in any run`);
process.exit(failures.size === 0 ? 0 : 1);
