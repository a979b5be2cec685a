// Issue 26.1: the one cut function. Property tests over seeded random strings
// of emoji (ZWJ sequences, skin tones, flags, VS16), combining marks, Hangul
// jamo, CJK and ASCII, cut at every length in every unit; and the long
// clusters a window could misjudge.
import assert from 'node:assert/strict';
import { seededRandom as rng } from '../../reliability/report';
import { boundaryAtOrAfter, boundaryAtOrBefore, cutHead, cutMiddle, cutTail, measure, repairLoneSurrogates, wellFormed, type CutUnit } from '../../../src/runtime/text-cut';

const PIECES = [
  'a', 'Z', ' ', '.', '\n', '\r\n', '7',
  '世', '界', '漢', '字', 'ひ', 'カ',
  '😀', '👍🏽', '👩‍👩‍👧‍👦', '🧑🏿‍🚀', '❤️', '🏳️‍🌈', '🇫🇷', '🇩🇪', '🇯🇵',
  'e\u0301', 'a\u0308\u0323', 'n\u0303', '\u0915\u094d\u0937', // é, ạ̈, ñ, Devanagari conjunct
  '\u1100\u1161\u11a8', '한', // Hangul jamo L V T, a precomposed syllable
  '\u0301', // a stray combining mark joins whatever precedes it
];

function randomText(next: () => number, clusters: number): string {
  let s = '';
  for (let i = 0; i < clusters; i++) s += PIECES[Math.floor(next() * PIECES.length)]!;
  return s;
}

const segmenter = new Intl.Segmenter(undefined, { granularity: 'grapheme' });
function boundaries(text: string): Set<number> {
  const out = new Set<number>([text.length]);
  for (const s of segmenter.segment(text)) out.add(s.index);
  return out;
}
const hasLoneSurrogate = (s: string) => wellFormed(s) !== s;
const UNITS: CutUnit[] = ['chars', 'bytes', 'tokens'];

describe('runtime: the one cut function (issue 26.1)', () => {
  it('26.1: a cut never splits a surrogate pair or a grapheme cluster: random emoji, combining marks and CJK cut at every length, in characters, bytes and tokens', () => {
    let checked = 0;
    for (let seed = 1; seed <= 120; seed++) {
      const next = rng(seed);
      const text = randomText(next, 1 + Math.floor(next() * 24));
      const bounds = boundaries(text);
      const sorted = [...bounds].sort((x, y) => x - y);
      for (const unit of UNITS) {
        const total = measure(text, unit);
        for (let max = 0; max <= total + 1; max++) {
          const where = `seed ${seed}, ${unit} ${max}/${total}: ${JSON.stringify(text)}`;
          const head = cutHead(text, max, unit);
          assert.ok(text.startsWith(head), where);
          assert.ok(bounds.has(head.length), `head ends inside a cluster (${where})`);
          assert.ok(measure(head, unit) <= max, `head too long (${where})`);
          // The longest such head: the next boundary would not fit.
          const after = sorted.find((b) => b > head.length);
          if (after !== undefined) assert.ok(measure(text.slice(0, after), unit) > max, `head shorter than it could be (${where})`);
          assert.ok(!hasLoneSurrogate(head), where);

          const tail = cutTail(text, max, unit);
          assert.ok(text.endsWith(tail), where);
          assert.ok(bounds.has(text.length - tail.length), `tail starts inside a cluster (${where})`);
          assert.ok(measure(tail, unit) <= max, `tail too long (${where})`);
          const before = [...sorted].reverse().find((b) => b < text.length - tail.length);
          if (before !== undefined) assert.ok(measure(text.slice(before), unit) > max, `tail shorter than it could be (${where})`);

          const mid = cutMiddle(text, max, { unit, headShare: 0.4 });
          if (mid.omitted === 0) assert.equal(mid.head, text, where);
          else {
            assert.ok(text.startsWith(mid.head) && text.endsWith(mid.tail), where);
            assert.ok(mid.head.length + mid.tail.length <= text.length, `head and tail overlap (${where})`);
            assert.ok(bounds.has(mid.head.length) && bounds.has(text.length - mid.tail.length), `middle cut inside a cluster (${where})`);
            assert.ok(measure(mid.head, unit) + measure(mid.tail, unit) <= max, `middle cut too long (${where})`);
            assert.equal(mid.omitted, total - measure(mid.head, unit) - measure(mid.tail, unit), where);
          }
          checked++;
        }
      }
    }
    assert.ok(checked > 10_000, `${checked} cuts checked`);
  });

  it('26.1: boundaries inside clusters longer than the search window: a letter with 500 marks, a chain of ZWJ sequences, a run of 300 flags', () => {
    const zalgo = `ab${'x' + '\u0301'.repeat(500)}cd`;
    assert.equal(boundaryAtOrBefore(zalgo, 300), 2);
    assert.equal(boundaryAtOrAfter(zalgo, 300), 503);
    const family = '👩‍👩‍👧‍👦';
    const chain = `x${Array.from({ length: 40 }, () => family).join('\u200d')}y`;
    // One cluster: ZWJ joins the families too.
    assert.equal([...segmenter.segment(chain)].length, 3);
    for (const i of [5, 100, 250, chain.length - 3]) {
      assert.equal(boundaryAtOrBefore(chain, i), 1, `before ${i}`);
      assert.equal(boundaryAtOrAfter(chain, i), chain.length - 1, `after ${i}`);
    }
    // Flags pair regional indicators from the start of their run: parity must survive a window start inside it.
    const flags = `a${'🇫🇷'.repeat(300)}`;
    const bounds = boundaries(flags);
    for (let i = 0; i <= flags.length; i += 7) {
      assert.ok(bounds.has(boundaryAtOrBefore(flags, i)), `before ${i}`);
      assert.ok(bounds.has(boundaryAtOrAfter(flags, i)), `after ${i}`);
    }
  });

  it('26.1: bytes count UTF-8 (an emoji is 4, a CJK character 3); tokens are 4 characters', () => {
    assert.equal(cutHead('ab😀c', 5, 'bytes'), 'ab');
    assert.equal(cutHead('ab😀c', 6, 'bytes'), 'ab😀');
    assert.equal(cutTail('世界abc', 5, 'bytes'), 'abc');
    assert.equal(cutTail('世界abc', 6, 'bytes'), '界abc');
    assert.equal(cutHead('abcdefghij', 2, 'tokens'), 'abcdefgh');
    assert.deepEqual(cutMiddle('0123456789', 4), { head: '01', tail: '89', omitted: 6 });
    assert.deepEqual(cutMiddle('short', 10), { head: 'short', tail: '', omitted: 0 });
  });

  it('26.1: lone surrogates are repaired to U+FFFD, deep in JSON-like values, keys included', () => {
    const broken = { text: 'ok \ud83d end', nested: [{ ['k\udc00']: 'fine' }, 'x\ud800'], n: 3 };
    const { value, repaired } = repairLoneSurrogates(broken);
    assert.equal(repaired, 3);
    assert.deepEqual(value, { text: 'ok \ufffd end', nested: [{ ['k\ufffd']: 'fine' }, 'x\ufffd'], n: 3 });
    const clean = { a: ['😀'] };
    assert.equal(repairLoneSurrogates(clean).value, clean, 'nothing to repair: the same object');
  });
});
