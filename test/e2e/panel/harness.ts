// Runs the real webview bundle (dist/webview.js + dist/webview.css) in real
// Chromium without VS Code: a tiny HTTP server on 127.0.0.1 serves the
// product's own panel HTML and CSP (src/webview/panel-html.ts) plus --vscode-*
// theme variables and a fake acquireVsCodeApi that records what the panel
// posts. Used by the panel e2e tests and by bench/panel.bench.ts.
import { readFileSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import { type AddressInfo } from 'node:net';
import { join, normalize } from 'node:path';
import { type Browser, type Page, chromium } from 'playwright-core';
import { panelHtml } from '../../../src/webview/panel-html';
import { type HostToWebview, type WebviewToHost } from '../../../src/webview/protocol';

const ROOT = join(__dirname, '..', '..', '..');
const DIST = join(ROOT, 'dist');

export type Theme = 'light' | 'dark';

const THEMES: Record<Theme, Record<string, string>> = {
  light: {
    'font-family': "system-ui, -apple-system, 'Segoe UI', Ubuntu, sans-serif",
    'font-size': '13px',
    'editor-font-family': "'DejaVu Sans Mono', Menlo, Consolas, monospace",
    'editor-font-size': '12px',
    foreground: '#3b3b3b',
    descriptionForeground: '#717171',
    errorForeground: '#f85149',
    focusBorder: '#005fb8',
    'sideBar-background': '#f8f8f8',
    'sideBarSectionHeader-border': '#e5e5e5',
    'editor-background': '#ffffff',
    'editor-foreground': '#3b3b3b',
    'editorWidget-background': '#f8f8f8',
    'widget-border': '#e5e5e5',
    'widget-shadow': 'rgba(0,0,0,0.16)',
    'panel-border': '#e5e5e5',
    'input-background': '#ffffff',
    'input-foreground': '#3b3b3b',
    'input-border': '#cecece',
    'input-placeholderForeground': '#767676',
    'button-background': '#005fb8',
    'button-foreground': '#ffffff',
    'button-hoverBackground': '#0258a8',
    'button-border': 'rgba(0,0,0,0.1)',
    'button-secondaryBackground': '#e5e5e5',
    'button-secondaryForeground': '#3b3b3b',
    'button-secondaryHoverBackground': '#cccccc',
    'icon-foreground': '#3b3b3b',
    'toolbar-hoverBackground': 'rgba(184,184,184,0.31)',
    'textLink-foreground': '#005fb8',
    'textLink-activeForeground': '#005fb8',
    'textCodeBlock-background': '#f0f0f0',
    'textPreformat-foreground': '#3b3b3b',
    'textPreformat-background': 'rgba(0,0,0,0.08)',
    'textBlockQuote-background': '#f8f8f8',
    'textBlockQuote-border': '#e5e5e5',
    'badge-background': '#cccccc',
    'badge-foreground': '#3b3b3b',
    'progressBar-background': '#005fb8',
    'testing-iconPassed': '#388a34',
    'gitDecoration-addedResourceForeground': '#587c0c',
    'gitDecoration-deletedResourceForeground': '#ad0707',
    'diffEditor-insertedLineBackground': 'rgba(155,185,85,0.2)',
    'diffEditor-removedLineBackground': 'rgba(255,0,0,0.2)',
    'inputValidation-errorBackground': '#f2dede',
    'inputValidation-errorBorder': '#be1100',
    'inputValidation-warningBackground': '#f6f5d2',
    'inputValidation-warningBorder': '#b89500',
    'inputValidation-infoBackground': '#d6ecf2',
    'inputValidation-infoBorder': '#007acc',
    'symbolIcon-keywordForeground': '#af00db',
    'debugTokenExpression-string': '#a31515',
    'debugTokenExpression-boolean': '#0000ff',
    'debugTokenExpression-name': '#9b46b0',
    'symbolIcon-functionForeground': '#652d90',
    'symbolIcon-classForeground': '#d67e00',
    'debugTokenExpression-number': '#098658',
    'editorCursor-foreground': '#000000',
    'quickInput-background': '#f8f8f8',
    'quickInputList-focusBackground': '#e8e8e8',
    'quickInputList-focusForeground': '#000000',
  },
  dark: {
    'font-family': "system-ui, -apple-system, 'Segoe UI', Ubuntu, sans-serif",
    'font-size': '13px',
    'editor-font-family': "'DejaVu Sans Mono', Menlo, Consolas, monospace",
    'editor-font-size': '12px',
    foreground: '#cccccc',
    descriptionForeground: '#9d9d9d',
    errorForeground: '#f85149',
    focusBorder: '#0078d4',
    'sideBar-background': '#181818',
    'sideBarSectionHeader-border': '#2b2b2b',
    'editor-background': '#1f1f1f',
    'editor-foreground': '#cccccc',
    'editorWidget-background': '#202020',
    'widget-border': '#313131',
    'widget-shadow': 'rgba(0,0,0,0.36)',
    'panel-border': '#2b2b2b',
    'input-background': '#313131',
    'input-foreground': '#cccccc',
    'input-border': '#3c3c3c',
    'input-placeholderForeground': '#989898',
    'button-background': '#0078d4',
    'button-foreground': '#ffffff',
    'button-hoverBackground': '#026ec1',
    'button-border': 'rgba(255,255,255,0.07)',
    'button-secondaryBackground': '#313131',
    'button-secondaryForeground': '#cccccc',
    'button-secondaryHoverBackground': '#3c3c3c',
    'icon-foreground': '#cccccc',
    'toolbar-hoverBackground': 'rgba(90,93,94,0.31)',
    'textLink-foreground': '#4daafc',
    'textLink-activeForeground': '#4daafc',
    'textCodeBlock-background': '#2b2b2b',
    'textPreformat-foreground': '#d0d0d0',
    'textPreformat-background': '#3c3c3c',
    'textBlockQuote-background': '#2b2b2b',
    'textBlockQuote-border': '#616161',
    'badge-background': '#616161',
    'badge-foreground': '#f8f8f8',
    'progressBar-background': '#0078d4',
    'testing-iconPassed': '#73c991',
    'gitDecoration-addedResourceForeground': '#81b88b',
    'gitDecoration-deletedResourceForeground': '#c74e39',
    'diffEditor-insertedLineBackground': 'rgba(155,185,85,0.2)',
    'diffEditor-removedLineBackground': 'rgba(255,0,0,0.2)',
    'inputValidation-errorBackground': '#5a1d1d',
    'inputValidation-errorBorder': '#be1100',
    'inputValidation-warningBackground': '#352a05',
    'inputValidation-warningBorder': '#b89500',
    'inputValidation-infoBackground': '#063b49',
    'inputValidation-infoBorder': '#007acc',
    'symbolIcon-keywordForeground': '#c586c0',
    'debugTokenExpression-string': '#ce9178',
    'debugTokenExpression-boolean': '#4e94ce',
    'debugTokenExpression-name': '#c586c0',
    'symbolIcon-functionForeground': '#b180d7',
    'symbolIcon-classForeground': '#ee9d28',
    'debugTokenExpression-number': '#b5cea8',
    'editorCursor-foreground': '#aeafad',
    'quickInput-background': '#222222',
    'quickInputList-focusBackground': '#04395e',
    'quickInputList-focusForeground': '#ffffff',
  },
};

function themeCss(theme: Theme): string {
  return `html {\n${Object.entries(THEMES[theme]).map(([k, v]) => `  --vscode-${k}: ${v};`).join('\n')}\n}\n`;
}

// Records posts; keeps setState in sessionStorage so a reload behaves like VS
// Code re-showing a hidden view (getState returns the last setState).
// \`__name\`: tsx compiles test callbacks with keepNames, so functions handed to
// page.evaluate may call this esbuild helper; the page must provide it.
const NAME_SHIM = 'window.__name = window.__name || function (f) { return f; };';

const FAKE_API = `${NAME_SHIM}
window.__posted = [];
window.__stateWrites = 0;
window.acquireVsCodeApi = function () {
  return {
    postMessage: function (m) { window.__posted.push(JSON.parse(JSON.stringify(m))); },
    getState: function () { var s = sessionStorage.getItem('turnstone-state'); return s ? JSON.parse(s) : undefined; },
    setState: function (s) { window.__stateWrites++; sessionStorage.setItem('turnstone-state', JSON.stringify(s)); },
  };
};`;

const NONCE = 'harnessNonce0123456789';

/**
 * The product's own panel HTML (src/webview/panel-html.ts, CSP included) with
 * the harness's additions: theme variables and body class (VS Code injects
 * those) and the fake acquireVsCodeApi, run under the product's nonce. `csp:
 * false` strips the product's CSP meta tag, to show the sanitiser holds alone.
 */
function harnessHtml(origin: string, theme: Theme, csp: boolean): string {
  let html = panelHtml({ cspSource: origin, nonce: NONCE, asset: (name) => `/dist/${name}` });
  const insert = (before: string, text: string) => {
    const at = html.indexOf(before);
    if (at < 0) throw new Error(`harness: the panel HTML has no ${before}`);
    html = html.slice(0, at) + text + html.slice(at);
  };
  insert('<link ', `<link rel="stylesheet" href="/theme-${theme}.css">\n`);
  insert(`<script nonce="${NONCE}"`, `<script nonce="${NONCE}" src="/fake-api.js"></script>\n`);
  html = html.replace('<body>', `<body class="vscode-${theme}">`);
  if (!csp) html = html.replace(/<meta http-equiv="Content-Security-Policy"[^>]*>\n?/i, '');
  return html;
}

/** The benchmark's baseline: the same messages appended as raw text to a <pre>. */
const BASELINE_HTML = `<!DOCTYPE html><html><head><meta charset="UTF-8"><link rel="stylesheet" href="/theme-dark.css"></head>
<body><pre id="out" style="white-space: pre-wrap"></pre><script src="/baseline.js"></script></body></html>`;
const BASELINE_JS = `${NAME_SHIM}
var out = document.getElementById('out');
window.addEventListener('message', function (e) {
  var evs = e.data.type === 'batch' ? e.data.events : [e.data];
  for (var i = 0; i < evs.length; i++) if (evs[i].type === 'assistant_delta') out.append(evs[i].text);
});`;

const TYPES: Record<string, string> = { '.js': 'text/javascript', '.css': 'text/css', '.ttf': 'font/ttf', '.map': 'application/json', '.html': 'text/html' };

export interface Harness {
  origin: string;
  url(opts?: { theme?: Theme; csp?: boolean }): string;
  close(): Promise<void>;
}

export async function startHarness(): Promise<Harness> {
  const server: Server = createServer((req, res) => {
    const u = new URL(req.url ?? '/', 'http://127.0.0.1');
    const send = (body: string | Buffer, type: string) => {
      res.writeHead(200, { 'content-type': type, 'cache-control': 'no-store' });
      res.end(body);
    };
    if (u.pathname === '/harness.html') return send(harnessHtml(origin, u.searchParams.get('theme') === 'dark' ? 'dark' : 'light', u.searchParams.get('csp') !== '0'), 'text/html');
    // Chromium may ask for a favicon at any moment after load; a 404 would show as a console error.
    if (u.pathname === '/favicon.ico') return void res.writeHead(204).end();
    if (u.pathname === '/baseline.html') return send(BASELINE_HTML, 'text/html');
    if (u.pathname === '/baseline.js') return send(BASELINE_JS, 'text/javascript');
    if (u.pathname === '/fake-api.js') return send(FAKE_API, 'text/javascript');
    if (u.pathname === '/theme-light.css') return send(themeCss('light'), 'text/css');
    if (u.pathname === '/theme-dark.css') return send(themeCss('dark'), 'text/css');
    if (u.pathname.startsWith('/dist/')) {
      const file = normalize(join(DIST, u.pathname.slice('/dist/'.length)));
      if (file.startsWith(DIST)) {
        try {
          return send(readFileSync(file), TYPES[file.slice(file.lastIndexOf('.'))] ?? 'application/octet-stream');
        } catch {
          // fall through to 404
        }
      }
    }
    res.writeHead(404).end();
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return {
    origin,
    url: ({ theme = 'light', csp = true } = {}) => `${origin}/harness.html?theme=${theme}&csp=${csp ? 1 : 0}`,
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}

export function launchChromium(): Promise<Browser> {
  return chromium.launch({
    executablePath: process.env.CHROMIUM_PATH ?? '/usr/bin/chromium',
    args: ['--no-sandbox', '--disable-gpu', '--disable-background-networking', '--disable-component-update', '--disable-sync', '--no-first-run'],
  });
}

/** The harness's page server and a Chromium to open panels in; filled in by the describe's `before`. */
export interface PanelRig {
  harness: Harness;
  browser: Browser;
}

/** Registers before/after hooks in the calling describe: starts the harness, then Chromium; after, closes both. */
export function usePanelHarness(): PanelRig {
  const rig = {} as PanelRig;
  before(async () => {
    rig.harness = await startHarness();
    rig.browser = await launchChromium();
  });
  after(async () => {
    await rig.browser?.close();
    await rig.harness?.close();
  });
  return rig;
}

/** Opens the harness and waits for the panel's `ready`. */
/**
 * `beforeLoad`: a script run in the page before the panel's own (as text: a function would be compiled with the
 * test runner's name helper, which the page lacks), e.g. to take away or stand in for a browser API.
 */
export async function openPanel(browser: Browser, harness: Harness, opts: { theme?: Theme; csp?: boolean; width?: number; height?: number; beforeLoad?: string } = {}): Promise<Page> {
  const page = await browser.newPage({ viewport: { width: opts.width ?? 420, height: opts.height ?? 900 } });
  if (opts.beforeLoad) await page.addInitScript(opts.beforeLoad);
  await page.goto(harness.url(opts));
  await page.waitForFunction(() => (window as unknown as { __posted: { type: string }[] }).__posted.some((m) => m.type === 'ready'));
  // Screenshots must not race the icon font.
  await page.evaluate(() => document.fonts.load('16px codicon'));
  return page;
}

/**
 * Delivers host messages as window message events, as VS Code's webview frame
 * does. Dispatched synchronously so a test knows they have been handled when
 * this returns (no guessing with timeouts).
 */
export async function hostPost(page: Page, ...messages: unknown[]): Promise<void> {
  await page.evaluate((ms) => {
    for (const m of ms) window.dispatchEvent(new MessageEvent('message', { data: m }));
  }, messages);
}

/** Typed variant for well-formed messages. */
export const hostSend = (page: Page, ...messages: HostToWebview[]) => hostPost(page, ...messages);

/** Waits for the panel's requestAnimationFrame render of everything handled so far, and a paint. */
export async function settle(page: Page): Promise<void> {
  await page.evaluate(() => new Promise<void>((resolve) => requestAnimationFrame(() => requestAnimationFrame(() => resolve()))));
}

/**
 * What the panel posted, in order. Typing reports (25.1: "the user types", "they paused") come with
 * every keystroke burst and are left out unless asked for.
 */
export async function posted(page: Page, opts: { typing?: boolean } = {}): Promise<WebviewToHost[]> {
  const all = await page.evaluate(() => (window as unknown as { __posted: WebviewToHost[] }).__posted);
  return opts.typing ? all : all.filter((m) => m.type !== 'typing');
}

export async function clearPosted(page: Page): Promise<void> {
  await page.evaluate(() => {
    (window as unknown as { __posted: unknown[] }).__posted.length = 0;
  });
}

/**
 * Waits until `read()` gives a value `ok` accepts (polling, with a deadline) and
 * returns the last value read, for the caller to assert on: the UI updates
 * asynchronously (a <details> toggle event, a render frame), so a value read
 * once, at once, is a race.
 */
export async function eventually<T>(read: () => Promise<T>, ok: (value: T) => boolean, timeoutMs = 10_000): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await read();
    if (ok(value) || Date.now() > deadline) return value;
    await new Promise((r) => setTimeout(r, 25));
  }
}
