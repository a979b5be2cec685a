// Issue 30: the pure half of "problems after edits": which of the file's
// problems after a write are new, and how they are written for the model.
import * as assert from 'node:assert/strict';
import { MAX_ERRORS, MAX_WARNINGS, formatNewProblems, lineMapping, newProblems } from '../../../src/tools/files/edit-problems';
import { type Problem } from '../../../src/tools/language-ports';

const err = (line: number, message: string, code = '2322'): Problem => ({ line, severity: 'error', message, code, source: 'ts' });

describe('30.diag: new problems of an edit', () => {
  it('30.diag: maps old lines to new ones around the changed block', () => {
    const map = lineMapping('a\nb\nc\nd\n', 'a\nX\nY\nc\nd\n');
    assert.equal(map(1), 1);
    assert.equal(map(2), undefined, 'the replaced line has no place');
    assert.equal(map(3), 4);
    assert.equal(map(4), 5);
  });

  it('30.diag: an error that moved with the lines above it is not new', () => {
    const before = [err(1, 'old one')];
    const after = [err(3, 'old one')];
    assert.deepEqual(newProblems(before, after, lineMapping('x\n', '// a\n// b\nx\n')), []);
  });

  it('30.diag: a second copy of an existing error is new once, at the new place', () => {
    const before = [err(5, 'same text')];
    const after = [err(2, 'same text'), err(7, 'same text')];
    // Two lines were inserted at line 2: the old error went from 5 to 7.
    const fresh = newProblems(before, after, lineMapping('1\n2\n3\n4\n5\n', '1\nnew\nnew\n2\n3\n4\n5\n'));
    assert.deepEqual(fresh, [err(2, 'same text')]);
  });

  it('30.diag: the same message with another severity or code is a new problem; a fixed one is simply gone', () => {
    const before = [err(1, 'm'), err(2, 'gone')];
    const after = [{ ...err(1, 'm'), severity: 'warning' as const }, err(1, 'm', '9999')];
    const fresh = newProblems(before, after, (l) => l);
    assert.equal(fresh.length, 2);
  });

  it('30.diag: an error inside the changed block whose text stayed is matched to the old one, not reported', () => {
    const before = [err(2, 'still broken')];
    const after = [err(2, 'still broken')];
    assert.deepEqual(newProblems(before, after, lineMapping('a\nbad\n', 'a\nbad too\n')), []);
  });

  it('30.diag: formats file:line: severity: message (source code), errors first, warnings capped', () => {
    assert.equal(formatNewProblems('src/a.ts', []), '');
    const warnings: Problem[] = Array.from({ length: MAX_WARNINGS + 3 }, (_, i) => ({ line: i + 10, severity: 'warning', message: `w${i}` }));
    const text = formatNewProblems('src/a.ts', [...warnings, err(4, 'Type\n  broken.')]);
    const lines = text.split('\n');
    assert.equal(lines[0], "New problems in src/a.ts after this change (1 error and 8 warnings, reported by the editor's language features):");
    assert.equal(lines[1], 'src/a.ts:4: error: Type broken. (ts 2322)');
    assert.equal(lines[2], 'src/a.ts:10: warning: w0');
    assert.equal(lines.at(-1), '… 3 more warnings');
    assert.equal(lines.length, 1 + 1 + MAX_WARNINGS + 1);
  });

  it('30.diag: errors are capped too, with a count of the rest', () => {
    const many = Array.from({ length: MAX_ERRORS + 2 }, (_, i) => err(i + 1, `e${i}`));
    const lines = formatNewProblems('b.ts', many).split('\n');
    assert.equal(lines.length, 1 + MAX_ERRORS + 1);
    assert.equal(lines.at(-1), '… 2 more errors');
  });
});
