// Loads the automation library on the browser tool's first use: dist/browser.js
// beside the running bundle (esbuild.mjs builds it apart, so neither activation
// nor the core bundle compiles it), or ./driver.ts when running from source.
// A computed path keeps esbuild from inlining it.
import { existsSync } from 'node:fs';
import * as path from 'node:path';
import { type BrowserDriver } from './driver-port';

let loaded: BrowserDriver | undefined;

export function loadBrowserDriver(): BrowserDriver {
  if (!loaded) {
    const bundled = path.join(__dirname, 'browser.js');
    const file = existsSync(bundled) ? bundled : path.join(__dirname, 'driver');
    // eslint-disable-next-line @typescript-eslint/no-require-imports -- a synchronous, deliberately late load
    loaded = (require(file) as { driver: BrowserDriver }).driver;
  }
  return loaded;
}
