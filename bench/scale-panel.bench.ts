// The panel opening a long session, in real Chromium (the e2e harness:
// dist/webview.js without VS Code), as panel.bench.ts opens its 2 000-message
// one: the host's restore events (newest items first, older ones prepended in
// chunks) posted at once; time to the first painted frame and until every
// item is in the transcript. Baseline in the same run: a page that appends
// every item's text to a <pre> on the same events. Target: < 300 ms at 10 000.
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { type Browser } from 'playwright-core';
import { restoreEvents } from '../src/webview/transcript';
import { type Harness, launchChromium, startHarness } from '../test/e2e/panel/harness';
import { type BenchResult, round } from './lib';
import { openSession, sessionSnapshot } from './panel.bench';

const SIZES = [1_000, 10_000];
const RUNS = 5;
const TARGET_MS = 300;

/** The naive renderer: every item's text into one <pre>, then the first painted frame. */
async function baselineOpen(browser: Browser, harness: Harness, events: unknown[]): Promise<number> {
  const page = await browser.newPage({ viewport: { width: 420, height: 900 } });
  await page.goto(`${harness.origin}/baseline.html`);
  await page.evaluate((e) => ((window as unknown as { __snap: unknown }).__snap = e), events);
  const ms = await page.evaluate(
    () =>
      new Promise<number>((resolve) => {
        type Item = { text?: string; name?: string; view?: { output?: string } };
        const out = document.getElementById('out')!;
        const events = (window as unknown as { __snap: { type: string; snapshot?: { items: Item[] }; items?: Item[] }[] }).__snap;
        let pending = events.length;
        const t0 = performance.now();
        window.addEventListener('message', (e: MessageEvent<{ snapshot?: { items: Item[] }; items?: Item[] }>) => {
          const items = e.data.snapshot?.items ?? e.data.items ?? [];
          out.append(items.map((i) => i.text ?? `${i.name ?? ''} ${i.view?.output ?? ''}`).join('\n'));
          if (--pending === 0) {
            requestAnimationFrame(() => {
              const ch = new MessageChannel();
              ch.port1.onmessage = () => resolve(performance.now() - t0);
              ch.port2.postMessage(0);
            });
          }
        });
        for (const m of events) window.postMessage(m, '*');
      }),
  );
  await page.close();
  return ms;
}

const med = (xs: number[]) => {
  const s = [...xs].sort((a, b) => a - b);
  return { median: s[Math.floor(s.length / 2)]!, min: s[0]!, max: s[s.length - 1]! };
};

export default async function (): Promise<BenchResult[]> {
  if (!existsSync(join(__dirname, '..', 'dist', 'webview.js'))) throw new Error('dist/webview.js missing: run node esbuild.mjs --production first');
  const harness = await startHarness();
  const browser = await launchChromium();
  try {
    const results: BenchResult[] = [];
    for (const size of SIZES) {
      const snapshot = sessionSnapshot(size);
      const events = restoreEvents(snapshot);
      const ours: Awaited<ReturnType<typeof openSession>>[] = [];
      const base: number[] = [];
      // Interleaved, the first pair a warm-up.
      for (let i = 0; i < RUNS + 1; i++) {
        const o = await openSession(browser, harness, snapshot);
        const b = await baselineOpen(browser, harness, events);
        if (i === 0) continue;
        ours.push(o);
        base.push(b);
      }
      const first = med(ours.map((o) => o.firstRender));
      const baseline = med(base);
      const judged = size >= 10_000;
      results.push({
        name: `panel: open ${size / 1000}k-message session`,
        measured: `ms from posting the restore events (${size} items, ${events.length} posts) to the first painted frame; baseline: every item's text appended to a <pre> on the same events, to its first painted frame`,
        unit: 'ms',
        ours: round(first.median),
        baseline: round(baseline.median),
        ratio: round(first.median / baseline.median),
        target: judged ? `< ${TARGET_MS} ms` : 'report',
        pass: judged ? first.median < TARGET_MS : null,
        min: round(first.min),
        max: round(first.max),
        extra: {
          older_items_loaded_ms: round(med(ours.map((o) => o.interactive)).median),
          main_thread_cpu_ms: round(med(ours.map((o) => o.busyMs)).median),
          items_rendered: ours[0]!.rendered,
          snapshot_json_kb: Math.round(JSON.stringify(snapshot).length / 1024),
        },
      });
    }
    return results;
  } finally {
    await browser.close();
    await harness.close();
  }
}
