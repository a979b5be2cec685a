// The behaviour every Workspace/Shell adapter pair must give the six tools.
// Setup and inspection use plain node fs on `root` and nothing else, so the
// same suite runs against the Node adapter (unit tests) and the VS Code
// adapter inside a real extension host (integration tests).
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { type ToolExecutor, ToolInputError, type ToolOutput } from '../../src/runtime/types';

export interface ToolContractEnv {
  executor: ToolExecutor;
  /** The first workspace folder, as a real (symlink-free) absolute path. */
  root: string;
  cleanup(): Promise<void>;
}

export type ContractSection = 'executor' | 'assess' | 'read_file' | 'write_file' | 'edit_file' | 'bash' | 'glob_search' | 'grep_search';

/**
 * `only` limits the suite to the sections an environment changes: an adapter
 * pair runs them all, a variant of one part (the JS grep fallback) runs only
 * its own, instead of the whole suite again on the same adapter.
 */
export function defineToolContractTests(makeEnv: () => Promise<ToolContractEnv>, only?: readonly ContractSection[]): void {
  const section = (name: ContractSection, body: () => void) => {
    if (!only || only.includes(name)) describe(name, body);
  };
  describe('tool contract', function () {
    let env: ToolContractEnv;
    let root: string;
    const signal = new AbortController().signal;

    beforeEach(async () => {
      env = await makeEnv();
      root = env.root;
    });
    afterEach(async () => {
      await env.cleanup();
    });

    const run = (name: string, input: Record<string, unknown>): Promise<ToolOutput> => env.executor.execute(name, input, { signal });
    const put = (rel: string, content: string | Buffer) => {
      const file = path.join(root, rel);
      fs.mkdirSync(path.dirname(file), { recursive: true });
      fs.writeFileSync(file, content);
      return file;
    };
    const bytes = (rel: string) => fs.readFileSync(path.join(root, rel));
    const text = (rel: string) => fs.readFileSync(path.join(root, rel), 'utf8');

    section('executor', () => {
      it('defines the built-in tools with JSON schemas naming their required inputs', () => {
        const defs = env.executor.definitions();
        const byName = new Map(defs.map((d) => [d.name, d]));
        assert.deepEqual([...byName.keys()].sort(), ['bash', 'edit_file', 'glob_search', 'grep_search', 'read_file', 'todo_write', 'web_fetch', 'write_file']);
        const required = (name: string) => (byName.get(name)!.input_schema as { required?: string[] }).required ?? [];
        assert.deepEqual(required('read_file'), ['path']);
        assert.deepEqual(required('write_file').sort(), ['content', 'path']);
        assert.deepEqual(required('edit_file').sort(), ['new_string', 'old_string', 'path']);
        assert.deepEqual(required('bash'), ['command']);
        assert.deepEqual(required('todo_write'), ['todos']);
        assert.deepEqual(required('glob_search'), ['pattern']);
        assert.deepEqual(required('grep_search'), ['pattern']);
        assert.deepEqual(required('web_fetch'), ['url']);
        const grepProps = Object.keys((byName.get('grep_search')!.input_schema as { properties: object }).properties);
        for (const p of ['path', 'glob', 'output_mode', '-i', '-n', '-A', '-B', '-C', 'head_limit']) assert.ok(grepProps.includes(p), p);
        for (const d of defs) {
          assert.equal(d.input_schema.type, 'object');
          assert.ok(d.description.length > 80, `${d.name} has a real description`);
        }
      });

      it('says which tools are read-only and returns undefined for an unknown tool', () => {
        assert.equal(env.executor.isReadOnly('read_file'), true);
        assert.equal(env.executor.isReadOnly('glob_search'), true);
        assert.equal(env.executor.isReadOnly('grep_search'), true);
        assert.equal(env.executor.isReadOnly('write_file'), false);
        assert.equal(env.executor.isReadOnly('edit_file'), false);
        assert.equal(env.executor.isReadOnly('bash'), false);
        assert.equal(env.executor.isReadOnly('rm_rf'), undefined);
      });

      it('rejects bad input with a ToolInputError that names the field', async () => {
        await assert.rejects(env.executor.assess('read_file', { path: 42 }), (e: unknown) => e instanceof ToolInputError && /path/.test(e.message));
        await assert.rejects(env.executor.assess('edit_file', { path: 'a' }), (e: unknown) => e instanceof ToolInputError && /old_string/.test(e.message));
        await assert.rejects(env.executor.execute('bash', { command: 'true', timeout: 900_000 }, { signal }), ToolInputError);
        await assert.rejects(env.executor.assess('nope', {}), ToolInputError);
      });
    });

    section('assess', () => {
      it('describes the permission need and the subject of each tool', async () => {
        assert.deepEqual(await env.executor.assess('read_file', { path: 'src/a.ts' }), { need: 'read', subject: 'src/a.ts' });
        assert.deepEqual(await env.executor.assess('write_file', { path: path.join(root, 'b.txt'), content: '' }), { need: 'edit', subject: 'b.txt' });
        assert.deepEqual(await env.executor.assess('edit_file', { path: './src/../c.txt', old_string: 'a', new_string: 'b' }), { need: 'edit', subject: 'c.txt' });
        const { need, subject, shell } = await env.executor.assess('bash', { command: 'git status' });
        assert.deepEqual({ need, subject }, { need: 'command', subject: 'git status' });
        assert.deepEqual(shell?.commands.map((c) => c.words), [['git', 'status']], 'the command comes with its syntax-tree analysis');
        assert.deepEqual(await env.executor.assess('glob_search', { pattern: '**/*.ts' }), { need: 'read', subject: '**/*.ts' });
        assert.deepEqual(await env.executor.assess('grep_search', { pattern: 'TODO', path: 'src' }), { need: 'read', subject: 'TODO' });
      });

      it('reports paths outside the workspace through .. and absolute paths', async () => {
        const up = await env.executor.assess('read_file', { path: '../outside.txt' });
        assert.deepEqual(up.outsideWorkspace, [path.join(path.dirname(root), 'outside.txt')]);
        const abs = await env.executor.assess('write_file', { path: '/etc/hosts', content: 'x' });
        assert.ok(abs.outsideWorkspace?.[0]?.endsWith('hosts'));
        const search = await env.executor.assess('grep_search', { pattern: 'x', path: '..' });
        assert.deepEqual(search.outsideWorkspace, [path.dirname(root)]);
        const inside = await env.executor.assess('read_file', { path: 'sub/../file.txt' });
        assert.equal(inside.outsideWorkspace, undefined);
      });

      it('marks sensitive paths inside the workspace for writes, and secret files for reads too', async () => {
        for (const p of ['.git/config', '.git/hooks/pre-commit', '.vscode/settings.json', '.vscode/tasks.json', '.env', '.env.local', 'pkg/.env.production', '.turnstone/hooks.json']) {
          const a = await env.executor.assess('write_file', { path: p, content: '' });
          assert.ok(a.sensitive, `${p} is sensitive`);
          assert.equal(a.outsideWorkspace, undefined);
        }
        for (const p of ['src/env.ts', '.vscode/notes.md', 'README.md', '.gitignore']) {
          assert.equal((await env.executor.assess('write_file', { path: p, content: '' })).sensitive, undefined, p);
        }
        // Reads: only files that may hold secrets (issue 21), not repository internals; a repository's git config is
        // one (issue 42: actions/checkout leaves the job's token there).
        for (const p of ['.env', 'pkg/.env.local', 'certs/server.pem', 'deploy.key', 'id_rsa', 'id_ed25519.pub', '.npmrc', '.netrc', '.pypirc', 'gcp-credentials.json', '.git/config', '.git-credentials']) {
          assert.match((await env.executor.assess('read_file', { path: p })).sensitive ?? '', /may hold secrets/, p);
        }
        for (const p of ['.env.example', '.env.sample', '.env.template', '.git/HEAD', 'src/env.ts', 'keys.ts']) {
          assert.equal((await env.executor.assess('read_file', { path: p })).sensitive, undefined, p);
        }
      });
    });

    section('read_file', () => {
      it('returns cat -n style numbered lines', async () => {
        put('a.txt', 'alpha\nbeta\n\ngamma\n');
        const out = await run('read_file', { path: 'a.txt' });
        assert.equal(out.isError, false);
        assert.equal(out.content, '     1\talpha\n     2\tbeta\n     3\t\n     4\tgamma');
      });

      it('pages with a 0-based offset and a limit, and says where to continue', async () => {
        put('n.txt', Array.from({ length: 50 }, (_, i) => `line ${i + 1}`).join('\n'));
        const out = await run('read_file', { path: 'n.txt', offset: 10, limit: 5 });
        const lines = out.content.split('\n');
        assert.equal(lines[0], '    11\tline 11');
        assert.equal(lines[4], '    15\tline 15');
        assert.match(out.content, /lines 11-15 of 50/);
        assert.match(out.content, /offset=15/);
        const past = await run('read_file', { path: 'n.txt', offset: 50 });
        assert.equal(past.isError, true);
        assert.match(past.content, /50 lines/);
      });

      it('stops at the default line limit of 2000', async () => {
        put('big.txt', Array.from({ length: 2500 }, (_, i) => `${i}`).join('\n'));
        const out = await run('read_file', { path: 'big.txt' });
        assert.match(out.content, / {2}2000\t1999\n/);
        assert.doesNotMatch(out.content, / {2}2001\t/);
        assert.match(out.content, /offset=2000/);
      });

      it('shows CRLF files without carriage returns and keeps multi-byte text intact', async () => {
        put('w.txt', 'héllo wörld ✓\r\n日本語\r\n');
        const out = await run('read_file', { path: 'w.txt' });
        assert.equal(out.content, '     1\théllo wörld ✓\n     2\t日本語');
      });

      it('decodes UTF-16 files with a BOM and says so', async () => {
        put('u16.txt', Buffer.concat([Buffer.from([0xff, 0xfe]), Buffer.from('hello\nwörld\n', 'utf16le')]));
        const out = await run('read_file', { path: 'u16.txt' });
        assert.match(out.content, /^ {5}1\thello\n {5}2\twörld/);
        assert.match(out.content, /UTF-16LE/);
      });

      it('refuses binary files with a clear message', async () => {
        put('img.bin', Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x00, 0x01, 0x02, 0x00, 0xff]));
        const out = await run('read_file', { path: 'img.bin' });
        assert.equal(out.isError, true);
        assert.match(out.content, /binary/);
      });

      it('explains a missing file and a directory', async () => {
        const missing = await run('read_file', { path: 'nope.txt' });
        assert.equal(missing.isError, true);
        assert.match(missing.content, /does not exist/);
        fs.mkdirSync(path.join(root, 'dir'));
        const dir = await run('read_file', { path: 'dir' });
        assert.equal(dir.isError, true);
        assert.match(dir.content, /directory/);
      });
    });

    section('write_file', () => {
      it('creates a new file and its parent folders, and reports the change', async () => {
        const out = await run('write_file', { path: 'deep/er/new.txt', content: 'one\ntwo\n' });
        assert.equal(out.isError, false);
        assert.match(out.content, /Created deep\/er\/new\.txt/);
        assert.equal(text('deep/er/new.txt'), 'one\ntwo\n');
        assert.deepEqual(out.fileChange, { path: path.join(root, 'deep/er/new.txt'), before: null, after: 'one\ntwo\n' });
      });

      it('refuses to overwrite a file it never read, leaving it unchanged', async () => {
        put('keep.txt', 'precious\n');
        const out = await run('write_file', { path: 'keep.txt', content: 'gone' });
        assert.equal(out.isError, true);
        assert.match(out.content, /read_file/);
        assert.equal(text('keep.txt'), 'precious\n');
      });

      it('overwrites a file after reading it, and refuses when it changed on disk since', async () => {
        put('s.txt', 'v1\n');
        await run('read_file', { path: 's.txt' });
        const ok = await run('write_file', { path: 's.txt', content: 'v2\n' });
        assert.equal(ok.isError, false, ok.content);
        assert.equal(text('s.txt'), 'v2\n');
        assert.deepEqual(ok.fileChange, { path: path.join(root, 's.txt'), before: 'v1\n', after: 'v2\n' });
        // Its own write counts as known content: writing again is fine.
        assert.equal((await run('write_file', { path: 's.txt', content: 'v3\n' })).isError, false);
        fs.writeFileSync(path.join(root, 's.txt'), 'changed by the user\n');
        const stale = await run('write_file', { path: 's.txt', content: 'v4\n' });
        assert.equal(stale.isError, true);
        assert.match(stale.content, /changed on disk/);
        assert.equal(text('s.txt'), 'changed by the user\n');
      });

      it('keeps CRLF line endings of an existing file', async () => {
        put('win.txt', 'a\r\nb\r\n');
        await run('read_file', { path: 'win.txt' });
        const out = await run('write_file', { path: 'win.txt', content: 'x\ny\nz\n' });
        assert.equal(out.isError, false);
        assert.equal(text('win.txt'), 'x\r\ny\r\nz\r\n');
      });

      it('previews the change without writing', async () => {
        put('p.txt', 'old\n');
        await run('read_file', { path: 'p.txt' });
        const change = await env.executor.preview?.('write_file', { path: 'p.txt', content: 'new\n' });
        assert.deepEqual(change, { path: path.join(root, 'p.txt'), before: 'old\n', after: 'new\n' });
        assert.equal(text('p.txt'), 'old\n');
      });
    });

    section('edit_file', () => {
      const source = 'function add(a, b) {\n  return a + b;\n}\n\nfunction sub(a, b) {\n  return a - b;\n}\n';

      it('replaces a unique string and shows a unified diff and the changed lines', async () => {
        put('m.js', source);
        const out = await run('edit_file', { path: 'm.js', old_string: '  return a - b;', new_string: '  const d = a - b;\n  return d;' });
        assert.equal(out.isError, false, out.content);
        assert.equal(text('m.js'), source.replace('  return a - b;', '  const d = a - b;\n  return d;'));
        assert.match(out.content, /lines 6-7/);
        assert.match(out.content, /@@ -3,5 \+3,6 @@/);
        assert.match(out.content, /^- {2}return a - b;$/m);
        assert.match(out.content, /^\+ {2}const d = a - b;$/m);
        assert.equal(out.fileChange?.before, source);
        assert.equal(out.fileChange?.after, text('m.js'));
      });

      it('refuses an ambiguous match and leaves the file byte for byte unchanged', async () => {
        put('m.js', source);
        const before = bytes('m.js');
        const out = await run('edit_file', { path: 'm.js', old_string: '(a, b) {', new_string: '(x, y) {' });
        assert.equal(out.isError, true);
        assert.match(out.content, /2 times/);
        assert.match(out.content, /lines 1, 5/);
        assert.ok(bytes('m.js').equals(before));
      });

      it('replaces every occurrence with replace_all', async () => {
        put('m.js', source);
        const out = await run('edit_file', { path: 'm.js', old_string: '(a, b)', new_string: '(x, y)', replace_all: true });
        assert.equal(out.isError, false);
        assert.match(out.content, /2 occurrences/);
        assert.equal(text('m.js').match(/\(x, y\)/g)?.length, 2);
      });

      it('names the closest lines when nothing matches, leaving the file unchanged', async () => {
        put('m.js', source);
        const before = bytes('m.js');
        const out = await run('edit_file', { path: 'm.js', old_string: 'return  a+b;', new_string: 'return 0;' });
        assert.equal(out.isError, true);
        assert.match(out.content, /not found/);
        assert.match(out.content, /Lines? 2/);
        assert.match(out.content, /return a \+ b;/);
        assert.ok(bytes('m.js').equals(before));
      });

      it('treats identical old and new strings as an error', async () => {
        put('m.js', source);
        const out = await run('edit_file', { path: 'm.js', old_string: 'add', new_string: 'add' });
        assert.equal(out.isError, true);
        assert.match(out.content, /identical/);
      });

      it('edits a CRLF file with \\n in old_string and keeps CRLF', async () => {
        put('w.txt', 'one\r\ntwo\r\nthree\r\n');
        const out = await run('edit_file', { path: 'w.txt', old_string: 'one\ntwo\n', new_string: 'uno\ndos\n' });
        assert.equal(out.isError, false, out.content);
        assert.ok(bytes('w.txt').equals(Buffer.from('uno\r\ndos\r\nthree\r\n')));
      });

      it('edits multi-byte text and keeps a UTF-8 BOM', async () => {
        const bom = Buffer.from([0xef, 0xbb, 0xbf]);
        put('u.txt', Buffer.concat([bom, Buffer.from('naïve café — 日本\n絵文字 😀 end\n')]));
        const out = await run('edit_file', { path: 'u.txt', old_string: '😀 end', new_string: '🎉 fin' });
        assert.equal(out.isError, false, out.content);
        assert.ok(bytes('u.txt').equals(Buffer.concat([bom, Buffer.from('naïve café — 日本\n絵文字 🎉 fin\n')])));
      });

      it('refuses an edit to a file changed on disk after it was read', async () => {
        put('r.txt', 'alpha\nbeta\n');
        await run('read_file', { path: 'r.txt' });
        fs.writeFileSync(path.join(root, 'r.txt'), 'alpha\nbeta\ngamma\n');
        const out = await run('edit_file', { path: 'r.txt', old_string: 'beta', new_string: 'BETA' });
        assert.equal(out.isError, true);
        assert.match(out.content, /changed on disk/);
        assert.equal(text('r.txt'), 'alpha\nbeta\ngamma\n');
      });

      it('previews the edit for the permission dialog', async () => {
        put('m.js', source);
        const change = await env.executor.preview?.('edit_file', { path: 'm.js', old_string: 'a + b', new_string: 'b + a' });
        assert.equal(change?.after, source.replace('a + b', 'b + a'));
        assert.equal(text('m.js'), source);
      });
    });

    section('bash', () => {
      it('returns the output and the exit code, and a non-zero exit is an error', async () => {
        const out = await run('bash', { command: 'echo hi; exit 3' });
        assert.equal(out.isError, true);
        assert.match(out.content, /^hi$/m);
        assert.match(out.content, /Exit code: 3/);
        const ok = await run('bash', { command: 'echo fine' });
        assert.equal(ok.isError, false);
        assert.match(ok.content, /fine/);
        assert.match(ok.content, /Exit code: 0/);
      });

      it('runs in the workspace root with a non-interactive pager', async () => {
        const out = await run('bash', { command: 'pwd -P; echo "pager=$PAGER git=$GIT_PAGER"' });
        assert.match(out.content, new RegExp(`^${root.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}$`, 'm'));
        assert.match(out.content, /pager=cat git=cat/);
      });

      it('streams output as progress', async () => {
        const chunks: string[] = [];
        await env.executor.execute('bash', { command: 'echo one; echo two' }, { signal, onProgress: (c) => chunks.push(c) });
        assert.match(chunks.join(''), /one[\s\S]*two/);
      });
    });

    section('glob_search', () => {
      it('matches globs, respects .gitignore and skips node_modules and .git', async () => {
        put('.gitignore', 'dist/\n*.log\n');
        put('src/a.ts', '');
        put('src/deep/b.ts', '');
        put('src/c.js', '');
        put('dist/out.ts', '');
        put('debug.log', '');
        put('node_modules/pkg/index.ts', '');
        put('.git/x.ts', '');
        const out = await run('glob_search', { pattern: '**/*.ts' });
        assert.deepEqual(out.content.split('\n').sort(), ['src/a.ts', 'src/deep/b.ts']);
        const inSrc = await run('glob_search', { pattern: '*.ts', path: 'src' });
        assert.deepEqual(inSrc.content.split('\n'), ['src/a.ts']);
      });

      it('sorts newest first and caps the list with the count left out', async () => {
        for (let i = 0; i < 120; i++) {
          const f = put(`f/${String(i).padStart(3, '0')}.txt`, '');
          const t = new Date(Date.UTC(2024, 0, 1, 0, 0, i));
          fs.utimesSync(f, t, t);
        }
        const out = await run('glob_search', { pattern: 'f/*.txt' });
        const lines = out.content.split('\n');
        assert.equal(lines[0], 'f/119.txt');
        assert.equal(lines[99], 'f/020.txt');
        assert.match(lines[100]!, /20 more/);
      });

      it('says when nothing matches', async () => {
        const out = await run('glob_search', { pattern: '*.nothing' });
        assert.equal(out.isError, false);
        assert.match(out.content, /No files match/);
      });
    });

    section('grep_search', () => {
      beforeEach(() => {
        put('src/a.txt', 'alpha\nbeta foo\ngamma\ndelta\neps\nzeta foo\neta\n');
        put('src/sub/b.txt', 'Foo\nbar\n');
        put('c.md', 'foo in markdown\n');
        put('node_modules/x/foo.txt', 'foo\n');
        put('.gitignore', 'ignored/\n');
        put('ignored/foo.txt', 'foo\n');
      });

      it('lists files with matches by default', async () => {
        const out = await run('grep_search', { pattern: 'foo' });
        assert.equal(out.content, 'Found 2 files:\nc.md\nsrc/a.txt');
      });

      it('shows content with line numbers and context separated by --', async () => {
        const out = await run('grep_search', { pattern: 'foo', path: 'src', output_mode: 'content', '-C': 1 });
        assert.equal(
          out.content,
          ['src/a.txt-1-alpha', 'src/a.txt:2:beta foo', 'src/a.txt-3-gamma', '--', 'src/a.txt-5-eps', 'src/a.txt:6:zeta foo', 'src/a.txt-7-eta'].join('\n'),
        );
      });

      it('supports -i, glob, count and head_limit', async () => {
        const counted = await run('grep_search', { pattern: 'foo', output_mode: 'count', '-i': true, path: 'src' });
        assert.equal(counted.content, 'src/a.txt:2\nsrc/sub/b.txt:1');
        const md = await run('grep_search', { pattern: 'foo', glob: '*.md', output_mode: 'content' });
        assert.equal(md.content, 'c.md:1:foo in markdown');
        const limited = await run('grep_search', { pattern: 'a', output_mode: 'content', path: 'src/a.txt', head_limit: 2 });
        assert.match(limited.content, /^src\/a\.txt:1:alpha\nsrc\/a\.txt:2:beta foo\n\n\[Showing the first 2 of/);
      });

      it('says when nothing matches', async () => {
        const out = await run('grep_search', { pattern: 'no such text' });
        assert.equal(out.content, 'No matches found.');
        assert.equal(out.isError, false);
      });
    });
  });
}
