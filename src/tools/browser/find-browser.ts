// Which Chromium-family browser the browser tool drives: the setting
// turnstone.browser.executablePath, else the first one found on the usual
// paths (Chromium, Chrome, Edge) for this platform. Nothing is downloaded.
import { accessSync, constants, statSync } from 'node:fs';
import * as path from 'node:path';

const LINUX_NAMES = ['chromium', 'chromium-browser', 'google-chrome', 'google-chrome-stable', 'microsoft-edge', 'microsoft-edge-stable'];
const LINUX_FIXED = ['/usr/bin/chromium', '/usr/bin/chromium-browser', '/snap/bin/chromium', '/usr/bin/google-chrome', '/usr/bin/google-chrome-stable', '/opt/google/chrome/chrome', '/usr/bin/microsoft-edge', '/opt/microsoft/msedge/msedge'];
const MAC_APPS = [
  'Chromium.app/Contents/MacOS/Chromium',
  'Google Chrome.app/Contents/MacOS/Google Chrome',
  'Microsoft Edge.app/Contents/MacOS/Microsoft Edge',
];
const WINDOWS_APPS = ['Chromium\\Application\\chrome.exe', 'Google\\Chrome\\Application\\chrome.exe', 'Microsoft\\Edge\\Application\\msedge.exe'];

/** The one line said when none is found. */
export const NO_BROWSER_NOTE =
  'browser tool unavailable: no Chromium, Google Chrome or Microsoft Edge found; install one (e.g. `apt install chromium`, or Chrome from google.com/chrome) or set turnstone.browser.executablePath';

function runnable(file: string): boolean {
  try {
    if (!statSync(file).isFile()) return false;
    if (process.platform !== 'win32') accessSync(file, constants.X_OK);
    return true;
  } catch {
    return false;
  }
}

/** The places looked at, in order (exported for the tests). */
export function browserCandidates(platform: NodeJS.Platform = process.platform, env: NodeJS.ProcessEnv = process.env): string[] {
  if (platform === 'darwin') {
    const home = env.HOME;
    return [...MAC_APPS.map((a) => path.posix.join('/Applications', a)), ...(home ? MAC_APPS.map((a) => path.posix.join(home, 'Applications', a)) : [])];
  }
  if (platform === 'win32') {
    const roots = [env.LOCALAPPDATA, env.PROGRAMFILES, env['PROGRAMFILES(X86)']].filter((r): r is string => !!r);
    return roots.flatMap((r) => WINDOWS_APPS.map((a) => path.win32.join(r, a)));
  }
  // PATH's absolute entries first (a relative one could be the workspace's), then the fixed places.
  const dirs = (env.PATH ?? '').split(path.delimiter).filter((d) => path.isAbsolute(d));
  return [...dirs.flatMap((d) => LINUX_NAMES.map((n) => path.join(d, n))), ...LINUX_FIXED];
}

const found = new Map<string, string | undefined>();

/** The browser to drive, or undefined when none is installed (the setting, when given, must point at one). */
export function findBrowser(configured: string | undefined): string | undefined {
  const key = configured ?? '';
  if (found.has(key)) return found.get(key);
  const result = configured ? (runnable(configured) ? configured : undefined) : browserCandidates().find(runnable);
  found.set(key, result);
  return result;
}
