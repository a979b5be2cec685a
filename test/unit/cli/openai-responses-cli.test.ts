// Whole turns through the real CLI (`node dist/cli.js`) with `--provider openai`
// against a scripted Responses API server, and sessions that move between the
// anthropic and openai providers.
import * as assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { MockAnthropicServer, streamReply, textReply } from '../../fixtures/mock-anthropic';
import { MockResponsesServer, responsesErrorReply, responsesReply } from '../../fixtures/mock-responses';
import { runCli } from '../../support/run-cli';
import { cutCallReply } from '../providers/responses-cut';

const MODEL = 'gpt-5-test';

describe('CLI --provider openai (Responses API)', function () {
  this.timeout(60_000);
  let server: MockResponsesServer;
  let ws: string;
  let env: Record<string, string>;

  beforeEach(async () => {
    server = await MockResponsesServer.start();
    ws = mkdtempSync(path.join(os.tmpdir(), 'turnstone-responses-'));
    // TURNSTONE_PROVIDER says anthropic: the flag wins.
    env = { TURNSTONE_PROVIDER: 'anthropic', OPENAI_BASE_URL: server.baseURL, OPENAI_API_KEY: 'sk-openai-test' };
  });
  afterEach(async () => {
    await server.close();
    rmSync(ws, { recursive: true, force: true });
  });

  const prices = () => {
    const file = path.join(ws, 'prices.json');
    writeFileSync(file, JSON.stringify({ [MODEL]: { input: 2, output: 8, cacheRead: 0.5 } }));
    return file;
  };

  it('S2/S3: a whole turn: reasoning, a tool call, and a second step that carries the encrypted reasoning back; priced from --model-prices', async () => {
    writeFileSync(path.join(ws, 'a.txt'), 'alpha\n');
    server.enqueue(
      responsesReply(
        [
          { type: 'reasoning', summary: ['The user wants a.txt read.'], encrypted: 'gAAAA-step-1' },
          { type: 'call', callId: 'call_read', name: 'read_file', input: { path: 'a.txt' } },
        ],
        { usage: { input: 1_000, output: 100, reasoning: 60 } },
      ),
      responsesReply([{ type: 'text', text: 'It says alpha.' }], { usage: { input: 1_200, cached: 1_000, output: 20 } }),
    );
    const session = path.join(ws, 'session.jsonl');
    const run = await runCli(['-p', 'read a.txt', '--cwd', ws, '--provider', 'openai', '--model', MODEL, '--output-format', 'json', '--model-prices', prices(), '--session', session], { env });
    assert.equal(run.code, 0, run.stderr);
    const result = JSON.parse(run.stdout);
    assert.equal(result.result, 'It says alpha.');
    assert.deepEqual(result.tool_results.map((r: { tool_use_id: string; name: string; is_error: boolean }) => [r.tool_use_id, r.name, r.is_error]), [['call_read', 'read_file', false]]);
    assert.deepEqual(result.usage, { input_tokens: 1_200, output_tokens: 120, cache_read_input_tokens: 1_000, cache_creation_input_tokens: 0 });
    // $2 in, $8 out, $0.5 cached, per million tokens.
    assert.equal(result.cost_usd, Math.round(((1_200 * 2 + 120 * 8 + 1_000 * 0.5) / 1e6) * 1e6) / 1e6);

    assert.equal(server.requests.length, 2);
    assert.equal(server.requests[0]!.headers.authorization, 'Bearer sk-openai-test');
    const [first, second] = server.bodies;
    assert.equal(first!['model'], MODEL);
    assert.equal(first!['store'], false);
    assert.deepEqual(first!['include'], ['reasoning.encrypted_content']);
    const input = second!['input'] as Array<Record<string, unknown>>;
    assert.deepEqual(input.slice(1), [
      { type: 'reasoning', summary: [{ type: 'summary_text', text: 'The user wants a.txt read.' }], encrypted_content: 'gAAAA-step-1' },
      { type: 'function_call', call_id: 'call_read', name: 'read_file', arguments: '{"path":"a.txt"}' },
      { type: 'function_call_output', call_id: 'call_read', output: input[3]!['output'] },
    ]);
    assert.match(String(input[3]!['output']), /alpha/);

    // The session file keeps the reasoning item on its thinking block.
    const saved = readFileSync(session, 'utf8');
    assert.match(saved, /"encryptedContent":"gAAAA-step-1"/);
    assert.match(saved, /"thinking":"The user wants a.txt read."/);
  });

  it('C4: a model without a price reports cost_usd null', async () => {
    server.enqueue(responsesReply([{ type: 'text', text: 'Hi.' }], { model: 'gpt-unpriced' }));
    const run = await runCli(['-p', 'hi', '--cwd', ws, '--provider', 'openai', '--model', 'gpt-unpriced', '--output-format', 'json'], { env });
    assert.equal(run.code, 0, run.stderr);
    assert.equal(JSON.parse(run.stdout).cost_usd, null);
  });

  it('S6: a 429 is retried with a one-line notice and the turn completes', async () => {
    server.enqueue(responsesErrorReply(429, 'Rate limit reached for gpt-5-test.', 'rate_limit_exceeded', { 'retry-after-ms': '0' }), responsesReply([{ type: 'text', text: 'Recovered.' }]));
    const run = await runCli(['-p', 'hi', '--cwd', ws, '--provider', 'openai', '--model', MODEL], { env });
    assert.equal(run.code, 0, run.stderr);
    assert.equal(run.stdout, 'Recovered.\n');
    assert.match(run.stderr, /reconnecting 1\/\d+ .*HTTP 429, retryable/);
  });

  it('issue 42 item 16: a function call whose arguments do not parse is retried, though the proxy reports the response completed, and then runs whole', async () => {
    writeFileSync(path.join(ws, 'a.txt'), 'alpha\n');
    server.enqueue(
      cutCallReply('{"path":"a.t'),
      responsesReply([{ type: 'call', callId: 'call_read', name: 'read_file', input: { path: 'a.txt' } }]),
      responsesReply([{ type: 'text', text: 'It says alpha.' }]),
    );
    const run = await runCli(['-p', 'read a.txt', '--cwd', ws, '--provider', 'openai', '--model', MODEL, '--output-format', 'json'], { env });
    assert.equal(run.code, 0, run.stderr);
    const result = JSON.parse(run.stdout);
    assert.deepEqual(result.tool_results.map((r: { tool_use_id: string; is_error: boolean }) => [r.tool_use_id, r.is_error]), [['call_read', false]]);
    assert.match(result.tool_results[0].content, /alpha/);
    assert.equal(result.result, 'It says alpha.');
    assert.equal(server.requests.length, 3);
  });

  it('issue 42 item 16: arguments cut at the output limit are answered with an error and go back as the model wrote them, in this run and after --session resumes it', async () => {
    const session = path.join(ws, 'cut.jsonl');
    server.enqueue(cutCallReply('{"path":"a.t', { incomplete: 'max_output_tokens' }), responsesReply([{ type: 'text', text: 'I will ask again.' }]));
    const run = await runCli(['-p', 'read a.txt', '--cwd', ws, '--provider', 'openai', '--model', MODEL, '--output-format', 'json', '--session', session], { env });
    assert.equal(run.code, 0, run.stderr);
    const result = JSON.parse(run.stdout);
    assert.equal(server.requests.length, 2, 'no retry loop');
    assert.equal(result.tool_results[0].is_error, true);
    assert.match(result.tool_results[0].content, /output token limit \(max_tokens\) inside this tool call's input/);
    const call = { type: 'function_call', call_id: 'call_cut', name: 'read_file', arguments: '{"path":"a.t' };
    assert.deepEqual((server.bodies[1]!['input'] as unknown[])[1], call);

    server.enqueue(responsesReply([{ type: 'text', text: 'Still here.' }]));
    const resumed = await runCli(['-p', 'and now?', '--cwd', ws, '--provider', 'openai', '--model', MODEL, '--session', session], { env });
    assert.equal(resumed.code, 0, resumed.stderr);
    assert.deepEqual((server.bodies[2]!['input'] as unknown[])[1], call);
  });

  it("issue 42 item 17: a failed turn is one line in stderr and the json result (status, its name, the provider's first line); the traceback stays off the screen", async () => {
    const traceback = [
      'litellm.InternalServerError: InternalServerError: OpenAIException - Connection error.',
      'Traceback (most recent call last):',
      ...Array.from({ length: 20 }, (_, i) => `  File "/litellm/proxy/route_${i}.py", line ${i + 10}, in handler`),
    ].join('\n');
    assert.equal(traceback.split('\n').length, 22);
    // Every attempt fails at once (retry-after-ms 0), so a run gives up without waiting.
    const failAll = () => {
      for (let i = 0; i < 6; i++) server.enqueue(responsesErrorReply(500, traceback, null, { 'retry-after-ms': '0' }));
    };
    const failure = 'openai: 500 Internal Server Error: litellm.InternalServerError: InternalServerError: OpenAIException - Connection error. (gave up after 5 retries)';

    failAll();
    const text = await runCli(['-p', 'hi', '--cwd', ws, '--provider', 'openai', '--model', MODEL], { env });
    assert.equal(text.code, 1, text.stderr);
    assert.equal(server.requests.length, 6);
    const lines = text.stderr.trim().split('\n');
    assert.equal(lines.length, 6, text.stderr);
    assert.equal(lines.filter((l) => /^… reconnecting \d\/5 \(openai: 500 litellm\.InternalServerError: .* \(HTTP 500, retryable\)\)$/.test(l)).length, 5, text.stderr);
    assert.equal(lines.at(-1), `turnstone: ${failure}`);

    failAll();
    const json = await runCli(['-p', 'hi', '--cwd', ws, '--provider', 'openai', '--model', MODEL, '--output-format', 'json'], { env });
    assert.equal(json.code, 1, json.stderr);
    assert.equal(JSON.parse(json.stdout).result, failure);
    assert.equal(json.stderr, `turnstone: ${failure}\n`);
    assert.doesNotMatch(text.stdout + text.stderr + json.stdout + json.stderr, /Traceback|route_\d+\.py/);
  });

  it('a missing key names OPENAI_API_KEY; an unknown --provider lists the choices', async () => {
    const noKey = await runCli(['-p', 'hi', '--cwd', ws, '--provider', 'openai'], { env: { OPENAI_BASE_URL: server.baseURL } });
    assert.equal(noKey.code, 1);
    assert.match(noKey.stderr, /set OPENAI_API_KEY/);
    assert.equal(server.requests.length, 0);

    const bad = await runCli(['-p', 'hi', '--cwd', ws, '--provider', 'gemini'], { env });
    assert.equal(bad.code, 2);
    assert.match(bad.stderr, /bad --provider 'gemini': use one of anthropic, openai, openai-compatible/);

    const help = await runCli(['--help']);
    assert.match(help.stdout, /--provider <name> +anthropic \| openai \| openai-compatible/);
  });

  describe('a session moving between providers', () => {
    let anthropic: MockAnthropicServer;
    beforeEach(async () => {
      anthropic = await MockAnthropicServer.start();
    });
    afterEach(async () => {
      await anthropic.close();
    });
    const anthropicEnv = () => ({ ANTHROPIC_BASE_URL: anthropic.url, ANTHROPIC_API_KEY: 'sk-ant-test', OPENAI_BASE_URL: server.baseURL, OPENAI_API_KEY: 'sk-openai-test' });

    it('begun on anthropic (thinking, a tool call), resumed on openai: the signed thinking stays out, the call and its result go over', async () => {
      writeFileSync(path.join(ws, 'a.txt'), 'alpha\n');
      const session = path.join(ws, 's.jsonl');
      anthropic.enqueue(
        streamReply([
          { type: 'thinking', thinking: 'Read it first.', signature: 'sig-anthropic-1' },
          { type: 'tool_use', id: 'toolu_01', name: 'read_file', input: { path: 'a.txt' } },
        ]),
        textReply('It says alpha.'),
      );
      const first = await runCli(['-p', 'read a.txt', '--cwd', ws, '--provider', 'anthropic', '--session', session], { env: anthropicEnv() });
      assert.equal(first.code, 0, first.stderr);

      server.enqueue(responsesReply([{ type: 'text', text: 'Still alpha.' }]));
      const second = await runCli(['-p', 'and now?', '--cwd', ws, '--provider', 'openai', '--model', MODEL, '--session', session], { env: anthropicEnv() });
      assert.equal(second.code, 0, second.stderr);
      assert.equal(second.stdout, 'Still alpha.\n');
      const input = server.bodies[0]!['input'] as Array<Record<string, unknown>>;
      assert.doesNotMatch(JSON.stringify(input), /sig-anthropic-1|Read it first/);
      assert.deepEqual(
        input.map((i) => i['type'] ?? i['role']),
        ['user', 'function_call', 'function_call_output', 'assistant', 'user'],
      );
      assert.equal(input[1]!['call_id'], input[2]!['call_id']);
    });

    it('begun on openai (encrypted reasoning), resumed on anthropic: the reasoning is never sent there', async () => {
      const session = path.join(ws, 's.jsonl');
      server.enqueue(responsesReply([{ type: 'reasoning', summary: ['Thinking about it.'], encrypted: 'gAAAA-openai-only' }, { type: 'text', text: 'First answer.' }]));
      const first = await runCli(['-p', 'hi', '--cwd', ws, '--provider', 'openai', '--model', MODEL, '--session', session], { env: anthropicEnv() });
      assert.equal(first.code, 0, first.stderr);
      assert.match(readFileSync(session, 'utf8'), /gAAAA-openai-only/);

      anthropic.enqueue(textReply('Second answer.'));
      const second = await runCli(['-p', 'again', '--cwd', ws, '--provider', 'anthropic', '--session', session], { env: anthropicEnv() });
      assert.equal(second.code, 0, second.stderr);
      assert.equal(second.stdout, 'Second answer.\n');
      const sent = JSON.stringify(anthropic.bodies[0]!['messages']);
      assert.doesNotMatch(sent, /gAAAA-openai-only|"thinking"/);
      assert.match(sent, /First answer\./);
    });
  });
});
