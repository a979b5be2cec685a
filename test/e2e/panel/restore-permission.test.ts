// Reload/restore and inline permission requests.
import assert from 'node:assert/strict';
import { type PanelSnapshot, type TranscriptItem } from '../../../src/webview/protocol';
import { restoreEvents } from '../../../src/webview/transcript';
import { clearPosted, hostSend, openPanel, posted, settle, usePanelHarness } from './harness';

function longSession(turns: number): PanelSnapshot {
  const items: TranscriptItem[] = [];
  for (let i = 0; i < turns; i++) {
    items.push({ kind: 'user', id: `u${i}`, text: `Question ${i}` });
    items.push({ kind: 'assistant', id: `a${i}`, text: `Answer **${i}** with \`code\`.` });
  }
  return { session: { id: 's9', title: 'Long session', model: 'claude-opus-5-5' }, items, turn: 'idle', notices: [], queued: [], usage: { inputTokens: 10, outputTokens: 20, cacheReadTokens: 0, cacheWriteTokens: 0 } };
}

describe('chat panel: restore and permissions', function () {
  const rig = usePanelHarness();

  it('a restore snapshot re-renders the transcript, newest items first, older ones on scroll-up', async function () {
    const page = await openPanel(rig.browser, rig.harness);
    await hostSend(page, { type: 'item_add', item: { kind: 'user', id: 'old', text: 'from before' } });
    // As ChatPanelProvider sends it: the newest 200 items, then older ones in `prepend`s.
    const events = restoreEvents(longSession(1000));
    assert.ok(events.length >= 3);
    await hostSend(page, ...events);
    await settle(page);
    assert.equal(await page.locator('.item[data-id="old"]').count(), 0, 'restore replaces, not appends');
    assert.equal(await page.locator('.header .title').textContent(), 'Long session');
    const rendered = await page.locator('.item').count();
    assert.ok(rendered > 0 && rendered <= 60, `only a window is rendered (${rendered})`);
    await page.waitForFunction((n) => document.querySelector('button.earlier')?.textContent?.endsWith(`(${n} hidden)`), 2000 - rendered);
    assert.equal((await page.locator('.item').last().textContent())?.trim(), 'Answer 999 with code.');
    // The newest item is in view.
    assert.ok(await page.locator('.item[data-id="a999"]').isVisible());

    // The user scrolls up (a wheel, then the position): only their own scrolling stops following.
    await page.locator('.transcript').evaluate((el) => {
      el.dispatchEvent(new WheelEvent('wheel', { deltaY: -100_000, bubbles: true }));
      el.scrollTop = 0;
    });
    await page.waitForFunction((n) => document.querySelectorAll('.item').length > n, rendered);
    // Keyboard path: the "Show earlier" button.
    const before = await page.locator('.item').count();
    await page.locator('button.earlier').click();
    await settle(page);
    assert.ok((await page.locator('.item').count()) > before);
    await page.close();
  });

  it('state survives a reload via getState/setState until the host restores', async function () {
    const page = await openPanel(rig.browser, rig.harness);
    await hostSend(page,
      { type: 'session', session: { id: 's1', title: 'Kept across reloads', model: 'm' } },
      { type: 'item_add', item: { kind: 'user', id: 'u1', text: 'hello' } },
      { type: 'assistant_delta', id: 'a1', text: 'Hi **there**' },
      { type: 'block_end', id: 'a1' },
    );
    await page.locator('textarea.input').fill('half-typed draft');
    await page.locator('textarea.input').dispatchEvent('input');
    // Hiding the view: VS Code fires visibilitychange/pagehide before destroying the page.
    await page.evaluate(() => window.dispatchEvent(new Event('pagehide')));
    await page.reload();
    await page.waitForFunction(() => (window as unknown as { __posted: { type: string }[] }).__posted.some((m) => m.type === 'ready'));
    await settle(page);
    assert.equal(await page.locator('.header .title').textContent(), 'Kept across reloads');
    assert.equal(await page.locator('.item.assistant strong').textContent(), 'there');
    assert.equal(await page.locator('textarea.input').inputValue(), 'half-typed draft');
    await page.close();
  });

  it('permission cards post decisions; permission_settled disables them', async function () {
    const page = await openPanel(rig.browser, rig.harness);
    const request = (id: string, extra: Partial<Extract<TranscriptItem, { kind: 'permission' }>> = {}): TranscriptItem => ({
      kind: 'permission', id, toolId: `tool-${id}`, toolName: 'edit_file', title: 'Edit src/app.ts?', subject: 'src/app.ts', canOpenDiff: true, canAllowSession: true, ...extra,
    });
    await hostSend(page,
      { type: 'item_add', item: request('p1') },
      { type: 'item_add', item: request('p2') },
      { type: 'item_add', item: request('p3', { toolName: 'bash', title: 'Run this command?', subject: 'rm -rf build', canOpenDiff: false, canAllowSession: false }) },
      { type: 'item_add', item: request('p4') },
    );
    await settle(page);
    await clearPosted(page);
    const cards = page.locator('.item.permission');
    assert.equal(await cards.count(), 4);
    assert.equal(await cards.nth(2).locator('.perm-allow-session').count(), 0, 'no session grant for commands');
    assert.equal(await cards.nth(2).locator('.perm-diff').count(), 0);

    await cards.nth(0).locator('.perm-diff').click();
    await cards.nth(0).locator('.perm-allow-session').click();
    assert.equal(await cards.nth(0).locator('.perm-allow').isDisabled(), true, 'one answer per request');
    await cards.nth(2).locator('.perm-feedback').click();
    await cards.nth(2).locator('textarea.feedback').fill('use `make clean` instead');
    await page.keyboard.press('Enter');
    await cards.nth(3).locator('.perm-allow').click();

    assert.deepEqual(await posted(page), [
      { type: 'open_diff', requestId: 'p1', toolId: 'tool-p1' },
      { type: 'permission_decision', requestId: 'p1', decision: 'allow_session' },
      { type: 'permission_decision', requestId: 'p3', decision: 'deny', feedback: 'use `make clean` instead' },
      { type: 'permission_decision', requestId: 'p4', decision: 'allow' },
    ]);

    // p2 was answered in the native dialog: the card reflects it and can no longer be used.
    assert.equal(await cards.nth(1).locator('.perm-allow').isDisabled(), false);
    await hostSend(page, { type: 'permission_settled', requestId: 'p2', settlement: { decision: 'deny', by: 'dialog' } });
    await settle(page);
    // Answered: it collapses to one line with no buttons left (issue 19: a denied card showed a blue Allow).
    for (const cls of ['.perm-allow', '.perm-allow-session', '.perm-deny', '.perm-feedback']) {
      assert.equal(await cards.nth(1).locator(cls).count(), 0, cls);
    }
    assert.equal(await cards.nth(1).locator('.perm-state').textContent(), 'Denied in the dialog');
    assert.ok(await cards.nth(1).evaluate((el) => el.classList.contains('settled')));
    await page.close();
  });
});
