// Issue 30: the lsp tool's boundaries on the Node adapters. The CLI's tools
// (no CodeNavigation, no EditDiagnostics) neither offer lsp nor add anything to
// an edit. With a navigation port, places are shown only for files that really
// are in the workspace: a place reached through a symlink to outside is named,
// not shown. The port here is a small real one that reads lines from disk and
// answers with places the test gives; the VS Code providers themselves are
// covered by test/integration/editor-intelligence.test.ts.
import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { type CodeNavigation, type SourceLocation } from '../../../src/tools/language-ports';
import { NodeWorkspace } from '../../../src/tools/node-adapter';
import { createToolExecutor } from '../../../src/tools/registry';
import { ctx, tempDir } from './helpers';

function diskNavigation(places: () => SourceLocation[]): CodeNavigation {
  return {
    async lines(file, lines) {
      const text = fs.readFileSync(file, 'utf8').split('\n');
      return new Map(lines.filter((n) => n <= text.length).map((n) => [n, text[n - 1]!]));
    },
    locations: async () => places(),
    hover: async () => [],
    documentSymbols: async () => [],
    workspaceSymbols: async () => [],
  };
}

describe('30.lsp: the tool on the Node adapters', () => {
  let base: string;
  let root: string;
  beforeEach(() => {
    base = tempDir();
    root = path.join(base, 'ws');
    fs.mkdirSync(root);
    fs.mkdirSync(path.join(base, 'outside'));
    fs.writeFileSync(path.join(base, 'outside', 'secret.ts'), 'export const token = "do-not-show";\n');
    fs.symlinkSync(path.join(base, 'outside'), path.join(root, 'linked'));
    fs.writeFileSync(path.join(root, 'a.ts'), 'export const token = 1;\nconsole.log(token);\n');
    fs.writeFileSync(path.join(root, '.env'), 'TOKEN=abc\n');
  });
  afterEach(() => fs.rmSync(base, { recursive: true, force: true }));

  it('30.lsp: the CLI (no navigation port) does not offer lsp, and an edit there adds no problems note', async () => {
    const cli = createToolExecutor({ workspace: new NodeWorkspace(root) });
    assert.ok(!cli.definitions().some((d) => d.name === 'lsp'));
    const out = await cli.execute('edit_file', { path: 'a.ts', old_string: '= 1', new_string: '= "x"' }, ctx());
    assert.equal(out.isError, false);
    assert.ok(!out.content.includes('New problems'));
  });

  it('30.lsp: places through a symlink to outside, and in secret files, are named without their text', async () => {
    const tools = createToolExecutor(
      { workspace: new NodeWorkspace(root), navigation: diskNavigation(() => [
        { path: path.join(root, 'a.ts'), isFile: true, line: 2, column: 13 },
        { path: path.join(root, 'linked', 'secret.ts'), isFile: true, line: 1, column: 14 },
        { path: path.join(root, '.env'), isFile: true, line: 1, column: 1 },
        { path: 'untitled:Untitled-1', isFile: false, line: 1, column: 1 },
      ]) },
    );
    assert.ok(tools.definitions().some((d) => d.name === 'lsp'));
    assert.deepEqual(await tools.assess('lsp', { operation: 'references', path: 'a.ts', line: 1, symbol: 'token' }), { need: 'read', subject: 'a.ts' });
    const out = await tools.execute('lsp', { operation: 'references', path: 'a.ts', line: 1, symbol: 'token' }, ctx());
    assert.equal(out.isError, false, out.content);
    const lines = out.content.split('\n');
    assert.equal(lines[0], 'References of token (a.ts:1): 4 locations');
    assert.equal(lines[1], 'a.ts:2:13: console.log(token);');
    assert.equal(lines[2], `${fs.realpathSync(path.join(base, 'outside', 'secret.ts'))}:1:14 (outside the workspace)`);
    assert.match(lines[3]!, /^\.env:1:1 \(may hold secrets/);
    assert.equal(lines[4], 'untitled:Untitled-1:1:1 (not a file in the workspace)');
    assert.ok(!out.content.includes('do-not-show') && !out.content.includes('TOKEN=abc'));
  });

  it('30.lsp: missing fields are a clear input error', async () => {
    const tools = createToolExecutor({ workspace: new NodeWorkspace(root), navigation: diskNavigation(() => []) });
    await assert.rejects(tools.assess('lsp', { operation: 'definition', path: 'a.ts' }), /definition needs line[\s\S]*definition needs symbol/);
    await assert.rejects(tools.assess('lsp', { operation: 'workspace_symbols' }), /workspace_symbols needs query/);
  });
});
