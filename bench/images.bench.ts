// The panel opening a session of 50 messages that each carry a screenshot
// (1568×980 PNG, distinct bytes), in real Chromium under the product's CSP, as
// panel.bench.ts opens its 2 000-message one: time to the first painted frame
// (< 300 ms) and JS heap once every item is loaded (< 100 MB). Only items in
// the rendered window get <img> elements; the rest stay base64 strings.
// Needs a built bundle (`node esbuild.mjs --production`, done by `npm run bench`).
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { type Browser } from 'playwright-core';
import { type PanelSnapshot, type TranscriptItem } from '../src/webview/protocol';
import { restoreEvents } from '../src/webview/transcript';
import { makePng } from '../test/fixtures/images';
import { type Harness, launchChromium, openPanel, startHarness } from '../test/e2e/panel/harness';
import { openSession } from './panel.bench';
import { type BenchResult, round } from './lib';

const MESSAGES = 50;
const RUNS = 5;

export function imageSession(messages = MESSAGES): PanelSnapshot {
  const items: TranscriptItem[] = [];
  for (let i = 0; i < messages; i++) {
    // Every 12th row noise: ~400 kB a PNG, what a real 1568×980 screenshot weighs.
    const data = makePng(1568, 980, i, 12).toString('base64');
    items.push({ kind: 'user', id: `u${i}`, text: `Screenshot ${i}: why is the sidebar cut off?`, images: [{ mediaType: 'image/png', data, width: 1568, height: 980 }] });
    items.push({ kind: 'assistant', id: `a${i}`, text: `The sidebar in screenshot ${i} overflows its container; set \`min-width: 0\` on the flex child.` });
  }
  return { session: { id: 'bench-images', title: 'Image session', model: 'claude-sonnet-5-5' }, items, turn: 'idle', notices: [], queued: [] };
}

async function heapAfterOpen(browser: Browser, harness: Harness, snapshot: PanelSnapshot): Promise<{ mb: number; imgs: number; decodedImgs: number }> {
  const page = await openPanel(browser, harness, { width: 420, height: 900 });
  const events = restoreEvents(snapshot);
  await page.evaluate((evs) => {
    for (const m of evs) window.postMessage(m, '*');
  }, events);
  await page.waitForFunction((total) => {
    const hidden = Number(/\((\d+) hidden\)/.exec(document.querySelector('button.earlier')?.textContent ?? '')?.[1] ?? 0);
    return document.querySelectorAll('.item').length + hidden >= total;
  }, snapshot.items.length);
  const cdp = await page.context().newCDPSession(page);
  await cdp.send('HeapProfiler.collectGarbage');
  const heap = await cdp.send('Runtime.getHeapUsage');
  await cdp.detach();
  const counts = await page.evaluate(() => {
    const imgs = [...document.querySelectorAll<HTMLImageElement>('.image-open img')];
    return { imgs: imgs.length, decodedImgs: imgs.filter((i) => i.complete && i.naturalWidth > 0).length };
  });
  await page.close();
  return { mb: heap.usedSize / 2 ** 20, ...counts };
}

export default async function imagesBench(): Promise<BenchResult[]> {
  if (!existsSync(join(__dirname, '..', 'dist', 'webview.js'))) throw new Error('dist/webview.js missing: run node esbuild.mjs --production first');
  const harness = await startHarness();
  const browser = await launchChromium();
  try {
    const snapshot = imageSession();
    const opens = [];
    for (let i = 0; i < RUNS + 1; i++) opens.push(await openSession(browser, harness, snapshot));
    opens.shift();
    const firsts = opens.map((o) => o.firstRender).sort((a, b) => a - b);
    const first = firsts[Math.floor(firsts.length / 2)]!;
    const heap = await heapAfterOpen(browser, harness, snapshot);
    return [
      {
        name: 'panel: open a 50-message session with a screenshot in each',
        measured: 'ms from posting `restore` (50 user messages with a 1568×980 PNG each, 50 replies) to the first painted frame',
        unit: 'ms',
        ours: round(first),
        baseline: null,
        ratio: null,
        target: '< 300 ms',
        pass: first < 300,
        min: round(firsts[0]!),
        max: round(firsts[firsts.length - 1]!),
        extra: { snapshot_json_mb: round(JSON.stringify(snapshot).length / 2 ** 20), items_rendered: opens[0]!.rendered },
      },
      {
        name: 'panel: JS heap with a 50-screenshot session open',
        measured: 'Runtime.getHeapUsage usedSize after GC, every item of the image session loaded',
        unit: 'MB',
        ours: round(heap.mb),
        baseline: null,
        ratio: null,
        target: '< 100 MB',
        pass: heap.mb < 100,
        extra: { img_elements: heap.imgs, decoded_imgs: heap.decodedImgs },
      },
    ];
  } finally {
    await browser.close();
    await harness.close();
  }
}
