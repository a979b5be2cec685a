// Issue 29: the front matter of custom agents and skills, as Claude Code and Copilot write it.
import * as assert from 'node:assert/strict';
import { listAttribute, parseDefinitionText, textAttribute } from '../../../src/runtime/context/front-matter';

describe('29 front matter of definition files', () => {
  it('reads scalars, quoted values, flow lists, block lists and comma lists', () => {
    const parsed = parseDefinitionText(
      ['---', 'name: reviewer', 'description: "Reviews a change: finds bugs"', 'tools: [read_file, "grep_search"]', 'model: fast # a comment', 'other:', '  - a', '  - b', 'csv: Read, Grep , Glob', '---', 'You review code.', ''].join('\n'),
    );
    assert.deepEqual(parsed.problems, []);
    assert.equal(parsed.hasFrontMatter, true);
    assert.equal(textAttribute(parsed.attributes, 'name'), 'reviewer');
    assert.equal(textAttribute(parsed.attributes, 'description'), 'Reviews a change: finds bugs');
    assert.equal(textAttribute(parsed.attributes, 'model'), 'fast');
    assert.deepEqual(listAttribute(parsed.attributes, 'tools'), ['read_file', 'grep_search']);
    assert.deepEqual(listAttribute(parsed.attributes, 'other'), ['a', 'b']);
    assert.deepEqual(listAttribute(parsed.attributes, 'csv'), ['Read', 'Grep', 'Glob']);
    assert.equal(parsed.body, 'You review code.\n');
  });

  it('reads `- item` lists at the key\'s own indent, folded and literal blocks, and continued plain scalars', () => {
    const parsed = parseDefinitionText(
      ['---', 'tools:', '- read_file', '- glob_search', 'description: >', '  Use this for', '  large searches.', 'notes: |', '  line one', '  line two', 'long: starts here', '  and goes on', '---', 'Body'].join('\r\n'),
    );
    assert.deepEqual(parsed.problems, []);
    assert.deepEqual(listAttribute(parsed.attributes, 'tools'), ['read_file', 'glob_search']);
    assert.equal(textAttribute(parsed.attributes, 'description'), 'Use this for large searches.');
    assert.equal(textAttribute(parsed.attributes, 'notes'), 'line one\nline two');
    assert.equal(textAttribute(parsed.attributes, 'long'), 'starts here and goes on');
    assert.equal(parsed.body, 'Body');
  });

  it('says what it cannot read instead of throwing: an unclosed block, a line that is no key, no front matter at all', () => {
    const unclosed = parseDefinitionText('---\nname: x\nno end');
    assert.equal(unclosed.hasFrontMatter, false);
    assert.match(unclosed.problems[0]!, /no closing `---`/);
    const odd = parseDefinitionText('---\nname: x\n!!! what\n---\nbody');
    assert.equal(textAttribute(odd.attributes, 'name'), 'x');
    assert.match(odd.problems[0]!, /line 3 of its front matter is not `key: value`/);
    const none = parseDefinitionText('# Title\n\ntext');
    assert.deepEqual(none, { attributes: {}, body: '# Title\n\ntext', problems: [], hasFrontMatter: false });
    // A `---` inside a value does not end the block.
    assert.equal(textAttribute(parseDefinitionText('---\ndescription: a --- b\n---\n').attributes, 'description'), 'a --- b');
    assert.deepEqual(parseDefinitionText('---\n---\nbody').body, 'body');
  });
});
