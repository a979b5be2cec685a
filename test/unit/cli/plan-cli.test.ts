// Issue 28, the plan tool through the real CLI (`node dist/cli.js`) against the
// scripted mock API: plan_updated lines in stream-json, `todos` in the json
// result, the plan kept in the session file and restored by a resumed run.
import * as assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { MockAnthropicServer, textReply, toolUseReply } from '../../fixtures/mock-anthropic';
import { runCli } from '../../support/run-cli';

const plan = (done: number) =>
  ['Read the code', 'Fix the bug', 'Run the tests'].map((content, i) => ({
    content,
    status: i < done ? 'completed' : i === done ? 'in_progress' : 'pending',
    activeForm: content.replace(/^(\w+)/, (w) => `${w}ing`),
  }));
const write = (id: string, done: number) => toolUseReply([{ id, name: 'todo_write', input: { todos: plan(done) } }]);

describe('28.plan: CLI (node dist/cli.js against the mock API)', function () {
  this.timeout(90_000);
  let ws: string;
  let api: MockAnthropicServer;
  let env: Record<string, string>;
  beforeEach(async () => {
    ws = mkdtempSync(path.join(os.tmpdir(), 'turnstone-plan-cli-'));
    api = await MockAnthropicServer.start();
    env = { ANTHROPIC_BASE_URL: api.url, ANTHROPIC_API_KEY: 'sk-test-cli' };
  });
  afterEach(async () => {
    await api.close();
    rmSync(ws, { recursive: true, force: true });
  });

  it('28.plan: stream-json prints plan_updated with the whole list after each todo_write, and the result carries the final todos', async () => {
    api.enqueue(write('tu_1', 1), write('tu_2', 2), write('tu_3', 3), textReply('Done.'));
    // Default (ask) mode, non-interactive: anything needing a permission would be denied.
    const run = await runCli(['-p', 'fix it', '--cwd', ws, '--output-format', 'stream-json'], { env });
    assert.equal(run.code, 0, run.stderr);
    const lines = run.stdout.trim().split('\n').map((l) => JSON.parse(l) as { type: string; todos?: unknown; tool_results?: Array<{ is_error: boolean }> });
    const updates = lines.filter((l) => l.type === 'plan_updated');
    assert.deepEqual(updates.map((u) => u.todos), [plan(1), plan(2), plan(3)]);
    const result = lines.at(-1)!;
    assert.equal(result.type, 'result');
    assert.deepEqual(result.todos, plan(3));
    assert.ok(result.tool_results!.every((r) => !r.is_error));
  });

  it('28.plan: json output has "todos" ([] without a plan); a resumed session keeps the saved plan; text output shows progress on stderr', async () => {
    api.enqueue(textReply('Hi.'));
    const none = await runCli(['-p', 'hi', '--cwd', ws, '--output-format', 'json'], { env });
    assert.equal(none.code, 0, none.stderr);
    assert.deepEqual(JSON.parse(none.stdout).todos, []);

    const session = path.join(ws, 's.jsonl');
    api.enqueue(write('tu_1', 1), textReply('One done.'));
    const first = await runCli(['-p', 'start', '--cwd', ws, '--session', session], { env });
    assert.equal(first.code, 0, first.stderr);
    assert.match(first.stderr, /plan 1\/3: Fixing the bug/);

    api.enqueue(textReply('Still one done.'));
    const second = await runCli(['-p', 'where are we?', '--cwd', ws, '--session', session, '--output-format', 'json'], { env });
    assert.equal(second.code, 0, second.stderr);
    assert.deepEqual(JSON.parse(second.stdout).todos, plan(1));
  });
});
