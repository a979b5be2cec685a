// Shared driver for e2e tests: a real workbench (code-server) in Chromium with
// Turnstone loaded in development mode, plus helpers to reach the chat webview.
import { mkdirSync } from 'node:fs';
import * as path from 'node:path';
import type { Browser, Frame, Page } from 'playwright-core';
import { type CodeServer, type CodeServerOptions, launchChromium, REPO_ROOT, startCodeServer, waitForWorkbench } from '../support/code-server';

export const RESULTS_DIR = path.join(REPO_ROOT, 'test-results');

export interface Workbench {
  server: CodeServer;
  browser: Browser;
  page: Page;
  close(): Promise<void>;
}

export async function openWorkbench(options: CodeServerOptions = {}): Promise<Workbench> {
  const server = await startCodeServer({ workspaceTemplate: path.join(REPO_ROOT, 'test', 'fixtures', 'workspace'), ...options });
  const browser = await launchChromium();
  try {
    const page = await browser.newPage({ viewport: { width: 1400, height: 900 } });
    await page.goto(server.url());
    await waitForWorkbench(page);
    // Our contributions are in once the activity-bar entry shows; commands resolve from then on.
    await page.locator('.activitybar .action-item a[aria-label^="Turnstone"]').waitFor({ state: 'visible', timeout: 60_000 });
    return {
      server,
      browser,
      page,
      async close() {
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

/** Runs a command through the command palette, as a user would. */
export async function runCommand(page: Page, title: string): Promise<void> {
  await page.keyboard.press('F1');
  const input = page.locator('.quick-input-widget input');
  await input.waitFor({ state: 'visible' });
  await input.fill(`>${title}`);
  const row = page.locator('.quick-input-widget .monaco-list-row', { hasText: title }).first();
  await row.waitFor({ state: 'visible' });
  await page.keyboard.press('Enter');
}

/** The innermost frame of the Turnstone chat webview (VS Code nests it in two iframes). */
export async function chatFrame(page: Page, timeoutMs = 30_000): Promise<Frame> {
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    for (const frame of page.frames()) {
      try {
        if (await frame.$('main#app[aria-label="Turnstone chat"]')) return frame;
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
        if (await frame.$('main#app[aria-label="Turnstone chat"]')) found = true;
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
