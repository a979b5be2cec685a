import assert from 'node:assert/strict';
import { ToolView } from '../../../src/webview/protocol';
import { diffStats, toolViewFromInput } from '../../../src/webview/tool-view';

describe('tool views for the panel', function () {
  it('builds a valid card for each tool from its input', function () {
    const cases: [string, Record<string, unknown>, unknown][] = [
      ['read_file', { path: 'a.ts', offset: 10, limit: 5 }, { kind: 'read', path: 'a.ts', offset: 10, limit: 5 }],
      ['write_file', { path: 'b.ts', content: 'x\ny\n' }, { kind: 'edit', path: 'b.ts', added: 2, removed: 0 }],
      ['bash', { command: 'npm test', description: 'run tests' }, { kind: 'bash', command: 'npm test', description: 'run tests' }],
      ['glob_search', { pattern: '**/*.ts' }, { kind: 'search', mode: 'glob', pattern: '**/*.ts' }],
      ['grep_search', { pattern: 'TODO', path: 'src' }, { kind: 'search', mode: 'grep', pattern: 'TODO', path: 'src' }],
      ['mystery', { a: 1 }, { kind: 'other', summary: '1' }],
      // Issue 47 item 9: never raw JSON; the description when there is one.
      ['bash_output', { id: 'bash_1' }, { kind: 'other', summary: 'bash_1' }],
      ['mystery', { description: 'Tidy up', n: 2 }, { kind: 'other', summary: 'Tidy up' }],
      ['mcp__github__create_issue', { title: 'x' }, { kind: 'mcp', server: 'github', tool: 'create_issue', input: '{\n  "title": "x"\n}' }],
    ];
    for (const [name, input, expected] of cases) {
      const view = toolViewFromInput(name, input);
      assert.deepEqual(view, expected, name);
      assert.ok(ToolView.safeParse(view).success, name);
    }
    const edit = toolViewFromInput('edit_file', { path: 'c.ts', old_string: 'a\nb', new_string: 'a\nc\nd' });
    assert.ok(edit.kind === 'edit' && edit.added === 2 && edit.removed === 1 && edit.diff?.includes('+c'));
    // Missing or wrong-typed input still yields a card (the loop reports the error).
    assert.ok(ToolView.safeParse(toolViewFromInput('read_file', { path: 3, offset: -1 })).success);
  });

  it('counts +/- lines and marks created files', function () {
    assert.deepEqual(diffStats('a\nb\nc\n', 'a\nB\nc\nd\n', 'x.ts').added, 2);
    assert.deepEqual(diffStats('a\nb\nc\n', 'a\nB\nc\nd\n', 'x.ts').removed, 1);
    const created = diffStats(null, 'one\ntwo\n', 'new.ts');
    assert.equal(created.created, true);
    assert.equal(created.added, 2);
    assert.match(created.diff ?? '', /^--- a\/new.ts\n\+\+\+ b\/new.ts/);
    assert.equal(diffStats('same', 'same').diff, undefined);
  });
});
