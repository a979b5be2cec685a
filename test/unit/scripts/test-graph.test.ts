// `npm test` itself: which parts start together, and what a finished part counts. A slip here
// lets a red run look green (CI lands it) or leaves a run hanging.
import assert from 'node:assert/strict';
import { type GraphPart, judge, partsToStart } from '../../../scripts/test-graph.mjs';

type Part = GraphPart;

const names = (parts: Part[]) => parts.map((p) => p.name);
const ended = (...n: string[]) => new Map(n.map((name) => [name, {}]));

const PARTS: Part[] = [
  { name: 'prepare', gate: true },
  { name: 'package', gate: true },
  { name: 'build', gate: true, needs: ['package'] },
  { name: 'unit', needs: ['build'] },
  { name: 'typecheck', gate: true },
  { name: 'integration', needs: ['build', 'prepare'], alone: true },
  { name: 'lint', gate: true },
];

describe('npm test: the parts graph (scripts/test-graph.mjs)', () => {
  it('starts parts whose needs have ended, in the listed order, at most two at once', () => {
    assert.deepEqual(names(partsToStart(PARTS, [], ended(), 2)), ['prepare', 'package']);
    const left = PARTS.filter((p) => !['prepare', 'package'].includes(p.name));
    assert.deepEqual(names(partsToStart(left, [PARTS[0]!], ended('package'), 2)), ['build'], 'one slot left: build, whose need has ended');
    assert.deepEqual(names(partsToStart(left, [], ended('package', 'prepare'), 2)), ['build', 'typecheck']);
    assert.deepEqual(names(partsToStart(left, [], ended('package', 'prepare'), 3)), ['build', 'typecheck', 'lint']);
  });

  it('a part that needs a failed one still starts: its need ended, and the run shows all it can', () => {
    assert.deepEqual(names(partsToStart([{ name: 'unit', needs: ['build'] }], [], new Map([['build', { code: 1 }]]), 2)), ['unit']);
  });

  it('a VS Code part runs alone, and holds back the parts listed after it until it can start', () => {
    const waiting = PARTS.filter((p) => ['integration', 'lint'].includes(p.name));
    const all = ended('prepare', 'package', 'build');
    assert.deepEqual(names(partsToStart(waiting, [{ name: 'unit' }], all, 2)), [], 'integration waits for unit; lint waits behind it');
    assert.deepEqual(names(partsToStart(waiting, [], all, 2)), ['integration'], 'it starts alone');
    assert.deepEqual(names(partsToStart([{ name: 'lint' }], [{ name: 'integration', alone: true }], all, 2)), [], 'nothing starts beside it');
    assert.deepEqual(names(partsToStart([{ name: 'x', alone: true }, { name: 'y', alone: true }], [], all, 2)), ['x'], 'two alone parts do not start together');
  });

  it('a test part counts its result line', () => {
    const out = 'spec output\nTURNSTONE_RESULT {"passed":3,"failed":1,"skipped":1,"skippedTitles":["s"],"failedTitles":["f — boom"]}\n';
    assert.deepEqual(judge({ name: 'unit' }, { code: 1, out }, 2.04), {
      passed: 3,
      failed: 1,
      skipped: 1,
      skippedTitles: ['unit: s'],
      failedTitles: ['unit: f — boom'],
      line: 'unit: 3 passed, 1 failed, 1 skipped in 2.0s',
    });
  });

  it('a test part without a result line, exiting non-zero without a failing test, or running no test, is a failure', () => {
    const crashed = judge({ name: 'e2e' }, { code: 0, out: 'Segmentation fault\n' }, 1);
    assert.equal(crashed.failed, 1);
    assert.match(crashed.failedTitles[0]!, /^e2e: \(no result line/);
    const threw = judge({ name: 'e2e' }, { code: 7, out: 'TURNSTONE_RESULT {"passed":4,"failed":0,"skipped":0,"skippedTitles":[]}\n' }, 1);
    assert.deepEqual([threw.passed, threw.failed, threw.failedTitles], [4, 1, ['e2e: (exit 7)']]);
    const none = judge({ name: 'e2e' }, { code: 0, out: 'TURNSTONE_RESULT {"passed":0,"failed":0,"skipped":5,"skippedTitles":["a","b","c","d","e"]}\n' }, 1);
    assert.deepEqual([none.failed, none.failedTitles], [1, ['e2e: (ran no test)']]);
    const malformed = judge({ name: 'e2e' }, { code: 0, out: 'TURNSTONE_RESULT {"passed":"9","failed":0,"skipped":0,"skippedTitles":[]}\n' }, 1);
    assert.equal(malformed.failed, 1, 'a result line whose counts are not integers is no result');
    const garbled = judge({ name: 'e2e' }, { code: 0, out: 'TURNSTONE_RESULT {"passed":3,"failed":0,}\n' }, 1);
    assert.equal(garbled.failed, 1, 'a cut result line is no result');
    const last = judge({ name: 'e2e' }, { code: 0, out: 'TURNSTONE_RESULT {"passed":1,"failed":0,"skipped":0,"skippedTitles":[]}\nTURNSTONE_RESULT {"passed":2,"failed":1,"skipped":0,"skippedTitles":[],"failedTitles":["x"]}\n' }, 1);
    assert.deepEqual([last.passed, last.failed], [2, 1], 'the last result line counts');
  });

  it('a check counts one failure when it exits non-zero, none otherwise', () => {
    assert.deepEqual(judge({ name: 'lint', gate: true }, { code: 0, out: '' }, 9.5), { passed: 0, failed: 0, skipped: 0, skippedTitles: [], failedTitles: [], line: 'lint: ok in 9.5s' });
    const red = judge({ name: 'lint', gate: true }, { code: 1, out: 'TURNSTONE_RESULT {"passed":9,"failed":0,"skipped":0,"skippedTitles":[]}' }, 9.5);
    assert.deepEqual([red.passed, red.failed, red.failedTitles, red.line], [0, 1, ['lint: exit 1'], 'lint: FAILED (exit 1) in 9.5s']);
  });
});
