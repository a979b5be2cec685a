// Issue 26: OpenAI-compatible streams as servers really send them, through the
// real `openai` package against the scripted mock: parallel calls keyed by id
// (Ollama numbers every call index 0; Gemini sends no index), finish_reason
// "length" inside tool arguments, usage of a retried attempt, and ids made up
// for servers that send none. Then the same reproductions through the CLI.
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { ConversationRuntime } from '../../../src/runtime/loop/conversation';
import { historyProblem } from '../../../src/runtime/session/history';
import { OpenAICompatibleModelClient } from '../../../src/runtime/providers/openai-compatible';
import { toAnthropicParams } from '../../../src/runtime/providers/anthropic-params';
import { knownModelLimits } from '../../../src/runtime/context/context-window';
import { type Message } from '../../../src/runtime/types';
import { chunk, chunksReply, MockOpenAIServer, openaiTextReply, usageChunk } from '../../fixtures/mock-openai';
import { runCli } from '../../support/run-cli';
import { baseConfig, memoryTools } from '../runtime/fakes';
import { assemble, collect, request, signal, types } from './helpers';

/** Two calls streamed the way Ollama does: the same index 0, different ids, each complete in one fragment. */
const sameIndexCalls = () =>
  chunksReply([
    chunk({ role: 'assistant', content: null }),
    chunk({ tool_calls: [{ index: 0, id: 'call_x1', type: 'function', function: { name: 'read_file', arguments: '{"path":"a.txt"}' } }] }),
    chunk({ tool_calls: [{ index: 0, id: 'call_x2', type: 'function', function: { name: 'read_file', arguments: '{"path":"b.txt"}' } }] }),
    chunk({}, 'tool_calls'),
    usageChunk(100, 20),
  ]);

/** Gemini's OpenAI endpoint: calls with ids and no index at all. */
const noIndexCalls = () =>
  chunksReply([
    chunk({ tool_calls: [{ id: 'function-call-1', type: 'function', function: { name: 'read_file', arguments: '{"path":"a.txt"}' } }] }),
    chunk({ tool_calls: [{ id: 'function-call-2', type: 'function', function: { name: 'read_file', arguments: '{"path":"b.txt"}' } }] }),
    chunk({}, 'tool_calls'),
    usageChunk(100, 20),
  ]);

describe('providers/openai-compatible: streams as servers send them (issue 26)', () => {
  let mock: MockOpenAIServer;
  before(async () => {
    mock = await MockOpenAIServer.start();
  });
  after(() => mock.close());
  beforeEach(() => mock.reset());
  afterEach(() => assert.equal(mock.pending, 0, 'every scripted reply was used'));
  const client = () => new OpenAICompatibleModelClient({ apiKey: 'k', baseURL: mock.baseURL, retry: { baseDelayMs: 0 } });

  it('26.7: parallel calls with the same index and different ids (Ollama) are two calls, not one with both argument objects', async () => {
    mock.enqueue(sameIndexCalls());
    const events = await collect(client().stream(request(), signal()));
    assert.deepEqual(assemble(events).content, [
      { type: 'tool_use', id: 'call_x1', name: 'read_file', input: { path: 'a.txt' } },
      { type: 'tool_use', id: 'call_x2', name: 'read_file', input: { path: 'b.txt' } },
    ]);
    assert.equal(mock.requests.length, 1, 'not retried');
  });

  it('26.7: calls without an index (Gemini) are keyed by id', async () => {
    mock.enqueue(noIndexCalls());
    const events = await collect(client().stream(request(), signal()));
    assert.deepEqual(assemble(events).content, [
      { type: 'tool_use', id: 'function-call-1', name: 'read_file', input: { path: 'a.txt' } },
      { type: 'tool_use', id: 'function-call-2', name: 'read_file', input: { path: 'b.txt' } },
    ]);
  });

  it('26.7: index is the fallback: fragments that carry only the index continue the call the id opened', async () => {
    mock.enqueue(
      chunksReply([
        chunk({ tool_calls: [{ index: 0, id: 'c_a', type: 'function', function: { name: 'bash', arguments: '{"comm' } }] }),
        chunk({ tool_calls: [{ index: 1, id: 'c_b', type: 'function', function: { name: 'read_file', arguments: '{"pa' } }] }),
        chunk({ tool_calls: [{ index: 0, function: { arguments: 'and":"ls"}' } }] }),
        chunk({ tool_calls: [{ index: 1, function: { arguments: 'th":"x"}' } }] }),
        chunk({}, 'tool_calls'),
      ]),
    );
    const events = await collect(client().stream(request(), signal()));
    assert.deepEqual(assemble(events).content, [
      { type: 'tool_use', id: 'c_a', name: 'bash', input: { command: 'ls' } },
      { type: 'tool_use', id: 'c_b', name: 'read_file', input: { path: 'x' } },
    ]);
  });

  it('26.8: finish_reason "length" inside tool arguments ends the step (stop reason max_tokens) instead of a retry loop', async () => {
    mock.enqueue(chunksReply([chunk({ tool_calls: [{ index: 0, id: 'c1', type: 'function', function: { name: 'write_file', arguments: '{"path":"big.txt","content":"aaaa' } }] }), chunk({}, 'length'), usageChunk(50, 1024)]));
    const events = await collect(client().stream(request(), signal()));
    assert.ok(!types(events).includes('retrying'));
    assert.equal(mock.requests.length, 1);
    const tool = events.find((e) => e.type === 'tool_use');
    assert.deepEqual(tool, { type: 'tool_use', id: 'c1', name: 'write_file', inputJson: '{"path":"big.txt","content":"aaaa' });
    assert.deepEqual(events.at(-1), { type: 'message_stop', stopReason: 'max_tokens' });
  });

  it('26.9: a retried attempt\'s usage is reported, so it is charged (the usage chunk is said when it arrives)', async () => {
    mock.enqueue(
      // Attempt 1 is billed (its usage chunk arrives), then ends inside tool arguments and is retried.
      chunksReply([chunk({ tool_calls: [{ index: 0, id: 'c1', type: 'function', function: { name: 'read_file', arguments: '{"path":' } }] }), chunk({}, 'stop'), usageChunk(1000, 7)]),
      chunksReply([chunk({ content: 'Done.' }), chunk({}, 'stop'), usageChunk(2100, 14)]),
    );
    const events = await collect(client().stream(request(), signal()));
    const usages = events.filter((e) => e.type === 'usage').map((e) => (e.type === 'usage' ? [e.usage.input_tokens, e.usage.output_tokens] : []));
    assert.deepEqual(usages, [[1000, 7], [2100, 14]]);
    assert.ok(types(events).indexOf('step_reset') > types(events).indexOf('usage'), 'the first attempt\'s usage came before its reset');
  });

  it('26.9: through the loop, a retried step is charged for both attempts: 3100/21, not 2100/14', async () => {
    mock.enqueue(
      chunksReply([chunk({ tool_calls: [{ index: 0, id: 'c1', type: 'function', function: { name: 'read_file', arguments: '{"path":' } }] }), chunk({}, 'stop'), usageChunk(1000, 7)]),
      chunksReply([chunk({ content: 'Done.' }), chunk({}, 'stop'), usageChunk(2100, 14)]),
    );
    const rt = new ConversationRuntime({ model: client(), tools: memoryTools() }, { ...baseConfig, model: 'gpt-4o' });
    const s = await rt.runTurn('hi');
    assert.equal(s.outcome, 'completed');
    assert.deepEqual([s.turnUsage.input_tokens, s.turnUsage.output_tokens], [3100, 21]);
  });

  it('26: ids made up for servers that send none are unique across steps and sessions, and stable within a call', async () => {
    const noIds = () =>
      chunksReply([
        chunk({ tool_calls: [{ index: 0, function: { name: 'read_file', arguments: '{"path":' } }] }),
        chunk({ tool_calls: [{ index: 0, function: { arguments: '"x"}' } }] }),
        chunk({}, 'tool_calls'),
      ]);
    mock.enqueue(noIds(), noIds());
    const first = await collect(client().stream(request(), signal()));
    const second = await collect(client().stream(request(), signal()));
    const ids = [first, second].map((events) => {
      const start = events.find((e) => e.type === 'tool_use_start');
      const use = events.find((e) => e.type === 'tool_use');
      assert.ok(start?.type === 'tool_use_start' && use?.type === 'tool_use');
      assert.equal(start.id, use.id, 'the same id from start to end');
      assert.match(use.id, /^call_[A-Za-z0-9_-]{8,}$/);
      return use.id;
    });
    assert.notEqual(ids[0], ids[1]);
  });

  it('26: a server that repeats ids across steps (call_0 every time) still leaves unique ids in the history', async () => {
    const sameId = (p: string) =>
      chunksReply([chunk({ tool_calls: [{ index: 0, id: 'call_0', type: 'function', function: { name: 'read_file', arguments: JSON.stringify({ path: p }) } }] }), chunk({}, 'tool_calls')]);
    mock.enqueue(sameId('x'), sameId('x'), openaiTextReply('Read it twice.'));
    const rt = new ConversationRuntime({ model: client(), tools: memoryTools({ x: 'X' }) }, { ...baseConfig, model: 'qwen3:8b' });
    const s = await rt.runTurn('read x twice');
    assert.equal(s.outcome, 'completed');
    const ids = rt.messages.flatMap((m) => (m.role === 'assistant' ? m.content.flatMap((b) => (b.type === 'tool_use' ? [b.id] : [])) : []));
    assert.equal(ids.length, 2);
    assert.equal(ids[0], 'call_0');
    assert.notEqual(ids[1], 'call_0');
    assert.equal(historyProblem(rt.messages), undefined);
    // The second request paired the renamed call with its result.
    const tool = (mock.bodies[2]!['messages'] as Array<{ role: string; tool_call_id?: string }>).filter((m) => m.role === 'tool').map((m) => m.tool_call_id);
    assert.deepEqual(tool, ids);
  });

  it('26: an OpenAI-compatible session resumed with the Anthropic provider sends no thinking block without a signature', () => {
    const history: Message[] = [
      { role: 'user', content: [{ type: 'text', text: 'hi' }] },
      { role: 'assistant', content: [{ type: 'thinking', thinking: 'local reasoning', signature: '' }, { type: 'text', text: 'Hello.' }] },
      { role: 'user', content: [{ type: 'text', text: 'and?' }] },
      { role: 'assistant', content: [{ type: 'thinking', thinking: 'only reasoning', signature: '' }] },
      { role: 'user', content: [{ type: 'text', text: 'more' }] },
      { role: 'assistant', content: [{ type: 'thinking', thinking: 'signed', signature: 'sig' }, { type: 'text', text: 'Signed.' }] },
      { role: 'user', content: [{ type: 'text', text: 'end' }] },
    ];
    const params = toAnthropicParams(request({ messages: history }));
    const blocks = params.messages.flatMap((m) => (Array.isArray(m.content) ? m.content : []));
    assert.deepEqual(blocks.filter((b) => b.type === 'thinking').map((b) => (b.type === 'thinking' ? b.signature : '')), ['sig']);
    assert.ok(params.messages.every((m) => Array.isArray(m.content) && m.content.length > 0), 'no empty message');
  });

  it('26: claude-opus-4-5 has its own limits (64k output), not Opus 4\'s 32k', () => {
    assert.equal(knownModelLimits('claude-opus-4-5')?.maxOutputTokens, 64_000);
    assert.equal(knownModelLimits('claude-opus-4-5-20251101')?.maxOutputTokens, 64_000);
    assert.equal(knownModelLimits('claude-opus-4-1')?.maxOutputTokens, 32_000);
    assert.equal(knownModelLimits('claude-opus-4-20250514')?.maxOutputTokens, 32_000);
    assert.equal(knownModelLimits('claude-opus-4-1-20250805')?.maxOutputTokens, 32_000);
  });
});

describe('CLI: OpenAI-compatible servers as they stream (issue 26, node dist/cli.js)', function () {
  this.timeout(60_000);
  let server: MockOpenAIServer;
  let ws: string;
  let env: Record<string, string>;
  beforeEach(async () => {
    server = await MockOpenAIServer.start();
    ws = mkdtempSync(path.join(os.tmpdir(), 'turnstone-oai-'));
    writeFileSync(path.join(ws, 'a.txt'), 'alpha\n');
    writeFileSync(path.join(ws, 'b.txt'), 'beta\n');
    env = { TURNSTONE_PROVIDER: 'openai-compatible', OPENAI_BASE_URL: server.baseURL, OPENAI_API_KEY: 'sk-local' };
  });
  afterEach(async () => {
    await server.close();
    rmSync(ws, { recursive: true, force: true });
  });

  for (const [label, reply] of [['Ollama: same index, different ids', sameIndexCalls], ['Gemini: no index', noIndexCalls]] as const) {
    it(`26.7: ${label}: both files are read in one step and the turn completes`, async () => {
      server.enqueue(reply(), openaiTextReply('alpha and beta.'));
      const run = await runCli(['-p', 'read a and b', '--cwd', ws, '--output-format', 'json', '--model', 'qwen3:8b'], { env });
      assert.equal(run.code, 0, run.stderr);
      const result = JSON.parse(run.stdout);
      assert.deepEqual(result.tool_results.map((r: { is_error: boolean }) => r.is_error), [false, false]);
      assert.match(result.tool_results[0].content, /alpha/);
      assert.match(result.tool_results[1].content, /beta/);
      assert.equal(server.requests.length, 2);
    });
  }

  it('26.8: finish_reason "length" inside tool arguments: one request, an error result saying the input was cut, and the turn goes on', async () => {
    server.enqueue(
      chunksReply([chunk({ tool_calls: [{ index: 0, id: 'c1', type: 'function', function: { name: 'write_file', arguments: '{"path":"big.txt","content":"aaaa' } }] }), chunk({}, 'length'), usageChunk(50, 1024)]),
      openaiTextReply('I will write it in parts.'),
    );
    const run = await runCli(['-p', 'write big.txt', '--cwd', ws, '--output-format', 'json', '--model', 'qwen3:8b', '--permission-mode', 'acceptEdits'], { env });
    assert.equal(run.code, 0, run.stderr);
    const result = JSON.parse(run.stdout);
    assert.equal(server.requests.length, 2, 'no retry loop');
    assert.equal(result.tool_results[0].is_error, true);
    assert.match(result.tool_results[0].content, /output token limit \(max_tokens\) inside this tool call's input/);
    assert.equal(result.result, 'I will write it in parts.');
  });

  it('26.9: a retried attempt\'s usage is in the json usage (3100/21)', async () => {
    server.enqueue(
      chunksReply([chunk({ tool_calls: [{ index: 0, id: 'c1', type: 'function', function: { name: 'read_file', arguments: '{"path":' } }] }), chunk({}, 'stop'), usageChunk(1000, 7)]),
      chunksReply([chunk({ content: 'Done.' }), chunk({}, 'stop'), usageChunk(2100, 14)]),
    );
    const run = await runCli(['-p', 'hi', '--cwd', ws, '--output-format', 'json', '--model', 'qwen3:8b'], { env });
    assert.equal(run.code, 0, run.stderr);
    const { usage } = JSON.parse(run.stdout);
    assert.deepEqual([usage.input_tokens, usage.output_tokens], [3100, 21]);
  });
});
