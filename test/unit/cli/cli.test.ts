// End-to-end tests of the headless CLI: `node dist/cli.js` as a real child
// process against the local Anthropic mock, on a temporary workspace.
import * as assert from 'node:assert/strict';
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { loadSession } from '../../../src/runtime/session/session';
import { type ContentBlock } from '../../../src/runtime/types';
import { errorReply, MockAnthropicServer, textReply, toolUseReply } from '../../fixtures/mock-anthropic';
import { runCli } from '../../support/run-cli';


describe('CLI (node dist/cli.js against the mock API)', function () {
  this.timeout(60_000);
  let server: MockAnthropicServer;
  let ws: string;
  let env: Record<string, string>;

  beforeEach(async () => {
    server = await MockAnthropicServer.start();
    ws = mkdtempSync(path.join(os.tmpdir(), 'turnstone-cli-'));
    env = { ANTHROPIC_BASE_URL: server.url, ANTHROPIC_API_KEY: 'sk-test-cli' };
  });
  afterEach(async () => {
    await server.close();
    rmSync(ws, { recursive: true, force: true });
  });

  it('runs a read → edit → final turn that changes the file and prints the json result', async () => {
    writeFileSync(path.join(ws, 'greet.txt'), 'hello world\n');
    server.enqueue(
      toolUseReply([{ id: 'tu_read', name: 'read_file', input: { path: 'greet.txt' } }]),
      toolUseReply([{ id: 'tu_edit', name: 'edit_file', input: { path: 'greet.txt', old_string: 'world', new_string: 'turnstone' } }]),
      textReply('Changed the greeting.', { usage: { input_tokens: 30, output_tokens: 7 } }),
    );
    const run = await runCli(['-p', 'greet turnstone', '--cwd', ws, '--permission-mode', 'acceptEdits', '--output-format', 'json'], { env });
    assert.equal(run.code, 0, run.stderr);
    assert.equal(readFileSync(path.join(ws, 'greet.txt'), 'utf8'), 'hello turnstone\n');
    const result = JSON.parse(run.stdout);
    assert.equal(result.result, 'Changed the greeting.');
    assert.equal(result.is_error, false);
    assert.equal(result.iterations, 3);
    assert.deepEqual(result.tool_results.map((r: { name: string; is_error: boolean }) => [r.name, r.is_error]), [
      ['read_file', false],
      ['edit_file', false],
    ]);
    assert.equal(result.tool_results[0].tool_use_id, 'tu_read');
    assert.ok(result.usage.input_tokens >= 30);
    assert.equal(typeof result.cost_usd, 'number');
    assert.equal(result.session_file, null);
    // The model saw the file's numbered content in the second request.
    const second = JSON.stringify(server.bodies[1]);
    assert.ok(second.includes('hello world'));
  });

  it('denies a write in plan mode: no file, an is_error result, and the turn completes', async () => {
    server.enqueue(toolUseReply([{ id: 'tu_w', name: 'write_file', input: { path: 'new.txt', content: 'x' } }]), textReply('Understood.'));
    const run = await runCli(['-p', 'make a file', '--cwd', ws, '--permission-mode', 'plan', '--output-format', 'json'], { env });
    assert.equal(run.code, 0, run.stderr);
    assert.equal(existsSync(path.join(ws, 'new.txt')), false);
    const result = JSON.parse(run.stdout);
    assert.equal(result.tool_results[0].is_error, true);
    assert.equal(result.is_error, false);
  });

  it("--allow 'bash(echo:*)' runs echo, but `echo hi; rm x` is still denied", async () => {
    writeFileSync(path.join(ws, 'x'), 'keep me');
    server.enqueue(
      toolUseReply([{ id: 'tu_1', name: 'bash', input: { command: 'echo allowed-output' } }]),
      toolUseReply([{ id: 'tu_2', name: 'bash', input: { command: 'echo hi; rm x' } }]),
      textReply('done'),
    );
    const run = await runCli(['-p', 'run things', '--cwd', ws, '--allow', 'bash(echo:*)', '--output-format', 'json'], { env });
    assert.equal(run.code, 0, run.stderr);
    const result = JSON.parse(run.stdout);
    assert.equal(result.tool_results[0].is_error, false);
    assert.match(result.tool_results[0].content, /allowed-output/);
    assert.equal(result.tool_results[1].is_error, true);
    assert.match(result.tool_results[1].content, /needs approval/);
    assert.equal(readFileSync(path.join(ws, 'x'), 'utf8'), 'keep me');
  });

  it('stream-json prints parseable event lines ending with the result object', async () => {
    writeFileSync(path.join(ws, 'a.txt'), 'A\n');
    server.enqueue(toolUseReply([{ id: 'tu_r', name: 'read_file', input: { path: 'a.txt' } }]), textReply('It says A.'));
    const run = await runCli(['-p', 'read a', '--cwd', ws, '--output-format', 'stream-json'], { env });
    assert.equal(run.code, 0, run.stderr);
    const lines = run.stdout.trim().split('\n').map((l) => JSON.parse(l) as { type: string; result?: string });
    const types = lines.map((l) => l.type);
    assert.equal(types[0], 'turn_started');
    assert.ok(types.includes('tool_use_ready'));
    assert.ok(types.includes('tool_finished'));
    assert.ok(types.includes('text_delta'));
    const last = lines[lines.length - 1]!;
    assert.equal(last.type, 'result');
    assert.equal(last.result, 'It says A.');
  });

  it('text output streams the reply to stdout and one line per tool use to stderr', async () => {
    writeFileSync(path.join(ws, 'a.txt'), 'A\n');
    server.enqueue(toolUseReply([{ id: 'tu_r', name: 'read_file', input: { path: 'a.txt' } }]), textReply('All good.'));
    const run = await runCli(['-p', 'read a', '--cwd', ws], { env });
    assert.equal(run.code, 0, run.stderr);
    assert.equal(run.stdout, 'All good.\n');
    assert.match(run.stderr, /✓ read_file a\.txt/);
  });

  it('SIGINT during a bash tool use exits 130 and the session resumes with an aborted result', async () => {
    const session = path.join(ws, '.turnstone', 'session.jsonl');
    server.enqueue(toolUseReply([{ id: 'tu_sleep', name: 'bash', input: { command: 'sleep 30' } }]));
    let sent = false;
    const run = await runCli(['-p', 'wait', '--cwd', ws, '--permission-mode', 'bypassPermissions', '--output-format', 'stream-json', '--session', session], {
      env,
      onStdout: (out, child) => {
        if (!sent && out.includes('"tool_use_ready"')) {
          sent = true;
          // Give the tool a moment to start its process, then interrupt like Ctrl+C.
          setTimeout(() => child.kill('SIGINT'), 300);
        }
      },
    });
    assert.equal(run.code, 130, run.stderr);
    const loaded = await loadSession(session);
    const last = loaded.messages[loaded.messages.length - 1]!;
    const results = loaded.messages.flatMap((m): ContentBlock[] => m.content).filter((b) => b.type === 'tool_result');
    assert.deepEqual(results.map((b) => b.tool_use_id), ['tu_sleep']);
    assert.ok(last.role === 'user');

    // Resume: the next request carries a valid history (the tool use answered once).
    server.enqueue(textReply('Resumed.'));
    const resumed = await runCli(['-p', 'continue', '--cwd', ws, '--output-format', 'json', '--session', session], { env });
    assert.equal(resumed.code, 0, resumed.stderr);
    assert.equal(JSON.parse(resumed.stdout).result, 'Resumed.');
    const messages = (server.bodies[1] as { messages: Array<{ role: string; content: Array<{ type: string; tool_use_id?: string }> }> }).messages;
    const answered = messages.flatMap((m) => m.content).filter((b) => b.type === 'tool_result' && b.tool_use_id === 'tu_sleep');
    assert.equal(answered.length, 1);
  });

  it('an API error exits 1 with the provider message and request id', async () => {
    server.enqueue(errorReply(400, 'invalid_request_error', 'messages: bad shape', { 'request-id': 'req_cli_42' }));
    const run = await runCli(['-p', 'hi', '--cwd', ws], { env });
    assert.equal(run.code, 1);
    assert.match(run.stderr, /bad shape/);
    assert.match(run.stderr, /req_cli_42/);
  });

  it('without an API key exits 1 and says how to set one', async () => {
    const run = await runCli(['-p', 'hi', '--cwd', ws], { env: { ANTHROPIC_API_KEY: '' } });
    assert.equal(run.code, 1);
    assert.match(run.stderr, /ANTHROPIC_API_KEY/);
  });

  const badUsage: Array<[string, string[], RegExp]> = [
    ['an unknown flag', ['-p', 'hi', '--bogus'], /Unknown option '--bogus'/],
    ['a missing prompt', [], /missing prompt/],
    ['a bad mode', ['-p', 'hi', '--permission-mode', 'yolo'], /bad --permission-mode/],
    ['a bad output format', ['-p', 'hi', '--output-format', 'xml'], /bad --output-format/],
    ['a bad iteration count', ['-p', 'hi', '--max-iterations', '0'], /bad --max-iterations/],
    ['an unreadable --cwd', ['-p', 'hi', '--cwd', '/nonexistent/dir'], /not a readable folder/],
    ['a bad sandbox mode', ['-p', 'hi', '--sandbox', 'maybe'], /bad --sandbox 'maybe': use one of auto, off/],
  ];
  for (const [what, args, message] of badUsage) {
    it(`bad usage (${what}) exits 2 with one clear line`, async () => {
      const run = await runCli(args, { env });
      assert.equal(run.code, 2);
      assert.match(run.stderr, message);
      assert.equal(run.stderr.trim().split('\n').length, 1);
      assert.equal(server.requests.length, 0);
    });
  }

  it('a --session path that is a folder, a device or under a file is refused up front with exit 2 and a clear message', async () => {
    writeFileSync(path.join(ws, 'plain.txt'), 'x');
    const cases: [string, RegExp][] = [
      [ws, /is a folder; give a path to a \.jsonl session file/],
      ['/dev/full', /is a device; give a path to a \.jsonl session file/],
      [path.join(ws, 'plain.txt', 's.jsonl'), /a part of the path is a file, not a folder/],
    ];
    for (const [session, message] of cases) {
      const run = await runCli(['-p', 'hi', '--cwd', ws, '--session', session], { env });
      assert.equal(run.code, 2, `${session}: ${run.stderr}`);
      assert.match(run.stderr, message);
      assert.equal(run.stderr.trim().split('\n').length, 1);
    }
    assert.equal(server.requests.length, 0, 'nothing was sent');
  });

  it('--help shows the flags with examples, --version the version', async () => {
    const help = await runCli(['--help']);
    assert.equal(help.code, 0);
    for (const flag of ['--print', '--cwd', '--model', '--permission-mode', '--allow', '--deny', '--max-iterations', '--output-format', '--session', '--sandbox', 'Examples:']) {
      assert.ok(help.stdout.includes(flag), flag);
    }
    const version = await runCli(['--version']);
    assert.equal(version.code, 0);
    assert.match(version.stdout, /^\d+\.\d+\.\d+\n$/);
  });
});
