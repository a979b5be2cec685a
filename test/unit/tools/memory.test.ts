// Issue 46, the memory tool (contracts.md "Memory"): Anthropic's memory_20250818 commands over `/memories`,
// kept in a folder of Turnstone's own; every refusal (a path out, a link out, a secret, a size) writes nothing.
// The turn factory adds it when turnstone.memory.enabled is on, says so in the prompt, and it never asks.
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import manifest from '../../../package.json';
import { parseSettingsObject, type SettingSchema } from '../../../src/agent/settings';
import { createTurnContext } from '../../../src/agent/turn-context';
import { MEMORY_GUIDANCE } from '../../../src/runtime/context/system-prompt';
import { PermissionPolicy } from '../../../src/runtime/policy/permissions';
import { findSecret } from '../../../src/runtime/policy/secret-text';
import { type ToolExecutor } from '../../../src/runtime/types';
import { NodeWorkspace } from '../../../src/tools/node-adapter';
import { userDataDir } from '../../../src/tools/os/private-dir';
import { createToolExecutor } from '../../../src/tools/registry';
import { memoryDirFor, workspaceMemoryDir } from '../../../src/tools/memory/memory-dir';
import { MemoryStore } from '../../../src/tools/memory/memory-store';
import { memoryListing, withMemoryTool } from '../../../src/tools/memory/memory-tool';
import { toolViewFromInput } from '../../../src/webview/tool-view';
import { ToolView } from '../../../src/webview/protocol';
import { ScriptedModel } from '../runtime/fakes';

const schema = manifest.contributes.configuration.properties as Record<string, SettingSchema>;
const ctx = () => ({ signal: new AbortController().signal });

/** Every file under `dir`, relative, with its text: what a refusal must leave unchanged. */
function snapshot(dir: string): Record<string, string> {
  const out: Record<string, string> = {};
  const walk = (d: string) => {
    for (const e of fs.existsSync(d) ? fs.readdirSync(d, { withFileTypes: true }) : []) {
      const abs = path.join(d, e.name);
      if (e.isDirectory()) walk(abs);
      else if (e.isFile()) out[path.relative(dir, abs)] = fs.readFileSync(abs, 'utf8');
    }
  };
  walk(dir);
  return out;
}

describe('issue 46 memory: the memory tool', () => {
  let tmp: string;
  let dir: string;
  let ws: string;
  let tools: ToolExecutor;
  const run = (input: Record<string, unknown>) => tools.execute('memory', input, ctx());

  beforeEach(() => {
    tmp = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), 'turnstone-memory-')));
    dir = path.join(tmp, 'data', 'memory', 'ws1');
    ws = path.join(tmp, 'ws');
    fs.mkdirSync(ws);
    tools = withMemoryTool(createToolExecutor({ workspace: new NodeWorkspace(ws) }, { outputDir: path.join(tmp, 'out') }), dir);
  });
  afterEach(() => fs.rmSync(tmp, { recursive: true, force: true }));

  it('issue 46 memory: is offered beside the built-in tools with the contract input names, read-only and asked about as a read', async () => {
    const def = tools.definitions().find((d) => d.name === 'memory');
    assert.ok(def, 'offered');
    const props = Object.keys((def.input_schema as { properties: Record<string, unknown> }).properties).sort();
    assert.deepEqual(props, ['command', 'file_text', 'insert_line', 'insert_text', 'new_path', 'new_str', 'old_path', 'old_str', 'path', 'view_range']);
    assert.deepEqual((def.input_schema as { required?: string[] }).required, ['command']);
    assert.equal(tools.isReadOnly('memory'), true);
    assert.deepEqual(await tools.assess('memory', { command: 'create', path: '/memories/a.md', file_text: 'x' }), { need: 'read', subject: '/memories/a.md' });
    // Never asks, never blocked in plan mode (it is Turnstone's own store, not the project).
    for (const mode of ['plan', 'ask', 'acceptEdits'] as const) {
      const outcome = new PermissionPolicy(mode).decide({ toolName: 'memory', readOnly: true, assessment: await tools.assess('memory', { command: 'str_replace', path: '/memories/a.md', old_str: 'a', new_str: 'b' }) });
      assert.equal(outcome.kind, 'allow', mode);
    }
    // A user's deny rule still turns it off.
    assert.equal(new PermissionPolicy('ask', { deny: ['memory'] }).decide({ toolName: 'memory', readOnly: true, assessment: { need: 'read', subject: '/memories' } }).kind, 'deny');
    // A command's own inputs are required.
    await assert.rejects(run({ command: 'create', path: '/memories/a.md' }), /memory create needs `file_text`/);
    await assert.rejects(run({ command: 'rename', old_path: '/memories/a.md' }), /needs `new_path`/);
  });

  it('issue 46 memory: view, create, str_replace, insert, rename and delete with Anthropic\'s result texts; files 0600 in a 0700 folder', async () => {
    const empty = await run({ command: 'view', path: '/memories' });
    assert.equal(empty.isError, false);
    assert.equal(empty.content, "Here're the files and directories up to 2 levels deep in /memories, excluding hidden items and node_modules:\n0B\t/memories");
    assert.ok(!fs.existsSync(dir), 'a view makes nothing');

    assert.equal((await run({ command: 'create', path: '/memories/project.md', file_text: '# Project\nBuild: npm run build\nTest: npm test\n' })).content, 'File created successfully at: /memories/project.md');
    assert.equal(fs.statSync(dir).mode & 0o777, 0o700);
    assert.equal(fs.statSync(path.join(dir, 'project.md')).mode & 0o777, 0o600);
    assert.equal(fs.readFileSync(path.join(dir, 'project.md'), 'utf8'), '# Project\nBuild: npm run build\nTest: npm test\n');
    const again = await run({ command: 'create', path: '/memories/project.md', file_text: 'other' });
    assert.equal(again.isError, true);
    assert.match(again.content, /File \/memories\/project\.md already exists/);

    const file = await run({ command: 'view', path: '/memories/project.md' });
    assert.equal(file.content, "Here's the content of /memories/project.md with line numbers:\n     1\t# Project\n     2\tBuild: npm run build\n     3\tTest: npm test\n     4\t");
    const range = await run({ command: 'view', path: '/memories/project.md', view_range: [2, 3] });
    assert.equal(range.content, "Here's the content of /memories/project.md with line numbers:\n     2\tBuild: npm run build\n     3\tTest: npm test");
    assert.equal((await run({ command: 'view', path: '/memories/project.md', view_range: [3, -1] })).content.split('\n').length, 3);
    const badRange = await run({ command: 'view', path: '/memories/project.md', view_range: [9, 10] });
    assert.equal(badRange.isError, true);
    assert.match(badRange.content, /Invalid `view_range`/);

    const replaced = await run({ command: 'str_replace', path: '/memories/project.md', old_str: 'npm test', new_str: 'npm run test:quick' });
    assert.equal(replaced.isError, false);
    assert.match(replaced.content, /^The memory file has been edited\. Here is the snippet showing the change \(with line numbers\):\n/);
    assert.match(replaced.content, / {5}3\tTest: npm run test:quick/);
    const missing = await run({ command: 'str_replace', path: '/memories/project.md', old_str: 'yarn', new_str: 'x' });
    assert.equal(missing.content, 'No replacement was performed, old_str `yarn` did not appear verbatim in /memories/project.md.');
    const twice = await run({ command: 'str_replace', path: '/memories/project.md', old_str: 'npm run', new_str: 'x' });
    assert.equal(twice.content, 'No replacement was performed. Multiple occurrences of old_str `npm run` in lines: 2, 3. Please ensure it is unique');

    assert.equal((await run({ command: 'insert', path: '/memories/project.md', insert_line: 1, insert_text: 'Node 22.\n' })).content, 'The file /memories/project.md has been edited.');
    assert.equal(fs.readFileSync(path.join(dir, 'project.md'), 'utf8'), '# Project\nNode 22.\nBuild: npm run build\nTest: npm run test:quick\n');
    const badLine = await run({ command: 'insert', path: '/memories/project.md', insert_line: 99, insert_text: 'x' });
    assert.equal(badLine.content, 'Invalid `insert_line` parameter: 99. It should be within the range of lines of the file: [0, 5]');

    await run({ command: 'create', path: '/memories/topics/deploy.md', file_text: 'Deploy on Fridays? No.' });
    const listing = await run({ command: 'view', path: '/memories/' });
    const size = fs.statSync(path.join(dir, 'project.md')).size;
    assert.equal(
      listing.content,
      `Here're the files and directories up to 2 levels deep in /memories, excluding hidden items and node_modules:\n${size + 22}B\t/memories\n${size}B\t/memories/project.md\n22B\t/memories/topics/\n22B\t/memories/topics/deploy.md`,
    );

    assert.equal((await run({ command: 'rename', old_path: '/memories/topics', new_path: '/memories/ops' })).content, 'Successfully renamed /memories/topics to /memories/ops');
    assert.ok(fs.existsSync(path.join(dir, 'ops', 'deploy.md')));
    const clash = await run({ command: 'rename', old_path: '/memories/ops/deploy.md', new_path: '/memories/project.md' });
    assert.equal(clash.content, 'The destination /memories/project.md already exists.');
    assert.equal((await run({ command: 'delete', path: '/memories/ops' })).content, 'Successfully deleted /memories/ops');
    assert.ok(!fs.existsSync(path.join(dir, 'ops')));
    assert.equal((await run({ command: 'delete', path: '/memories/ops' })).content, 'The path /memories/ops does not exist.');
    assert.match((await run({ command: 'delete', path: '/memories' })).content, /Cannot delete the \/memories directory itself/);
    assert.equal((await run({ command: 'view', path: '/memories/nope.md' })).content, 'The path /memories/nope.md does not exist. Please provide a valid path.');
    assert.deepEqual(fs.readdirSync(dir), ['project.md'], 'no temp files left behind');
    assert.equal(await memoryListing(dir), `1 memory file in ${dir}:\n- project.md (${size}B)\n`);
  });

  it('issue 46 memory: paths out of /memories are refused (another root, .., hidden names) and write nothing', async () => {
    await run({ command: 'create', path: '/memories/a.md', file_text: 'a' });
    const before = snapshot(tmp);
    const cases: Record<string, unknown>[] = [
      { command: 'create', path: '/etc/passwd', file_text: 'x' },
      { command: 'create', path: 'notes.md', file_text: 'x' },
      { command: 'create', path: '/memories/../escape.md', file_text: 'x' },
      { command: 'create', path: '/memories/sub/../../escape.md', file_text: 'x' },
      { command: 'create', path: '/memoriesX/a.md', file_text: 'x' },
      { command: 'view', path: '/memories/..' },
      { command: 'rename', old_path: '/memories/a.md', new_path: '/memories/../../a.md' },
      { command: 'rename', old_path: `${dir}/a.md`, new_path: '/memories/b.md' },
      { command: 'delete', path: '/memories/..' },
      { command: 'create', path: '/memories/.hidden', file_text: 'x' },
      { command: 'create', path: '/memories/a\\..\\..\\b.md', file_text: 'x' },
    ];
    for (const input of cases) {
      const out = await run(input);
      assert.equal(out.isError, true, JSON.stringify(input));
      assert.match(out.content, /outside the memory directory|would leave \/memories|hidden item|backslash/, JSON.stringify(input));
    }
    assert.deepEqual(snapshot(tmp), before);
  });

  it('issue 46 memory: a link in the folder that leads out is never followed (read, write, create through it, rename)', async () => {
    await run({ command: 'create', path: '/memories/a.md', file_text: 'a' });
    const outside = path.join(tmp, 'outside');
    fs.mkdirSync(outside);
    fs.writeFileSync(path.join(outside, 'secret.txt'), 'OUTSIDE-TEXT\n');
    fs.symlinkSync(outside, path.join(dir, 'linkdir'));
    fs.symlinkSync(path.join(outside, 'secret.txt'), path.join(dir, 'link.md'));
    fs.symlinkSync(path.join(outside, 'not-yet.txt'), path.join(dir, 'dangling.md'));
    const before = snapshot(outside);
    const cases: Record<string, unknown>[] = [
      { command: 'view', path: '/memories/link.md' },
      { command: 'view', path: '/memories/linkdir' },
      { command: 'view', path: '/memories/linkdir/secret.txt' },
      { command: 'str_replace', path: '/memories/link.md', old_str: 'OUTSIDE', new_str: 'x' },
      { command: 'insert', path: '/memories/link.md', insert_line: 0, insert_text: 'x' },
      { command: 'create', path: '/memories/linkdir/new.md', file_text: 'x' },
      { command: 'create', path: '/memories/dangling.md', file_text: 'x' },
      { command: 'rename', old_path: '/memories/a.md', new_path: '/memories/linkdir/a.md' },
      { command: 'delete', path: '/memories/linkdir/secret.txt' },
    ];
    for (const input of cases) {
      const out = await run(input);
      assert.equal(out.isError, true, JSON.stringify(input));
      assert.match(out.content, /leads out of the memory directory through a link/, JSON.stringify(input));
      assert.ok(!out.content.includes('OUTSIDE-TEXT'));
    }
    assert.deepEqual(snapshot(outside), before, 'nothing outside changed');
    // The folder listing skips what leads out; deleting the link removes the link only.
    assert.ok(!(await run({ command: 'view', path: '/memories' })).content.includes('secret.txt'));
    assert.equal((await run({ command: 'delete', path: '/memories/link.md' })).isError, false);
    assert.ok(fs.existsSync(path.join(outside, 'secret.txt')));
    // A memory folder that is itself a link (the user's choice of place) is used where it leads.
    const real = path.join(tmp, 'real-memory');
    fs.mkdirSync(real);
    fs.symlinkSync(real, path.join(tmp, 'linked-memory'));
    const viaLink = withMemoryTool(createToolExecutor({ workspace: new NodeWorkspace(ws) }), path.join(tmp, 'linked-memory'));
    assert.equal((await viaLink.execute('memory', { command: 'create', path: '/memories/n.md', file_text: 'n' }, ctx())).isError, false);
    assert.ok(fs.existsSync(path.join(real, 'n.md')));
  });

  it('issue 46 memory: text that looks like a credential is refused by create, str_replace and insert, and nothing is written', async () => {
    await run({ command: 'create', path: '/memories/a.md', file_text: 'Deploy key lives in 1Password.\n' });
    const before = snapshot(dir);
    const secrets = [
      'key: sk-ant-api03-AbCdEfGhIjKlMnOpQrStUvWxYz0123456789',
      'ghp_0123456789abcdefghijABCDEFGHIJ0123456789',
      'AKIAIOSFODNN7EXAMPLE',
      '-----BEGIN OPENSSH PRIVATE KEY-----\nb3BlbnNzaC1rZXktdjEAAAAA\n-----END OPENSSH PRIVATE KEY-----',
      'DATABASE_PASSWORD=s3cr3t-Pa55word',
      'postgres://app:hunter22@db.internal:5432/app',
    ];
    for (const text of secrets) {
      for (const input of [
        { command: 'create', path: '/memories/b.md', file_text: text },
        { command: 'str_replace', path: '/memories/a.md', old_str: '1Password', new_str: text },
        { command: 'insert', path: '/memories/a.md', insert_line: 0, insert_text: text },
      ]) {
        const out = await run(input);
        assert.equal(out.isError, true, `${input.command}: ${text}`);
        assert.match(out.content, /^Not written: .* looks like it holds .*never store credentials/s, text);
        assert.ok(!out.content.includes(text.slice(0, 20)) || text.length < 20, 'the secret is not echoed back');
      }
    }
    assert.deepEqual(snapshot(dir), before);
    // Talking about credentials is fine; placeholders are not secrets.
    for (const harmless of ['The API key is read from ANTHROPIC_API_KEY.', 'API_KEY=<your key>', 'TOKEN=${GITHUB_TOKEN}', 'password: ***', 'Use `sk-ant-…` keys.', 'max_tokens: 4096']) {
      assert.equal(findSecret(harmless), undefined, harmless);
    }
  });

  it('issue 46 memory: 100 KB a file and 200 files; binary files are not read as text', async () => {
    const big = 'x'.repeat(100 * 1024 + 1);
    const tooBig = await run({ command: 'create', path: '/memories/big.md', file_text: big });
    assert.equal(tooBig.isError, true);
    assert.match(tooBig.content, /more than the 100K a memory file may hold/);
    assert.ok(!fs.existsSync(path.join(dir, 'big.md')));
    await run({ command: 'create', path: '/memories/grow.md', file_text: 'x'.repeat(100 * 1024 - 2) });
    const grown = await run({ command: 'insert', path: '/memories/grow.md', insert_line: 0, insert_text: 'more text' });
    assert.equal(grown.isError, true);
    assert.equal(fs.statSync(path.join(dir, 'grow.md')).size, 100 * 1024 - 2);

    const small = withMemoryTool(createToolExecutor({ workspace: new NodeWorkspace(ws) }), dir);
    const store = new MemoryStore(path.join(tmp, 'few'), { maxFileBytes: 1024, maxFiles: 3 });
    for (const n of [1, 2, 3]) await store.create(`/memories/n${n}.md`, 'n');
    await assert.rejects(store.create('/memories/n4.md', 'n'), /already holds 3 files, the most it may/);
    assert.deepEqual(fs.readdirSync(path.join(tmp, 'few')).sort(), ['n1.md', 'n2.md', 'n3.md']);
    fs.writeFileSync(path.join(dir, 'blob.bin'), Buffer.from([0x89, 0x50, 0x00, 0x01]));
    const binary = await small.execute('memory', { command: 'view', path: '/memories/blob.bin' }, ctx());
    assert.equal(binary.isError, true);
    assert.match(binary.content, /not a text file/);
  });

  it('issue 46 memory: the folder is per workspace under the data folder; turnstone.memory.dir overrides (absolute, relative, ~/); off means none', () => {
    const a = workspaceMemoryDir('/data/turnstone', '/work/a');
    assert.match(a, /^\/data\/turnstone\/memory\/[0-9a-f]{16}$/);
    assert.notEqual(a, workspaceMemoryDir('/data/turnstone', '/work/b'));
    assert.equal(memoryDirFor({ memoryEnabled: true, memoryDir: '' }, '/work/a', '/data/turnstone'), a);
    assert.equal(memoryDirFor({ memoryEnabled: true, memoryDir: '/notes' }, '/work/a', '/data/turnstone'), '/notes');
    assert.equal(memoryDirFor({ memoryEnabled: true, memoryDir: '.notes' }, '/work/a'), '/work/a/.notes');
    assert.equal(memoryDirFor({ memoryEnabled: true, memoryDir: '~/notes' }, '/work/a'), path.join(os.homedir(), 'notes'));
    assert.equal(memoryDirFor({ memoryEnabled: false, memoryDir: '/notes' }, '/work/a'), undefined);
    // The CLI's base: the data folder, not the cache.
    assert.equal(userDataDir({ XDG_DATA_HOME: '/xdg' }, 'linux', '/home/u'), '/xdg/turnstone');
    assert.equal(userDataDir({}, 'linux', '/home/u'), '/home/u/.local/share/turnstone');
    assert.equal(userDataDir({}, 'darwin', '/Users/u'), '/Users/u/Library/Application Support/turnstone');
  });

  it('issue 46 memory: memoryListing (the CLI\'s -p /memory) lists every file with its size, or says there are none or memory is off', async () => {
    assert.equal(await memoryListing(undefined), 'Memory is turned off (turnstone.memory.enabled is false).\n');
    assert.equal(await memoryListing(dir), `No memory files yet (${dir}).\n`);
    await run({ command: 'create', path: '/memories/a.md', file_text: 'abc' });
    await run({ command: 'create', path: '/memories/x/y/z/deep.md', file_text: 'deep' });
    assert.equal(await memoryListing(dir), `2 memory files in ${dir}:\n- a.md (3B)\n- x/y/z/deep.md (4B)\n`);
  });

  it('issue 46 memory: the turn factory offers it and tells the model only when turnstone.memory.enabled is on', () => {
    const turn = (settings: Record<string, unknown>) =>
      createTurnContext({
        settings: parseSettingsObject(settings, schema, 'test'),
        permissionMode: 'ask',
        model: new ScriptedModel([]),
        builtInTools: (wrap) => createToolExecutor({ workspace: wrap(new NodeWorkspace(ws)) }, { outputDir: path.join(tmp, 'out') }),
        systemPrompt: 'You are a test.',
        hooksCwd: undefined,
        memoryBase: path.join(tmp, 'data'),
        warn: () => undefined,
      });
    const on = turn({});
    assert.ok(on.tools.definitions().some((d) => d.name === 'memory'));
    assert.ok(on.config.systemPrompt.endsWith(MEMORY_GUIDANCE));
    assert.match(MEMORY_GUIDANCE, /view \/memories/);
    assert.match(MEMORY_GUIDANCE, /Never record secrets/);
    const off = turn({ 'turnstone.memory.enabled': false });
    assert.ok(!off.tools.definitions().some((d) => d.name === 'memory'));
    assert.equal(off.tools.isReadOnly('memory'), undefined);
    assert.equal(off.config.systemPrompt, 'You are a test.');
  });

  it('issue 46 memory: the panel card says "Memory updated: <path>" for a write', () => {
    const views = [
      toolViewFromInput('memory', { command: 'create', path: '/memories/a.md', file_text: 'x' }),
      toolViewFromInput('memory', { command: 'view', path: '/memories' }),
      toolViewFromInput('memory', { command: 'rename', old_path: '/memories/a.md', new_path: '/memories/b.md' }),
      toolViewFromInput('memory', { command: 'bogus' }),
    ];
    assert.deepEqual(views, [
      { kind: 'memory', command: 'create', path: '/memories/a.md' },
      { kind: 'memory', command: 'view', path: '/memories' },
      { kind: 'memory', command: 'rename', path: '/memories/a.md → /memories/b.md' },
      { kind: 'memory', command: 'view', path: '/memories' },
    ]);
    for (const v of views) assert.ok(ToolView.safeParse(v).success);
  });
});
