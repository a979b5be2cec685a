// Starts the real VS Code our integration and e2e tests run in (code-server from
// the npm registry, prepared by scripts/prepare-vscode.sh) and Debian's Chromium
// to drive it. Facts behind these choices: shared/notes/vscode-offline-testing.md.
import { execFileSync, spawn, type ChildProcess } from 'node:child_process';
import { cpSync, existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { pathToFileURL } from 'node:url';
import { chromium, type Browser, type Page } from 'playwright-core';

export const REPO_ROOT = path.resolve(__dirname, '..', '..');
export const CODE_SERVER_VERSION = process.env.CODE_SERVER_VERSION ?? '4.100.3';
const CODE_SERVER_DIR = path.join(REPO_ROOT, '.vscode-test', `code-server-${CODE_SERVER_VERSION}`);
const ENTRY = path.join(CODE_SERVER_DIR, 'node_modules', 'code-server', 'out', 'node', 'entry.js');
/** The Node this code-server runs on (4.139 needs Node 24, prepared beside it); the tests' own Node for 4.100. */
const NODE = (() => {
  const file = path.join(CODE_SERVER_DIR, '.node');
  return existsSync(file) ? readFileSync(file, 'utf8').trim() : process.execPath;
})();
/**
 * Every workbench loads Turnstone from this VSIX instead of the repository: VS Code 1.139 ignores the
 * development path of the URL payload, so the e2e part on today's VS Code installs the package users get.
 */
const FORCED_VSIX = process.env.TURNSTONE_E2E_VSIX || undefined;
export const CHROMIUM = process.env.TURNSTONE_CHROMIUM ?? '/usr/bin/chromium';

export const CHROMIUM_ARGS = [
  '--no-sandbox',
  '--disable-gpu',
  '--disable-dev-shm-usage',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
  '--no-first-run',
  '--disable-quic',
];

export function assertPrepared(): void {
  if (!existsSync(path.join(CODE_SERVER_DIR, '.prepared')) || !existsSync(ENTRY)) {
    throw new Error(`code-server ${CODE_SERVER_VERSION} is not prepared. Run: npm run prepare:vscode`);
  }
  if (!existsSync(CHROMIUM)) {
    throw new Error(`Chromium not found at ${CHROMIUM}. Run: npm run prepare:vscode (as root it installs Debian's chromium)`);
  }
}

export interface CodeServerOptions {
  /** Folder opened in the workbench; copied from this template when `template` is set. */
  workspaceTemplate?: string;
  /** User settings (settings.json of the profile). */
  userSettings?: Record<string, unknown>;
  /** Environment for the server and so the extension host (e.g. ANTHROPIC_BASE_URL). */
  env?: Record<string, string>;
  /** Persistent folder for user data and the workspace (kept on stop); a fresh temp folder otherwise. */
  dataDir?: string;
  /** Fixed port (default: a free one). */
  port?: number;
  /** Leave Workspace Trust on (the folder opens untrusted, in Restricted Mode). Default off. */
  workspaceTrust?: boolean;
  /**
   * Install this VSIX into the run's extensions folder, as a user would, and load
   * Turnstone from there instead of from the repository in development mode.
   */
  vsix?: string;
  /** More VSIXs installed beside Turnstone (a test extension, e.g. a language model provider). */
  extraVsix?: string[];
  /**
   * Display language (`--locale`), e.g. `zh-cn`. VS Code resolves a locale to
   * English unless a language pack for it is registered, so a stand-in pack with
   * no translations of VS Code's own strings (they stay English) is registered
   * too: the extension's package.nls.<locale>.json and l10n bundle then apply.
   */
  locale?: string;
}

export interface CodeServer {
  port: number;
  workspace: string;
  userDataDir: string;
  extensionsDir: string;
  /** Workbench URL with our extension in development mode unless a VSIX was installed (and tests, when given). */
  url(opts?: { extensionTestsPath?: string }): string;
  logs(): string;
  stop(): Promise<void>;
}

/** What only a test run's workbench is set up with. */
function testRunSettings(dir: string): Record<string, unknown> {
  // Terminals' shells get a home of their own: the machine's ~/.bashrc is not part of any test. One running
  // `pyenv init` waited 60 s in every new interactive bash on a pyenv lock a killed rehash had left behind
  // (seen in CI and here), so shell integration came up after the tests' 60 s and three tests failed.
  const shellHome = path.join(dir, 'shell-home');
  mkdirSync(shellHome, { recursive: true });
  return {
    'terminal.integrated.env.linux': { HOME: shellHome },
    // The suites written around the modal dialog keep it; the product's default (panel) has its own tests, which
    // take this key out (a value of undefined leaves the setting unset).
    'turnstone.approvalDialog': 'modal',
  };
}

export async function startCodeServer(options: CodeServerOptions = {}): Promise<CodeServer> {
  assertPrepared();
  // Outside the repo so the workbench does not find our git repository in a parent folder.
  const base = path.join(os.tmpdir(), 'turnstone-vscode-runs');
  mkdirSync(base, { recursive: true });
  const dir = options.dataDir ?? mkdtempSync(path.join(base, 'run-'));
  mkdirSync(dir, { recursive: true });
  const userDataDir = path.join(dir, 'user-data');
  const extensionsDir = path.join(dir, 'extensions');
  const workspace = path.join(dir, 'workspace');
  mkdirSync(path.join(userDataDir, 'User'), { recursive: true });
  mkdirSync(extensionsDir, { recursive: true });
  if (existsSync(workspace)) {
    // A persistent dataDir keeps the user's workspace as they left it.
  } else if (options.workspaceTemplate) cpSync(options.workspaceTemplate, workspace, { recursive: true });
  else mkdirSync(workspace, { recursive: true });
  const settings = {
    'security.workspace.trust.enabled': options.workspaceTrust === true,
    'security.workspace.trust.startupPrompt': 'never',
    'workbench.startupEditor': 'none',
    'workbench.tips.enabled': false,
    'telemetry.telemetryLevel': 'off',
    'extensions.autoUpdate': false,
    'extensions.autoCheckUpdates': false,
    'update.mode': 'none',
    'chat.disableAIFeatures': true,
    'git.openRepositoryInParentFolders': 'never',
    'workbench.colorTheme': 'Default Dark Modern',
    // A persistent dataDir is a person's run (`npm start`): the product's defaults and their own shell setup.
    ...(options.dataDir ? {} : testRunSettings(dir)),
    ...options.userSettings,
  };
  const settingsFile = path.join(userDataDir, 'User', 'settings.json');
  if (!options.dataDir || !existsSync(settingsFile)) writeFileSync(settingsFile, JSON.stringify(settings, null, 2));
  if (options.locale) registerEmptyLanguagePack(userDataDir, options.locale);
  const config = path.join(dir, 'config.yaml');
  writeFileSync(config, 'auth: none\n');
  const vsix = options.vsix ?? FORCED_VSIX;
  if (options.vsix) installVsix(options.vsix, userDataDir, extensionsDir, dir);
  else if (FORCED_VSIX) copyInstalled(forcedVsixInstall(), extensionsDir);
  for (const extra of options.extraVsix ?? []) installVsix(extra, userDataDir, extensionsDir, dir);

  // Port 0 unless one is given: code-server binds a free one and says which. A port picked here and bound there
  // later could be taken meanwhile by the other e2e worker's server, whose /healthz would then answer for ours.
  const bindPort = options.port ?? 0;
  let output = '';
  const child: ChildProcess = spawn(
    NODE,
    [
      ENTRY,
      '--config', config,
      '--auth', 'none',
      '--bind-addr', `127.0.0.1:${bindPort}`,
      '--user-data-dir', userDataDir,
      '--extensions-dir', extensionsDir,
      '--disable-telemetry',
      '--disable-update-check',
      ...(options.workspaceTrust ? [] : ['--disable-workspace-trust']),
      '--disable-getting-started-override',
      ...(options.locale ? ['--locale', options.locale] : []),
      workspace,
    ],
    {
      cwd: dir,
      env: { ...process.env, ...options.env, VSCODE_CLI: undefined as unknown as string },
      stdio: ['ignore', 'pipe', 'pipe'],
      detached: true,
    },
  );
  child.stdout?.on('data', (d: Buffer) => (output += d.toString()));
  child.stderr?.on('data', (d: Buffer) => (output += d.toString()));

  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  const port = await listeningPort(child, () => output, 30_000);
  await waitForHttp(`http://127.0.0.1:${port}/healthz`, 30_000, () => output);

  return {
    port,
    workspace,
    userDataDir,
    extensionsDir,
    url({ extensionTestsPath } = {}) {
      const remote = (p: string) => `vscode-remote://127.0.0.1:${port}${p}`;
      const payload: [string, string][] = [
        ...(vsix ? [] : [['extensionDevelopmentPath', remote(REPO_ROOT)] as [string, string]]),
        ['skipWelcome', 'true'],
        ['skipReleaseNotes', 'true'],
      ];
      if (extensionTestsPath) payload.push(['extensionTestsPath', remote(extensionTestsPath)]);
      return `http://127.0.0.1:${port}/?folder=${encodeURIComponent(workspace)}&payload=${encodeURIComponent(JSON.stringify(payload))}`;
    },
    logs: () => output,
    async stop() {
      if (child.exitCode === null && child.pid) {
        try {
          process.kill(-child.pid, 'SIGTERM');
        } catch {
          /* already gone */
        }
        const timer = setTimeout(() => {
          try {
            if (child.pid) process.kill(-child.pid, 'SIGKILL');
          } catch {
            /* already gone */
          }
        }, 3000);
        await exited;
        clearTimeout(timer);
      }
      if (!options.dataDir && !process.env.TURNSTONE_KEEP_RUNS) rmSync(dir, { recursive: true, force: true });
    },
  };
}

function installVsix(vsix: string, userDataDir: string, extensionsDir: string, cwd: string): void {
  execFileSync(NODE, [ENTRY, '--user-data-dir', userDataDir, '--extensions-dir', extensionsDir, '--install-extension', vsix], { cwd, stdio: 'pipe', timeout: 120_000 });
}

let forcedInstall: string | undefined;
/**
 * The forced VSIX installed once per test process, by code-server's own CLI (what `--install-extension` does for
 * a user); each workbench gets a copy of that extensions folder instead of installing again (seconds each under load).
 * `test/e2e/vsix.test.ts` names its VSIX and so still installs it itself.
 */
function forcedVsixInstall(): string {
  if (forcedInstall && existsSync(forcedInstall)) return forcedInstall;
  const root = mkdtempSync(path.join(os.tmpdir(), 'turnstone-vsix-install-'));
  process.once('exit', () => rmSync(root, { recursive: true, force: true }));
  const extensions = path.join(root, 'extensions');
  installVsix(FORCED_VSIX!, path.join(root, 'user-data'), extensions, root);
  forcedInstall = extensions;
  return extensions;
}

/** A copy of an installed extensions folder; its index names each extension by absolute path, re-pointed here. */
function copyInstalled(from: string, to: string): void {
  cpSync(from, to, { recursive: true });
  const index = path.join(to, 'extensions.json');
  const entries = JSON.parse(readFileSync(index, 'utf8')) as { relativeLocation: string; location: Record<string, unknown> }[];
  for (const entry of entries) {
    const at = path.join(to, entry.relativeLocation);
    entry.location = { $mid: 1, fsPath: at, external: pathToFileURL(at).href, path: at, scheme: 'file' };
  }
  writeFileSync(index, JSON.stringify(entries));
}

/** What VS Code's language-pack cache (user-data/languagepacks.json) holds for an installed pack; the core file has no translations. */
function registerEmptyLanguagePack(userDataDir: string, locale: string): void {
  const core = path.join(userDataDir, 'empty-language-pack.i18n.json');
  writeFileSync(core, JSON.stringify({ version: '1.0.0', contents: {} }));
  const pack = { hash: `empty-${locale}`, extensions: [{ extensionIdentifier: { id: 'turnstone-tests.empty-language-pack' }, version: '0.0.0' }], translations: { vscode: core }, label: locale };
  writeFileSync(path.join(userDataDir, 'languagepacks.json'), JSON.stringify({ [locale]: pack }));
}

/** The port code-server says it listens on ("HTTP server listening on http://127.0.0.1:PORT/"); an exit first fails. */
async function listeningPort(child: ChildProcess, logs: () => string, timeoutMs: number): Promise<number> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const said = /HTTP server listening on http:\/\/127\.0\.0\.1:(\d+)/.exec(logs());
    if (said) return Number(said[1]);
    if (child.exitCode !== null || child.signalCode !== null) throw new Error(`code-server exited before it listened:\n${logs()}`);
    if (Date.now() > deadline) throw new Error(`code-server did not say where it listens:\n${logs()}`);
    await new Promise((r) => setTimeout(r, 50));
  }
}

async function waitForHttp(url: string, timeoutMs: number, logs: () => string): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    try {
      const res = await fetch(url);
      if (res.ok) return;
    } catch {
      /* not up yet */
    }
    if (Date.now() > deadline) throw new Error(`code-server did not come up at ${url}:\n${logs()}`);
    await new Promise((r) => setTimeout(r, 150));
  }
}

export async function launchChromium(): Promise<Browser> {
  return chromium.launch({ executablePath: CHROMIUM, args: CHROMIUM_ARGS, headless: true });
}

/** Waits until the workbench shell is on screen. */
export async function waitForWorkbench(page: Page, timeoutMs = 60_000): Promise<void> {
  await page.waitForSelector('.monaco-workbench', { timeout: timeoutMs });
}
