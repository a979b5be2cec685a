import assert from 'node:assert/strict';
import { sampled, seededRandom } from './report';

describe('reliability: the harness itself', () => {
  it('replays the same random choices from the same seed', () => {
    const a = seededRandom(7);
    const b = seededRandom(7);
    const xs = Array.from({ length: 5 }, () => a());
    assert.deepEqual(xs, Array.from({ length: 5 }, () => b()));
    assert.ok(xs.every((x) => x >= 0 && x < 1));
    assert.notDeepEqual(xs, Array.from({ length: 5 }, seededRandom(8)));
  });

  it('samples long scenarios unless TURNSTONE_RELIABILITY_FULL=1', () => {
    assert.equal(sampled(50, 10), process.env.TURNSTONE_RELIABILITY_FULL === '1' ? 50 : 10);
    assert.equal(sampled(3, 10), 3);
  });
});
