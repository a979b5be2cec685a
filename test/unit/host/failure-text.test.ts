// Issue 19, finding 8/9: error cards in plain words per cause, never the raw
// kind or the provider's message; a later successful turn resolves them.
import assert from 'node:assert/strict';
import { type RuntimeEvent } from '../../../src/runtime/events';
import { type TurnSummary } from '../../../src/runtime/events';
import { describeFailure, retryReason } from '../../../src/host/failure-text';
import { PanelBridge } from '../../../src/host/panel-bridge';
import { type HostEvent } from '../../../src/webview/protocol';

const RAW = /retryable|anthropic:|gave up|\b5\d\d\b|\b4\d\d\b/i;

describe('failure text (issue 19, finding 8)', () => {
  const cases: Array<[string, string, string, 'retry' | 'set_key']> = [
    ['auth', 'No Anthropic API key: set ANTHROPIC_API_KEY or store one with "Turnstone: Set API Key".', 'no_key', 'set_key'],
    ['auth', 'anthropic: 401 invalid x-api-key', 'auth', 'set_key'],
    ['retryable', 'anthropic: 529 Overloaded (gave up after 5 retries)', 'overloaded', 'retry'],
    ['retryable', 'anthropic: 429 Number of request tokens has exceeded your per-minute rate limit (gave up after 5 retries)', 'rate_limit', 'retry'],
    ['retryable', 'anthropic: connection lost: Connection error. (ECONNREFUSED) (gave up after 5 retries)', 'network', 'retry'],
    ['retryable', 'anthropic: 500 Internal server error (gave up after 5 retries)', 'server', 'retry'],
    ['invalid_request', 'anthropic: 400 Your credit balance is too low to access the Anthropic API.', 'budget', 'retry'],
    ['context_overflow', 'anthropic: 400 prompt is too long: 210000 tokens > 200000 maximum', 'context', 'retry'],
    ['stalled', 'anthropic: no event for 60 s after tool results', 'stalled', 'retry'],
  ];
  for (const [kind, message, cause, action] of cases) {
    it(`${cause}: plain words, no raw kind or status, action ${action}`, () => {
      const t = describeFailure(kind, message);
      assert.equal(t.cause, cause);
      assert.equal(t.action, action);
      assert.doesNotMatch(`${t.message} ${t.hint ?? ''}`, RAW);
      if (cause === 'no_key') assert.doesNotMatch(t.message, /rejected|did not accept/);
    });
  }
  it('an invalid request keeps the API\'s own words without prefix and status', () => {
    assert.equal(describeFailure('invalid_request', 'anthropic: 400 max_tokens: must be at most 64000').message, 'Anthropic refused the request: max_tokens: must be at most 64000');
  });
  it('the retry reason is a short phrase', () => {
    assert.equal(retryReason('anthropic: 529 Overloaded'), 'servers overloaded');
    assert.equal(retryReason('anthropic: connection lost: Connection error. (ECONNRESET)'), 'connection failed');
  });
});

describe('PanelBridge error cards (issue 19, finding 8)', () => {
  const summary = {} as TurnSummary;
  const run = (events: RuntimeEvent[]) => {
    const out: HostEvent[] = [];
    const bridge = new PanelBridge((e) => out.push(e));
    for (const e of events) bridge.handle(e);
    return out;
  };

  it('a failed turn posts a plain card with the request id; the next good turn marks it resolved', () => {
    const out = run([
      { type: 'turn_started', turnId: 't1' } as RuntimeEvent,
      { type: 'retrying', attempt: 1, maxAttempts: 5, delayMs: 3000, reason: 'anthropic: 529 Overloaded' },
      { type: 'turn_failed', turnId: 't1', kind: 'retryable', message: 'anthropic: 529 Overloaded (gave up after 5 retries)', requestId: 'req_abc', summary },
      { type: 'turn_started', turnId: 't2' } as RuntimeEvent,
      { type: 'turn_ended', summary },
    ]);
    assert.deepEqual(out.find((e) => e.type === 'reconnecting'), { type: 'reconnecting', attempt: 1, maxAttempts: 5, reason: 'servers overloaded', delayMs: 3000 });
    const cards = out.flatMap((e) => (e.type === 'item_add' && e.item.kind === 'error' ? [e.item] : []));
    assert.equal(cards.length, 2);
    assert.equal(cards[0]!.cause, 'overloaded');
    assert.equal(cards[0]!.requestId, 'req_abc');
    assert.doesNotMatch(cards[0]!.message, RAW);
    assert.equal(cards[0]!.resolved, undefined);
    assert.equal(cards[1]!.id, cards[0]!.id);
    assert.equal(cards[1]!.resolved, true);
  });

  it('a stopped turn leaves an "interrupted" marker', () => {
    const out = run([{ type: 'turn_started', turnId: 't1' } as RuntimeEvent, { type: 'turn_aborted', turnId: 't1', summary }]);
    assert.ok(out.some((e) => e.type === 'item_add' && e.item.kind === 'interrupted'));
  });
});
