import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { comparePathOrder, sortRipgrepLines } from '../../../src/tools/search/grep-search';
import { listFiles, nameGlobOf } from '../../../src/tools/search/list-files';
import { NodeShell, NodeWorkspace } from '../../../src/tools/node-adapter';
import { DEFAULT_SKIP_DIRS } from '../../../src/tools/search/walk';
import { type NodeToolEnv, ctx, makeNodeEnv } from './helpers';

function tree(root: string, files: Record<string, string | Buffer>): void {
  for (const [rel, content] of Object.entries(files)) {
    const p = path.join(root, rel);
    fs.mkdirSync(path.dirname(p), { recursive: true });
    fs.writeFileSync(p, content);
  }
}

const SMALL_TREE: Record<string, string | Buffer> = {
  '.gitignore': 'build/\n*.tmp\n',
  'README.md': '# Title\nSome TODO here\n',
  'src/index.ts': 'import { a } from "./a";\n// TODO: wire\nexport const x = a + 1;\n\n\nconst todo = "later";\n',
  'src/a.ts': 'export const a = 1;\n// todo lowercase\n// TODO upper\n// TODO again\nend\n',
  'src/nested/.gitignore': '!keep.tmp\n',
  'src/nested/keep.tmp': 'TODO kept by negation\n',
  'src/nested/drop.log': 'TODO in log\n',
  'src/win.txt': 'first TODO\r\nsecond\r\n',
  'src/data.bin': Buffer.from([0x54, 0x4f, 0x44, 0x4f, 0x00, 0x01]),
  'src/x.tmp': 'TODO ignored\n',
  'build/out.js': 'TODO built\n',
  'node_modules/dep/index.js': 'TODO dep\n',
  '.hidden/conf.ts': 'TODO hidden\n',
  'docs/guide.md': 'nothing\nTODO docs\n',
};

/** Two workspaces holding the same files, one searched through rg, one through the JS engine (set up around a describe). */
function bothEngines(files: Record<string, string | Buffer>): { rg: () => NodeToolEnv; js: () => NodeToolEnv } {
  let rgEnv: NodeToolEnv;
  let jsEnv: NodeToolEnv;
  before(async () => {
    rgEnv = await makeNodeEnv({ ripgrepPath: 'rg' });
    jsEnv = await makeNodeEnv({ ripgrepPath: undefined });
    tree(rgEnv.root, files);
    tree(jsEnv.root, files);
  });
  after(async () => {
    await rgEnv.cleanup();
    await jsEnv.cleanup();
  });
  return { rg: () => rgEnv, js: () => jsEnv };
}

describe('tools: grep_search engines agree (ripgrep vs JS fallback)', () => {
  const engines = bothEngines(SMALL_TREE);

  const queries: Array<Record<string, unknown>> = [
    { pattern: 'TODO' },
    { pattern: 'TODO', output_mode: 'content' },
    { pattern: 'TODO', output_mode: 'content', '-n': false },
    { pattern: 'todo', '-i': true, output_mode: 'count' },
    { pattern: 'TODO', output_mode: 'content', '-C': 1 },
    { pattern: 'TODO', output_mode: 'content', '-A': 2, '-B': 0 },
    { pattern: 'TODO|later', output_mode: 'content', '-B': 2, path: 'src' },
    { pattern: 'TODO', glob: '*.ts', output_mode: 'content' },
    { pattern: 'TODO', glob: '!*.md' },
    { pattern: 'TODO', glob: 'src/**/*.ts' },
    { pattern: '^export const \\w+', output_mode: 'content', path: 'src/a.ts' },
    { pattern: 'TODO', output_mode: 'content', head_limit: 3 },
    { pattern: 'second$', output_mode: 'content' },
    { pattern: 'TODO', path: 'docs' },
    { pattern: 'no match anywhere' },
  ];

  for (const q of queries) {
    it(`same output for ${JSON.stringify(q)}`, async () => {
      const rg = await engines.rg().executor.execute('grep_search', q, ctx());
      const js = await engines.js().executor.execute('grep_search', q, ctx());
      assert.equal(js.content, rg.content);
      assert.equal(js.isError, rg.isError);
    });
  }

  it('finds what it should: ignores .gitignore, node_modules, binaries; includes hidden and negated files', async () => {
    const out = await engines.js().executor.execute('grep_search', { pattern: 'TODO' }, ctx());
    assert.equal(
      out.content,
      ['Found 8 files:', '.hidden/conf.ts', 'README.md', 'docs/guide.md', 'src/a.ts', 'src/index.ts', 'src/nested/drop.log', 'src/nested/keep.tmp', 'src/win.txt'].join('\n'),
    );
  });

  it('falls back to JS when the rg binary is missing', async () => {
    const env = await makeNodeEnv({ ripgrepPath: '/nonexistent/rg' });
    try {
      tree(env.root, { 'a.txt': 'hello\n' });
      const out = await env.executor.execute('grep_search', { pattern: 'hel+o', output_mode: 'content' }, ctx());
      assert.equal(out.content, 'a.txt:1:hello');
    } finally {
      await env.cleanup();
    }
  });

  it('reports an invalid regular expression as an error in both engines', async () => {
    for (const env of [engines.rg(), engines.js()]) {
      const out = await env.executor.execute('grep_search', { pattern: '(unclosed' }, ctx());
      assert.equal(out.isError, true);
    }
  });

  it('caps long output with a note', async () => {
    const env = await makeNodeEnv({ limits: { maxOutputChars: 2000 } });
    try {
      tree(env.root, { 'many.txt': Array.from({ length: 500 }, (_, i) => `match ${i}`).join('\n') });
      const out = await env.executor.execute('grep_search', { pattern: 'match', output_mode: 'content' }, ctx());
      assert.ok(out.content.length < 2300);
      assert.match(out.content, /Output cut at 2000 characters/);
    } finally {
      await env.cleanup();
    }
  });
});

describe('tools: grep_search lets ripgrep search in parallel and sorts its per-file output', () => {
  // Names whose plain string order differs from folder-by-folder order ('-' < '.' < '/'),
  // and enough files for rg's worker threads to finish out of order.
  const PATH_ORDER = ['a/z.ts', 'a-b.ts', 'a.ts', 'ab/c.ts'];
  const files: Record<string, string> = Object.fromEntries(PATH_ORDER.map((p) => [p, 'needle\n']));
  for (let d = 0; d < 20; d++) for (let f = 0; f < 20; f++) files[`m${d}/f${f}.ts`] = f % 3 === 0 ? 'needle\nneedle\n' : 'hay\n';

  const engines = bothEngines(files);

  for (const mode of ['files_with_matches', 'count'] as const) {
    it(`${mode}: the same path order as the JS engine, run after run`, async () => {
      const js = await engines.js().executor.execute('grep_search', { pattern: 'needle', output_mode: mode }, ctx());
      const listed = js.content.split('\n').filter((l) => /^[am]/.test(l)).map((l) => (mode === 'count' ? l.slice(0, l.lastIndexOf(':')) : l));
      assert.deepEqual(listed.slice(0, 4), PATH_ORDER);
      for (let run = 0; run < 5; run++) {
        const rg = await engines.rg().executor.execute('grep_search', { pattern: 'needle', output_mode: mode }, ctx());
        assert.equal(rg.content, js.content);
      }
    });
  }

  it('orders paths folder by folder and sorts count lines by their path, colons included', () => {
    assert.deepEqual([...PATH_ORDER].reverse().sort(comparePathOrder), PATH_ORDER);
    assert.equal(sortRipgrepLines('b:c.ts:2\na.ts:10\nb/x.ts:1\n', 'count'), 'a.ts:10\nb/x.ts:1\nb:c.ts:2\n');
    assert.equal(sortRipgrepLines('src/b.ts:1:x\nsrc/a.ts:1:y\n', 'content'), 'src/b.ts:1:x\nsrc/a.ts:1:y\n');
  });
});

describe('tools: glob_search engines agree (rg --files vs the JS walk)', () => {
  const engines = bothEngines({ ...SMALL_TREE, 'src/line\nbreak.ts': '', 'a b/c.ts': '' });

  // Both trees were written at different moments, so the mtime order can differ: compare the sets.
  const listed = async (env: NodeToolEnv, input: Record<string, unknown>) => (await env.executor.execute('glob_search', input, ctx())).content.split('\n').sort();
  for (const input of [
    { pattern: '**/*' },
    { pattern: '**/*.ts' },
    { pattern: '**/*.tmp' },
    { pattern: 'src/**' },
    { pattern: '*.md' },
    { pattern: '.hidden/*' },
    { pattern: 'node_modules/**/*.js' },
    { pattern: '**/*.ts', path: 'src' },
    { pattern: '**/*.{ts,md}' },
    { pattern: 'src/[a-i]*.ts' },
    { pattern: '**/.gitignore' },
    { pattern: '**/@(a|index).ts' },
    { pattern: '**/[[:alpha:]].ts' },
    { pattern: '**/keep.tmp' },
  ]) {
    it(`the same files for ${JSON.stringify(input)}`, async () => {
      assert.deepEqual(await listed(engines.rg(), input), await listed(engines.js(), input));
    });
  }

  it('lists through ripgrep when it can run it, with names relative to the start folder (a newline in a name included)', async () => {
    const calls: string[][] = [];
    const shell = new NodeShell();
    const recording = { run: shell.run.bind(shell), exec: (file: string, args: string[], options: { cwd: string }) => (calls.push([file, ...args]), shell.exec(file, args, options)) };
    const seen: string[] = [];
    const options = { skipDirs: DEFAULT_SKIP_DIRS, respectGitignore: true, ignoreRoot: engines.rg().root, symlinks: 'files' as const, maxEntries: 1000 };
    const { truncated } = await listFiles({ workspace: new NodeWorkspace(engines.rg().root), shell: recording, ripgrepPath: 'rg' }, path.join(engines.rg().root, 'src'), options, (f) => {
      seen.push(f.relative);
      assert.equal(f.absolute, path.join(engines.rg().root, 'src', f.relative));
    });
    assert.equal(calls.length, 1, 'one rg --files run');
    assert.ok(calls[0]!.includes('--files'));
    assert.equal(truncated, false);
    assert.deepEqual(seen.sort(), ['a.ts', 'data.bin', 'index.ts', 'line\nbreak.ts', 'nested/.gitignore', 'nested/drop.log', 'nested/keep.tmp', 'win.txt']);
  });

  it('hands ripgrep the last segment as a name filter only when both engines read it the same way', () => {
    assert.equal(nameGlobOf('**/*.md'), '*.md');
    assert.equal(nameGlobOf('src/**/*.{ts,tsx}'), '*.{ts,tsx}');
    assert.equal(nameGlobOf('*.md'), '*.md');
    assert.equal(nameGlobOf('src/**'), undefined);
    assert.equal(nameGlobOf('{src,lib/x}/*.ts'), '*.ts');
    assert.equal(nameGlobOf('{a,b/c}.ts'), undefined, 'a brace holding a slash');
    assert.equal(nameGlobOf('**/@(a|b).ts'), undefined, 'extglob: picomatch only');
    assert.equal(nameGlobOf('!**/*.md'), undefined);
  });

  it('keeps the entry cap: a listing longer than it is cut and says so', async () => {
    const seen: string[] = [];
    const options = { skipDirs: DEFAULT_SKIP_DIRS, respectGitignore: true, ignoreRoot: engines.rg().root, symlinks: 'files' as const, maxEntries: 3 };
    const { truncated } = await listFiles({ workspace: new NodeWorkspace(engines.rg().root), shell: new NodeShell(), ripgrepPath: 'rg' }, engines.rg().root, options, (f) => void seen.push(f.relative));
    assert.equal(truncated, true);
    assert.equal(seen.length, 3);
  });

  it('falls back to the walk when the ripgrep binary cannot run', async () => {
    const seen: string[] = [];
    const options = { skipDirs: DEFAULT_SKIP_DIRS, respectGitignore: true, ignoreRoot: engines.rg().root, symlinks: 'files' as const, maxEntries: 1000 };
    await listFiles({ workspace: new NodeWorkspace(engines.rg().root), shell: new NodeShell(), ripgrepPath: path.join(engines.rg().base, 'no-such-rg') }, path.join(engines.rg().root, 'docs'), options, (f) => void seen.push(f.relative));
    assert.deepEqual(seen, ['guide.md']);
  });
});

describe('tools: glob_search details (Node adapter)', () => {
  let env: NodeToolEnv;
  beforeEach(async () => {
    env = await makeNodeEnv();
  });
  afterEach(() => env.cleanup());
  const glob = async (input: Record<string, unknown>) => (await env.executor.execute('glob_search', input, ctx())).content;

  it('applies nested .gitignore files with negation', async () => {
    tree(env.root, SMALL_TREE);
    assert.deepEqual((await glob({ pattern: '**/*.tmp' })).split('\n'), ['src/nested/keep.tmp']);
  });

  it('walks from the literal prefix of the pattern and still applies the root .gitignore', async () => {
    tree(env.root, { '.gitignore': 'src/gen/\n', 'src/a.ts': '', 'src/gen/g.ts': '', 'src/sub/b.ts': '', 'other/c.ts': '' });
    assert.deepEqual((await glob({ pattern: 'src/**/*.ts' })).split('\n').sort(), ['src/a.ts', 'src/sub/b.ts']);
    assert.match(await glob({ pattern: 'missing/**/*.ts' }), /No files match/);
  });

  it('does not follow a symlinked folder (no escape, no cycle)', async () => {
    tree(env.root, { 'a/x.ts': '' });
    const outside = path.join(env.base, 'outside');
    tree(outside, { 'secret.ts': '' });
    fs.symlinkSync(outside, path.join(env.root, 'link'));
    fs.symlinkSync(env.root, path.join(env.root, 'a', 'loop'));
    assert.equal(await glob({ pattern: '**/*.ts' }), 'a/x.ts');
  });

  it('searches node_modules when the pattern names it, and takes an absolute pattern', async () => {
    tree(env.root, { 'node_modules/p/index.js': '', 'src/m.js': '' });
    assert.equal(await glob({ pattern: 'node_modules/**/*.js' }), 'node_modules/p/index.js');
    assert.equal(await glob({ pattern: path.join(env.root, 'src', '*.js') }), 'src/m.js');
  });

  it('hints at ** when a bare pattern finds nothing at the top level', async () => {
    tree(env.root, { 'src/m.ts': '' });
    assert.match(await glob({ pattern: '*.ts' }), /use "\*\*\/\*\.ts"/);
  });

  it('reports a search path that does not exist', async () => {
    const out = await env.executor.execute('glob_search', { pattern: '*', path: 'missing' }, ctx());
    assert.equal(out.isError, true);
    assert.match(out.content, /does not exist/);
  });
});
