// Issue 19, finding 8/9: error cards in plain words per cause, never the raw
// kind or the provider's message; a later successful turn resolves them.
// Issue 25.6: every stop is a clear card with an action that can help.
import assert from 'node:assert/strict';
import { type RuntimeEvent } from '../../../src/runtime/events';
import { type TurnSummary } from '../../../src/runtime/events';
import { describeFailure, retryReason, spendCapCard } from '../../../src/host/panel/failure-text';
import { PanelBridge } from '../../../src/host/panel/panel-bridge';
import { type HostEvent } from '../../../src/webview/protocol';

const RAW = /retryable|anthropic:|gave up|\b5\d\d\b|\b4\d\d\b/i;

describe('failure text (issue 19, finding 8)', () => {
  // 25.6: Retry only where trying again can help; a refused request, a full context or an empty account offer none.
  const cases: Array<[string, string, string, 'retry' | 'set_key' | 'none']> = [
    ['auth', 'No Anthropic API key: set ANTHROPIC_API_KEY or store one with "Turnstone: Set API Key".', 'no_key', 'set_key'],
    ['auth', 'anthropic: 401 invalid x-api-key', 'auth', 'set_key'],
    ['retryable', 'anthropic: 529 Overloaded (gave up after 5 retries)', 'overloaded', 'retry'],
    ['retryable', 'anthropic: 429 Number of request tokens has exceeded your per-minute rate limit (gave up after 5 retries)', 'rate_limit', 'retry'],
    ['retryable', 'anthropic: connection lost: Connection error. (ECONNREFUSED) (gave up after 5 retries)', 'network', 'retry'],
    ['retryable', 'anthropic: 500 Internal server error (gave up after 5 retries)', 'server', 'retry'],
    ['invalid_request', 'anthropic: 400 Your credit balance is too low to access the Anthropic API.', 'budget', 'none'],
    ['context_overflow', 'anthropic: 400 prompt is too long: 210000 tokens > 200000 maximum', 'context', 'none'],
    ['invalid_request', 'anthropic: 400 max_tokens: must be at most 64000', 'request', 'none'],
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
  it('a cloud provider not set up names the setting or variable, offers no key and no retry', () => {
    const t = describeFailure('config', 'bedrock: no AWS region: set turnstone.bedrock.region (or AWS_REGION) to the region where the model is enabled, e.g. us-east-1.', 'Amazon Bedrock');
    assert.equal(t.action, 'none');
    assert.equal(t.message, 'Amazon Bedrock is not set up: no AWS region: set turnstone.bedrock.region (or AWS_REGION) to the region where the model is enabled, e.g. us-east-1.');
    assert.doesNotMatch(`${t.message} ${t.hint ?? ''}`, /API key/);
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

describe('spend-cap cards (issue 25.6)', () => {
  const summary = {} as TurnSummary;

  it('25.6: a per-turn cap is a pause, not a crash: the VS Code setting by name, no CLI flag, Continue with one more cap', () => {
    const card = spendCapCard({ cap: 'turn', capUsd: 0.5, spentUsd: 0.46, nextUsd: 0.07 }, 0.5);
    assert.equal(card.cause, 'spend_cap');
    assert.equal(card.action, 'continue');
    assert.equal(card.continueUsd, 0.5);
    assert.equal(card.setting, 'turnstone.maxCostPerTurnUsd');
    const words = `${card.message} ${card.hint ?? ''}`;
    assert.match(words, /Turnstone: Max Cost Per Turn Usd \(turnstone\.maxCostPerTurnUsd\)/);
    assert.doesNotMatch(words, /--max-cost|went wrong|error/i);
  });

  it('25.6: a session cap continues by one turn cap when one is set, else by the session cap; never below the held-back request', () => {
    assert.equal(spendCapCard({ cap: 'session', capUsd: 5, spentUsd: 4.9, nextUsd: 0.2 }, 0.5).continueUsd, 0.5);
    assert.equal(spendCapCard({ cap: 'session', capUsd: 5, spentUsd: 4.9, nextUsd: 0.2 }, 0).continueUsd, 5);
    // A first request dearer than the cap: continuing must let that request go.
    assert.equal(spendCapCard({ cap: 'turn', capUsd: 0.05, spentUsd: 0, nextUsd: 0.123 }, 0.05).continueUsd, 0.13);
    assert.equal(spendCapCard({ cap: 'session', capUsd: 5, spentUsd: 4.9, nextUsd: 0.2 }, 0).setting, 'turnstone.maxCostPerSessionUsd');
  });

  it('25.6: the bridge turns a budget stop into a card with Continue and Open setting and no Retry; a later good turn resolves it', () => {
    const out: HostEvent[] = [];
    const bridge = new PanelBridge((e) => out.push(e), { turnCapUsd: () => 0.5 });
    bridge.handle({ type: 'turn_started', turnId: 't1' } as RuntimeEvent);
    bridge.handle({ type: 'turn_failed', turnId: 't1', kind: 'budget', message: 'Stopped: … (turnstone.maxCostPerTurnUsd or --max-cost-usd) …', spendCap: { cap: 'turn', capUsd: 0.5, spentUsd: 0.46, nextUsd: 0.07 }, summary });
    const card = out.flatMap((e) => (e.type === 'item_add' && e.item.kind === 'error' ? [e.item] : []))[0]!;
    assert.equal(card.action, 'continue');
    assert.equal(card.retryable, false);
    assert.equal(card.continueUsd, 0.5);
    assert.equal(card.setting, 'turnstone.maxCostPerTurnUsd');
    assert.doesNotMatch(card.message, /--max-cost-usd|went wrong/);
    assert.ok(out.some((e) => e.type === 'turn' && e.state === 'idle'), 'the turn ends: no spinner left');
    bridge.handle({ type: 'turn_started', turnId: 't2' } as RuntimeEvent);
    bridge.handle({ type: 'turn_ended', summary });
    const resolved = out.flatMap((e) => (e.type === 'item_add' && e.item.kind === 'error' && e.item.resolved ? [e.item] : []));
    assert.deepEqual(resolved.map((i) => i.id), [card.id]);
  });

  it('issue 42 loop guard: the bridge turns a loop stop into a paused card naming the call and the setting, with Continue and no Retry', () => {
    const out: HostEvent[] = [];
    const bridge = new PanelBridge((e) => out.push(e));
    bridge.handle({ type: 'turn_started', turnId: 't1' } as RuntimeEvent);
    bridge.handle({ type: 'turn_failed', turnId: 't1', kind: 'loop', message: 'loop guard: …', loop: { tool: 'bash', call: 'bash npm test', repeats: 3, outcome: 'error' }, summary });
    const card = out.flatMap((e) => (e.type === 'item_add' && e.item.kind === 'error' ? [e.item] : []))[0]!;
    assert.equal(card.cause, 'loop');
    assert.equal(card.action, 'continue');
    assert.equal(card.retryable, false);
    assert.equal(card.setting, 'turnstone.loopGuard.repeats');
    assert.equal(card.continueUsd, undefined);
    assert.equal(card.message, 'Paused: the same tool call failed the same way 3 times in this turn (bash npm test).');
    // Stop settles it with its own words; a later turn's end does not put the old words back.
    bridge.settleHostCard(card, 'Stopped here.');
    bridge.handle({ type: 'turn_ended', summary });
    const last = out.flatMap((e) => (e.type === 'item_add' && e.item.kind === 'error' && e.item.id === card.id ? [e.item] : [])).at(-1)!;
    assert.equal(last.message, 'Stopped here.');
  });

  it('25.6: a refused request (400) and a rejected key offer no Retry', () => {
    assert.equal(describeFailure('invalid_request', 'anthropic: 400 messages: roles must alternate').action, 'none');
    assert.equal(describeFailure('auth', 'anthropic: 401 invalid x-api-key').action, 'set_key');
    assert.equal(describeFailure('retryable', 'anthropic: 529 Overloaded (gave up after 5 retries)').action, 'retry');
  });
});
