// One browser page per session: launched on the first `open`, with a fresh
// temporary profile that goes with it; what the page logged and which of its
// requests failed since the last action; the origins the user approved; and
// the guard every request of the page passes. Closed by `close`, with the
// session's background commands (Stop-with-kill, a new session, close) and on
// process exit: never an orphan browser.
import { lookup } from 'node:dns/promises';
import { mkdtempSync, rmSync } from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { isIP } from 'node:net';
import { AbortedError } from '../../runtime/cancellation';
import { cutHead } from '../../runtime/text-cut';
import { refusedAddress } from '../web-fetch/addresses';
import { type BrowserDriver, type DriverPage } from './driver-port';

export const VIEWPORT = { width: 1280, height: 800 } as const;
const MAX_CONSOLE_LINES = 200;
const MAX_LINE_CHARS = 500;
const MAX_REPORTED = 10;
/** Starting the browser and connecting to it (a cold start on a busy machine takes seconds). */
const LAUNCH_TIMEOUT_MS = 30_000;

export interface BrowserConfig {
  /** turnstone.browser.executablePath, or the browser found on the usual paths (find-browser.ts). */
  executablePath: string;
  /** turnstone.browser.headless (default true). */
  headless: boolean;
  /** The CLI with a session file: each screenshot is also saved here. */
  screenshotDir?: string | undefined;
  /** A page's load (default 30 s). */
  loadTimeoutMs: number;
  /** Waiting for a selector to appear (default 5 s). */
  actionTimeoutMs: number;
  /** Tests: a host name's addresses (default: the system resolver). */
  resolve?: ((host: string) => Promise<string[]>) | undefined;
  /** Tests: the automation library (default: load-driver.ts). */
  driver?: (() => BrowserDriver) | undefined;
}

const LOOPBACK = 'a loopback address';

async function systemResolve(host: string): Promise<string[]> {
  return (await lookup(host, { all: true })).map((a) => a.address);
}

/**
 * Why the page may not reach `hostname` ("a private address"), or undefined. Loopback is reported too
 * (LOOPBACK): a dev server there is reachable, but only once approved. Judged on the addresses the name has
 * (addresses.ts, as web_fetch); a name that does not resolve is left to the browser to fail on.
 */
export async function refusedHost(hostname: string, resolve: (host: string) => Promise<string[]> = systemResolve): Promise<string | undefined> {
  const bare = hostname.replace(/^\[|\]$/g, '').toLowerCase().replace(/\.$/, '');
  // Chromium sends every *.localhost to loopback itself, whatever DNS says.
  if (bare === 'localhost' || bare.endsWith('.localhost')) return LOOPBACK;
  let addresses: string[];
  if (isIP(bare)) addresses = [bare];
  else {
    try {
      addresses = await resolve(bare);
    } catch {
      return undefined;
    }
  }
  const reasons = addresses.map((a) => refusedAddress(a)).filter((r): r is string => r !== undefined);
  return reasons.find((r) => r !== LOOPBACK) ?? reasons[0];
}

export const isLoopbackReason = (reason: string | undefined) => reason === LOOPBACK;

const cut = (text: string) => (text.length > MAX_LINE_CHARS ? `${cutHead(text, MAX_LINE_CHARS)}…` : text);

/** Every live page of this process, killed synchronously if it exits without closing them. */
const live = new Set<BrowserPageSession>();
let exitHooked = false;
function killAllNow(): void {
  for (const s of live) s.killNow();
}

export class BrowserPageSession {
  private page: DriverPage | undefined;
  private starting: Promise<DriverPage> | undefined;
  private profile: string | undefined;
  private consoleLines: string[] = [];
  private errors: string[] = [];
  private failed: string[] = [];
  private readonly hostReasons = new Map<string, Promise<string | undefined>>();
  private queue: Promise<unknown> = Promise.resolve();
  /** Origins the user approved in this session (an `open` of them ran): their requests pass the guard. */
  readonly approved = new Set<string>();
  /** Screenshots taken, for the names of saved files. */
  shots = 0;

  constructor(private readonly resolveHost: (host: string) => Promise<string[]> = systemResolve) {}

  /** The page's URL, or undefined when no page is open. */
  currentUrl(): string | undefined {
    return this.page?.url();
  }

  /** The open page, if any (only `open` launches one). */
  get activePage(): DriverPage | undefined {
    return this.page;
  }

  get pid(): number | undefined {
    return this.page?.pid;
  }

  get open(): boolean {
    return this.page !== undefined;
  }

  /** Runs actions one at a time: two tool uses never drive the page at once. */
  serial<T>(action: () => Promise<T>): Promise<T> {
    const run = this.queue.then(action, action);
    this.queue = run.catch(() => undefined);
    return run;
  }

  /** The page, launching the browser first if none is open. */
  async ensure(config: BrowserConfig, driver: () => BrowserDriver, signal: AbortSignal): Promise<DriverPage> {
    // A close still under way (Stop-with-kill, then at once a new open) finishes first: it removes the profile
    // and forgets the page it closes, which must not be the one launched next.
    if (this.closing) await raceSignal(this.closing.catch(() => false), signal);
    if (this.page) return this.page;
    this.starting ??= this.launch(config, driver).finally(() => (this.starting = undefined));
    return await raceSignal(this.starting, signal);
  }

  private async launch(config: BrowserConfig, driver: () => BrowserDriver): Promise<DriverPage> {
    const profile = mkdtempSync(path.join(os.tmpdir(), 'turnstone-browser-'));
    this.profile = profile;
    if (!exitHooked) {
      exitHooked = true;
      process.on('exit', killAllNow);
    }
    live.add(this);
    try {
      const page = await driver().launch(
        { executablePath: config.executablePath, headless: config.headless, userDataDir: profile, ...VIEWPORT, timeoutMs: LAUNCH_TIMEOUT_MS },
        {
          console: (type, text) => this.onConsole(type, text),
          pageError: (message) => this.onConsole('pageerror', message),
          requestFailed: (url, reason) => this.failed.push(cut(`${url}: ${reason}`)),
        },
        (url) => this.guard(url),
      );
      this.page = page;
      return page;
    } catch (error) {
      this.removeProfile();
      live.delete(this);
      throw error;
    }
  }

  private onConsole(type: string, text: string): void {
    const line = cut(type === 'pageerror' ? `[pageerror] ${text}` : `[${type}] ${text}`);
    this.consoleLines.push(line);
    if (this.consoleLines.length > MAX_CONSOLE_LINES) this.consoleLines.splice(0, this.consoleLines.length - MAX_CONSOLE_LINES);
    if (type === 'error' || type === 'pageerror') this.errors.push(line);
  }

  /** What the page may not request: file: and other local schemes, and private or metadata addresses of an origin not approved. */
  async guard(raw: string): Promise<string | undefined> {
    let url: URL;
    try {
      url = new URL(raw);
    } catch {
      return 'not a URL';
    }
    if (url.protocol === 'data:' || url.protocol === 'blob:' || url.protocol === 'about:') return undefined;
    if (url.protocol !== 'http:' && url.protocol !== 'https:') return `${url.protocol} URLs are not reachable from the page`;
    let reason = this.hostReasons.get(url.hostname);
    if (!reason) {
      reason = refusedHost(url.hostname, this.resolveHost);
      this.hostReasons.set(url.hostname, reason);
    }
    const why = await reason;
    // An approved origin is reachable at loopback (its dev server) but never at a private or metadata address:
    // a public name the user approved may resolve there later.
    if (this.approved.has(url.origin)) return why === undefined || isLoopbackReason(why) ? undefined : `${url.origin} is ${why}`;
    return why ? `${url.origin} is ${why}, not an approved origin` : undefined;
  }

  /** Console errors and failed requests since the last call, as lines of the result. */
  takeNews(): string[] {
    const lines: string[] = [];
    const list = (title: string, items: string[]) => {
      if (items.length === 0) return;
      lines.push(`${title} (${items.length}):`, ...items.slice(-MAX_REPORTED).map((i) => `- ${i}`));
      if (items.length > MAX_REPORTED) lines.push(`- … ${items.length - MAX_REPORTED} earlier ones left out`);
    };
    list('Console errors since the last action', this.errors);
    list('Failed requests since the last action', this.failed);
    this.errors = [];
    this.failed = [];
    return lines;
  }

  /** Every console line kept (the last MAX_CONSOLE_LINES). */
  console(): readonly string[] {
    return this.consoleLines;
  }

  /** Closes the browser and removes its profile; true when one was open. Calls during a close wait for that close. */
  close(): Promise<boolean> {
    this.closing ??= this.closeNow().finally(() => (this.closing = undefined));
    return this.closing;
  }

  private closing: Promise<boolean> | undefined;
  /** The page being closed: process exit still kills it. */
  private closingPage: DriverPage | undefined;

  private async closeNow(): Promise<boolean> {
    const starting = this.starting;
    if (starting) await starting.catch(() => undefined);
    const page = this.page;
    this.page = undefined;
    this.closingPage = page;
    this.approved.clear();
    this.hostReasons.clear();
    this.consoleLines = [];
    this.errors = [];
    this.failed = [];
    try {
      if (page) await page.close();
    } finally {
      this.closingPage = undefined;
      // Only once every process of it is gone: a browser still shutting down writes into its profile.
      this.removeProfile();
      live.delete(this);
    }
    return page !== undefined;
  }

  /** Process exit: kill at once, remove the profile. */
  killNow(): void {
    (this.page ?? this.closingPage)?.killNow();
    this.page = undefined;
    this.removeProfile();
  }

  private removeProfile(): void {
    const profile = this.profile;
    this.profile = undefined;
    if (profile) {
      try {
        rmSync(profile, { recursive: true, force: true, maxRetries: 3 });
      } catch {
        // A file still held open (Windows): the OS's temp cleanup takes it.
      }
    }
  }
}

/** Waits for `work` unless `signal` fires first (the work goes on; the caller is told AbortedError). */
export function raceSignal<T>(work: Promise<T>, signal: AbortSignal): Promise<T> {
  if (signal.aborted) return Promise.reject(new AbortedError());
  return new Promise<T>((resolve, reject) => {
    const onAbort = () => reject(new AbortedError());
    signal.addEventListener('abort', onAbort, { once: true });
    work.then(
      (v) => {
        signal.removeEventListener('abort', onAbort);
        resolve(v);
      },
      (e: unknown) => {
        signal.removeEventListener('abort', onAbort);
        reject(e instanceof Error ? e : new Error(String(e)));
      },
    );
  });
}

/** The session's page: one per session object (its background commands, else the tools' environment). */
const sessions = new WeakMap<object, BrowserPageSession>();

export function pageSessionFor(owner: object, stopWith?: (stop: () => Promise<void>) => void, resolve?: (host: string) => Promise<string[]>): BrowserPageSession {
  let s = sessions.get(owner);
  if (!s) {
    const created = new BrowserPageSession(resolve);
    s = created;
    sessions.set(owner, created);
    stopWith?.(async () => {
      await created.close();
    });
  }
  return s;
}

export function existingPageSession(owner: object): BrowserPageSession | undefined {
  return sessions.get(owner);
}
