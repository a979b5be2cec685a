// Issue 27: the CLI builds its turn with the same factory as the editor, so it
// runs hooks and takes checkpoints, and `--settings <file>` gives it the same
// `turnstone.*` keys as VS Code's settings.json. `node dist/cli.js` as a real
// child process against the local Anthropic mock, on a temporary workspace.
import * as assert from 'node:assert/strict';
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { openCheckpointStore } from '../../../src/tools/checkpoints';
import { NodeWorkspace } from '../../../src/tools/node-adapter';
import { MockAnthropicServer, textReply, toolUseReply } from '../../fixtures/mock-anthropic';
import { runCli } from '../../support/run-cli';

describe('CLI: one turn context with the editor (issue 27)', function () {
  this.timeout(60_000);
  let server: MockAnthropicServer;
  let ws: string;
  let home: string;
  let env: Record<string, string>;
  const settingsFile = (settings: Record<string, unknown>) => {
    const file = path.join(home, 'settings.json');
    writeFileSync(file, JSON.stringify(settings));
    return file;
  };

  beforeEach(async () => {
    server = await MockAnthropicServer.start();
    ws = mkdtempSync(path.join(os.tmpdir(), 'turnstone-cli-settings-'));
    home = mkdtempSync(path.join(os.tmpdir(), 'turnstone-cli-settings-home-'));
    env = { ANTHROPIC_BASE_URL: server.url, ANTHROPIC_API_KEY: 'sk-test-cli' };
  });
  afterEach(async () => {
    await server.close();
    rmSync(ws, { recursive: true, force: true });
    rmSync(home, { recursive: true, force: true });
  });

  it('27: the CLI runs the hooks of --settings: a PreToolUse hook denies a write, PostToolUse and Stop run, and the model reads why', async () => {
    const log = path.join(home, 'hooks.log');
    const file = settingsFile({
      'turnstone.hooks': {
        PreToolUse: [{ matcher: 'write_file', command: `echo pre >> '${log}'; echo "no new files here" >&2; exit 2` }],
        PostToolUse: [{ command: `echo post >> '${log}'` }],
        Stop: [{ command: `echo stop >> '${log}'` }],
      },
    });
    server.enqueue(
      toolUseReply([{ id: 'tu_w', name: 'write_file', input: { path: 'new.txt', content: 'x' } }]),
      toolUseReply([{ id: 'tu_r', name: 'glob_search', input: { pattern: '*' } }]),
      textReply('Understood.'),
    );
    const run = await runCli(['-p', 'make a file', '--cwd', ws, '--permission-mode', 'bypassPermissions', '--settings', file, '--output-format', 'json'], { env });
    assert.equal(run.code, 0, run.stderr);
    assert.equal(existsSync(path.join(ws, 'new.txt')), false, 'the hook denied the write');
    assert.match(JSON.stringify(server.bodies[1]?.messages), /no new files here/);
    assert.deepEqual(readFileSync(log, 'utf8').trim().split('\n'), ['pre', 'post', 'stop']);
  });

  it('27: --settings permissions and sandbox keys apply, and flags win over the file', async () => {
    const file = settingsFile({ 'turnstone.permissions.deny': ['bash(touch:*)'], 'turnstone.permissionMode': 'bypassPermissions', 'turnstone.sandbox': 'off' });
    server.enqueue(toolUseReply([{ id: 'tu_b', name: 'bash', input: { command: 'touch made.txt' } }]), textReply('ok'));
    const run = await runCli(['-p', 'touch it', '--cwd', ws, '--settings', file, '--output-format', 'json'], { env });
    assert.equal(run.code, 0, run.stderr);
    assert.equal(existsSync(path.join(ws, 'made.txt')), false, 'the deny rule of the file holds');
    assert.match(JSON.stringify(server.bodies[1]?.messages), /denied by rule bash\(touch:\*\)/);

    // The file says bypassPermissions; --permission-mode plan wins, so the write is refused.
    server.enqueue(toolUseReply([{ id: 'tu_w', name: 'write_file', input: { path: 'planned.txt', content: 'x' } }]), textReply('ok'));
    const planned = await runCli(['-p', 'write it', '--cwd', ws, '--settings', file, '--permission-mode', 'plan'], { env });
    assert.equal(planned.code, 0, planned.stderr);
    assert.equal(existsSync(path.join(ws, 'planned.txt')), false);
  });

  it('27: a --settings file with an unknown key or a wrong type is a usage error naming it (exit 2), and nothing is sent', async () => {
    const misspelt = await runCli(['-p', 'x', '--cwd', ws, '--settings', settingsFile({ 'turnstone.permissions.denny': ['bash(rm:*)'] })], { env });
    assert.equal(misspelt.code, 2);
    assert.match(misspelt.stderr, /unknown setting "turnstone\.permissions\.denny"/);
    const wrong = await runCli(['-p', 'x', '--cwd', ws, '--settings', settingsFile({ 'turnstone.permissionMode': 'yolo', 'turnstone.maxIterations': 'ten' })], { env });
    assert.equal(wrong.code, 2);
    assert.match(wrong.stderr, /"turnstone\.permissionMode" must be one of "plan", "ask", "acceptEdits", "bypassPermissions", not "yolo"/);
    assert.match(wrong.stderr, /"turnstone\.maxIterations" must be an integer, not "ten"/);
    const notJson = path.join(home, 'bad.json');
    writeFileSync(notJson, '{ "turnstone.model": ');
    const broken = await runCli(['-p', 'x', '--cwd', ws, '--settings', notJson], { env });
    assert.equal(broken.code, 2);
    assert.match(broken.stderr, /--settings .*bad\.json is not valid JSON/);
    assert.equal(server.bodies.length, 0);
  });

  it('27: with --session the CLI takes a checkpoint when the turn starts and ends, beside the session file; the start one restores the files', async () => {
    writeFileSync(path.join(ws, 'app.txt'), 'one\n');
    const sessionFile = path.join(home, 'sessions', 'run.jsonl');
    server.enqueue(
      toolUseReply([{ id: 'tu_r', name: 'read_file', input: { path: 'app.txt' } }]),
      toolUseReply([{ id: 'tu_e', name: 'edit_file', input: { path: 'app.txt', old_string: 'one', new_string: 'two' } }, { id: 'tu_n', name: 'write_file', input: { path: 'new.txt', content: 'fresh\n' } }]),
      textReply('Changed.'),
    );
    const run = await runCli(['-p', 'change app', '--cwd', ws, '--permission-mode', 'acceptEdits', '--session', sessionFile], { env });
    assert.equal(run.code, 0, run.stderr);
    assert.equal(readFileSync(path.join(ws, 'app.txt'), 'utf8'), 'two\n');
    const dir = path.join(home, 'sessions', 'checkpoints', 'run');
    assert.ok(existsSync(dir), 'the checkpoints live beside the session file');
    const store = await openCheckpointStore({ dir, root: ws, workspace: new NodeWorkspace(ws) });
    assert.deepEqual(store.all().map((c) => [c.kind, c.turn, c.prompt]), [
      ['turn-start', 1, 'change app'],
      ['turn-end', 1, 'change app'],
    ]);
    const plan = await store.plan(store.turns()[0]!.id);
    await store.apply(plan, new NodeWorkspace(ws), new Set());
    assert.equal(readFileSync(path.join(ws, 'app.txt'), 'utf8'), 'one\n');
    assert.equal(existsSync(path.join(ws, 'new.txt')), false);
  });
});
