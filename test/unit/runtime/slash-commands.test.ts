import assert from 'node:assert/strict';
import { mkdirSync, mkdtempSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { nodeInstructionReader } from '../../../src/runtime/context/instructions-node';
import { expandTemplate, loadCustomSlashCommands, parseFrontMatter, parseSlash, resolveSlash } from '../../../src/runtime/context/slash-commands';
import { sensitiveFileMatcher } from '../../../src/runtime/policy/sensitive-files';

describe('runtime: slash commands', () => {
  let tmp: string;
  let ws: string;
  const put = (rel: string, text: string, base = ws) => {
    mkdirSync(path.dirname(path.join(base, rel)), { recursive: true });
    writeFileSync(path.join(base, rel), text);
  };
  beforeEach(() => {
    tmp = mkdtempSync(path.join(os.tmpdir(), 'turnstone-slash-'));
    ws = path.join(tmp, 'ws');
    mkdirSync(ws);
  });
  afterEach(() => rmSync(tmp, { recursive: true, force: true }));

  it('parses /name and its arguments; text that cannot be a name is not a command', () => {
    assert.deepEqual(parseSlash('/compact'), { name: 'compact', args: '' });
    assert.deepEqual(parseSlash('  /review  src/a.ts\nand more '), { name: 'review', args: 'src/a.ts\nand more' });
    assert.deepEqual(parseSlash('/model claude-opus-5-5'), { name: 'model', args: 'claude-opus-5-5' });
    assert.equal(parseSlash('/'), undefined);
    assert.equal(parseSlash('review /x'), undefined);
    assert.equal(parseSlash('/ space'), undefined);
  });

  it('reads front-matter description and fills $ARGUMENTS (every occurrence); without the placeholder the arguments follow', () => {
    const fm = parseFrontMatter('---\ndescription: "Review a file"\nargument-hint: <path>\n---\nReview $ARGUMENTS carefully. Then $ARGUMENTS again.\n');
    assert.deepEqual(fm.attributes, { description: 'Review a file', 'argument-hint': '<path>' });
    assert.equal(expandTemplate(fm.body, 'src/a.ts'), 'Review src/a.ts carefully. Then src/a.ts again.');
    assert.equal(expandTemplate('Summarise the changes.', 'only docs'), 'Summarise the changes.\n\nonly docs');
    assert.equal(expandTemplate('Summarise the changes.', ''), 'Summarise the changes.');
    assert.deepEqual(parseFrontMatter('no front matter\n---\nx'), { attributes: {}, body: 'no front matter\n---\nx' });
  });

  it('loads .turnstone/commands and .claude/commands; .turnstone wins a name clash; built-ins cannot be taken over', async () => {
    put('.turnstone/commands/review.md', '---\ndescription: Review a file\n---\nReview $ARGUMENTS.');
    put('.claude/commands/review.md', 'Claude review $ARGUMENTS.');
    put('.claude/commands/test-all.md', '# Run every test\nRun the whole suite and report.');
    put('.claude/commands/compact.md', 'not allowed');
    put('.claude/commands/notes.txt', 'not a command');
    put('.turnstone/commands/bad name.md', 'x');
    const set = await loadCustomSlashCommands(nodeInstructionReader, ws, sensitiveFileMatcher());
    assert.deepEqual(set.custom.map((c) => [c.name, c.file, c.description]), [
      ['review', '.turnstone/commands/review.md', 'Review a file'],
      ['test-all', '.claude/commands/test-all.md', 'Run every test'],
    ]);
    assert.equal(set.notes.length, 2);
    assert.ok(set.notes.some((n) => /compact\.md is not used: \/compact is built in/.test(n)));
    assert.ok(set.notes.some((n) => /bad name\.md/.test(n)));
    assert.deepEqual(resolveSlash('/review src/x.ts', set.custom), { kind: 'custom', command: set.custom[0], text: 'Review src/x.ts.' });
    assert.deepEqual(resolveSlash('/compact', set.custom), { kind: 'builtin', name: 'compact', args: '' });
    assert.deepEqual(resolveSlash('/mcp', set.custom), { kind: 'builtin', name: 'mcp', args: '' });
    // An unknown /word or a path is sent as typed.
    assert.deepEqual(resolveSlash('/etc/hosts looks wrong', set.custom), { kind: 'text', text: '/etc/hosts looks wrong' });
    assert.deepEqual(resolveSlash('/nosuch thing', set.custom), { kind: 'text', text: '/nosuch thing' });
  });

  it('refuses a command file or folder that links outside the workspace', async () => {
    put('evil.md', 'outside text', tmp);
    put('cmds/x.md', 'outside dir', tmp);
    mkdirSync(path.join(ws, '.turnstone/commands'), { recursive: true });
    symlinkSync(path.join(tmp, 'evil.md'), path.join(ws, '.turnstone/commands/leak.md'));
    mkdirSync(path.join(ws, '.claude'));
    symlinkSync(path.join(tmp, 'cmds'), path.join(ws, '.claude/commands'));
    const set = await loadCustomSlashCommands(nodeInstructionReader, ws, sensitiveFileMatcher());
    assert.deepEqual(set.custom, []);
    assert.equal(set.notes.length, 2);
    assert.ok(set.notes.every((n) => /outside the workspace/.test(n)));
  });
});
