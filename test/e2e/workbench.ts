// Shared driver for e2e tests: a real workbench (code-server) in Chromium with
// Turnstone loaded in development mode, plus helpers to reach the chat webview.
import { mkdirSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import * as path from 'node:path';
import type { Browser, Frame, Locator, Page } from 'playwright-core';
import { MockAnthropicServer } from '../fixtures/mock-anthropic';
import { type CodeServer, type CodeServerOptions, launchChromium, REPO_ROOT, startCodeServer, waitForWorkbench } from '../support/code-server';
import { turnstoneLog } from './turnstone-log';

export const RESULTS_DIR = path.join(REPO_ROOT, 'test-results');

export interface Workbench {
  server: CodeServer;
  browser: Browser;
  page: Page;
  close(): Promise<void>;
}

/** Each open workbench's page, and its user data folder (the extension's log is under it). */
const openPages = new Map<Page, string>();

/**
 * A failed e2e test leaves what the user would have seen: a screenshot of every open workbench and the chat
 * panel's text, under test-results/failures/ (CI keeps them). A root hook (the configs `require` this file): the
 * e2e parts run their files on two workers, and a hook registered at a module's load would reach only the first
 * file a worker runs.
 */
export const mochaHooks = {
  async afterEach(this: Mocha.Context): Promise<void> {
    const test = this.currentTest;
    if (test?.state !== 'failed' || openPages.size === 0) return;
    const dir = path.join(RESULTS_DIR, 'failures');
    mkdirSync(dir, { recursive: true });
    const slug = test.fullTitle().replace(/[^\w-]+/g, '-').slice(0, 120);
    let i = 0;
    for (const [page, userDataDir] of openPages) {
      const name = `${slug}${i++ ? `-${i}` : ''}`;
      await page.screenshot({ path: path.join(dir, `${name}.png`) }).catch(() => undefined);
      const chat = await chatFrame(page, 2_000).catch(() => undefined);
      const text = chat ? await chat.locator('main#app').evaluate((el) => el.textContent ?? '').catch(() => '') : '(no chat panel)';
      // Where the keyboard was: a key that did nothing usually went elsewhere.
      const focus = await page
        .evaluate(() => {
          const chain: string[] = [];
          for (let e = document.activeElement; e && chain.length < 8; e = e.parentElement) chain.push(`${e.tagName.toLowerCase()}.${[...e.classList].slice(0, 3).join('.')}`);
          return chain.join(' < ');
        })
        .catch(() => '?');
      // What the workbench told the user (a status bar message, a toast) and the extension's last log lines: a
      // command that ran and refused says why there. CI's printed output is all that is seen of a failure there.
      const said = await page
        // One expression, no named inner function: the test runner's transform would name it with a helper the page lacks.
        .evaluate(() =>
          ['.statusbar-item', '.notifications-toasts .notification-list-item-message'].map((selector) =>
            [...document.querySelectorAll(selector)].map((e) => (e.textContent ?? '').trim()).filter(Boolean),
          ),
        )
        .then(([status, toasts]) => ({ status: status ?? [], toasts: toasts ?? [] }))
        .catch(() => ({ status: [], toasts: [] }));
      // Never a failure of its own: a hook that threw would stop the rest of the file's tests.
      let logTail: string[];
      try {
        logTail = turnstoneLog(userDataDir).trimEnd().split('\n').slice(-12);
      } catch (error) {
        logTail = [`(the log could not be read: ${String(error)})`];
      }
      writeFileSync(path.join(dir, `${name}.txt`), `focus: ${focus}\nstatus bar: ${JSON.stringify(said.status)}\ntoasts: ${JSON.stringify(said.toasts)}\n\nlog:\n${logTail.join('\n')}\n\n${text}`);
      console.log(`    failure evidence: test-results/failures/${name}.png, .txt (keyboard focus: ${focus})`);
      console.log(`      status bar: ${JSON.stringify(said.status)}\n      toasts: ${JSON.stringify(said.toasts)}\n      log tail:\n${logTail.map((l) => `        ${l}`).join('\n')}`);
    }
  },
};

/**
 * Turnstone's entry: in the activity bar (1.100), or in the secondary side bar's title (builds that take views
 * there). With VS Code's own Chat enabled beside it, that title shows Chat and puts Turnstone under "Additional
 * Views", which exists only when a second container (ours: the fixtures contribute none) is there.
 */
export function turnstoneEntry(page: Page): Locator {
  return page
    .locator('.activitybar .action-item a[aria-label^="Turnstone"], .auxiliarybar .action-item a[aria-label^="Turnstone"], .auxiliarybar .action-item a[aria-label="Additional Views"]')
    .first();
}

export async function openWorkbench(options: CodeServerOptions = {}): Promise<Workbench> {
  const server = await startCodeServer({ workspaceTemplate: path.join(REPO_ROOT, 'test', 'fixtures', 'workspace'), ...options });
  const browser = await launchChromium();
  try {
    const page = await browser.newPage({ viewport: { width: 1400, height: 900 } });
    await page.goto(server.url());
    await waitForWorkbench(page);
    // Our contributions are in once Turnstone's entry is there (the activity bar on 1.100; the secondary side bar's
    // title on builds that take views there); commands resolve from then on.
    await turnstoneEntry(page).waitFor({ state: 'attached', timeout: 60_000 });
    openPages.set(page, server.userDataDir);
    return {
      server,
      browser,
      page,
      async close() {
        openPages.delete(page);
        await browser.close();
        await server.stop();
      },
    };
  } catch (error) {
    await browser.close();
    await server.stop();
    throw error;
  }
}

/** A mock Anthropic API and a workbench whose extension host talks to it; filled in by the describe's `before`. */
export interface ChatWorkbench {
  server: MockAnthropicServer;
  wb: Workbench;
  /** The chat webview's frame, found in `before` (not set with `focusChat: false`). */
  frame: Frame;
  /**
   * The chat's frame now: `frame`, or, when VS Code re-created the webview (its old frame detached), the new
   * one, which then becomes `frame` (the panel restores its transcript on `ready`).
   */
  liveFrame(): Promise<Frame>;
}

export interface ChatWorkbenchOptions {
  /** More for openWorkbench (userSettings, workspaceTrust…); its `env` is merged over the key and the mock's URL. */
  workbench?: CodeServerOptions;
  /** Runs once the workbench is open, before the chat is focused (workspace files, page listeners). */
  prepare?: (wb: Workbench) => void | Promise<void>;
  /** Run "Turnstone: Focus Chat" and wait for the chat to render; default true. */
  focusChat?: boolean;
}

/**
 * Registers before/after hooks in the calling describe. Before: starts the mock
 * API, opens the workbench with a key and the mock's URL in the extension host's
 * environment, runs `prepare`, then (unless `focusChat: false`) focuses the chat
 * and waits for it. After: closes the workbench and the mock.
 */
export function useChatWorkbench(options: ChatWorkbenchOptions = {}): ChatWorkbench {
  const chat = {
    async liveFrame() {
      if (chat.frame && !chat.frame.isDetached()) return chat.frame;
      console.log('      (the chat webview was re-created; following its new frame)');
      chat.frame = await chatFrame(chat.wb.page);
      return chat.frame;
    },
  } as ChatWorkbench;
  before(async () => {
    chat.server = await MockAnthropicServer.start();
    chat.wb = await openWorkbench({ ...options.workbench, env: { ANTHROPIC_API_KEY: 'sk-ant-e2e-key', ANTHROPIC_BASE_URL: chat.server.url, ...options.workbench?.env } });
    await options.prepare?.(chat.wb);
    if (options.focusChat === false) return;
    await runCommand(chat.wb.page, 'Turnstone: Focus Chat');
    chat.frame = await chatFrame(chat.wb.page);
  });
  after(async () => {
    await chat.wb?.close();
    await chat.server?.close();
  });
  return chat;
}

/**
 * Runs `attempt` until it succeeds or `timeoutMs` passes. `left(max)` is how long one step may wait (1 s to `max`,
 * 15 s unless said): what a busy workbench drops (a key, an Enter, a palette that closed under the test) is done
 * again rather than waited on. `between` runs after a failed try (Escape, say).
 */
export async function untilDone<T>(timeoutMs: number, attempt: (left: (max?: number) => number) => Promise<T>, between?: () => Promise<unknown>): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  const left = (max = 15_000) => Math.max(1_000, Math.min(max, deadline - Date.now()));
  for (;;) {
    try {
      return await attempt(left);
    } catch (error) {
      if (Date.now() >= deadline) throw error;
      await between?.();
    }
  }
}

/**
 * Opens the command palette with `filter` typed in. The F1 keypress is tried again when no palette shows:
 * a busy workbench sometimes lets a key go to the focused webview instead.
 */
export async function openPalette(page: Page, filter: string, timeoutMs = 60_000): Promise<Locator> {
  const input = page.locator('.quick-input-widget input');
  return untilDone(timeoutMs, async (left) => {
    await page.keyboard.press('F1');
    await input.waitFor({ state: 'visible', timeout: left() });
    await input.fill(filter, { timeout: left() });
    return input;
  });
}

/** A quick pick or input box by its title: the palette's own input and rows match the generic locators too. */
export function quickInputTitled(page: Page, title: string): Locator {
  return page.locator('.quick-input-widget .quick-input-title', { hasText: title });
}

/**
 * Runs a command through the command palette, as a user would. The palette closes when focus moves (a webview that
 * takes the keyboard as it finishes loading, a dialog): like a user, open it again until the command is chosen.
 * `shows`: what the command brings up (its quick pick's title, say). Until it shows, the command is chosen again: an
 * Enter a busy workbench dropped, or a palette that closed under it, ran nothing.
 */
export async function runCommand(page: Page, title: string, timeoutMs = 60_000, shows?: Locator): Promise<void> {
  const row = page.locator('.quick-input-widget .monaco-list-row', { hasText: title }).first();
  await untilDone(timeoutMs, async (left) => {
    const input = await openPalette(page, `>${title}`, left());
    await row.waitFor({ state: 'visible', timeout: left() });
    await input.press('Enter', { timeout: left() });
    // A command may read before it shows (the plugin rows): longer than a keypress.
    await shows?.waitFor({ state: 'visible', timeout: left(30_000) });
  });
}

/**
 * Opens a workspace file by name through Quick Open, as a user would, until its editor is the active tab. The
 * palette is filled (not typed into after "Go to File": keys typed while the command palette hands over to the file
 * picker were lost once in CI, and the picker never listed the file); a list that shows no match (a busy file search)
 * is closed and asked again.
 */
export async function openFile(page: Page, name: string, timeoutMs = 60_000): Promise<void> {
  const row = page.locator('.quick-input-widget .monaco-list-row').filter({ hasText: name }).first();
  const tab = page.locator('.tabs-container .tab.active', { hasText: name });
  let attempt = 0;
  await untilDone(
    timeoutMs,
    async (left) => {
      const input = await openPalette(page, name, left());
      // Quick Open lists from its file cache: a file written a moment ago is missing until a later search, so a
      // list without it is asked again soon rather than waited on (it never fills in by itself).
      await row.waitFor({ state: 'visible', timeout: Math.min(left(), 4_000 * ++attempt) });
      await input.press('Enter', { timeout: left() });
      await tab.waitFor({ state: 'visible', timeout: left() });
    },
    () => page.keyboard.press('Escape'),
  );
}

/** The innermost frame of the Turnstone chat webview (VS Code nests it in two iframes). */
export async function chatFrame(page: Page, timeoutMs = 30_000): Promise<Frame> {
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    for (const frame of page.frames()) {
      try {
        if (await frame.$('main#app.turnstone-chat')) return frame;
      } catch {
        /* frame navigated away; keep looking */
      }
    }
    await page.waitForTimeout(200);
  }
  throw new Error('the Turnstone chat webview did not render');
}

/** Waits until no frame holds the chat (the view was hidden and VS Code disposed its webview). */
export async function chatGone(page: Page, timeoutMs = 30_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    let found = false;
    for (const frame of page.frames()) {
      try {
        if (await frame.$('main#app.turnstone-chat')) found = true;
      } catch {
        /* frame navigated away: gone */
      }
    }
    if (!found) return;
    await page.waitForTimeout(100);
  }
  throw new Error('the Turnstone chat webview is still there');
}

/** Types a prompt into the chat panel and presses Enter, as a user would; returns the panel's frame. */
/**
 * "Turnstone: New Session", then waits until the panel shows the new, empty session: the command returns before
 * the panel has switched, and a prompt sent in between went to the old session (a stress run saw the next turn's
 * approval never show).
 */
export async function newSession(page: Page): Promise<void> {
  await runCommand(page, 'Turnstone: New Session');
  await (await chatFrame(page)).locator('article.item').first().waitFor({ state: 'detached', timeout: 30_000 });
}

export async function sendFromPanel(page: Page, text: string): Promise<Frame> {
  const frame = await chatFrame(page);
  const input = frame.locator('textarea.input');
  await input.click();
  await input.fill(text);
  await input.press('Enter');
  return frame;
}

export async function screenshot(page: Page, name: string): Promise<string> {
  mkdirSync(RESULTS_DIR, { recursive: true });
  const file = path.join(RESULTS_DIR, name);
  await page.screenshot({ path: file });
  return file;
}

/**
 * "Preferences: Color Theme", as a user picks one: the command's own row, then the theme's own row, clicked. A
 * palette that closed under it (a panel that finished loading took focus: its row stays in the page, hidden) is
 * opened again until the deadline.
 */
export async function pickColorTheme(page: Page, theme: string, timeoutMs = 90_000): Promise<void> {
  const input = page.locator('.quick-input-widget input');
  const exactRow = (label: string) =>
    page.locator('.quick-input-widget .monaco-list-row').filter({ has: page.locator('.label-name', { hasText: new RegExp(`^${label.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}$`) }) }).first();
  await untilDone(timeoutMs, async (left) => {
    await openPalette(page, '>Preferences: Color Theme', left());
    // Not "Browse Color Themes in Marketplace", which may sort first.
    await exactRow('Preferences: Color Theme').click({ timeout: left() });
    await page.locator('.quick-input-widget input[placeholder*="Color Theme"]').waitFor({ state: 'visible', timeout: left() });
    await input.fill(theme, { timeout: left() });
    // A theme's row is "<label>, <theme id>": "Dark High Contrast, Default High Contrast".
    await page.locator(`.quick-input-widget .monaco-list-row[aria-label$=", ${theme}"]`).first().click({ timeout: left() });
    await page.locator('.quick-input-widget').waitFor({ state: 'hidden', timeout: left() });
  });
}

/**
 * Answers every approval in the panel with Allow until `done` shows. Polls the chat as it is now (a webview
 * VS Code re-created is followed, not waited on forever); fails after `quietMs` with neither a request nor
 * `done`, naming what the panel showed then.
 */
export async function allowUntil(chat: ChatWorkbench, done: (frame: Frame) => Locator, quietMs = 120_000): Promise<void> {
  let deadline = Date.now() + quietMs;
  for (;;) {
    const frame = await chat.liveFrame();
    if (await done(frame).first().isVisible().catch(() => false)) return;
    const allow = frame.locator('button.perm-allow:not([disabled])').first();
    if (await allow.isVisible().catch(() => false)) {
      // The card may re-render between the check and the click: then the next round finds it again.
      await allow.click({ timeout: 10_000 }).catch(() => undefined);
      deadline = Date.now() + quietMs;
      continue;
    }
    if (Date.now() > deadline) {
      const cards = await frame
        .locator('article.item')
        .evaluateAll((items) => items.slice(-6).map((i) => `${i.className}${(i as HTMLElement).dataset.status ? ` [${(i as HTMLElement).dataset.status}]` : ''}: ${(i.textContent ?? '').replace(/\s+/g, ' ').slice(0, 100)}`))
        .catch((e: unknown) => [String(e)]);
      const running = await frame.locator('body.turn-running').count().catch(() => -1);
      throw new Error(`allowUntil: ${quietMs} ms with no approval to answer and not done; turn running: ${running === 1}; the last cards:\n  ${cards.join('\n  ')}`);
    }
    // Wait for either to show, in slices: after each the chat is looked up again (a re-created webview).
    await Promise.race([done(frame).first().waitFor({ timeout: 5_000 }), allow.waitFor({ timeout: 5_000 })]).catch(() => undefined);
  }
}

/** The last lines of the extension host's log (a crash and restart re-creates every webview): for failure reports. */
export function extensionHostLogTail(wb: Workbench, lines = 25): string {
  const logs = path.join(wb.server.userDataDir, 'logs');
  const found: string[] = [];
  const walk = (dir: string) => {
    for (const entry of readdirSync(dir, { withFileTypes: true })) {
      const full = path.join(dir, entry.name);
      if (entry.isDirectory()) walk(full);
      else if (/exthost\.log$/.test(entry.name)) found.push(full);
    }
  };
  try {
    walk(logs);
  } catch {
    return '(no extension host log)';
  }
  return found.map((f) => `${path.relative(logs, f)}:\n${readFileSync(f, 'utf8').trimEnd().split('\n').slice(-lines).join('\n')}`).join('\n');
}
