// The one line diff behind the review's hunks, the edit cards, the approval counts, the edit tools' result
// diffs and the CLI's json `changes` (src/runtime/line-diff.ts): what `diff`'s own patch functions write for
// ordinary edits, and bounded for a file rewritten whole, which took the plain Myers diff a minute at 1 MB.
import * as assert from 'node:assert/strict';
import { applyPatch, createTwoFilesPatch, parsePatch, structuredPatch } from 'diff';
import { seededRandom } from '../../reliability/report';
import { countHunkLines, lineCounts, patchHunks, unifiedDiff } from '../../../src/runtime/line-diff';
import { summarizeEdit } from '../../../src/tools/files/edit-diff';
import { diffStats } from '../../../src/webview/tool-view';

/** A file of `n` numbered lines, distinct per `tag`, about 50 bytes each. */
const numbered = (tag: string, n: number) => Array.from({ length: n }, (_, i) => `${tag} line ${String(i).padStart(7, '0')} ${'x'.repeat(30)}\n`).join('');

/** An ordinary edit of `text`: a few lines changed, removed or added, here and there; sometimes the last newline goes. */
function edited(text: string, rand: () => number): string {
  const lines = text.split(/(?<=\n)/);
  const edits = 1 + Math.floor(rand() * 6);
  for (let e = 0; e < edits; e++) {
    const at = Math.floor(rand() * (lines.length + 1));
    const pick = rand();
    if (pick < 0.4 && at < lines.length) lines[at] = `changed ${e}\n`;
    else if (pick < 0.7 && at < lines.length) lines.splice(at, 1 + Math.floor(rand() * 3));
    else lines.splice(at, 0, ...Array.from({ length: 1 + Math.floor(rand() * 3) }, (_, k) => `added ${e}.${k}\n`));
  }
  let out = lines.join('');
  if (rand() < 0.2) out = out.replace(/\n$/, '');
  return out;
}

describe('line diff: one bounded diff for every place that shows a change', () => {
  it('ordinary edits: the same hunks as the diff package writes, at context 0, 2 and 3; with repeated lines, a patch as small that applies (300 seeded edits)', () => {
    const rand = seededRandom(20261207);
    const bases = ['', 'only\n', 'no newline', 'a\nb\nc\nd\ne\nf\ng\nh\ni\nj\nk\nl\n', numbered('base', 60), 'x\n'.repeat(8) + 'y\n' + 'x\n'.repeat(8)];
    for (let i = 0; i < 300; i++) {
      const before = bases[i % bases.length]!;
      const after = edited(before, rand);
      const repeats = new Set(before.split('\n')).size < before.split('\n').length;
      for (const context of [0, 2, 3]) {
        const ours = patchHunks(before, after, context);
        const theirs = structuredPatch('a', 'b', before, after, undefined, undefined, { context }).hunks;
        const what = `case ${i}, context ${context}: ${JSON.stringify(before)} → ${JSON.stringify(after)}`;
        // Where lines repeat, two minimal diffs may pair different copies: both are right.
        if (!repeats) assert.deepEqual(ours, theirs, what);
        assert.equal(applyPatch(before, { oldFileName: 'a', newFileName: 'b', oldHeader: undefined, newHeader: undefined, hunks: ours }), after, what);
        assert.deepEqual(countHunkLines({ hunks: ours }), countHunkLines({ hunks: theirs }), what);
      }
    }
  });

  it('the text of a two-file patch is what createTwoFilesPatch writes (the diff a user edit of a proposal sends)', () => {
    const before = 'one\ntwo\nthree\nfour\nfive\nsix\nseven\n';
    const after = 'one\nTWO\nthree\nfour\nfive\nsix\nseven\neight';
    assert.equal(unifiedDiff('proposed', 'user-edited', before, after, 2), createTwoFilesPatch('proposed', 'user-edited', before, after, undefined, undefined, { context: 2 }));
  });

  it('a 1 MB file rewritten whole is counted and shown without a minute of Myers: every line removed and added, one hunk', () => {
    const before = numbered('before', 2_600); // 128 kB
    const after = numbered('after', 21_000); // 1 MB
    // The plain Myers diff took 60 s for this on a quiet machine; the bounded one gives up early and finds no line
    // to anchor on, so the rewrite is one hunk.
    assert.deepEqual(lineCounts(before, after), { added: 21_000, removed: 2_600 });
    const [hunk, ...rest] = patchHunks(before, after, 3);
    assert.equal(rest.length, 0);
    assert.equal(hunk!.oldLines, 2_600);
    assert.equal(hunk!.newLines, 21_000);
    const card = diffStats(before, after, 'data.txt');
    assert.deepEqual([card.added, card.removed, card.diff], [21_000, 2_600, undefined], 'counted; too long a diff to show');
  });

  it('a large file with scattered edits still gets exact hunks past the first Myers budget (anchored on unique lines)', () => {
    const before = numbered('same', 10_000);
    const lines = before.split(/(?<=\n)/);
    // 400 one-line edits, 25 lines apart: 800 lines in and out, more than the first Myers run allows.
    for (let i = 10; i < lines.length; i += 25) lines[i] = `edited ${i}\n`;
    const after = lines.join('');
    const edits = Math.ceil((lines.length - 10) / 25);
    assert.deepEqual(lineCounts(before, after), { added: edits, removed: edits });
    assert.equal(patchHunks(before, after, 0).length, edits, 'one hunk per edited line');
  });

  it('many lines edited in place among repeated lines (a flag flipped in 600 of 1 000 JSON records) count as edited, not as one rewrite', () => {
    const record = (on: boolean) => `  {\n    "enabled": ${on}\n  },\n`;
    const before = `[\n${Array.from({ length: 1000 }, () => record(false)).join('')}]\n`;
    const after = `[\n${Array.from({ length: 1000 }, (_, i) => record(i < 600)).join('')}]\n`;
    assert.deepEqual(lineCounts(before, after), { added: 600, removed: 600 });
    // The same through edit_file's replace_all: the model sees each line's - and + together, not 120 removals.
    const positions = [...before.matchAll(/"enabled": false/g)].slice(0, 600).map((m) => m.index);
    const { diff } = summarizeEdit(before, after, positions, '"enabled": false', '"enabled": true', 'flags.json');
    assert.match(diff, /^- {4}"enabled": false\n\+ {4}"enabled": true$/m);
  });

  it('a file built to nest the unique-line anchors one level per line is diffed without running away or overflowing the stack', () => {
    // Each gap between anchors holds lines unique only within it: before the depth cap this took 45 s at this size
    // (under load), and at twice it 87 s before a RangeError.
    const k = 1500;
    const pairs = (extra: boolean) => Array.from({ length: k }, (_, n) => k - 1 - n).flatMap((i) => [`y${i}`, `y${i + 1}`, ...(extra ? [`n${i}`] : [])]);
    const before = ['ca', `y${k}`, ...pairs(false), 'endA'].map((l) => `${l}\n`).join('');
    const after = [...Array.from({ length: 450 }, (_, i) => `cb${i}`), `y${k}`, ...pairs(true), 'endB'].map((l) => `${l}\n`).join('');
    const counts = lineCounts(before, after);
    const hunks = patchHunks(before, after, 0);
    assert.equal(applyPatch(before, { oldFileName: 'a', newFileName: 'b', oldHeader: undefined, newHeader: undefined, hunks }), after);
    assert.deepEqual(countHunkLines({ hunks }), counts);
  });

  it("an edit tool's diff keeps a blank context line at a hunk's end, so the hunk has the lines its header says", () => {
    const { diff } = summarizeEdit('a\nb\n\n\nc\n', 'A\nb\n\n\nc\n', [0], 'a', 'A', 'f.txt');
    assert.doesNotThrow(() => parsePatch(diff), diff);
    assert.equal(applyPatch('a\nb\n\n\nc\n', diff), 'A\nb\n\n\nc\n');
  });

  it('counts: a created file adds every line, a deleted one removes them, no change is zero', () => {
    assert.deepEqual(lineCounts(null, 'a\nb\n'), { added: 2, removed: 0 });
    assert.deepEqual(lineCounts('a\nb\nc', null), { added: 0, removed: 3 });
    assert.deepEqual(lineCounts('same\n', 'same\n'), { added: 0, removed: 0 });
    assert.deepEqual(lineCounts('a\r\nb\r\n', 'a\r\nB\r\n'), { added: 1, removed: 1 });
  });
});
