import assert from 'node:assert/strict';
import { backoffDelay, classifyError, parseRetryAfter, resolveRetry } from '../../../src/runtime/providers/retry';
import { ModelError } from '../../../src/runtime/types';

const headers = (h: Record<string, string>) => new Headers(h);

describe('providers/retry: policy and classification', () => {
  it('S6: retry-after as seconds, as an HTTP date, and retry-after-ms', () => {
    assert.equal(parseRetryAfter(headers({ 'retry-after': '7' })), 7000);
    assert.equal(parseRetryAfter(headers({ 'retry-after-ms': '250' })), 250);
    const now = Date.parse('2026-11-29T12:00:00Z');
    assert.equal(parseRetryAfter(headers({ 'retry-after': 'Sun, 29 Nov 2026 12:00:03 GMT' }), now), 3000);
    assert.equal(parseRetryAfter(headers({ 'retry-after': 'Sun, 29 Nov 2026 11:00:00 GMT' }), now), 0);
    assert.equal(parseRetryAfter(headers({ 'retry-after': 'soon' })), undefined);
    assert.equal(parseRetryAfter(headers({})), undefined);
  });

  it('S6: the first backoff lies in 200 ms–1 s by default and doubles per retry, capped', () => {
    const at = (r: number, attempt: number) => backoffDelay(attempt, resolveRetry({ random: () => r }));
    assert.equal(at(0, 1), 200);
    assert.equal(at(1, 1), 1000);
    assert.equal(at(0, 2), 400);
    assert.equal(at(1, 3), 4000);
    assert.equal(at(1, 20), 30_000);
    assert.equal(resolveRetry().maxRetries, 5);
  });

  it('S6: status codes map to kinds: 408/409/429/5xx/529 retryable, 401/403 auth, other 4xx invalid', () => {
    const kind = (status: number, message = 'x') => classifyError(Object.assign(new Error(message), { status, headers: headers({}) }), 'p').kind;
    for (const s of [408, 409, 429, 500, 502, 503, 504, 529]) assert.equal(kind(s), 'retryable', String(s));
    assert.equal(kind(401), 'auth');
    assert.equal(kind(403), 'auth');
    for (const s of [400, 404, 413, 422]) assert.equal(kind(s), 'invalid_request', String(s));
    assert.equal(kind(400, 'prompt is too long: 300000 tokens > 200000 maximum'), 'context_overflow');
    assert.equal(kind(400, 'input length and `max_tokens` exceed context limit: 190000 + 21333 > 200000'), 'context_overflow');
    assert.equal(kind(413, 'request_too_large: Request exceeds the maximum size'), 'invalid_request');
  });

  it('S6: x-should-retry from the server overrides the status rule', () => {
    const e = (status: number, v: string) => classifyError(Object.assign(new Error('x'), { status, headers: headers({ 'x-should-retry': v }) }), 'p').kind;
    assert.equal(e(400, 'true'), 'retryable');
    assert.equal(e(500, 'false'), 'invalid_request');
  });

  it('S6: connection failures anywhere in the cause chain are retryable; unknown errors are protocol errors', () => {
    assert.equal(classifyError(new TypeError('terminated'), 'p').kind, 'retryable');
    assert.equal(classifyError(Object.assign(new Error('read'), { code: 'ECONNRESET' }), 'p').kind, 'retryable');
    assert.equal(classifyError(new Error('wrapped', { cause: Object.assign(new Error('x'), { code: 'UND_ERR_SOCKET' }) }), 'p').kind, 'retryable');
    assert.equal(classifyError(new SyntaxError('Unexpected end of JSON input'), 'p').kind, 'retryable');
    assert.equal(classifyError(new RangeError('bug'), 'p').kind, 'protocol');
    const own = new ModelError('auth', 'already classified');
    assert.equal(classifyError(own, 'p'), own);
  });
});
