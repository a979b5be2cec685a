// Issue 14's proxy findings through the real CLI (`node dist/cli.js`) against
// the OpenAI-compatible mock, answering as LiteLLM 1.73 in front of the
// Messages API does: cache fields named the Anthropic way, a cut stream closed
// with finish_reason stop, and a 25-line error body on a retried request.
import * as assert from 'node:assert/strict';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { chunk, chunksReply, MockOpenAIServer, openaiErrorReply, openaiTextReply, openaiToolCallsReply } from '../../fixtures/mock-openai';
import { runCli } from '../../support/run-cli';

describe('CLI against an OpenAI-compatible proxy (LiteLLM-style answers)', function () {
  this.timeout(60_000);
  let server: MockOpenAIServer;
  let ws: string;
  let env: Record<string, string>;

  beforeEach(async () => {
    server = await MockOpenAIServer.start();
    ws = mkdtempSync(path.join(os.tmpdir(), 'turnstone-proxy-'));
    env = { TURNSTONE_PROVIDER: 'openai-compatible', OPENAI_BASE_URL: server.baseURL, OPENAI_API_KEY: 'sk-proxy' };
  });
  afterEach(async () => {
    await server.close();
    rmSync(ws, { recursive: true, force: true });
  });

  it('C4: cache reads and writes reported as cache_read_input_tokens / cache_creation_input_tokens are counted and priced as such', async () => {
    const usage = { prompt_tokens: 12_000, completion_tokens: 100, total_tokens: 12_100, cache_read_input_tokens: 10_000, cache_creation_input_tokens: 4_000 };
    server.enqueue(chunksReply([chunk({ role: 'assistant', content: 'Cached.' }), chunk({}, 'stop'), { id: 'x', object: 'chat.completion.chunk', created: 1, model: 'claude-sonnet-5-5', choices: [], usage }]));
    const run = await runCli(['-p', 'hi', '--cwd', ws, '--output-format', 'json', '--model', 'claude-sonnet-5-5'], { env });
    assert.equal(run.code, 0, run.stderr);
    const result = JSON.parse(run.stdout);
    assert.deepEqual(result.usage, { input_tokens: 2_000, output_tokens: 100, cache_read_input_tokens: 10_000, cache_creation_input_tokens: 4_000 });
    // sonnet $3 in, $15 out, reads 0.1×, writes 1.25×: not 12 000 at the full input price.
    assert.equal(result.cost_usd, Math.round(((2_000 * 3 + 100 * 15 + 10_000 * 0.3 + 4_000 * 3.75) / 1e6) * 1e6) / 1e6);
  });

  it('S6: truncated tool arguments closed with finish_reason stop are retried, not run as invalid JSON', async () => {
    writeFileSync(path.join(ws, 'a.txt'), 'alpha\n');
    server.enqueue(
      chunksReply([chunk({ tool_calls: [{ index: 0, id: 'c1', type: 'function', function: { name: 'read_file', arguments: '{"path":' } }] }), chunk({}, 'stop')]),
      openaiToolCallsReply([{ id: 'c1', name: 'read_file', input: { path: 'a.txt' } }]),
      openaiTextReply('It says alpha.'),
    );
    const run = await runCli(['-p', 'read a.txt', '--cwd', ws, '--output-format', 'json'], { env });
    assert.equal(run.code, 0, run.stderr);
    const result = JSON.parse(run.stdout);
    assert.deepEqual(result.tool_results.map((r: { name: string; is_error: boolean }) => [r.name, r.is_error]), [['read_file', false]]);
    assert.match(result.tool_results[0].content, /alpha/);
    assert.equal(server.requests.length, 3);
  });

  it('S6: a retry notice is one line (status, kind), never the proxy\'s whole error body', async () => {
    const traceback = ['Traceback (most recent call last):', ...Array.from({ length: 23 }, (_, i) => `  File "/litellm/proxy/route_${i}.py", line ${i + 10}, in handler`), 'litellm.InternalServerError: upstream connection reset'].join('\n');
    server.enqueue(openaiErrorReply(500, traceback), openaiTextReply('Recovered.'));
    const run = await runCli(['-p', 'hi', '--cwd', ws], { env });
    assert.equal(run.code, 0, run.stderr);
    assert.equal(run.stdout, 'Recovered.\n');
    const lines = run.stderr.trim().split('\n');
    assert.equal(lines.length, 1, run.stderr);
    assert.match(lines[0]!, /^… reconnecting 1\/\d+ \(.*\(HTTP 500, retryable\)\)$/);
    assert.doesNotMatch(run.stderr, /route_5\.py/);
  });
});
