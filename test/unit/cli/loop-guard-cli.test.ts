// Issue 42, loop guard and stop_reason, through the real CLI (`node dist/cli.js`) against the scripted
// mock API: a model that repeats one failing call is stopped before the next request, and the json result
// says why the turn ended.
import * as assert from 'node:assert/strict';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { MockAnthropicServer, textReply, toolUseReply } from '../../fixtures/mock-anthropic';
import { runCli } from '../../support/run-cli';

describe('CLI: the loop guard and stop_reason (issue 42)', function () {
  this.timeout(90_000);
  let ws: string;
  let api: MockAnthropicServer;
  let env: Record<string, string>;
  beforeEach(async () => {
    ws = mkdtempSync(path.join(os.tmpdir(), 'turnstone-loop-'));
    api = await MockAnthropicServer.start();
    env = { ANTHROPIC_BASE_URL: api.url, ANTHROPIC_API_KEY: 'sk-test-cli' };
  });
  afterEach(async () => {
    await api.close();
    rmSync(ws, { recursive: true, force: true });
  });
  const readMissing = (i: number) => toolUseReply([{ id: `tu_${i}`, name: 'read_file', input: { path: 'nope.txt' } }]);

  it('issue 42 loop guard: the same failing read three times ends the turn with stop_reason "loop" and no fourth request', async () => {
    api.enqueue(readMissing(1), readMissing(2), readMissing(3), textReply('never sent'));
    const run = await runCli(['-p', 'read nope.txt', '--cwd', ws, '--output-format', 'json'], { env });
    assert.equal(run.code, 1, run.stderr);
    const result = JSON.parse(run.stdout);
    assert.equal(result.stop_reason, 'loop');
    assert.equal(result.is_error, true);
    assert.match(result.result, /the same tool call \(read_file nope\.txt\) failed the same way 3 times/);
    assert.equal(api.requests.length, 3);
  });

  it('issue 42 loop guard: turnstone.loopGuard.repeats from --settings sets the count; a finished turn says "end_turn"', async () => {
    const settings = path.join(ws, 'settings.json');
    writeFileSync(settings, JSON.stringify({ 'turnstone.loopGuard.repeats': 2 }));
    api.enqueue(readMissing(1), readMissing(2), textReply('never sent'));
    const stopped = JSON.parse((await runCli(['-p', 'read nope.txt', '--cwd', ws, '--settings', settings, '--output-format', 'json'], { env })).stdout);
    assert.equal(stopped.stop_reason, 'loop');
    assert.equal(api.requests.length, 2);

    api.enqueue(textReply('All good.'));
    const done = JSON.parse((await runCli(['-p', 'hello', '--cwd', ws, '--output-format', 'json'], { env })).stdout);
    assert.equal(done.stop_reason, 'end_turn');
    assert.equal(done.is_error, false);
  });
});
