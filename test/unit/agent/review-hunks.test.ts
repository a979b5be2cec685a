import * as assert from 'node:assert/strict';
import { diffArrays } from 'diff';
import { hunkOfLineChange, hunksOf, isReviewableText, keepHunk, splitLines, undoHunk } from '../../../src/agent/review-hunks';

describe('review hunks (issue 44)', () => {
  const base = 'one\ntwo\nthree\nfour\nfive\n';
  // The agent changed two and added six; nothing else.
  const agent = 'one\nTWO\nthree\nfour\nfive\nsix\n';

  it('issue 44 hunks: split into hunks in order, with base and current ranges', () => {
    assert.deepEqual(hunksOf(base, agent), [
      { baseStart: 1, baseCount: 1, currentStart: 1, currentCount: 1 },
      { baseStart: 5, baseCount: 0, currentStart: 5, currentCount: 1 },
    ]);
    assert.deepEqual(hunksOf(base, base), []);
  });

  it('issue 44 hunks: keep moves the base over one hunk only; undo puts one hunk back and leaves the rest', () => {
    const [first, second] = hunksOf(base, agent);
    const kept = keepHunk(base, agent, first!);
    assert.equal(kept, 'one\nTWO\nthree\nfour\nfive\n');
    assert.deepEqual(hunksOf(kept, agent).length, 1, 'only the second hunk is left to review');
    assert.equal(undoHunk(base, agent, second!), 'one\nTWO\nthree\nfour\nfive\n');
    assert.equal(undoHunk(base, agent, first!), 'one\ntwo\nthree\nfour\nfive\nsix\n');
  });

  it("issue 44 hunks: undo of the agent's hunk keeps a line the user typed meanwhile", () => {
    const withUser = 'one\nTWO\nthree\nmine\nfour\nfive\nsix\n';
    const hunks = hunksOf(base, withUser);
    assert.equal(hunks.length, 3, "the agent's two hunks and the user's line");
    assert.equal(undoHunk(base, withUser, hunks[0]!), 'one\ntwo\nthree\nmine\nfour\nfive\nsix\n');
  });

  it('issue 44 hunks: CRLF stays CRLF, and a last line without an ending never runs into the next', () => {
    const crlfBase = 'a\r\nb\r\nc\r\n';
    const crlf = 'a\r\nB\r\nc\r\n';
    assert.equal(undoHunk(crlfBase, crlf, hunksOf(crlfBase, crlf)[0]!), crlfBase);
    const noEnd = 'a\nb';
    const appended = 'a\nb\nc';
    const [h] = hunksOf(noEnd, appended);
    assert.equal(undoHunk(noEnd, appended, h!), noEnd);
    assert.equal(keepHunk(noEnd, appended, h!), appended);
    assert.deepEqual(splitLines('x\r\ny'), ['x\r\n', 'y']);
  });

  it("issue 44 hunks: VS Code's LineChange (1-based, end 0 for an empty side) maps to the same hunk", () => {
    const [changed, added] = hunksOf(base, agent);
    assert.deepEqual(hunkOfLineChange({ originalStartLineNumber: 2, originalEndLineNumber: 2, modifiedStartLineNumber: 2, modifiedEndLineNumber: 2 }), changed);
    assert.deepEqual(hunkOfLineChange({ originalStartLineNumber: 5, originalEndLineNumber: 0, modifiedStartLineNumber: 6, modifiedEndLineNumber: 6 }), added);
    // A deletion: base lines 2–3 gone, after current line 1.
    assert.deepEqual(hunkOfLineChange({ originalStartLineNumber: 2, originalEndLineNumber: 3, modifiedStartLineNumber: 1, modifiedEndLineNumber: 0 }), { baseStart: 1, baseCount: 2, currentStart: 1, currentCount: 0 });
  });

  it('issue 44 hunks: binary content is not split', () => {
    assert.equal(isReviewableText('plain\n'), true);
    assert.equal(isReviewableText('PNG\0\0data'), false);
  });
  it('issue 44 hunks: a file rewritten whole is one hunk', () => {
    const lines = (n: number, tag: string) => Array.from({ length: n }, (_, i) => `line ${i} ${tag}\n`).join('');
    const base = lines(2000, 'old');
    const rewritten = lines(2000, 'new');
    assert.deepEqual(hunksOf(base, rewritten), [{ baseStart: 0, baseCount: 2000, currentStart: 0, currentCount: 2000 }]);
    // Kept lines around the rewrite stay outside it.
    assert.deepEqual(hunksOf(`head\n${base}tail\n`, `head\n${rewritten}tail\n`), [{ baseStart: 1, baseCount: 2000, currentStart: 1, currentCount: 2000 }]);
  });

  it('issue 44 hunks: many small edits between repeated lines (no line to anchor on) stay hunks of their own', () => {
    const base = Array.from({ length: 300 }, () => '  a();\n}\n').join('');
    const current = Array.from({ length: 300 }, () => '  b();\n}\n').join('');
    const hunks = hunksOf(base, current);
    assert.equal(hunks.length, 300, 'one hunk per changed line, as the gutter shows them');
    assert.deepEqual(hunks[1], { baseStart: 2, baseCount: 1, currentStart: 2, currentCount: 1 });
  });

  it('issue 44 hunks: past the Myers limit, lines found once on each side anchor the same hunks, and undoing them all gives the base back', () => {
    let seed = 11;
    const rand = () => (seed = (seed * 1103515245 + 12345) % 2147483648) / 2147483648;
    const base = Array.from({ length: 3000 }, (_, i) => `const v${i} = ${i};\n`);
    const current = [...base];
    // 300 scattered one-line changes: an edit distance of about 600, past the limit.
    for (let k = 0; k < 300; k++) current[Math.floor(rand() * current.length)] = `changed ${k}\n`;
    current.splice(1500, 0, 'inserted\n', 'inserted too\n');
    const hunks = hunksOf(base.join(''), current.join(''));
    const myers = diffArrays(base, current);
    let expected = 0;
    myers.forEach((part, i) => {
      if ((part.added || part.removed) && !(i > 0 && (myers[i - 1]!.added || myers[i - 1]!.removed))) expected++;
    });
    assert.equal(hunks.length, expected, 'as many hunks as the full Myers diff finds');
    let undone = current.join('');
    for (const h of [...hunks].reverse()) undone = undoHunk(base.join(''), undone, h);
    assert.equal(undone, base.join(''));
  });
});
