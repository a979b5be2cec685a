import assert from 'node:assert/strict';
import { mapUsage, OpenAICompatibleModelClient, toChatMessages } from '../../../src/runtime/providers/openai-compatible';
import { type OpenAICompatibleOptions } from '../../../src/runtime/providers/options';
import {
  chunk,
  chunksReply,
  MockOpenAIServer,
  openaiErrorReply,
  openaiTextReply,
  openaiToolCallsReply,
  usageChunk,
} from '../../fixtures/mock-openai';
import { assemble, collect, collectError, request, signal, types } from './helpers';

describe('providers/openai-compatible', () => {
  let mock: MockOpenAIServer;

  before(async () => {
    mock = await MockOpenAIServer.start();
  });
  after(() => mock.close());
  beforeEach(() => mock.reset());
  afterEach(() => assert.equal(mock.pending, 0, 'every scripted reply was used'));

  const client = (extra: OpenAICompatibleOptions = {}) =>
    new OpenAICompatibleModelClient({ apiKey: 'sk-test', baseURL: mock.baseURL, retry: { baseDelayMs: 0 }, ...extra });

  it('S8: text streams as text deltas and ends with usage and message_stop', async () => {
    mock.enqueue(openaiTextReply('Hello from a local model', { usage: [120, 8], pieces: 3 }));
    const events = await collect(client().stream(request({ model: 'qwen3:8b' }), signal()));
    assert.deepEqual(types(events), ['text_delta', 'text_delta', 'text_delta', 'usage', 'message_stop']);
    assert.deepEqual(assemble(events).content, [{ type: 'text', text: 'Hello from a local model' }]);
    assert.deepEqual(events.at(-2), { type: 'usage', usage: { input_tokens: 120, output_tokens: 8, cache_read_input_tokens: 0, cache_creation_input_tokens: 0 } });
    assert.deepEqual(events.at(-1), { type: 'message_stop', stopReason: 'end_turn' });
    const body = mock.bodies[0]!;
    assert.equal(body['model'], 'qwen3:8b');
    assert.equal(body['stream'], true);
    assert.deepEqual(body['stream_options'], { include_usage: true });
    assert.equal(body['max_tokens'], 1024);
    assert.equal(mock.requests[0]!.headers['authorization'], 'Bearer sk-test');
  });

  it('S8: parallel tool calls split across chunks are accumulated by index', async () => {
    mock.enqueue(
      openaiToolCallsReply(
        [
          { id: 'call_a', name: 'read_file', input: { path: 'src/ä.ts' } },
          { id: 'call_b', name: 'bash', input: { command: 'npm test -- --grep "x y"' } },
          { id: 'call_c', name: 'read_file', input: { path: 'README.md' } },
        ],
        { usage: [50, 20] },
      ),
    );
    const events = await collect(client().stream(request(), signal()));
    assert.deepEqual(
      events.filter((e) => e.type === 'tool_use_start').map((e) => (e.type === 'tool_use_start' ? e.id : '')),
      ['call_a', 'call_b', 'call_c'],
    );
    const assembled = assemble(events);
    assert.deepEqual(assembled.content, [
      { type: 'tool_use', id: 'call_a', name: 'read_file', input: { path: 'src/ä.ts' } },
      { type: 'tool_use', id: 'call_b', name: 'bash', input: { command: 'npm test -- --grep "x y"' } },
      { type: 'tool_use', id: 'call_c', name: 'read_file', input: { path: 'README.md' } },
    ]);
    assert.equal(assembled.stopReason, 'tool_use');
  });

  it('S8: tool calls without ids (some local servers) get a made-up id, the same on every fragment of the call (26: never call_<index>, which repeats across steps)', async () => {
    mock.enqueue(
      chunksReply([
        chunk({ tool_calls: [{ index: 0, function: { name: 'bash', arguments: '{"comm' } }] }),
        chunk({ tool_calls: [{ index: 0, function: { arguments: 'and":"ls"}' } }] }),
        chunk({}, 'tool_calls'),
      ]),
    );
    const events = await collect(client().stream(request(), signal()));
    const [use] = assemble(events).content;
    assert.ok(use?.type === 'tool_use');
    assert.match(use.id, /^call_[A-Za-z0-9_-]{8,}$/);
    assert.deepEqual(use, { type: 'tool_use', id: use.id, name: 'bash', input: { command: 'ls' } });
    assert.deepEqual(events.filter((e) => e.type === 'tool_use_start').map((e) => (e.type === 'tool_use_start' ? e.id : '')), [use.id]);
  });

  it('S8: reasoning_content streams as thinking deltas and becomes a thinking block without signature', async () => {
    mock.enqueue(
      chunksReply([
        chunk({ role: 'assistant', reasoning_content: 'Let me ' }),
        chunk({ reasoning_content: 'think.' }),
        chunk({ content: 'Answer.' }),
        chunk({}, 'stop'),
        usageChunk(10, 5, 4),
      ]),
    );
    const events = await collect(client().stream(request(), signal()));
    assert.deepEqual(
      events.filter((e) => e.type === 'thinking_delta').map((e) => (e.type === 'thinking_delta' ? e.thinking : '')),
      ['Let me ', 'think.'],
    );
    assert.deepEqual(assemble(events).content, [
      { type: 'thinking', thinking: 'Let me think.', signature: '' },
      { type: 'text', text: 'Answer.' },
    ]);
    // Cached prompt tokens are reported the Anthropic way: input excludes cache reads.
    assert.deepEqual(events.find((e) => e.type === 'usage'), { type: 'usage', usage: { input_tokens: 6, output_tokens: 5, cache_read_input_tokens: 4, cache_creation_input_tokens: 0 } });
    assert.deepEqual(events.find((e) => e.type === 'prompt_cache'), { type: 'prompt_cache', cacheReadInputTokens: 4, cacheCreationInputTokens: 0 });
  });

  it('S8: OpenRouter-style `reasoning` is read too', async () => {
    mock.enqueue(chunksReply([chunk({ reasoning: 'hmm' }), chunk({ content: 'ok' }), chunk({}, 'stop')]));
    const events = await collect(client().stream(request(), signal()));
    assert.deepEqual(assemble(events).content[0], { type: 'thinking', thinking: 'hmm', signature: '' });
  });

  it('S8: history converts to chat messages: system first, tool calls on the assistant, results as role tool', async () => {
    mock.enqueue(openaiTextReply('ok'));
    await collect(
      client().stream(
        request({
          afterToolResults: true,
          messages: [
            { role: 'user', content: [{ type: 'text', text: 'list files' }] },
            {
              role: 'assistant',
              content: [
                { type: 'thinking', thinking: 'private', signature: '' },
                { type: 'text', text: 'Listing.' },
                { type: 'tool_use', id: 'c1', name: 'bash', input: { command: 'ls' } },
                { type: 'tool_use', id: 'c2', name: 'bash', input: { command: 'pwd' } },
              ],
            },
            {
              role: 'user',
              content: [
                { type: 'tool_result', tool_use_id: 'c1', content: 'a b' },
                { type: 'tool_result', tool_use_id: 'c2', content: 'denied', is_error: true },
                { type: 'text', text: 'also check git' },
              ],
            },
          ],
        }),
        signal(),
      ),
    );
    const body = mock.bodies[0]!;
    assert.deepEqual(body['messages'], [
      { role: 'system', content: 'You are a test.' },
      { role: 'user', content: 'list files' },
      {
        role: 'assistant',
        content: 'Listing.',
        tool_calls: [
          { id: 'c1', type: 'function', function: { name: 'bash', arguments: '{"command":"ls"}' } },
          { id: 'c2', type: 'function', function: { name: 'bash', arguments: '{"command":"pwd"}' } },
        ],
      },
      { role: 'tool', tool_call_id: 'c1', content: 'a b' },
      { role: 'tool', tool_call_id: 'c2', content: 'Error: denied' },
      { role: 'user', content: 'also check git' },
    ]);
    assert.deepEqual((body['tools'] as unknown[])[0], {
      type: 'function',
      function: { name: 'read_file', description: 'Read a file', parameters: { type: 'object', properties: { path: { type: 'string' } }, required: ['path'] } },
    });
  });

  it('S6: 429 is retried (honouring retry-after-ms), 401 is auth, 400 context length is context_overflow', async () => {
    mock.enqueue(openaiErrorReply(429, 'Rate limit reached', { 'retry-after-ms': '30' }), openaiTextReply('ok'));
    const events = await collect(client().stream(request(), signal()));
    assert.deepEqual(events[0], { type: 'retrying', attempt: 1, maxAttempts: 5, delayMs: 30, reason: 'openai-compatible: 429 Rate limit reached (HTTP 429, retryable)', detail: 'openai-compatible: 429 Rate limit reached' });

    mock.enqueue(openaiErrorReply(401, 'Incorrect API key provided'));
    assert.equal((await collectError(client().stream(request(), signal()))).error.kind, 'auth');

    mock.enqueue(openaiErrorReply(400, "This model's maximum context length is 8192 tokens. However, your messages resulted in 9000 tokens."));
    const overflow = (await collectError(client().stream(request(), signal()))).error;
    assert.equal(overflow.kind, 'context_overflow');
    assert.equal(overflow.details.status, 400);

    mock.enqueue(openaiErrorReply(404, 'model "nope" not found'));
    assert.equal((await collectError(client().stream(request(), signal()))).error.kind, 'invalid_request');
  });

  it('S6: a connection reset mid-stream and an error chunk mid-stream are retried without duplicating text', async () => {
    const full = openaiTextReply('abcdefghijklmnop', { pieces: 4 });
    assert.equal(full.kind, 'sse');
    mock.enqueue({ ...full, cutAfterBytes: 400 }, full);
    const reset = await collect(client().stream(request(), signal()));
    assert.deepEqual(assemble(reset).content, [{ type: 'text', text: 'abcdefghijklmnop' }]);
    assert.ok(types(reset).includes('retrying'));

    mock.enqueue(chunksReply([chunk({ content: 'abc' }), { error: { message: 'upstream overloaded', type: 'server_error' } }], false), full);
    const errored = await collect(client().stream(request(), signal()));
    assert.ok(types(errored).includes('step_reset'));
    assert.deepEqual(assemble(errored).content, [{ type: 'text', text: 'abcdefghijklmnop' }]);
  });

  it('S5: a stream with nothing useful falls back to one non-streaming request', async () => {
    mock.enqueue(chunksReply([chunk({ role: 'assistant' })]), {
      kind: 'json',
      body: {
        id: 'x',
        object: 'chat.completion',
        created: 1,
        model: 'm',
        choices: [{ index: 0, finish_reason: 'stop', message: { role: 'assistant', content: 'from fallback', refusal: null } }],
        usage: { prompt_tokens: 3, completion_tokens: 2, total_tokens: 5 },
      },
    });
    const events = await collect(client().stream(request(), signal()));
    assert.deepEqual(assemble(events).content, [{ type: 'text', text: 'from fallback' }]);
    assert.equal(mock.bodies[1]!['stream'], false);
  });

  it('S5: text without finish_reason or [DONE] still ends with a synthesised message_stop', async () => {
    mock.enqueue(chunksReply([chunk({ content: 'partial but kept' })], false));
    const events = await collect(client().stream(request(), signal()));
    assert.deepEqual(events.at(-1), { type: 'message_stop', stopReason: null });
    assert.equal(mock.requests.length, 1);
  });

  it('S4: the post-tool stall applies to this provider too', async () => {
    mock.enqueue({ kind: 'hang' }, openaiTextReply('back'));
    const events = await collect(client({ stallTimeoutMs: 1000 }).stream(request({ afterToolResults: true }), signal()));
    assert.deepEqual(assemble(events).content, [{ type: 'text', text: 'back' }]);
  });

  it('S8: includeUsage false leaves stream_options out (servers that reject it)', async () => {
    mock.enqueue(openaiTextReply('ok'));
    await collect(client({ includeUsage: false }).stream(request(), signal()));
    assert.equal(mock.bodies[0]!['stream_options'], undefined);
  });

  it('S8: complete() returns the parsed message', async () => {
    mock.enqueue({
      kind: 'json',
      body: {
        id: 'x',
        object: 'chat.completion',
        created: 1,
        model: 'm',
        choices: [
          {
            index: 0,
            finish_reason: 'tool_calls',
            message: { role: 'assistant', content: null, refusal: null, tool_calls: [{ id: 'c9', type: 'function', function: { name: 'bash', arguments: '{"command":"ls"}' } }] },
          },
        ],
      },
    });
    const response = await client().complete(request(), signal());
    assert.deepEqual(response.content, [{ type: 'tool_use', id: 'c9', name: 'bash', input: { command: 'ls' } }]);
    assert.equal(response.stopReason, 'tool_use');
  });
});

describe('providers/openai-compatible: truncated tool arguments', () => {
  let mock: MockOpenAIServer;
  before(async () => {
    mock = await MockOpenAIServer.start();
  });
  after(() => mock.close());

  it('S5: a stream that ends inside tool call arguments (no finish_reason) is retried, not patched up', async () => {
    const full = openaiToolCallsReply([{ id: 'c1', name: 'bash', input: { command: 'ls -la' } }]);
    mock.enqueue(chunksReply([chunk({ tool_calls: [{ index: 0, id: 'c1', function: { name: 'bash', arguments: '{"comm' } }] })], false), full);
    const client = new OpenAICompatibleModelClient({ apiKey: 'k', baseURL: mock.baseURL, retry: { baseDelayMs: 0 } });
    const events = await collect(client.stream(request(), signal()));
    assert.ok(types(events).includes('step_reset'));
    assert.deepEqual(assemble(events).content, [{ type: 'tool_use', id: 'c1', name: 'bash', input: { command: 'ls -la' } }]);
  });

  it('S6: tool arguments that do not parse are a broken stream to retry even when the proxy ended it with finish_reason stop', async () => {
    const full = openaiToolCallsReply([{ id: 'c1', name: 'read_file', input: { path: 'a.ts' } }]);
    mock.enqueue(chunksReply([chunk({ tool_calls: [{ index: 0, id: 'c1', function: { name: 'read_file', arguments: '{"path":' } }] }), chunk({}, 'stop'), usageChunk(10, 2)]), full);
    const client = new OpenAICompatibleModelClient({ apiKey: 'k', baseURL: mock.baseURL, retry: { baseDelayMs: 0 } });
    const events = await collect(client.stream(request(), signal()));
    const retry = events.find((e) => e.type === 'retrying');
    assert.ok(retry && retry.type === 'retrying' && /tool call arguments/.test(retry.reason), 'retried as a broken stream');
    assert.deepEqual(assemble(events).content, [{ type: 'tool_use', id: 'c1', name: 'read_file', input: { path: 'a.ts' } }]);
  });
});

describe('providers/openai-compatible: usage from proxies', () => {
  it('C4: cache reads and writes reported as cache_read_input_tokens / cache_creation_input_tokens (LiteLLM) are counted at their own prices', () => {
    // LiteLLM 1.73 in front of the Messages API: reads inside prompt_tokens, writes outside it.
    const u = mapUsage({ prompt_tokens: 1200, completion_tokens: 30, total_tokens: 1230, cache_read_input_tokens: 1000, cache_creation_input_tokens: 400 } as never);
    assert.deepEqual(u, { input_tokens: 200, output_tokens: 30, cache_read_input_tokens: 1000, cache_creation_input_tokens: 400 });
    // OpenAI's own field still works, and a proxy sending both is not subtracted twice.
    assert.deepEqual(mapUsage({ prompt_tokens: 100, completion_tokens: 1, total_tokens: 101, prompt_tokens_details: { cached_tokens: 80 } }), { input_tokens: 20, output_tokens: 1, cache_read_input_tokens: 80, cache_creation_input_tokens: 0 });
    assert.equal(mapUsage({ prompt_tokens: 100, completion_tokens: 1, total_tokens: 101, prompt_tokens_details: { cached_tokens: 80 }, cache_read_input_tokens: 80 } as never).input_tokens, 20);
  });
});

describe('OpenAI-compatible history (issue 42 item 16)', () => {
  it("issue 42 item 16: a call whose arguments did not parse goes back with the model's own text, not {}", () => {
    const out = toChatMessages('sys', [
      { role: 'user', content: [{ type: 'text', text: 'go' }] },
      { role: 'assistant', content: [{ type: 'tool_use', id: 'c1', name: 'bash', input: {}, unparsedInput: '{"command": "ls' }] },
      { role: 'user', content: [{ type: 'tool_result', tool_use_id: 'c1', content: 'invalid tool input JSON', is_error: true }] },
    ]);
    const call = out.find((m) => m.role === 'assistant') as { tool_calls?: Array<{ function: { arguments: string } }> };
    assert.equal(call.tool_calls?.[0]?.function.arguments, '{"command": "ls');
  });
});
