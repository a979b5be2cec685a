// Issue 30: with provider vscode-lm the requests are paid by the editor's
// subscription: the footer's usage says "included" while nothing was paid, and
// shows dollars again once a priced request is in the session.
import assert from 'node:assert/strict';
import { PanelBridge } from '../../../src/host/panel/panel-bridge';
import { emptyUsage } from '../../../src/runtime/types';
import { type HostEvent, HostEvent as HostEventSchema } from '../../../src/webview/protocol';

const usageEvent = (costUsd: number) =>
  ({ type: 'usage', step: emptyUsage(), cumulative: { ...emptyUsage(), input_tokens: 1200, output_tokens: 80 }, stepCostUsd: costUsd, costUsd, unpricedRequests: 0, context: { tokens: 1280, window: 128_000, percent: 1 } }) as const;

function lastUsage(included: boolean, costUsd: number) {
  const out: HostEvent[] = [];
  const bridge = new PanelBridge((e) => out.push(e), { costIncluded: () => included });
  bridge.handle(usageEvent(costUsd));
  const posted = out.find((e) => e.type === 'usage');
  assert.ok(posted && posted.type === 'usage');
  HostEventSchema.parse(posted);
  return posted.usage;
}

describe('cost "included" for the editor\'s own models (issue 30)', () => {
  it('says included while the provider is vscode-lm and nothing was paid', () => {
    const usage = lastUsage(true, 0);
    assert.equal(usage.costIncluded, true);
    assert.equal(usage.costUsd, 0);
  });

  it('shows dollars when an earlier request of the session was paid, or for other providers', () => {
    assert.equal(lastUsage(true, 0.012).costIncluded, undefined);
    assert.equal(lastUsage(false, 0).costIncluded, undefined);
  });
});
