// Issue 45: the browser tool through the executor as the CLI builds it, on the
// test app (test/fixtures/browser/app-server.ts) in the installed Chromium.
// First `open` to its result (browser launch, profile, page load, screenshot),
// each in a fresh session; then later actions on the open page (screenshot,
// click). Reported without a baseline. Targets: first open < 2 s, a later
// action < 300 ms. Skipped (no results) where no browser is installed.
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { findBrowser } from '../src/tools/browser/find-browser';
import { NodeWorkspace } from '../src/tools/node-adapter';
import { createToolExecutor } from '../src/tools/registry';
import { BackgroundCommands } from '../src/tools/shell/background';
import { startAppServer } from '../test/fixtures/browser/app-server';
import { round, type BenchResult, type Sampled } from './lib';

function stats(times: number[]): Sampled {
  const t = [...times].sort((x, y) => x - y);
  return { median: t[Math.floor(t.length / 2)]!, min: t[0]!, max: t[t.length - 1]! };
}

export default async function (): Promise<BenchResult[]> {
  if (!findBrowser(undefined)) return [];
  const app = await startAppServer();
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'turnstone-bench-browser-'));
  const signal = new AbortController().signal;
  const opens: number[] = [];
  const shots: number[] = [];
  const clicks: number[] = [];
  try {
    for (let session = 0; session < 5; session++) {
      const background = new BackgroundCommands({ maxRunning: () => 4, maxUnreadChars: 2000, dir: async () => dir });
      const executor = createToolExecutor({ workspace: new NodeWorkspace(dir) }, { outputDir: dir, background, browser: {} });
      const run = async (input: Record<string, unknown>) => {
        const t = performance.now();
        const out = await executor.execute('browser', input, { signal });
        if (out.isError || !out.images?.length) throw new Error(`browser ${String(input.action)} failed: ${out.content.slice(0, 300)}`);
        return performance.now() - t;
      };
      try {
        opens.push(await run({ action: 'open', url: app.url('/') }));
        for (let i = 0; i < 6; i++) {
          const shot = await run({ action: 'screenshot' });
          const click = await run({ action: 'click', selector: '#change' });
          // The first of each warms the page's paths.
          if (i > 0) {
            shots.push(shot);
            clicks.push(click);
          }
        }
      } finally {
        await background.dispose();
      }
    }
  } finally {
    await app.close();
    fs.rmSync(dir, { recursive: true, force: true });
  }
  const o = stats(opens);
  const s = stats(shots);
  const c = stats(clicks);
  const later = Math.max(s.median, c.median);
  return [
    {
      name: 'browser: first open to first screenshot',
      measured: 'browser open of a local page in a fresh session, through the executor: library load (first session only), Chromium launch with a fresh profile, page load, PNG screenshot',
      unit: 'ms',
      ours: round(o.median),
      baseline: null,
      ratio: null,
      target: '< 2000 ms',
      pass: o.median < 2000,
      min: round(o.min),
      max: round(o.max),
      extra: { first_session_ms_with_library_load: round(opens[0]!) },
    },
    {
      name: 'browser: a later action',
      measured: 'browser screenshot and click (with its wait for the page to settle) on the open page, the slower median of the two',
      unit: 'ms',
      ours: round(later),
      baseline: null,
      ratio: null,
      target: '< 300 ms',
      pass: later < 300,
      min: round(Math.min(s.min, c.min)),
      max: round(Math.max(s.max, c.max)),
      extra: { screenshot_median_ms: round(s.median), click_median_ms: round(c.median) },
    },
  ];
}
