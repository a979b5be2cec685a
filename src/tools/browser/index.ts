// browser (contracts.md "Browser"): one page of a real browser per session, to
// look at what the agent built: open a URL (a dev server on localhost too),
// click, type, press keys, scroll, read the console. Every action answers with
// a screenshot and a short report; permission kind `browser`, asked per origin.
import { mkdir, writeFile } from 'node:fs/promises';
import * as path from 'node:path';
import { z } from 'zod';
import { isAbortedError } from '../../runtime/cancellation';
import { cutHead } from '../../runtime/text-cut';
import { imageFromBytes } from '../../runtime/context/images';
import { urlOrigin } from '../../runtime/policy/permission-rules';
import { type ToolOutput, ToolInputError, type ToolUseAssessment } from '../../runtime/types';
import { ToolError } from '../errors';
import { defineTool, type ToolEnv } from '../tool';
import { type DriverPage } from './driver-port';
import { loadBrowserDriver } from './load-driver';
import { type BrowserConfig, type BrowserPageSession, existingPageSession, isLoopbackReason, pageSessionFor, raceSignal, refusedHost, VIEWPORT } from './page-session';

export const BROWSER_TOOL = 'browser';
const ACTIONS = ['open', 'screenshot', 'click', 'type', 'press', 'scroll', 'console', 'close'] as const;
/** After an action: how long to wait at most for the page to be quiet (a navigation, its requests). */
const SETTLE_MS = 1500;

const schema = z.object({
  action: z.enum(ACTIONS).describe('open: load url; screenshot: look again; click: selector, or x and y; type: text (into selector, else the focused element); press: key; scroll: by x and y pixels (default one screen down); console: the page\'s console lines; close: close the browser.'),
  url: z.string().min(1).optional().describe('open: the http:// or https:// URL, e.g. http://localhost:3000.'),
  selector: z.string().min(1).optional().describe('click / type: a CSS selector of the element.'),
  x: z.number().optional().describe('click: the viewport x coordinate (from the screenshot, 1280×800); scroll: pixels to the right.'),
  y: z.number().optional().describe('click: the viewport y coordinate; scroll: pixels down (negative: up).'),
  text: z.string().optional().describe('type: the text to type.'),
  key: z.string().min(1).optional().describe('press: a key such as Enter, Tab, Escape, ArrowDown, or a character.'),
});
type Input = z.infer<typeof schema>;

/** The URL as rules and the approval see it: http(s) only, no credentials, no fragment. */
export function parseBrowserUrl(raw: string | undefined): URL {
  if (raw === undefined) throw new ToolInputError('browser: open needs url, e.g. http://localhost:3000.');
  let url: URL;
  try {
    url = new URL(raw.trim());
  } catch {
    throw new ToolInputError(`browser: "${raw}" is not a valid URL; give a full URL such as http://localhost:3000/.`);
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') throw new ToolInputError(`browser opens http:// and https:// URLs only, not ${url.protocol} (the page must not reach local files)`);
  if (url.username || url.password) throw new ToolInputError('browser: the URL holds a user name or password; leave them out.');
  url.hash = '';
  return url;
}

const sessionOwner = (env: ToolEnv): object => env.background ?? env;

function pageSession(env: ToolEnv, config: BrowserConfig): BrowserPageSession {
  const background = env.background;
  return pageSessionFor(sessionOwner(env), background ? (stop) => background.stopWithCommands(stop) : undefined, config.resolve);
}

function needConfig(env: ToolEnv): BrowserConfig {
  if (!env.browser) throw new ToolError('unavailable', 'The browser tool is not available here: no Chromium, Chrome or Edge was found.');
  return env.browser;
}

export const browserTool = defineTool({
  name: BROWSER_TOOL,
  description: [
    'Drives one page of a real (headless) Chromium browser to look at a web app, e.g. the dev server you started: open a URL, click, type, press keys, scroll, read the console.',
    `Every action except console and close returns a screenshot of the viewport (${VIEWPORT.width}×${VIEWPORT.height}) and the page's title and URL, with the console errors and failed requests since the last action.`,
    'Start with action "open" and a url (localhost is fine). To click, prefer a CSS selector; x and y are viewport coordinates of the last screenshot. The page stays open between calls; "close" closes it.',
    'The user is asked before a new origin is opened. The page cannot read local files (no file: URLs) or reach private network or cloud metadata addresses other than the origins the user approved; downloads are refused; the profile is fresh (no cookies or logins).',
  ].join('\n'),
  schema,
  readOnly: false,
  need: 'browser',
  async assess(input, env): Promise<ToolUseAssessment> {
    if (input.action === 'open') return { need: 'browser', subject: parseBrowserUrl(input.url).href };
    // Actions on the open page act on an origin the user approved with its `open`; a page that has since
    // navigated to another origin asks again.
    const session = existingPageSession(sessionOwner(env));
    const current = session?.currentUrl();
    const origin = current ? urlOrigin(current) : undefined;
    if (current && origin && !session!.approved.has(origin)) return { need: 'browser', subject: current };
    return { need: 'read', subject: current ?? '' };
  },
  async execute(input, env, ctx) {
    const config = needConfig(env);
    const session = pageSession(env, config);
    return await session.serial(() => act(input, session, config, ctx.signal));
  },
});

async function act(input: Input, session: BrowserPageSession, config: BrowserConfig, signal: AbortSignal): Promise<ToolOutput> {
  const driver = config.driver ?? loadBrowserDriver;
  switch (input.action) {
    case 'close': {
      const was = await session.close();
      return { content: was ? 'The browser is closed.' : 'No browser page was open.', isError: false };
    }
    case 'console': {
      const lines = session.console();
      if (!session.open) return { content: 'No browser page is open; use action "open" first.', isError: false };
      session.takeNews();
      return { content: lines.length > 0 ? `Console of ${session.currentUrl()} (${lines.length} lines, oldest first):\n${lines.join('\n')}` : `The console of ${session.currentUrl()} is empty.`, isError: false };
    }
    case 'open': {
      const url = parseBrowserUrl(input.url);
      const why = await refusedHost(url.hostname, config.resolve);
      if (why && !isLoopbackReason(why)) {
        throw new ToolError('network_refused', `browser: ${url.host} is ${why}; the browser reaches public addresses and this machine's own (localhost), not other private or metadata addresses.`);
      }
      const page = await started(session.ensure(config, driver, signal), config);
      session.approved.add(url.origin);
      session.takeNews();
      await load(page, url, config, signal);
      return await report(session, page, config, signal);
    }
    default: {
      const page = openPage(session);
      await raceSignal(perform(input, page, config), signal);
      await raceSignal(page.settle(SETTLE_MS), signal);
      return await report(session, page, config, signal);
    }
  }
}

/** A browser that does not start is the tool's failure, said with the program's path. */
async function started(page: Promise<DriverPage>, config: BrowserConfig): Promise<DriverPage> {
  try {
    return await page;
  } catch (error) {
    if (isAbortedError(error)) throw error;
    const why = cutHead((error instanceof Error ? error.message : String(error)).split('\n')[0]!, 500);
    throw new ToolError('unavailable', `browser: ${config.executablePath} did not start: ${why}. Set turnstone.browser.executablePath to a working Chromium, Chrome or Edge.`);
  }
}

function openPage(session: BrowserPageSession): DriverPage {
  // ensure() is not called here: only `open` starts a browser.
  const page = session.activePage;
  if (!page) throw new ToolError('unavailable', 'No browser page is open; use action "open" with a url first.');
  return page;
}

async function perform(input: Input, page: DriverPage, config: BrowserConfig): Promise<void> {
  switch (input.action) {
    case 'screenshot':
      return;
    case 'click': {
      if (input.selector !== undefined) {
        if (!(await page.clickSelector(input.selector, config.actionTimeoutMs))) {
          throw new ToolError('not_found', `browser: no element matches ${input.selector} (waited ${config.actionTimeoutMs / 1000} s).`);
        }
        return;
      }
      if (input.x === undefined || input.y === undefined) throw new ToolInputError('browser: click needs a selector, or x and y.');
      if (input.x < 0 || input.y < 0 || input.x >= VIEWPORT.width || input.y >= VIEWPORT.height) {
        throw new ToolInputError(`browser: x and y are viewport coordinates, 0–${VIEWPORT.width - 1} and 0–${VIEWPORT.height - 1}.`);
      }
      return await page.clickAt(input.x, input.y);
    }
    case 'type': {
      if (input.text === undefined) throw new ToolInputError('browser: type needs text.');
      if (!(await page.type(input.text, input.selector, config.actionTimeoutMs))) {
        throw new ToolError('not_found', `browser: no element matches ${input.selector ?? ''} (waited ${config.actionTimeoutMs / 1000} s).`);
      }
      return;
    }
    case 'press': {
      if (input.key === undefined) throw new ToolInputError('browser: press needs key, e.g. Enter.');
      try {
        return await page.press(input.key);
      } catch (error) {
        if (/unknown key/i.test(String(error))) throw new ToolInputError(`browser: "${input.key}" is not a key name; use e.g. Enter, Tab, Escape, Backspace, ArrowDown or one character.`);
        throw error;
      }
    }
    case 'scroll':
      return await page.scroll(input.x ?? 0, input.y ?? VIEWPORT.height - 100);
    default:
      return;
  }
}

async function load(page: DriverPage, url: URL, config: BrowserConfig, signal: AbortSignal): Promise<void> {
  try {
    await raceSignal(page.goto(url.href, config.loadTimeoutMs), signal);
  } catch (error) {
    const text = error instanceof Error ? error.message : String(error);
    if (error instanceof Error && error.name === 'TimeoutError') {
      throw new ToolError('timeout', `browser: ${url.href} did not finish loading within ${config.loadTimeoutMs / 1000} s (a request it waits for never ends?). The page as it is can still be looked at with action "screenshot".`);
    }
    const net = /net::(ERR_[A-Z_]+)/.exec(text)?.[1];
    if (net === 'ERR_BLOCKED_BY_CLIENT') throw new ToolError('network_refused', `browser: ${url.href} was not loaded: the address is not reachable from the page.`);
    if (net) {
      const hint = net === 'ERR_CONNECTION_REFUSED' ? ' Nothing listens there: is the server running, on that port?' : net === 'ERR_NAME_NOT_RESOLVED' ? ' The host name does not resolve.' : '';
      throw new ToolError('network', `browser: ${url.href} could not be loaded (${net}).${hint}`);
    }
    throw error;
  }
}

async function report(session: BrowserPageSession, page: DriverPage, config: BrowserConfig, signal: AbortSignal): Promise<ToolOutput> {
  const bytes = await raceSignal(page.screenshot(), signal);
  const image = imageFromBytes(bytes, 'screenshot', 'image/png');
  const lines = [`Title: ${(await page.title()) || '(none)'}`, `URL: ${page.url()}`, ...session.takeNews()];
  if (config.screenshotDir) {
    session.shots++;
    const file = path.join(config.screenshotDir, `browser-${new Date().toISOString().replace(/[:.]/g, '-')}-${session.shots}.png`);
    try {
      await mkdir(config.screenshotDir, { recursive: true });
      await writeFile(file, bytes);
      lines.push(`Screenshot saved: ${file}`);
    } catch (error) {
      lines.push(`(the screenshot could not be saved to ${file}: ${error instanceof Error ? error.message : String(error)})`);
    }
  }
  return { content: lines.join('\n'), images: [image], isError: false };
}
