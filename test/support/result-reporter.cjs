// Mocha's spec reporter plus one machine-readable line at the end of the run:
//   TURNSTONE_RESULT {"passed":N,"failed":N,"skipped":N,"skippedTitles":[...],"failedTitles":[...]}
// scripts/test-all.mjs sums these lines instead of scraping "N passing" (which
// says nothing of skipped tests and can be cut or reformatted). A failing hook
// counts as a failure, like mocha's own stats. Plain CommonJS so mocha can load
// it before any TypeScript loader is registered.
'use strict';
const fs = require('node:fs');
const path = require('node:path');
const Mocha = require('mocha');

const { EVENT_TEST_PASS, EVENT_TEST_FAIL, EVENT_TEST_PENDING, EVENT_RUN_END, EVENT_HOOK_END } = Mocha.Runner.constants;

/** Counts one run's outcomes and hands the result to `emit` when the run ends. */
function collectResult(runner, emit) {
  const result = { passed: 0, failed: 0, skipped: 0, skippedTitles: [], failedTitles: [] };
  runner.on(EVENT_TEST_PASS, () => result.passed++);
  runner.on(EVENT_TEST_FAIL, (test, err) => {
    result.failed++;
    result.failedTitles.push(`${test.fullTitle()}${reason(err)}`);
  });
  runner.on(EVENT_TEST_PENDING, (test) => {
    result.skipped++;
    result.skippedTitles.push(test.fullTitle());
  });
  recordTimings(runner);
  runner.once(EVENT_RUN_END, () => emit(result));
  return result;
}

/**
 * Each finished test's wall time, appended as one JSON line to $TURNSTONE_TIMING_FILE when it is set
 * (scripts/test-all.mjs sets it per part and folds the files into test-results/timing.json). Written as each
 * test ends, so a part that crashes or is cut still leaves the times of what ran.
 */
function recordTimings(runner) {
  const file = process.env.TURNSTONE_TIMING_FILE;
  if (!file) return;
  fs.mkdirSync(path.dirname(file), { recursive: true });
  const record = (test, state) => {
    const line = { title: test.fullTitle(), file: test.file ? path.relative(process.cwd(), test.file) : undefined, ms: test.duration ?? 0, state };
    fs.appendFileSync(file, `${JSON.stringify(line)}\n`);
  };
  runner.on(EVENT_TEST_PASS, (test) => record(test, 'passed'));
  runner.on(EVENT_TEST_FAIL, (test) => record(test, test.type === 'hook' ? 'hook failed' : 'failed'));
  // A describe's before/after hooks (an e2e file's workbench start) cost time no test shows.
  runner.on(EVENT_HOOK_END, (hook) => {
    if ((hook.duration ?? 0) >= 1000) record(hook, 'hook');
  });
}

/**
 * The start of the failure's message: CI keeps only the tail of a long run's output, so the summary at the
 * end must say why a test failed, not just which.
 */
function reason(err) {
  const message = err && typeof err.message === 'string' ? err.message.replace(/\s+/g, ' ').trim() : '';
  return message ? ` — ${message.length > 600 ? `${message.slice(0, 600)}…` : message}` : '';
}

const resultLine = (result) => `TURNSTONE_RESULT ${JSON.stringify(result)}`;

class SpecWithResult extends Mocha.reporters.Spec {
  constructor(runner, options) {
    super(runner, options);
    // After the spec reporter's own epilogue (registered first, so it runs first).
    collectResult(runner, (result) => console.log(resultLine(result)));
  }
}

module.exports = SpecWithResult;
module.exports.collectResult = collectResult;
module.exports.resultLine = resultLine;
