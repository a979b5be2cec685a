// What the browser tool needs from an automation library, so the library
// (puppeteer-core, ./driver.ts, bundled apart as dist/browser.js) is only
// loaded when the tool is first used and tests can look at the process.

export interface DriverLaunchOptions {
  executablePath: string;
  headless: boolean;
  /** A fresh, empty profile folder; the caller removes it. */
  userDataDir: string;
  width: number;
  height: number;
  /** Launching (and connecting) longer than this fails. */
  timeoutMs: number;
}

export interface DriverEvents {
  console(type: string, text: string): void;
  pageError(message: string): void;
  requestFailed(url: string, reason: string): void;
}

/** Why a request the page makes is refused (it is aborted), or undefined to let it through. */
export type RequestGuard = (url: string) => Promise<string | undefined>;

export interface DriverPage {
  /** The browser's process id (its process group on Linux and macOS). */
  readonly pid: number | undefined;
  goto(url: string, timeoutMs: number): Promise<{ status: number | undefined }>;
  screenshot(): Promise<Uint8Array>;
  /** Clicks the first element `selector` matches (scrolled into view first); false when none does. */
  clickSelector(selector: string, timeoutMs: number): Promise<boolean>;
  clickAt(x: number, y: number): Promise<void>;
  /** Types into the focused element, or the one `selector` matches (clicked first); false when none does. */
  type(text: string, selector: string | undefined, timeoutMs: number): Promise<boolean>;
  press(key: string): Promise<void>;
  scroll(dx: number, dy: number): Promise<void>;
  /** Waits, at most `ms`, for the page to be quiet after an action (a navigation it started, its network). */
  settle(ms: number): Promise<void>;
  title(): Promise<string>;
  url(): string;
  /** Closes the browser; its process and every child are gone when this settles. */
  close(): Promise<void>;
  /** Synchronous last resort (process exit): kills the browser's process group. */
  killNow(): void;
}

export interface BrowserDriver {
  launch(options: DriverLaunchOptions, events: DriverEvents, guard: RequestGuard): Promise<DriverPage>;
}
