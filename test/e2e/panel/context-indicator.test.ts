// The footer's context indicator (issue 14): percentage and a small bar of how
// full the model's window is, the token counts on hover, updated on every
// usage message (one per step), in real Chromium with the strict CSP.
import assert from 'node:assert/strict';
import { hostSend, openPanel, settle, usePanelHarness } from './harness';

describe('chat panel: context indicator', function () {
  const rig = usePanelHarness();

  it('shows context used / window as a percentage with a bar, tokens on hover, and follows each step', async function () {
    const page = await openPanel(rig.browser, rig.harness);
    const errors: string[] = [];
    page.on('pageerror', (e) => errors.push(e.message));
    page.on('console', (m) => m.type() === 'error' && errors.push(`${m.text()} (${m.location().url || 'no url'})`));
    const usage = (contextTokens: number) => ({ inputTokens: 1_000, outputTokens: 200, cacheReadTokens: 9_000, cacheWriteTokens: 0, costUsd: 0.01, contextTokens, contextWindow: 200_000 });

    await hostSend(page, { type: 'usage', usage: usage(86_000) });
    await settle(page);
    const indicator = page.locator('.usage .usage-context');
    assert.equal(await indicator.textContent(), '43%');
    assert.match((await indicator.getAttribute('title')) ?? '', /^Context 86.000 of 200.000 tokens$/);
    assert.ok(((await indicator.getAttribute('class')) ?? '').includes('context-low'));
    const width = () => page.locator('.usage .context-fill').evaluate((e) => (e as HTMLElement).style.width);
    assert.equal(await width(), '43%');

    // The next step: the indicator follows, and turns to the warning colour band near the compaction threshold.
    await hostSend(page, { type: 'usage', usage: usage(172_000) });
    await settle(page);
    assert.equal(await indicator.textContent(), '86%');
    assert.equal(await width(), '86%');
    assert.ok(((await indicator.getAttribute('class')) ?? '').includes('context-high'));

    // Without context figures (an older session restored) the footer shows no indicator rather than a wrong one.
    await hostSend(page, { type: 'usage', usage: { inputTokens: 1, outputTokens: 1, cacheReadTokens: 0, cacheWriteTokens: 0 } });
    await settle(page);
    assert.equal(await indicator.count(), 0);
    assert.deepEqual(errors, []);
  });
});
