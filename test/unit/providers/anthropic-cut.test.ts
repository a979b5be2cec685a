import assert from 'node:assert/strict';
import { AnthropicModelClient } from '../../../src/runtime/providers/anthropic';
import { encodeSse, MockAnthropicServer, type SseFrame } from '../../fixtures/mock-anthropic';
import { assemble, collect, request, signal, types } from './helpers';

// A small recorded stream (about a kilobyte of SSE) with multi-byte UTF-8 in text
// and tool input, so cuts land inside characters as well as between
// the `event:` and `data:` lines of a frame.
const d = (index: number, delta: Record<string, unknown>): SseFrame => ({ event: 'content_block_delta', data: { type: 'content_block_delta', index, delta } });
const FRAMES: SseFrame[] = [
  {
    event: 'message_start',
    data: { type: 'message_start', message: { id: 'm', type: 'message', role: 'assistant', model: 'x', content: [], stop_reason: null, stop_sequence: null, usage: { input_tokens: 1, output_tokens: 1 } } },
  },
  { event: 'content_block_start', data: { type: 'content_block_start', index: 0, content_block: { type: 'text', text: '' } } },
  d(0, { type: 'text_delta', text: 'Grüße, 世界 ' }),
  d(0, { type: 'text_delta', text: '🌍!' }),
  { event: 'content_block_stop', data: { type: 'content_block_stop', index: 0 } },
  { event: 'content_block_start', data: { type: 'content_block_start', index: 1, content_block: { type: 'tool_use', id: 't', name: 'bash', input: {} } } },
  d(1, { type: 'input_json_delta', partial_json: '{"command":"echo ä€"}' }),
  { event: 'content_block_stop', data: { type: 'content_block_stop', index: 1 } },
  { event: 'message_delta', data: { type: 'message_delta', delta: { stop_reason: 'tool_use' }, usage: { output_tokens: 9 } } },
  { event: 'message_stop', data: { type: 'message_stop' } },
];

const EXPECTED = [
  { type: 'text', text: 'Grüße, 世界 🌍!' },
  { type: 'tool_use', id: 't', name: 'bash', input: { command: 'echo ä€' } },
];

/** Replays the stream cut at `cut` (then whole) and checks the invariant; returns whether the step was retried and reset. */
async function checkCut(mock: MockAnthropicServer, client: AnthropicModelClient, bytes: Buffer, cut: number): Promise<{ retried: boolean; reset: boolean }> {
  mock.reset();
  mock.enqueue({ kind: 'sse', bytes, cutAfterBytes: cut }, { kind: 'sse', bytes });
  const events = await collect(client.stream(request(), signal()));
  const label = `cut at byte ${cut}/${bytes.length} (${JSON.stringify(bytes.subarray(Math.max(0, cut - 12), cut).toString('latin1'))}|…)`;
  const assembled = assemble(events);
  assert.deepEqual(assembled.content, EXPECTED, label);
  assert.equal(assembled.stopReason, 'tool_use', label);
  assert.equal(assembled.stops, 1, label);
  const t = types(events);
  const retryAt = t.indexOf('retrying');
  if (retryAt < 0) {
    // Only a cut after message_stop arrived can complete without a retry.
    assert.ok(cut >= bytes.lastIndexOf('event: message_stop'), label);
    assert.equal(mock.requests.length, 1, label);
    return { retried: false, reset: false };
  }
  // Anything shown before the retry must be withdrawn before the retried step starts.
  const shownBefore = retryAt > 0;
  assert.equal(t.includes('step_reset'), shownBefore, label);
  assert.equal(t.filter((x) => x === 'retrying').length, 1, label);
  assert.equal(mock.requests.length, 2, label);
  return { retried: true, reset: shownBefore };
}

describe('providers/anthropic: a recorded stream cut at every byte offset', function () {
  this.timeout(120_000);
  // Offsets are independent, so lanes (one mock server each) replay them side by side.
  const LANES = 2;
  let mocks: MockAnthropicServer[] = [];

  before(async () => {
    mocks = await Promise.all(Array.from({ length: LANES }, () => MockAnthropicServer.start()));
  });
  after(() => Promise.all(mocks.map((m) => m.close())));

  it('S6: the recorded stream has the shapes the cuts must cover', () => {
    const bytes = encodeSse(FRAMES);
    assert.ok(bytes.length < 1300, `keep it small (${bytes.length} bytes)`);
    // Inside a multi-byte character: a continuation byte (10xxxxxx).
    assert.ok(bytes.some((b) => (b & 0xc0) === 0x80));
    // Between the event: and data: lines of a frame.
    assert.ok(bytes.indexOf('\ndata: ') > 0);
  });

  it('S6: every cut yields the complete message or a reset + complete retry, never a corrupted one', async () => {
    const bytes = encodeSse(FRAMES);
    let retried = 0;
    let resets = 0;
    await Promise.all(
      mocks.map(async (mock, lane) => {
        const client = new AnthropicModelClient({ apiKey: 'k', baseURL: mock.url, retry: { baseDelayMs: 0 } });
        for (let cut = lane; cut <= bytes.length; cut += LANES) {
          const r = await checkCut(mock, client, bytes, cut);
          if (r.retried) retried++;
          if (r.reset) resets++;
        }
      }),
    );
    assert.ok(retried > bytes.length * 0.9, `most cuts retried (${retried} of ${bytes.length + 1})`);
    assert.ok(resets > 0, 'some cuts withdrew a partial step');
  });
});
