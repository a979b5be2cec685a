// Issue 46, memory through the real CLI (`node dist/cli.js`) against the scripted mock API: a first `-p` run's
// model writes a note; a second run, a new session (no --session), is told to look at its memory and finds
// the note there. Non-interactive ask mode: memory never needs an approval. The notes live per workspace in
// the user's data folder (HOME is a temp folder here); turnstone.memory.enabled false takes the tool away.
import * as assert from 'node:assert/strict';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, readdirSync, realpathSync, rmSync, statSync, writeFileSync } from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { MockAnthropicServer, textReply, toolUseReply } from '../../fixtures/mock-anthropic';
import { runCli } from '../../support/run-cli';

type Block = { type: string; tool_use_id?: string; content?: unknown; is_error?: boolean };

describe('issue 46 memory: CLI (node dist/cli.js against the mock API)', function () {
  this.timeout(90_000);
  let api: MockAnthropicServer;
  let tmp: string;
  let ws: string;
  let home: string;
  let env: Record<string, string>;

  beforeEach(async () => {
    api = await MockAnthropicServer.start();
    tmp = realpathSync(mkdtempSync(path.join(os.tmpdir(), 'turnstone-memory-cli-')));
    ws = path.join(tmp, 'ws');
    home = path.join(tmp, 'home');
    mkdirSync(ws);
    mkdirSync(home);
    env = { ANTHROPIC_BASE_URL: api.url, ANTHROPIC_API_KEY: 'sk-test-cli', HOME: home };
  });
  afterEach(async () => {
    await api.close();
    rmSync(tmp, { recursive: true, force: true });
  });

  const resultsOf = (i: number): Block[] => {
    const messages = api.bodies[i]!.messages as Array<{ role: string; content: Block[] | string }>;
    return (messages.at(-1)!.content as Block[]).filter((b) => b.type === 'tool_result');
  };
  const text = (b: Block) => (typeof b.content === 'string' ? b.content : JSON.stringify(b.content));

  it('issue 46 memory: a note written in one -p run is what the next session\'s model finds when it views its memory', async () => {
    api.enqueue(
      toolUseReply([{ id: 'tu_create', name: 'memory', input: { command: 'create', path: '/memories/project.md', file_text: '# Project\nRun the tests with npm run test:quick.\n' } }]),
      textReply('Noted.'),
    );
    const first = await runCli(['-p', 'remember how to run the tests', '--cwd', ws], { env });
    assert.equal(first.code, 0, first.stderr);
    const system = JSON.stringify(api.bodies[0]!.system);
    assert.match(system, /view \/memories/, 'the prompt tells the model to use its memory');
    assert.ok((api.bodies[0]!.tools as Array<{ name: string }>).some((t) => t.name === 'memory'));
    const [created] = resultsOf(1);
    assert.equal(created!.is_error ?? false, false, text(created!));
    assert.match(text(created!), /File created successfully at: \/memories\/project\.md/);

    // Per workspace, in the user's data folder, private.
    const base = path.join(home, '.local', 'share', 'turnstone', 'memory');
    const [key] = readdirSync(base);
    assert.match(key!, /^[0-9a-f]{16}$/);
    const file = path.join(base, key!, 'project.md');
    assert.equal(readFileSync(file, 'utf8'), '# Project\nRun the tests with npm run test:quick.\n');
    assert.equal(statSync(file).mode & 0o777, 0o600);
    assert.equal(statSync(path.join(base, key!)).mode & 0o777, 0o700);

    // A new session (no --session): the model looks at its memory first and reads the note.
    const before = api.bodies.length;
    api.enqueue(
      toolUseReply([{ id: 'tu_view', name: 'memory', input: { command: 'view', path: '/memories' } }]),
      toolUseReply([{ id: 'tu_read', name: 'memory', input: { command: 'view', path: '/memories/project.md' } }]),
      textReply('Run npm run test:quick.'),
    );
    const second = await runCli(['-p', 'how do I run the tests?', '--cwd', ws], { env });
    assert.equal(second.code, 0, second.stderr);
    assert.equal(second.stdout.trim(), 'Run npm run test:quick.');
    const opening = api.bodies[before]!.messages as Array<{ role: string; content: unknown }>;
    assert.equal(opening.length, 1, 'a new session: no history from the first run');
    assert.ok(!JSON.stringify(opening).includes('test:quick'), 'the note reached the model only through the tool');
    const [listing] = resultsOf(before + 1);
    assert.equal(listing!.is_error ?? false, false, text(listing!));
    assert.match(text(listing!), /Here're the files and directories up to 2 levels deep in \/memories/);
    assert.match(text(listing!), /\/memories\/project\.md/);
    const [note] = resultsOf(before + 2);
    assert.match(text(note!), /Here's the content of \/memories\/project\.md with line numbers:/);
    assert.match(text(note!), /2\tRun the tests with npm run test:quick\./);
  });

  it('issue 46 memory: a secret is refused; turnstone.memory.enabled false takes the tool and the paragraph away', async () => {
    api.enqueue(
      toolUseReply([{ id: 'tu_secret', name: 'memory', input: { command: 'create', path: '/memories/keys.md', file_text: 'ANTHROPIC_API_KEY=sk-ant-api03-AbCdEfGhIjKlMnOpQrStUvWx' } }]),
      textReply('Understood.'),
    );
    const run = await runCli(['-p', 'remember my key', '--cwd', ws], { env });
    assert.equal(run.code, 0, run.stderr);
    const [refused] = resultsOf(1);
    assert.equal(refused!.is_error, true);
    assert.match(text(refused!), /Not written: .*looks like it holds an Anthropic API key/);
    const base = path.join(home, '.local', 'share', 'turnstone', 'memory');
    const written = existsSync(base) ? readdirSync(base).flatMap((k) => readdirSync(path.join(base, k))) : [];
    assert.deepEqual(written, [], 'nothing written');

    const settings = path.join(tmp, 'settings.json');
    writeFileSync(settings, JSON.stringify({ 'turnstone.memory.enabled': false }));
    api.enqueue(textReply('ok'));
    const off = await runCli(['-p', 'hello', '--cwd', ws, '--settings', settings], { env });
    assert.equal(off.code, 0, off.stderr);
    const last = api.bodies.at(-1)!;
    assert.ok(!(last.tools as Array<{ name: string }>).some((t) => t.name === 'memory'));
    assert.ok(!JSON.stringify(last.system).includes('/memories'));
  });
});
