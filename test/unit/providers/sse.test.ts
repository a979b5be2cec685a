import assert from 'node:assert/strict';
import { type SseFrame, SseDecoder } from '../../../src/runtime/providers/sse';

const decodeAll = (chunks: Uint8Array[]) => {
  const decoder = new SseDecoder();
  const out: SseFrame[] = [];
  for (const c of chunks) decoder.push(c, out);
  decoder.end(out);
  return out;
};

describe('providers/sse: the event-stream decoder', () => {
  const wire = 'event: a\ndata: {"x":"Grüße 🌍"}\n\n: a comment\ndata: line1\ndata: line2\n\nevent: ping\ndata: {}\n\nid: 7\nretry: 10\ndata:nospace\n\n';
  const expected: SseFrame[] = [
    { event: 'a', data: '{"x":"Grüße 🌍"}' },
    { event: null, data: 'line1\nline2' },
    { event: 'ping', data: '{}' },
    { event: null, data: 'nospace' },
  ];

  it('S1: decodes events, multi-line data, comments and unknown fields', () => {
    assert.deepEqual(decodeAll([Buffer.from(wire)]), expected);
  });

  it('S1: gives the same frames however the bytes are split, including inside UTF-8 characters and CRLF pairs', () => {
    for (const eol of ['\n', '\r\n', '\r']) {
      const bytes = Buffer.from(wire.replace(/\n/g, eol));
      for (let cut = 0; cut <= bytes.length; cut++) {
        assert.deepEqual(decodeAll([bytes.subarray(0, cut), bytes.subarray(cut)]), expected, `eol ${JSON.stringify(eol)} split at ${cut}`);
      }
      assert.deepEqual(decodeAll([...bytes].map((b) => Uint8Array.of(b))), expected, `eol ${JSON.stringify(eol)} byte by byte`);
    }
  });

  it('S5: an unfinished frame at the end of the body is never dispatched', () => {
    assert.deepEqual(decodeAll([Buffer.from('event: a\ndata: {"x":1}\n\nevent: b\ndata: {"trunc')]), [{ event: 'a', data: '{"x":1}' }]);
    assert.deepEqual(decodeAll([Buffer.from('event: a\ndata: {"x":1}\n')]), []);
  });

  it('S1: a UTF-8 byte order mark at the start is skipped', () => {
    assert.deepEqual(decodeAll([Buffer.from('\uFEFFdata: x\n\n')]), [{ event: null, data: 'x' }]);
  });
});
