// The browser tool's automation library: puppeteer-core over the Chrome DevTools
// Protocol (through a pipe: no debugging port another local process could reach).
// esbuild bundles this file as its own entry (dist/browser.js), required on the
// tool's first use only (./load-driver.ts); README.md says why puppeteer-core.
import puppeteer, { type Browser, type KeyInput, type Page } from 'puppeteer-core';
import { type BrowserDriver, type DriverEvents, type DriverLaunchOptions, type DriverPage, type RequestGuard } from './driver-port';

const isRoot = typeof process.getuid === 'function' && process.getuid() === 0;

/** Kills the browser's whole process tree (it runs as a process group of its own off Windows). */
function killTree(browser: Browser): void {
  const child = browser.process();
  const pid = child?.pid;
  if (pid === undefined) return;
  try {
    if (process.platform === 'win32') child!.kill('SIGKILL');
    else process.kill(-pid, 'SIGKILL');
  } catch {
    // Already gone.
  }
}

async function launch(o: DriverLaunchOptions, events: DriverEvents, guard: RequestGuard): Promise<DriverPage> {
  const browser = await puppeteer.launch({
    executablePath: o.executablePath,
    headless: o.headless,
    userDataDir: o.userDataDir,
    defaultViewport: { width: o.width, height: o.height },
    args: [
      // Chromium refuses to start as root with its sandbox (containers, CI).
      ...(isRoot ? ['--no-sandbox'] : []),
      '--no-first-run',
      '--no-default-browser-check',
      '--disable-background-networking',
      '--disable-component-update',
      '--disable-sync',
      '--disable-default-apps',
      '--mute-audio',
      `--window-size=${o.width},${o.height}`,
    ],
    pipe: true,
    protocol: 'cdp',
    // The host (and the CLI's own handlers) decide what a signal does; the exit hooks kill the browser.
    handleSIGINT: false,
    handleSIGTERM: false,
    handleSIGHUP: false,
    timeout: o.timeoutMs,
    downloadBehavior: { policy: 'deny' },
  });
  try {
    const page = (await browser.pages())[0] ?? (await browser.newPage());
    await wire(browser, page, events, guard);
    return drive(browser, page);
  } catch (error) {
    killTree(browser);
    throw error;
  }
}

/** The icon a browser asks every site for by itself: its absence is no error of the app's. */
const isFavicon = (url: string | undefined) => url !== undefined && /^[^?#]*\/favicon\.ico(?:[?#]|$)/.test(url);

async function wire(browser: Browser, page: Page, events: DriverEvents, guard: RequestGuard): Promise<void> {
  page.on('console', (m) => {
    if (!isFavicon(m.location().url)) events.console(m.type(), m.text());
  });
  page.on('pageerror', (e) => events.pageError(e instanceof Error ? e.message : String(e)));
  page.on('requestfailed', (r) => {
    if (!isFavicon(r.url())) events.requestFailed(r.url(), r.failure()?.errorText ?? 'failed');
  });
  page.on('response', (r) => {
    if (r.status() >= 400 && !isFavicon(r.url())) events.requestFailed(r.url(), `HTTP ${r.status()}`);
  });
  page.on('dialog', (d) => void d.dismiss().catch(() => undefined));
  // One page per session: a window the page opens is closed at once (it would escape the request guard).
  browser.on('targetcreated', (t) => {
    if (t.type() !== 'page') return;
    void t.page().then((p) => (p && p !== page ? p.close() : undefined)).catch(() => undefined);
  });
  await page.setRequestInterception(true);
  page.on('request', (request) => {
    if (request.isInterceptResolutionHandled()) return;
    guard(request.url()).then(
      (reason) => (reason ? request.abort('blockedbyclient') : request.continue()),
      () => request.abort('blockedbyclient'),
    ).catch(() => undefined);
  });
}

function drive(browser: Browser, page: Page): DriverPage {
  return {
    pid: browser.process()?.pid,
    async goto(url, timeoutMs) {
      const response = await page.goto(url, { waitUntil: 'load', timeout: timeoutMs });
      return { status: response?.status() };
    },
    async screenshot() {
      return await page.screenshot({ type: 'png' });
    },
    async clickSelector(selector, timeoutMs) {
      const element = await page.waitForSelector(selector, { timeout: timeoutMs }).catch(() => null);
      if (!element) return false;
      await element.click();
      await element.dispose();
      return true;
    },
    async clickAt(x, y) {
      await page.mouse.click(x, y);
    },
    async type(text, selector, timeoutMs) {
      if (selector !== undefined) {
        const element = await page.waitForSelector(selector, { timeout: timeoutMs }).catch(() => null);
        if (!element) return false;
        await element.click();
        await element.dispose();
      }
      await page.keyboard.type(text);
      return true;
    },
    async press(key) {
      await page.keyboard.press(key as KeyInput);
    },
    async scroll(dx, dy) {
      await page.mouse.wheel({ deltaX: dx, deltaY: dy });
    },
    async settle(ms) {
      await page.waitForNetworkIdle({ idleTime: 100, timeout: ms }).catch(() => undefined);
    },
    async title() {
      // Between two documents (a click that navigates) there is no title to read yet.
      return await page.title().catch(() => '');
    },
    url: () => page.url(),
    async close() {
      let timer: NodeJS.Timeout | undefined;
      try {
        await Promise.race([browser.close(), new Promise((resolve) => (timer = setTimeout(resolve, 5000)))]);
      } catch {
        // Killed below either way.
      } finally {
        clearTimeout(timer);
        // Renderers, the GPU process and the zygote go with the group, also when close() hung.
        killTree(browser);
      }
    },
    killNow: () => killTree(browser),
  };
}

export const driver: BrowserDriver = { launch };
