// The `openai` provider (Responses API) against a scripted local server speaking
// the Responses SSE event sequence, through the real `openai` package.
import assert from 'node:assert/strict';
import { AbortedError } from '../../../src/runtime/cancellation';
import { createModelClient } from '../../../src/runtime/providers';
import { toAnthropicParams } from '../../../src/runtime/providers/anthropic-params';
import { OpenAIResponsesModelClient } from '../../../src/runtime/providers/openai-responses';
import { AssistantMessageBuilder } from '../../../src/runtime/loop/assistant-message';
import { type Message, type ModelRequest } from '../../../src/runtime/types';
import { MockResponsesServer, responsesErrorReply, responsesJsonReply, responsesReply } from '../../fixtures/mock-responses';
import { assemble, collect, collectError, FAST, request, signal, types } from './helpers';
import { cutCallReply } from './responses-cut';

const REASONER = 'gpt-5-test';
const PLAIN = 'gpt-4.1-test';

describe('openai provider (Responses API)', function () {
  this.timeout(30_000);
  let mock: MockResponsesServer;

  before(async () => {
    mock = await MockResponsesServer.start();
  });
  after(async () => {
    await mock.close();
  });
  beforeEach(() => mock.reset());

  const client = (extra: Record<string, unknown> = {}) => new OpenAIResponsesModelClient({ ...FAST, baseURL: mock.baseURL, ...extra });
  const req = (overrides: Partial<ModelRequest> = {}) => request({ model: REASONER, ...overrides });

  it('S1: streams text and sends the request the Responses way (instructions, function tools, store: false)', async () => {
    mock.enqueue(responsesReply([{ type: 'text', text: 'Hello there.' }], { model: PLAIN, pieces: 3 }));
    const events = await collect(client().stream(req({ model: PLAIN }), signal()));
    assert.deepEqual(assemble(events).content, [{ type: 'text', text: 'Hello there.' }]);
    assert.equal(events.filter((e) => e.type === 'text_delta').length, 3, 'text arrives as it streams');
    assert.equal(assemble(events).stopReason, 'end_turn');
    const body = mock.bodies[0]!;
    assert.equal(mock.requests[0]!.path, '/v1/responses');
    assert.equal(mock.requests[0]!.headers.authorization, 'Bearer test-key');
    assert.equal(body['stream'], true);
    assert.equal(body['store'], false);
    assert.equal(body['instructions'], 'You are a test.');
    assert.equal(body['max_output_tokens'], 1024);
    assert.equal(body['parallel_tool_calls'], true);
    assert.deepEqual(body['input'], [{ role: 'user', content: [{ type: 'input_text', text: 'hello' }] }]);
    assert.deepEqual((body['tools'] as unknown[])[0], {
      type: 'function',
      name: 'read_file',
      description: 'Read a file',
      parameters: { type: 'object', properties: { path: { type: 'string' } }, required: ['path'] },
      strict: false,
    });
    // A model that does not reason is not sent `reasoning` (it would refuse the parameter).
    assert.equal(body['reasoning'], undefined);
    assert.equal(body['include'], undefined);
  });

  it('S3: reasoning summaries stream as thinking; the encrypted item is kept on the block and the request asks for it', async () => {
    mock.enqueue(
      responsesReply([
        { type: 'reasoning', summary: ['**Looking** at the file.', 'Then answering.'], encrypted: 'gAAAA-enc-1' },
        { type: 'text', text: 'Done.' },
      ]),
    );
    const events = await collect(client().stream(req({ thinkingBudgetTokens: 8000 }), signal()));
    const live = events.flatMap((e) => (e.type === 'thinking_delta' ? [e.thinking] : [])).join('');
    assert.equal(live, '**Looking** at the file.\n\nThen answering.');
    const content = assemble(events).content;
    assert.equal(content.length, 2);
    const thinking = content[0]!;
    assert.equal(thinking.type, 'thinking');
    assert.ok(thinking.type === 'thinking');
    assert.equal(thinking.thinking, '**Looking** at the file.\n\nThen answering.');
    assert.equal(thinking.signature, '');
    assert.equal(thinking.reasoning?.provider, 'openai');
    assert.equal(thinking.reasoning?.encryptedContent, 'gAAAA-enc-1');
    assert.deepEqual(thinking.reasoning?.summary, ['**Looking** at the file.', 'Then answering.']);
    assert.deepEqual(content[1], { type: 'text', text: 'Done.' });
    const body = mock.bodies[0]!;
    assert.deepEqual(body['reasoning'], { summary: 'auto', effort: 'medium' });
    assert.deepEqual(body['include'], ['reasoning.encrypted_content']);
  });

  it('an organisation refused reasoning summaries gets its answer without them, and later requests skip them', async () => {
    const refusal = responsesErrorReply(400, 'Your organization must be verified to generate reasoning summaries. Please go to: https://platform.openai.com/settings/organization/general and click on Verify Organization.', 'unsupported_value');
    assert.ok(refusal.kind === 'error');
    (refusal.body as { error: Record<string, unknown> }).error['param'] = 'reasoning.summary';
    mock.enqueue(refusal, responsesReply([{ type: 'reasoning', summary: [], encrypted: 'enc-quiet' }, { type: 'text', text: 'Answer.' }]), responsesReply([{ type: 'text', text: 'Again.' }]));
    const c = client();
    const events = await collect(c.stream(req(), signal()));
    assert.equal(events.filter((e) => e.type === 'retrying').length, 0);
    const content = assemble(events).content;
    assert.equal(content[0]!.type === 'thinking' ? content[0]!.reasoning?.encryptedContent : undefined, 'enc-quiet');
    assert.deepEqual(content[1], { type: 'text', text: 'Answer.' });
    await collect(c.stream(req(), signal()));
    assert.deepEqual(mock.bodies.map((b) => b['reasoning']), [{ summary: 'auto' }, {}, {}]);
    assert.deepEqual(mock.bodies[2]!['include'], ['reasoning.encrypted_content']);
  });

  it('S2: a tool call, then the next step sends the reasoning item back (without its id) before the call and its output', async () => {
    mock.enqueue(
      responsesReply([
        { type: 'reasoning', summary: ['Need the file.'], encrypted: 'gAAAA-enc-2' },
        { type: 'call', callId: 'call_1', name: 'read_file', input: { path: 'a.txt' } },
      ]),
      responsesReply([{ type: 'text', text: 'It says alpha.' }]),
    );
    const first = await collect(client().stream(req(), signal()));
    assert.deepEqual(types(first).filter((t) => t.startsWith('tool_use')), ['tool_use_start', 'tool_use']);
    const step1 = assemble(first);
    assert.equal(step1.stopReason, 'tool_use');
    assert.deepEqual(step1.content[1], { type: 'tool_use', id: 'call_1', name: 'read_file', input: { path: 'a.txt' } });

    const history: Message[] = [
      { role: 'user', content: [{ type: 'text', text: 'read a.txt' }] },
      { role: 'assistant', content: step1.content },
      { role: 'user', content: [{ type: 'tool_result', tool_use_id: 'call_1', content: 'alpha' }] },
    ];
    const second = await collect(client().stream(req({ messages: history, afterToolResults: true }), signal()));
    assert.deepEqual(assemble(second).content, [{ type: 'text', text: 'It says alpha.' }]);
    assert.deepEqual(mock.bodies[1]!['input'], [
      { role: 'user', content: [{ type: 'input_text', text: 'read a.txt' }] },
      { type: 'reasoning', summary: [{ type: 'summary_text', text: 'Need the file.' }], encrypted_content: 'gAAAA-enc-2' },
      { type: 'function_call', call_id: 'call_1', name: 'read_file', arguments: '{"path":"a.txt"}' },
      { type: 'function_call_output', call_id: 'call_1', output: 'alpha' },
    ]);
  });

  it('reasoning goes back only to the model that wrote it (after /model it is left out)', async () => {
    mock.enqueue(responsesReply([{ type: 'reasoning', summary: ['Hm.'], encrypted: 'enc-model-a' }, { type: 'text', text: 'A.' }]), responsesReply([{ type: 'text', text: 'B.' }]), responsesReply([{ type: 'text', text: 'C.' }]));
    const step = assemble(await collect(client().stream(req(), signal())));
    const history = (next: string): Message[] => [
      { role: 'user', content: [{ type: 'text', text: 'hi' }] },
      { role: 'assistant', content: step.content },
      { role: 'user', content: [{ type: 'text', text: next }] },
    ];
    await collect(client().stream(req({ model: 'gpt-5-other', messages: history('again') }), signal()));
    await collect(client().stream(req({ messages: history('and again') }), signal()));
    assert.doesNotMatch(JSON.stringify(mock.bodies[1]!['input']), /enc-model-a/);
    assert.match(JSON.stringify(mock.bodies[2]!['input']), /enc-model-a/);
  });

  it('a proxy that leaves out the output_item events: deltas stream, response.completed finishes the items, nothing twice', async () => {
    const whole = responsesReply([
      { type: 'reasoning', summary: ['Plan.'], encrypted: 'enc-proxy' },
      { type: 'text', text: 'Reading it.' },
      { type: 'call', callId: 'call_p', name: 'read_file', input: { path: 'p.txt' } },
    ]);
    assert.ok(whole.kind === 'sse' && whole.frames);
    const frames = whole.frames.filter((f) => f.event !== 'response.output_item.added' && f.event !== 'response.output_item.done').map((f) => ({ data: f.data }));
    mock.enqueue({ kind: 'sse', frames });
    const events = await collect(client().stream(req(), signal()));
    const step = assemble(events);
    // Without item events the reasoning is known whole only at the end, so its block follows the text.
    const thinking = step.content.find((b) => b.type === 'thinking');
    assert.equal(thinking?.type === 'thinking' ? thinking.reasoning?.encryptedContent : undefined, 'enc-proxy');
    assert.equal(thinking?.type === 'thinking' ? thinking.thinking : undefined, 'Plan.');
    assert.deepEqual(step.content.filter((b) => b.type !== 'thinking'), [
      { type: 'text', text: 'Reading it.' },
      { type: 'tool_use', id: 'call_p', name: 'read_file', input: { path: 'p.txt' } },
    ]);
    assert.equal(step.stopReason, 'tool_use');
    assert.deepEqual(types(events).filter((t) => t === 'tool_use_start'), ['tool_use_start']);
  });

  it('a sparse proxy answer: no deltas, usage without details, text only in the finished item', async () => {
    const item = { id: 'msg_1', type: 'message', role: 'assistant', status: 'completed', content: [{ type: 'output_text', text: 'Whole text.', annotations: [] }] };
    mock.enqueue({
      kind: 'sse',
      frames: [
        { data: { type: 'response.created', sequence_number: 0, response: { id: 'r', status: 'in_progress', output: [] } } },
        { data: { type: 'response.output_item.done', sequence_number: 1, output_index: 0, item } },
        { data: { type: 'response.completed', sequence_number: 2, response: { id: 'r', status: 'completed', output: [item], usage: { input_tokens: 5, output_tokens: 2 } } } },
      ],
    });
    const events = await collect(client().stream(req({ model: PLAIN }), signal()));
    assert.deepEqual(assemble(events).content, [{ type: 'text', text: 'Whole text.' }]);
    assert.deepEqual(events.find((e) => e.type === 'usage'), { type: 'usage', usage: { input_tokens: 5, output_tokens: 2, cache_read_input_tokens: 0, cache_creation_input_tokens: 0 } });
  });

  it('S2: two parallel calls arrive as two tool uses, in order', async () => {
    mock.enqueue(
      responsesReply([
        { type: 'call', callId: 'call_a', name: 'read_file', input: { path: 'a.txt' } },
        { type: 'call', callId: 'call_b', name: 'bash', input: { command: 'ls' } },
      ]),
    );
    const events = await collect(client().stream(req(), signal()));
    const step = assemble(events);
    assert.equal(step.stopReason, 'tool_use');
    assert.deepEqual(step.content, [
      { type: 'tool_use', id: 'call_a', name: 'read_file', input: { path: 'a.txt' } },
      { type: 'tool_use', id: 'call_b', name: 'bash', input: { command: 'ls' } },
    ]);
  });

  it('C4: usage counts cached input apart (input_tokens includes it), and says the cache was read', async () => {
    mock.enqueue(responsesReply([{ type: 'text', text: 'Cached.' }], { usage: { input: 12_000, cached: 10_000, output: 300, reasoning: 200 } }));
    const events = await collect(client().stream(req(), signal()));
    const usage = events.filter((e) => e.type === 'usage').at(-1);
    assert.deepEqual(usage, { type: 'usage', usage: { input_tokens: 2_000, output_tokens: 300, cache_read_input_tokens: 10_000, cache_creation_input_tokens: 0 } });
    assert.ok(events.some((e) => e.type === 'prompt_cache' && e.cacheReadInputTokens === 10_000));
  });

  it('S6: a 500 and then a 429 are retried with a notice each; the third attempt answers', async () => {
    mock.enqueue(
      responsesErrorReply(500, 'The server had an error while processing your request.', 'server_error'),
      responsesErrorReply(429, 'Rate limit reached for requests', 'rate_limit_exceeded', { 'retry-after-ms': '0' }),
      responsesReply([{ type: 'text', text: 'Recovered.' }]),
    );
    const events = await collect(client().stream(req(), signal()));
    const retries = events.filter((e) => e.type === 'retrying');
    assert.equal(retries.length, 2);
    assert.match(retries[0]!.type === 'retrying' ? retries[0]!.reason : '', /HTTP 500, retryable/);
    assert.match(retries[1]!.type === 'retrying' ? retries[1]!.reason : '', /HTTP 429, retryable/);
    assert.deepEqual(assemble(events).content, [{ type: 'text', text: 'Recovered.' }]);
    assert.equal(mock.requests.length, 3);
  });

  it('S6: an error event inside the stream (server_error) is retried and the partial step reset', async () => {
    const good = responsesReply([{ type: 'text', text: 'Second try.' }]);
    const broken = responsesReply([{ type: 'text', text: 'First try that breaks.' }]);
    assert.ok(broken.kind === 'sse' && broken.frames);
    const frames = [...broken.frames.slice(0, 5), { event: 'error', data: { type: 'error', code: 'server_error', message: 'upstream hiccup', param: null, sequence_number: 5 } }];
    mock.enqueue({ kind: 'sse', frames }, good);
    const events = await collect(client().stream(req(), signal()));
    assert.ok(types(events).includes('step_reset'));
    assert.deepEqual(assemble(events).content, [{ type: 'text', text: 'Second try.' }]);
  });

  it('S6: a response.failed for a bad request is not retried', async () => {
    const broken = responsesReply([{ type: 'text', text: 'x' }]);
    assert.ok(broken.kind === 'sse' && broken.frames);
    const failed = { event: 'response.failed', data: { type: 'response.failed', sequence_number: 2, response: { id: 'resp_x', status: 'failed', error: { code: 'invalid_prompt', message: 'Invalid prompt.' }, output: [], usage: null } } };
    mock.enqueue({ kind: 'sse', frames: [broken.frames[0]!, failed] });
    const { error } = await collectError(client().stream(req(), signal()));
    assert.equal(error.kind, 'invalid_request');
    assert.match(error.message, /invalid_prompt: Invalid prompt/);
    assert.equal(mock.requests.length, 1);
  });

  it('S5: a stream that ends with nothing usable falls back to one non-streaming request', async () => {
    const empty = responsesReply([]);
    assert.ok(empty.kind === 'sse' && empty.frames);
    mock.enqueue({ kind: 'sse', frames: empty.frames.slice(0, 2) }, responsesJsonReply([{ type: 'reasoning', summary: ['Quick.'], encrypted: 'enc-fb' }, { type: 'text', text: 'Whole answer.' }]));
    const events = await collect(client().stream(req(), signal()));
    assert.ok(types(events).includes('resending'));
    const content = assemble(events).content;
    assert.deepEqual(content[1], { type: 'text', text: 'Whole answer.' });
    assert.equal(content[0]!.type === 'thinking' ? content[0]!.reasoning?.encryptedContent : undefined, 'enc-fb');
    assert.equal(mock.bodies[1]!['stream'], false);
  });

  it('S6: a stream cut inside a call\'s arguments is retried, never run with half its input', async () => {
    const whole = responsesReply([{ type: 'call', callId: 'call_c', name: 'bash', input: { command: 'echo cut' } }], { pieces: 3 });
    assert.ok(whole.kind === 'sse' && whole.frames);
    mock.enqueue({ kind: 'sse', frames: whole.frames.slice(0, 4) }, whole);
    const events = await collect(client().stream(req(), signal()));
    assert.deepEqual(assemble(events).content, [{ type: 'tool_use', id: 'call_c', name: 'bash', input: { command: 'echo cut' } }]);
    assert.equal(mock.requests.length, 2);
  });

  it('issue 42 item 16: a function call whose arguments do not parse is retried, though the proxy reports the response completed', async () => {
    mock.enqueue(cutCallReply('{"path":"a.t'), responsesReply([{ type: 'call', callId: 'call_ok', name: 'read_file', input: { path: 'a.txt' } }]));
    const events = await collect(client().stream(req(), signal()));
    const retry = events.find((e) => e.type === 'retrying');
    assert.match(retry?.type === 'retrying' ? retry.reason : '', /function call's arguments.*\(retryable/);
    // The cut call never reached the consumer: nothing to run with half its input.
    assert.deepEqual(events.filter((e) => e.type === 'tool_use').map((e) => e.type === 'tool_use' && e.inputJson), ['{"path":"a.txt"}']);
    assert.deepEqual(assemble(events).content, [{ type: 'tool_use', id: 'call_ok', name: 'read_file', input: { path: 'a.txt' } }]);
    assert.equal(mock.requests.length, 2);
  });

  it('issue 42 item 16: a cut call left out of response.completed is judged by its streamed arguments (retried), and a whole one is kept', async () => {
    mock.enqueue(cutCallReply('{"path":"a.t', { leaveOut: true }), cutCallReply('{"path":"a.txt"}', { leaveOut: true }));
    const events = await collect(client().stream(req(), signal()));
    assert.equal(events.filter((e) => e.type === 'retrying').length, 1);
    assert.deepEqual(assemble(events).content, [{ type: 'tool_use', id: 'call_cut', name: 'read_file', input: { path: 'a.txt' } }]);
    assert.equal(assemble(events).stopReason, 'tool_use');
    assert.equal(mock.requests.length, 2);
  });

  it('issue 42 item 16: a non-streamed response (the S5 fallback, complete()) with unparseable call arguments is retried too', async () => {
    const cut = responsesJsonReply([{ type: 'call', callId: 'call_j', name: 'read_file', input: { path: 'a.txt' } }]);
    assert.ok(cut.kind === 'json');
    ((cut.body as { output: Array<Record<string, unknown>> }).output[0]!)['arguments'] = '{"path":';
    mock.enqueue(cut, responsesJsonReply([{ type: 'text', text: 'Whole.' }]));
    const response = await client().complete(req(), signal());
    assert.deepEqual(response.content, [{ type: 'text', text: 'Whole.' }]);
    assert.equal(mock.requests.length, 2);
  });

  it('issue 42 item 16: arguments cut at the output limit are the reply (no retry), and go back in the next request as the model wrote them, not as {}', async () => {
    mock.enqueue(cutCallReply('{"path":"a.t', { incomplete: 'max_output_tokens' }), responsesReply([{ type: 'text', text: 'In parts, then.' }]));
    const events = await collect(client().stream(req(), signal()));
    assert.ok(!types(events).includes('retrying'));
    assert.deepEqual(events.find((e) => e.type === 'tool_use'), { type: 'tool_use', id: 'call_cut', name: 'read_file', inputJson: '{"path":"a.t' });
    assert.deepEqual(events.at(-1), { type: 'message_stop', stopReason: 'max_tokens' });

    // The loop's builder keeps the model's own text on the block (its input is {} and the call is answered with an error).
    const builder = new AssistantMessageBuilder(() => undefined, () => 0, 1);
    for (const e of events) builder.push(e);
    const step = builder.finish();
    assert.deepEqual(step.message.content, [{ type: 'tool_use', id: 'call_cut', name: 'read_file', input: {}, unparsedInput: '{"path":"a.t' }]);
    assert.match(step.toolUses[0]!.inputError ?? '', /output token limit/);

    const history: Message[] = [
      { role: 'user', content: [{ type: 'text', text: 'read a.txt' }] },
      step.message,
      { role: 'user', content: [{ type: 'tool_result', tool_use_id: 'call_cut', content: step.toolUses[0]!.inputError!, is_error: true }] },
    ];
    await collect(client().stream(req({ messages: history, afterToolResults: true }), signal()));
    const input = mock.bodies[1]!['input'] as Array<Record<string, unknown>>;
    assert.deepEqual(input[1], { type: 'function_call', call_id: 'call_cut', name: 'read_file', arguments: '{"path":"a.t' });
    assert.equal(mock.requests.length, 2);
  });

  it('issue 42 item 17: a failure is one line: the status, its name and the first line of the provider\'s message, not a proxy\'s traceback', async () => {
    const traceback = ['litellm.BadRequestError: OpenAIException - Invalid value for input.', 'Traceback (most recent call last):', ...Array.from({ length: 20 }, (_, i) => `  File "/litellm/llms/route_${i}.py", line ${i + 10}, in handler`)].join('\n');
    mock.enqueue(responsesErrorReply(400, traceback, 'invalid_value'));
    const bad = await collectError(client().stream(req(), signal()));
    assert.equal(bad.error.kind, 'invalid_request');
    assert.equal(bad.error.message, 'openai: 400 Bad Request: litellm.BadRequestError: OpenAIException - Invalid value for input.');
    assert.equal(bad.error.details.status, 400);

    // Retried to the end: each notice is one line, its detail (what the log gets) the whole body; the failure says it gave up.
    mock.enqueue(...Array.from({ length: 3 }, () => responsesErrorReply(500, traceback.replace('BadRequestError', 'InternalServerError'), 'server_error')));
    const failed = await collectError(client({ retry: { baseDelayMs: 0, maxRetries: 2 } }).stream(req(), signal()));
    assert.equal(failed.error.kind, 'retryable');
    assert.equal(failed.error.message, 'openai: 500 Internal Server Error: litellm.InternalServerError: OpenAIException - Invalid value for input. (gave up after 2 retries)');
    const retries = failed.events.filter((e) => e.type === 'retrying');
    assert.equal(retries.length, 2);
    for (const r of retries) {
      assert.ok(r.type === 'retrying');
      assert.doesNotMatch(r.reason, /\n/);
      assert.match(r.detail ?? '', /route_19\.py/);
    }

    // complete() the same; a 401 keeps its hint on the one line.
    mock.enqueue(responsesErrorReply(401, `Incorrect API key provided.\n${traceback}`, 'invalid_api_key'));
    await assert.rejects(client().complete(req(), signal()), (err: Error) => {
      assert.match(err.message, /^openai: 401 Unauthorized: Incorrect API key provided\. \(check the API key: set OPENAI_API_KEY/);
      assert.doesNotMatch(err.message, /\n/);
      return true;
    });
  });

  it('T8: cancelling mid-stream throws AbortedError and stops reading', async () => {
    const reply = responsesReply([{ type: 'text', text: 'A long answer that never finishes.' }], { pieces: 4 });
    assert.ok(reply.kind === 'sse');
    mock.enqueue({ ...reply, stallAfterFrames: 5 });
    const controller = new AbortController();
    const seen: string[] = [];
    let caught: unknown;
    try {
      for await (const e of client().stream(req(), controller.signal)) {
        seen.push(e.type);
        if (e.type === 'text_delta') controller.abort();
      }
    } catch (err) {
      caught = err;
    }
    assert.ok(caught instanceof AbortedError, `an abort is an AbortedError, got ${String(caught)}`);
    assert.deepEqual(seen, ['text_delta']);
    assert.equal(mock.requests.length, 1, 'a cancelled step is not retried');
  });

  it('T6: 401 is auth and says which variable to set; 404 is not retried; an overlong input is context_overflow', async () => {
    mock.enqueue(responsesErrorReply(401, 'Incorrect API key provided: sk-wrong.', 'invalid_api_key'));
    const auth = await collectError(client().stream(req(), signal()));
    assert.equal(auth.error.kind, 'auth');
    assert.match(auth.error.message, /OPENAI_API_KEY/);

    mock.enqueue(responsesErrorReply(404, 'The model `gpt-nope` does not exist or you do not have access to it.', 'model_not_found'));
    const missing = await collectError(client().stream(req(), signal()));
    assert.equal(missing.error.kind, 'invalid_request');

    mock.enqueue(responsesErrorReply(400, 'Your input exceeds the context window of this model. Please adjust your input and try again.', 'context_length_exceeded'));
    const overflow = await collectError(client().stream(req(), signal()));
    assert.equal(overflow.error.kind, 'context_overflow');
    assert.equal(mock.requests.length, 3);
  });

  it('T6: no key at all is an auth error naming OPENAI_API_KEY, before any request', async () => {
    const saved = process.env['OPENAI_API_KEY'];
    delete process.env['OPENAI_API_KEY'];
    try {
      const { error } = await collectError(new OpenAIResponsesModelClient({ baseURL: mock.baseURL }).stream(req(), signal()));
      assert.equal(error.kind, 'auth');
      assert.match(error.message, /set OPENAI_API_KEY or store one with "Turnstone: Set API Key"/);
      assert.equal(mock.requests.length, 0);
    } finally {
      if (saved !== undefined) process.env['OPENAI_API_KEY'] = saved;
    }
  });

  it('images go as input_image data URLs; a tool result\'s images follow its output naming the call', async () => {
    mock.enqueue(responsesReply([{ type: 'text', text: 'A red dot.' }]));
    const png = { type: 'image' as const, mediaType: 'image/png' as const, data: 'iVBORw0KGgo=', width: 1, height: 1 };
    const messages: Message[] = [
      { role: 'user', content: [{ type: 'text', text: 'look' }, png] },
      { role: 'assistant', content: [{ type: 'tool_use', id: 'call_s', name: 'read_file', input: { path: 'dot.png' } }] },
      { role: 'user', content: [{ type: 'tool_result', tool_use_id: 'call_s', content: 'dot.png (1x1)', images: [png] }] },
    ];
    await collect(client().stream(req({ messages }), signal()));
    const url = 'data:image/png;base64,iVBORw0KGgo=';
    assert.deepEqual(mock.bodies[0]!['input'], [
      { role: 'user', content: [{ type: 'input_text', text: 'look' }, { type: 'input_image', image_url: url, detail: 'auto' }] },
      { type: 'function_call', call_id: 'call_s', name: 'read_file', arguments: '{"path":"dot.png"}' },
      { type: 'function_call_output', call_id: 'call_s', output: 'dot.png (1x1)' },
      { role: 'user', content: [{ type: 'input_text', text: 'Image returned by tool call call_s:' }, { type: 'input_image', image_url: url, detail: 'auto' }] },
    ]);
  });

  it('complete(): one non-streaming request through the routed client, reasoning kept', async () => {
    mock.enqueue(responsesJsonReply([{ type: 'reasoning', summary: ['Short.'], encrypted: 'enc-c' }, { type: 'text', text: 'Summary.' }], { usage: { input: 50, output: 5 } }));
    const routed = createModelClient({ provider: 'openai', ...FAST, baseURL: mock.baseURL });
    const response = await routed.complete(req(), signal());
    assert.deepEqual(response.content[1], { type: 'text', text: 'Summary.' });
    assert.equal(response.content[0]!.type === 'thinking' ? response.content[0]!.reasoning?.encryptedContent : undefined, 'enc-c');
    assert.deepEqual(response.usage, { input_tokens: 50, output_tokens: 5, cache_read_input_tokens: 0, cache_creation_input_tokens: 0 });
    assert.equal(response.stopReason, 'end_turn');
  });

  describe('a session moving between providers', () => {
    const anthropicHistory: Message[] = [
      { role: 'user', content: [{ type: 'text', text: 'list files' }] },
      {
        role: 'assistant',
        content: [
          { type: 'thinking', thinking: 'I should run ls.', signature: 'sig-anthropic' },
          { type: 'redacted_thinking', data: 'redacted-blob' },
          { type: 'tool_use', id: 'toolu_01', name: 'bash', input: { command: 'ls' } },
        ],
      },
      { role: 'user', content: [{ type: 'tool_result', tool_use_id: 'toolu_01', content: 'a.txt' }] },
      { role: 'assistant', content: [{ type: 'text', text: 'One file.' }] },
      { role: 'user', content: [{ type: 'text', text: 'and now?' }] },
    ];

    it('begun on anthropic, resumed on openai: Anthropic thinking stays home, calls and results carry over', async () => {
      mock.enqueue(responsesReply([{ type: 'text', text: 'Still one file.' }]));
      const events = await collect(client().stream(req({ messages: anthropicHistory }), signal()));
      assert.deepEqual(assemble(events).content, [{ type: 'text', text: 'Still one file.' }]);
      const input = mock.bodies[0]!['input'] as unknown[];
      assert.deepEqual(input, [
        { role: 'user', content: [{ type: 'input_text', text: 'list files' }] },
        { type: 'function_call', call_id: 'toolu_01', name: 'bash', arguments: '{"command":"ls"}' },
        { type: 'function_call_output', call_id: 'toolu_01', output: 'a.txt' },
        { role: 'assistant', content: 'One file.' },
        { role: 'user', content: [{ type: 'input_text', text: 'and now?' }] },
      ]);
      assert.doesNotMatch(JSON.stringify(input), /sig-anthropic|redacted-blob|I should run ls/);
    });

    it('begun on openai, resumed on anthropic: the encrypted reasoning is never sent there', () => {
      const openaiHistory: Message[] = [
        { role: 'user', content: [{ type: 'text', text: 'list files' }] },
        {
          role: 'assistant',
          content: [
            { type: 'thinking', thinking: 'Run ls.', signature: '', reasoning: { provider: 'openai', id: 'rs_1', encryptedContent: 'gAAAA-secret-state', summary: ['Run ls.'] } },
            { type: 'tool_use', id: 'call_1', name: 'bash', input: { command: 'ls' } },
          ],
        },
        { role: 'user', content: [{ type: 'tool_result', tool_use_id: 'call_1', content: 'a.txt' }] },
        { role: 'assistant', content: [{ type: 'thinking', thinking: '', signature: '', reasoning: { provider: 'openai', id: 'rs_2', encryptedContent: 'gAAAA-only-reasoning', summary: [] } }] },
        { role: 'user', content: [{ type: 'text', text: 'and now?' }] },
      ];
      const params = toAnthropicParams(request({ messages: openaiHistory }));
      const sent = JSON.stringify(params.messages);
      assert.doesNotMatch(sent, /gAAAA|"thinking"/);
      assert.deepEqual(params.messages[1]!.content, [{ type: 'tool_use', id: 'call_1', name: 'bash', input: { command: 'ls' } }]);
      // A reply that held only reasoning would be empty, which the Messages API refuses.
      assert.deepEqual(params.messages[3]!.content, [{ type: 'text', text: '(no reply text)' }]);
    });
  });
});
