import assert from 'node:assert/strict';
import { AnthropicModelClient } from '../../../src/runtime/providers/anthropic';
import {
  blockFrames,
  errorFrame,
  jsonMessageReply,
  messageStartFrame,
  MockAnthropicServer,
  pingFrame,
  streamReply,
  textReply,
  thinkingFrames,
  toolUseReply,
  type SseFrame,
} from '../../fixtures/mock-anthropic';
import { assemble, collect, FAST, MODEL, request, signal, types } from './helpers';

describe('providers/anthropic: event normalisation', () => {
  let mock: MockAnthropicServer;
  let client: AnthropicModelClient;

  before(async () => {
    mock = await MockAnthropicServer.start();
  });
  after(() => mock.close());
  beforeEach(() => {
    mock.reset();
    client = new AnthropicModelClient({ ...FAST, baseURL: mock.url });
  });
  afterEach(() => assert.equal(mock.pending, 0, 'every scripted reply was used'));

  it('S1: a text reply becomes text deltas, usage and message_stop', async () => {
    mock.enqueue(textReply('Hello there, world', { usage: { input_tokens: 42, output_tokens: 7 } }));
    const events = await collect(client.stream(request(), signal()));
    // C4: the input is reported at message_start already (billed even if the attempt breaks), the final figures at the end.
    assert.deepEqual(types(events), ['usage', 'text_delta', 'text_delta', 'usage', 'message_stop']);
    assert.equal(events[0]!.type === 'usage' && events[0]!.usage.input_tokens, 42);
    assert.deepEqual(assemble(events).content, [{ type: 'text', text: 'Hello there, world' }]);
    assert.deepEqual(events[3], { type: 'usage', usage: { input_tokens: 42, output_tokens: 7, cache_creation_input_tokens: 0, cache_read_input_tokens: 0 } });
    assert.deepEqual(events[4], { type: 'message_stop', stopReason: 'end_turn' });
  });

  it('S1: ping frames are ignored wherever they arrive', async () => {
    const frames = streamReply([{ type: 'text', text: 'abc', chunks: 3 }], { ping: true });
    assert.equal(frames.kind, 'sse');
    const withPings: SseFrame[] = [];
    for (const f of frames.frames!) withPings.push(f, pingFrame());
    mock.enqueue({ kind: 'sse', frames: withPings });
    const events = await collect(client.stream(request(), signal()));
    assert.deepEqual(assemble(events).content, [{ type: 'text', text: 'abc' }]);
    assert.equal(events.filter((e) => e.type === 'message_stop').length, 1);
  });

  it('S1: message_start carrying content emits it before the streamed blocks', async () => {
    const frames: SseFrame[] = [
      messageStartFrame({
        content: [
          { type: 'text', text: 'Prefilled. ' },
          { type: 'tool_use', id: 'toolu_0', name: 'read_file', input: { path: 'a.ts' } },
        ],
      }),
      ...blockFrames({ type: 'text', text: 'Then streamed.' }, 2),
      { event: 'message_delta', data: { type: 'message_delta', delta: { stop_reason: 'tool_use', stop_sequence: null }, usage: { output_tokens: 9 } } },
      { event: 'message_stop', data: { type: 'message_stop' } },
    ];
    mock.enqueue({ kind: 'sse', frames });
    const events = await collect(client.stream(request(), signal()));
    assert.deepEqual(assemble(events).content, [
      { type: 'text', text: 'Prefilled. ' },
      { type: 'tool_use', id: 'toolu_0', name: 'read_file', input: { path: 'a.ts' } },
      { type: 'text', text: 'Then streamed.' },
    ]);
    assert.deepEqual(events.at(-1), { type: 'message_stop', stopReason: 'tool_use' });
  });

  it('S2/S3: thinking streams live and is emitted whole, with its signature, at block stop', async () => {
    mock.enqueue(
      streamReply([
        { type: 'thinking', thinking: 'Let me think about ünïcode.', signature: 'c2lnbmF0dXJl/+==', chunks: 3 },
        { type: 'text', text: 'Answer.' },
      ]),
    );
    const events = await collect(client.stream(request({ thinkingBudgetTokens: 2048 }), signal()));
    const live = events.filter((e) => e.type === 'thinking_delta').map((e) => (e.type === 'thinking_delta' ? e.thinking : ''));
    assert.equal(live.length, 3);
    assert.equal(live.join(''), 'Let me think about ünïcode.');
    // The whole block comes after its deltas and before the text.
    const whole = events.findIndex((e) => e.type === 'thinking');
    assert.ok(whole > events.findLastIndex((e) => e.type === 'thinking_delta'));
    assert.deepEqual(assemble(events).content, [
      { type: 'thinking', thinking: 'Let me think about ünïcode.', signature: 'c2lnbmF0dXJl/+==' },
      { type: 'text', text: 'Answer.' },
    ]);
    const body = mock.bodies[0]!;
    assert.deepEqual(body['thinking'], { type: 'enabled', budget_tokens: 2048 });
    assert.ok((body['max_tokens'] as number) > 2048, 'max_tokens must exceed the thinking budget');
  });

  it('S2: redacted thinking is kept as is', async () => {
    mock.enqueue(streamReply([{ type: 'redacted_thinking', data: 'EncRyPtEd==' }, { type: 'text', text: 'ok' }]));
    const events = await collect(client.stream(request(), signal()));
    assert.deepEqual(assemble(events).content, [
      { type: 'redacted_thinking', data: 'EncRyPtEd==' },
      { type: 'text', text: 'ok' },
    ]);
  });

  it('S2: several tool uses in one reply: a start event each, input complete at block stop, in order', async () => {
    mock.enqueue(
      toolUseReply(
        [
          { id: 'toolu_1', name: 'read_file', input: { path: 'src/a.ts' } },
          { id: 'toolu_2', name: 'bash', input: { command: 'echo "ünï" && ls -la' } },
          { id: 'toolu_3', name: 'read_file', input: { path: 'b.md' } },
        ],
        { text: 'Reading three things.' },
      ),
    );
    const events = await collect(client.stream(request(), signal()));
    const starts = events.filter((e) => e.type === 'tool_use_start');
    assert.deepEqual(
      starts.map((e) => (e.type === 'tool_use_start' ? e.id : '')),
      ['toolu_1', 'toolu_2', 'toolu_3'],
    );
    for (const start of starts) {
      const s = events.indexOf(start);
      const done = events.findIndex((e) => e.type === 'tool_use' && start.type === 'tool_use_start' && e.id === start.id);
      assert.ok(done > s, 'tool_use follows its tool_use_start');
    }
    const assembled = assemble(events);
    assert.deepEqual(assembled.content, [
      { type: 'text', text: 'Reading three things.' },
      { type: 'tool_use', id: 'toolu_1', name: 'read_file', input: { path: 'src/a.ts' } },
      { type: 'tool_use', id: 'toolu_2', name: 'bash', input: { command: 'echo "ünï" && ls -la' } },
      { type: 'tool_use', id: 'toolu_3', name: 'read_file', input: { path: 'b.md' } },
    ]);
    assert.equal(assembled.stopReason, 'tool_use');
  });

  it('S2: a tool use with only empty input_json_delta fragments has empty input JSON', async () => {
    const frames: SseFrame[] = [
      messageStartFrame(),
      { event: 'content_block_start', data: { type: 'content_block_start', index: 0, content_block: { type: 'tool_use', id: 'toolu_e', name: 'bash', input: {} } } },
      { event: 'content_block_delta', data: { type: 'content_block_delta', index: 0, delta: { type: 'input_json_delta', partial_json: '' } } },
      { event: 'content_block_delta', data: { type: 'content_block_delta', index: 0, delta: { type: 'input_json_delta', partial_json: '' } } },
      { event: 'content_block_stop', data: { type: 'content_block_stop', index: 0 } },
      { event: 'message_delta', data: { type: 'message_delta', delta: { stop_reason: 'tool_use', stop_sequence: null }, usage: { output_tokens: 3 } } },
      { event: 'message_stop', data: { type: 'message_stop' } },
    ];
    mock.enqueue({ kind: 'sse', frames });
    const events = await collect(client.stream(request(), signal()));
    const tool = events.find((e) => e.type === 'tool_use');
    assert.deepEqual(tool, { type: 'tool_use', id: 'toolu_e', name: 'bash', inputJson: '' });
  });

  it('S1: data-only frames (no event: line, as some gateways send) are read by their type', async () => {
    const frames = [messageStartFrame(), ...thinkingFrames(0, 'quiet', 'sig'), ...blockFrames({ type: 'text', text: 'via gateway' }, 1)];
    const dataOnly: SseFrame[] = [...frames, { data: { type: 'message_stop' } }].map((f) => ({ data: f.data }));
    mock.enqueue({ kind: 'sse', frames: dataOnly });
    const events = await collect(client.stream(request(), signal()));
    assert.deepEqual(assemble(events).content, [
      { type: 'thinking', thinking: 'quiet', signature: 'sig' },
      { type: 'text', text: 'via gateway' },
    ]);
  });

  it('S7: cache read/creation tokens from usage become a prompt_cache event', async () => {
    mock.enqueue(textReply('cached', { usage: { input_tokens: 5, cache_read_input_tokens: 1200, cache_creation_input_tokens: 300 } }));
    const events = await collect(client.stream(request(), signal()));
    assert.deepEqual(
      events.find((e) => e.type === 'prompt_cache'),
      { type: 'prompt_cache', cacheReadInputTokens: 1200, cacheCreationInputTokens: 300 },
    );
    const usage = events.find((e) => e.type === 'usage');
    assert.ok(usage?.type === 'usage' && usage.usage.cache_read_input_tokens === 1200 && usage.usage.input_tokens === 5);
  });

  it('S1: an error event is not swallowed as content (it triggers a retry, see the fault tests)', async () => {
    mock.enqueue({ kind: 'sse', frames: [messageStartFrame(), errorFrame('overloaded_error', 'Overloaded')] }, textReply('after'));
    const events = await collect(client.stream(request(), signal()));
    // The broken attempt's input usage comes first (it was billed), then the retry discards the attempt.
    assert.deepEqual(types(events).slice(0, 3), ['usage', 'retrying', 'step_reset']);
    assert.deepEqual(assemble(events).content, [{ type: 'text', text: 'after' }]);
  });

  it('S8: history goes to the API byte-exact: thinking with its signature, redacted thinking, tool use and results', async () => {
    mock.enqueue(textReply('done'));
    const thinking = { type: 'thinking' as const, thinking: 'Ich überlege… 🤔\n  spaces  ', signature: 'EqQBCkYIAhgCIkB+/=' };
    await collect(
      client.stream(
        request({
          afterToolResults: true,
          messages: [
            { role: 'user', content: [{ type: 'text', text: 'run it' }] },
            {
              role: 'assistant',
              content: [thinking, { type: 'redacted_thinking', data: 'opaque==' }, { type: 'text', text: 'Running.' }, { type: 'tool_use', id: 't1', name: 'bash', input: { command: 'ls' } }],
            },
            { role: 'user', content: [{ type: 'tool_result', tool_use_id: 't1', content: 'a\nb', is_error: false }] },
          ],
        }),
        signal(),
      ),
    );
    const raw = mock.requests[0]!.rawBody;
    assert.ok(raw.includes(JSON.stringify(thinking)), 'thinking block serialised unchanged, fields in order');
    const body = mock.bodies[0]!;
    const messages = body['messages'] as Array<{ role: string; content: Array<Record<string, unknown>> }>;
    assert.deepEqual(messages[1]!.content[0], thinking);
    assert.deepEqual(messages[1]!.content[1], { type: 'redacted_thinking', data: 'opaque==' });
    assert.deepEqual(messages[1]!.content[3], { type: 'tool_use', id: 't1', name: 'bash', input: { command: 'ls' } });
    assert.deepEqual(messages[2]!.content[0], { type: 'tool_result', tool_use_id: 't1', content: 'a\nb', is_error: false, cache_control: { type: 'ephemeral' } });
    assert.equal(body['model'], MODEL);
    assert.equal(body['stream'], true);
    assert.deepEqual(
      (body['tools'] as Array<{ name: string }>).map((t) => t.name),
      ['read_file', 'bash'],
    );
    assert.equal(mock.requests[0]!.headers['authorization'], 'Bearer test-key');
  });

  it('S8: complete() makes one non-streaming request and returns the parsed content', async () => {
    mock.enqueue(jsonMessageReply([{ type: 'text', text: 'summary' }, { type: 'tool_use', id: 't9', name: 'bash', input: { command: 'pwd' } }], { usage: { input_tokens: 3, output_tokens: 4 } }));
    const response = await client.complete(request({ maxTokens: 64_000 }), signal());
    assert.deepEqual(response.content, [
      { type: 'text', text: 'summary' },
      { type: 'tool_use', id: 't9', name: 'bash', input: { command: 'pwd' } },
    ]);
    assert.equal(response.stopReason, 'tool_use');
    assert.equal(response.usage.output_tokens, 4);
    assert.equal(mock.bodies[0]!['stream'], false);
  });
});
