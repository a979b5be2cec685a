// `npm test`: typecheck, lint, unit and reliability tests (plain Node), integration tests (inside
// a real VS Code extension host) and e2e tests (Playwright driving the real
// workbench), in that order. Every part runs even when an earlier one fails, so
// one run shows everything; the exit code is non-zero if any part failed or ran
// no test. The last line sums the tests: `tests: N passed, N failed`.
import { spawn } from 'node:child_process';
import { resolve } from 'node:path';

// Every part (mocha, the extension host, the e2e runner) records its
// reliability scenarios here; `npm run reliability:table` renders them.
process.env.TURNSTONE_RELIABILITY_LOG ??= resolve('test-results/reliability.jsonl');

const parts = [
  { name: 'typecheck', cmd: ['npx', 'tsc', '-p', '.', '--noEmit'], gate: true },
  { name: 'lint', cmd: ['npx', 'eslint', '--max-warnings', '0', '.'], gate: true },
  { name: 'build', cmd: ['node', 'esbuild.mjs'], gate: true },
  { name: 'unit', cmd: ['npx', 'mocha', '--config', '.mocharc.json'], counts: 'mocha' },
  { name: 'reliability', cmd: ['npx', 'mocha', '--config', '.mocharc.reliability.json'], counts: 'mocha' },
  { name: 'prepare VS Code', cmd: ['bash', 'scripts/prepare-vscode.sh'], gate: true, before: 'integration' },
  { name: 'integration', cmd: ['npx', 'tsx', 'test/run-integration.ts'], counts: 'turnstone' },
  { name: 'e2e', cmd: ['npx', 'mocha', '--config', '.mocharc.e2e.json'], counts: 'mocha' },
];

function run(cmd) {
  return new Promise((resolve) => {
    let out = '';
    const child = spawn(cmd[0], cmd.slice(1), { stdio: ['ignore', 'pipe', 'pipe'], env: { ...process.env, FORCE_COLOR: '0' } });
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

// eslint-disable-next-line no-control-regex -- colour codes are control characters by definition
const stripAnsi = (s) => s.replace(/\x1b\[[0-9;]*m/g, '');

function countMocha(raw) {
  const out = stripAnsi(raw);
  const passed = Number(/^\s*(\d+) passing/m.exec(out)?.[1] ?? 0);
  const failed = Number(/^\s*(\d+) failing/m.exec(out)?.[1] ?? 0);
  return { passed, failed };
}

function countTurnstone(raw) {
  const out = stripAnsi(raw);
  const m = /^TURNSTONE_RESULT (\{.*\})$/m.exec(out);
  return m ? JSON.parse(m[1]) : { passed: 0, failed: 0 };
}

const started = Date.now();
let passed = 0;
let failed = 0;
const summary = [];
for (const part of parts) {
  const t0 = Date.now();
  console.log(`\n━━ ${part.name} ━━ ${part.cmd.join(' ')}`);
  const { code, out } = await run(part.cmd);
  const secs = ((Date.now() - t0) / 1000).toFixed(1);
  if (part.gate) {
    if (code !== 0) failed++;
    summary.push(`${part.name}: ${code === 0 ? 'ok' : `FAILED (exit ${code})`} in ${secs}s`);
    continue;
  }
  const c = part.counts === 'mocha' ? countMocha(out) : countTurnstone(out);
  let note = '';
  if (code !== 0 && c.failed === 0) {
    c.failed = 1; // it failed without reporting a failing test (crash, load error)
    note = ` (exit ${code})`;
  }
  if (c.passed + c.failed === 0) {
    c.failed = 1;
    note = ' (ran no test)';
  }
  passed += c.passed;
  failed += c.failed;
  summary.push(`${part.name}: ${c.passed} passed, ${c.failed} failed${note} in ${secs}s`);
}
console.log(`\n━━ summary (${((Date.now() - started) / 1000).toFixed(0)}s) ━━`);
for (const line of summary) console.log(`  ${line}`);
console.log(`tests: ${passed} passed, ${failed} failed`);
process.exit(failed === 0 ? 0 : 1);
