// The bar that says a turn is running. It used to be an animated background
// on the scrolling transcript: Chromium repainted the transcript every frame
// for the whole turn (~50 ms of main-thread CPU per second, also while the
// turn only waited for an approval), and it scrolled away with the content.
// Now it is its own element above the transcript and animates transform only,
// which the compositor runs without main-thread paint. The CPU it costs is in
// bench/panel.bench.ts; this checks the structure that makes it cheap.
import assert from 'node:assert/strict';
import { sessionSnapshot } from '../../../bench/panel.bench';
import { restoreEvents } from '../../../src/webview/transcript';
import { hostPost, hostSend, openPanel, settle, usePanelHarness } from './harness';

interface RunningAnimation {
  target: string;
  pseudo: string | null;
  properties: string[];
}

describe('chat panel: the running-turn bar', function () {
  const rig = usePanelHarness();

  it('shows only while a turn runs, stays in view at the bottom of a long session, and animates transform only', async () => {
    const page = await openPanel(rig.browser, rig.harness, { width: 320, height: 500 });
    await hostPost(page, ...restoreEvents(sessionSnapshot(40)));
    await settle(page);
    const bar = page.locator('.progress');
    const animations = () =>
      page.evaluate(() =>
        document.getAnimations().map((a): RunningAnimation => {
          const effect = a.effect as KeyframeEffect;
          const keys = new Set(effect.getKeyframes().flatMap((k) => Object.keys(k)));
          for (const meta of ['offset', 'computedOffset', 'easing', 'composite']) keys.delete(meta);
          return { target: (effect.target as Element | null)?.className ?? '', pseudo: effect.pseudoElement, properties: [...keys].sort() };
        }),
      );

    assert.equal(await bar.isVisible(), false, 'no bar while idle');
    assert.deepEqual(await animations(), [], 'nothing animates while idle');

    await hostSend(page, { type: 'turn', state: 'running' });
    await settle(page);
    assert.equal(await bar.isVisible(), true);
    assert.deepEqual(await animations(), [{ target: 'progress', pseudo: '::before', properties: ['transform'] }]);
    // The transcript follows the newest item, far below its top; the bar sits at the top of the visible area.
    const geometry = await page.evaluate(() => {
      const t = document.querySelector('.transcript')!;
      return { scrolled: t.scrollTop, barTop: document.querySelector('.progress')!.getBoundingClientRect().top, viewTop: t.getBoundingClientRect().top };
    });
    assert.ok(geometry.scrolled > 500, `the transcript is scrolled to its bottom (scrollTop ${geometry.scrolled})`);
    assert.equal(geometry.barTop, geometry.viewTop);

    await hostSend(page, { type: 'turn', state: 'idle' });
    await settle(page);
    assert.equal(await bar.isVisible(), false);
    assert.deepEqual(await animations(), []);
  });
});
