import assert from 'node:assert/strict';
import { AbortedError } from '../../../src/runtime/cancellation';
import { AnthropicModelClient } from '../../../src/runtime/providers/anthropic';
import { type AnthropicClientOptions } from '../../../src/runtime/providers/options';
import {
  errorFrame,
  errorReply,
  jsonMessageReply,
  messageStartFrame,
  MockAnthropicServer,
  replyBytes,
  replyFrames,
  textReply,
  toolUseReply,
} from '../../fixtures/mock-anthropic';
import { assemble, collect, collectError, FAST, request, signal, types } from './helpers';

const LONG_TEXT = 'The quick brown fox jumps over the lazy dog. '.repeat(6);

describe('providers/anthropic: faults, retries, stalls and fallbacks', () => {
  let mock: MockAnthropicServer;

  before(async () => {
    mock = await MockAnthropicServer.start();
  });
  after(() => mock.close());
  beforeEach(() => mock.reset());

  const client = (extra: AnthropicClientOptions = {}) => new AnthropicModelClient({ ...FAST, baseURL: mock.url, ...extra });

  describe('S6: retries', () => {
    it('S6: 429 with retry-after waits as told, reports the retry, then succeeds', async () => {
      mock.enqueue(errorReply(429, 'rate_limit_error', 'Number of requests has exceeded your rate limit', { 'retry-after': '1' }), textReply('ok'));
      const t0 = Date.now();
      const events = await collect(client().stream(request(), signal()));
      assert.ok(Date.now() - t0 >= 950, 'waited for retry-after');
      assert.deepEqual(events[0], { type: 'retrying', attempt: 1, maxAttempts: 5, delayMs: 1000, reason: events[0]!.type === 'retrying' ? events[0]!.reason : '', detail: 'anthropic: 429 Number of requests has exceeded your rate limit' });
      assert.match((events[0] as { reason: string }).reason, /429/);
      assert.deepEqual(assemble(events).content, [{ type: 'text', text: 'ok' }]);
      assert.equal(mock.requests.length, 2);
    });

    it('S6: retry-after-ms takes precedence and is honoured even with zero backoff', async () => {
      mock.enqueue(errorReply(429, 'rate_limit_error', 'slow down', { 'retry-after-ms': '120', 'retry-after': '30' }), textReply('ok'));
      const events = await collect(client().stream(request(), signal()));
      assert.equal(events[0]!.type === 'retrying' && events[0]!.delayMs, 120);
    });

    it('S6: 529 overloaded twice, then success; nothing partial, so no step_reset', async () => {
      mock.enqueue(errorReply(529, 'overloaded_error', 'Overloaded'), errorReply(529, 'overloaded_error', 'Overloaded'), textReply('finally'));
      const events = await collect(client().stream(request(), signal()));
      const retries = events.filter((e) => e.type === 'retrying');
      assert.deepEqual(
        retries.map((e) => e.type === 'retrying' && [e.attempt, e.maxAttempts]),
        [
          [1, 5],
          [2, 5],
        ],
      );
      assert.ok(!types(events).includes('step_reset'));
      assert.deepEqual(assemble(events).content, [{ type: 'text', text: 'finally' }]);
      assert.equal(mock.requests.length, 3);
    });

    it('S6: 500 is retried; the resent request is identical', async () => {
      mock.enqueue(errorReply(500, 'api_error', 'Internal server error'), textReply('ok'));
      const events = await collect(client().stream(request(), signal()));
      assert.deepEqual(types(events).slice(0, 1), ['retrying']);
      assert.equal(mock.requests[0]!.rawBody, mock.requests[1]!.rawBody);
    });

    it('S6: backoff grows exponentially from the 200 ms–1 s band, with jitter inside it', async () => {
      mock.enqueue(errorReply(503, 'api_error', 'unavailable'), errorReply(503, 'api_error', 'unavailable'), textReply('ok'));
      // random() = 0 gives the low edge of each band; the waits stay short.
      const events = await collect(client({ retry: { baseDelayMs: 20, random: () => 0 } }).stream(request(), signal()));
      const delays = events.flatMap((e) => (e.type === 'retrying' ? [e.delayMs] : []));
      assert.deepEqual(delays, [20, 40]);
    });

    it('S6: a connection reset mid-stream retries the step and resets what was shown, never duplicating text', async () => {
      const reply = textReply(LONG_TEXT, {});
      const frames = replyFrames([{ type: 'text', text: LONG_TEXT, chunks: 6 }]);
      const bytes = replyBytes({ kind: 'sse', frames });
      // Cut after the third text delta: some text has been shown.
      const cut = bytes.indexOf('content_block_delta', bytes.indexOf('content_block_delta', bytes.indexOf('content_block_delta') + 1) + 1) + 200;
      mock.enqueue({ kind: 'sse', frames, cutAfterBytes: cut }, reply);
      const events = await collect(client().stream(request(), signal()));
      const resetAt = types(events).indexOf('step_reset');
      assert.ok(resetAt > 0, 'step_reset after partial text');
      assert.ok(types(events).slice(0, resetAt).includes('text_delta'), 'partial text was shown before the reset');
      assert.equal(events[resetAt - 1]!.type, 'retrying');
      assert.match((events[resetAt - 1] as { reason: string }).reason, /connection lost/);
      assert.deepEqual(assemble(events).content, [{ type: 'text', text: LONG_TEXT }]);
    });

    it('S6: an error event mid-stream retries the step with a step_reset', async () => {
      const frames = replyFrames([{ type: 'text', text: LONG_TEXT, chunks: 4 }]);
      const broken = [...frames.slice(0, 4), errorFrame('overloaded_error', 'Overloaded')];
      mock.enqueue({ kind: 'sse', frames: broken }, textReply(LONG_TEXT));
      const events = await collect(client().stream(request(), signal()));
      assert.ok(types(events).includes('step_reset'));
      assert.match((events.find((e) => e.type === 'retrying') as { reason: string }).reason, /Overloaded/);
      assert.deepEqual(assemble(events).content, [{ type: 'text', text: LONG_TEXT }]);
    });

    it('S6: the retry budget is configurable; exhausting it throws a retryable ModelError with status and request id', async () => {
      mock.enqueue(errorReply(503, 'api_error', 'down'), errorReply(503, 'api_error', 'down'), errorReply(503, 'api_error', 'down'));
      const { events, error } = await collectError(client({ retry: { baseDelayMs: 0, maxRetries: 2 } }).stream(request(), signal()));
      assert.equal(error.kind, 'retryable');
      assert.equal(error.details.status, 503);
      assert.equal(error.details.requestId, 'req_mock_503');
      assert.match(error.message, /gave up after 2 retries/);
      assert.equal(events.filter((e) => e.type === 'retrying').length, 2);
      assert.equal(mock.requests.length, 3);
    });

    it('S6: 401 is not retried and becomes an auth error with status and request id', async () => {
      mock.enqueue(errorReply(401, 'authentication_error', 'invalid x-api-key'));
      const { events, error } = await collectError(client().stream(request(), signal()));
      assert.equal(error.kind, 'auth');
      assert.equal(error.details.status, 401);
      assert.equal(error.details.requestId, 'req_mock_401');
      assert.deepEqual(events, []);
      assert.equal(mock.requests.length, 1);
    });

    it('S6: 403 is an auth error too', async () => {
      mock.enqueue(errorReply(403, 'permission_error', 'no access'));
      const { error } = await collectError(client().stream(request(), signal()));
      assert.equal(error.kind, 'auth');
    });

    it('S6: 400 prompt too long is a context overflow, not retried', async () => {
      mock.enqueue(errorReply(400, 'invalid_request_error', 'prompt is too long: 212345 tokens > 200000 maximum'));
      const { error } = await collectError(client().stream(request(), signal()));
      assert.equal(error.kind, 'context_overflow');
      assert.equal(error.details.status, 400);
      assert.equal(mock.requests.length, 1);
    });

    it('S6: other 400s and 404 are invalid requests, not retried', async () => {
      mock.enqueue(errorReply(400, 'invalid_request_error', 'messages: field required'), errorReply(404, 'not_found_error', 'model: nope'));
      assert.equal((await collectError(client().stream(request(), signal()))).error.kind, 'invalid_request');
      assert.equal((await collectError(client().stream(request(), signal()))).error.kind, 'invalid_request');
      assert.equal(mock.requests.length, 2);
    });

    it('S6: a server asking for a wait beyond the cap is not waited for', async () => {
      mock.enqueue(errorReply(429, 'rate_limit_error', 'later', { 'retry-after': '3600' }));
      const { error } = await collectError(client().stream(request(), signal()));
      assert.equal(error.kind, 'retryable');
      assert.equal(error.details.retryAfterMs, 3_600_000);
      assert.equal(mock.requests.length, 1);
    });

    it('S6: the SDK does not retry on its own (maxRetries 0): one request per reported attempt', async () => {
      mock.enqueue(errorReply(500, 'api_error', 'x'), textReply('ok'));
      await collect(client().stream(request(), signal()));
      assert.deepEqual(
        mock.requests.map((r) => r.headers['x-stainless-retry-count']),
        ['0', '0'],
      );
    });
  });

  describe('S4: post-tool stall', () => {
    it('S4: no event within the stall timeout after tool results: abort and resend the same request once', async () => {
      mock.enqueue({ kind: 'sse', frames: replyFrames([{ type: 'text', text: 'never' }]), stallAfterFrames: 0 }, textReply('resumed'));
      const events = await collect(client({ stallTimeoutMs: 1000 }).stream(request({ afterToolResults: true }), signal()));
      assert.equal(events[0]!.type, 'retrying');
      assert.match((events[0] as { reason: string }).reason, /after tool results/);
      assert.deepEqual(assemble(events).content, [{ type: 'text', text: 'resumed' }]);
      assert.equal(mock.requests.length, 2);
      assert.equal(mock.requests[0]!.rawBody, mock.requests[1]!.rawBody);
    });

    it('S4: a server that never even sends headers counts as a stall too', async () => {
      mock.enqueue({ kind: 'hang' }, textReply('resumed'));
      const events = await collect(client({ stallTimeoutMs: 1000 }).stream(request({ afterToolResults: true }), signal()));
      assert.deepEqual(assemble(events).content, [{ type: 'text', text: 'resumed' }]);
    });

    it('S4: stalling again after the resend fails clearly with kind stalled', async () => {
      mock.enqueue({ kind: 'hang' }, { kind: 'hang' });
      const { error } = await collectError(client({ stallTimeoutMs: 100 }).stream(request({ afterToolResults: true }), signal()));
      assert.equal(error.kind, 'stalled');
      assert.match(error.message, /100 ms after tool results/);
      assert.equal(mock.requests.length, 2);
    });

    it('S4: the stall timer is only armed after tool results, and only until the first event', async () => {
      const slowFirst = replyFrames([{ type: 'text', text: 'slow but fine' }]);
      slowFirst[0] = { ...slowFirst[0]!, delayMs: 250 };
      mock.enqueue({ kind: 'sse', frames: slowFirst });
      const plain = await collect(client({ stallTimeoutMs: 80 }).stream(request({ afterToolResults: false }), signal()));
      assert.deepEqual(assemble(plain).content, [{ type: 'text', text: 'slow but fine' }]);

      // After the first event, later gaps longer than the stall timeout are fine. The timeout leaves the first
      // event a second to arrive: with 80 ms a loaded machine delivered it late and the stall fired before it.
      const slowLater = replyFrames([{ type: 'text', text: 'gap after start' }]);
      slowLater[2] = { ...slowLater[2]!, delayMs: 1300 };
      mock.enqueue({ kind: 'sse', frames: slowLater });
      const after = await collect(client({ stallTimeoutMs: 1000 }).stream(request({ afterToolResults: true }), signal()));
      assert.ok(!types(after).includes('retrying'));
      assert.equal(mock.requests.length, 2);
    });

    it('S6: a stream that goes silent mid-reply past the idle timeout is retried with a step_reset', async () => {
      const frames = replyFrames([{ type: 'text', text: LONG_TEXT, chunks: 4 }]);
      mock.enqueue({ kind: 'sse', frames, stallAfterFrames: 4 }, textReply(LONG_TEXT));
      const events = await collect(client({ idleTimeoutMs: 1000 }).stream(request(), signal()));
      assert.ok(types(events).includes('step_reset'));
      assert.match((events.find((e) => e.type === 'retrying') as { reason: string }).reason, /silent/);
      assert.deepEqual(assemble(events).content, [{ type: 'text', text: LONG_TEXT }]);
    });
  });

  describe('S5: stream ended without message_stop', () => {
    it('S5: synthesises message_stop when the stream ends after complete text', async () => {
      mock.enqueue({ kind: 'sse', frames: replyFrames([{ type: 'text', text: 'complete text' }], { omitMessageStop: true }) });
      const events = await collect(client().stream(request(), signal()));
      assert.equal(events.at(-1)!.type, 'message_stop');
      assert.deepEqual(events.at(-1), { type: 'message_stop', stopReason: 'end_turn' });
      assert.deepEqual(assemble(events).content, [{ type: 'text', text: 'complete text' }]);
      assert.equal(mock.requests.length, 1);
    });

    it('S5: synthesises message_stop after a complete tool use (stop reason from message_delta)', async () => {
      mock.enqueue({ ...toolUseReply([{ id: 't1', name: 'bash', input: { command: 'ls' } }], { omitMessageStop: true }) });
      const events = await collect(client().stream(request(), signal()));
      assert.deepEqual(events.at(-1), { type: 'message_stop', stopReason: 'tool_use' });
      assert.equal(mock.requests.length, 1);
    });

    it('S5: nothing useful received: falls back to ONE non-streaming request with an explicit timeout', async () => {
      mock.enqueue(
        { kind: 'sse', frames: [messageStartFrame()] },
        jsonMessageReply([{ type: 'text', text: 'from fallback' }, { type: 'tool_use', id: 't2', name: 'read_file', input: { path: 'x' } }]),
      );
      const events = await collect(client().stream(request({ maxTokens: 64_000 }), signal()));
      assert.deepEqual(assemble(events).content, [
        { type: 'text', text: 'from fallback' },
        { type: 'tool_use', id: 't2', name: 'read_file', input: { path: 'x' } },
      ]);
      assert.equal(assemble(events).stopReason, 'tool_use');
      assert.equal(mock.requests.length, 2);
      assert.equal(mock.bodies[1]!['stream'], false);
      assert.equal(mock.bodies[1]!['max_tokens'], 64_000);
      assert.equal(mock.requests[1]!.headers['x-stainless-timeout'], '600');
    });

    it('S5: partial thinking before an empty end is reset before the fallback content', async () => {
      const frames = replyFrames([{ type: 'thinking', thinking: 'hmm', signature: 'sig' }], { omitMessageStop: true });
      mock.enqueue({ kind: 'sse', frames }, jsonMessageReply([{ type: 'text', text: 'fallback answer' }]));
      const events = await collect(client().stream(request(), signal()));
      assert.ok(types(events).indexOf('step_reset') > types(events).indexOf('thinking'));
      assert.deepEqual(assemble(events).content, [{ type: 'text', text: 'fallback answer' }]);
    });

    it('S5: a stream ending inside a block is not patched up: the step is retried', async () => {
      const frames = replyFrames([{ type: 'text', text: LONG_TEXT, chunks: 4 }]);
      // Cleanly ended (no reset) right after two text deltas: the text block never closed.
      mock.enqueue({ kind: 'sse', frames: frames.slice(0, 4) }, textReply(LONG_TEXT));
      const events = await collect(client().stream(request(), signal()));
      assert.ok(types(events).includes('step_reset'));
      assert.deepEqual(assemble(events).content, [{ type: 'text', text: LONG_TEXT }]);
    });
  });

  describe('T8: aborts', () => {
    it('T8: aborting mid-stream throws ModelError aborted and closes the request', async () => {
      const frames = replyFrames([{ type: 'text', text: LONG_TEXT, chunks: 4 }]);
      mock.enqueue({ kind: 'sse', frames, stallAfterFrames: 4 });
      const controller = new AbortController();
      const seen: string[] = [];
      let caught: unknown;
      try {
        for await (const e of client().stream(request(), controller.signal)) {
          seen.push(e.type);
          if (e.type === 'text_delta') controller.abort();
        }
      } catch (err) {
        caught = err;
      }
      assert.ok(caught instanceof AbortedError, `an abort is an AbortedError, got ${String(caught)}`);
      assert.deepEqual(seen, ['usage', 'text_delta']);
    });

    it('T8: aborting during a retry backoff stops waiting at once', async () => {
      mock.enqueue(errorReply(429, 'rate_limit_error', 'wait', { 'retry-after': '30' }));
      const controller = new AbortController();
      const t0 = Date.now();
      let caught: unknown;
      try {
        for await (const e of client({ retry: { maxRetryAfterMs: 60_000 } }).stream(request(), controller.signal)) {
          if (e.type === 'retrying') setTimeout(() => controller.abort(), 20);
        }
      } catch (err) {
        caught = err;
      }
      assert.ok(caught instanceof AbortedError, `an abort is an AbortedError, got ${String(caught)}`);
      assert.ok(Date.now() - t0 < 5000);
    });

    it('T8: an already aborted signal makes no request', async () => {
      const controller = new AbortController();
      controller.abort();
      await assert.rejects(collect(client().stream(request(), controller.signal)), AbortedError);
      assert.equal(mock.requests.length, 0);
    });

    it('T6: no API key is an auth error before any request (the host can then ask for one)', async () => {
      const saved = process.env['ANTHROPIC_API_KEY'];
      delete process.env['ANTHROPIC_API_KEY'];
      try {
        const { error } = await collectError(new AnthropicModelClient({ baseURL: mock.url }).stream(request(), signal()));
        assert.equal(error.kind, 'auth');
        assert.equal(mock.requests.length, 0);
      } finally {
        if (saved !== undefined) process.env['ANTHROPIC_API_KEY'] = saved;
      }
    });
  });
});
