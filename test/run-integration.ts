// Runs the integration suites inside the extension host of a real VS Code
// (code-server 1.100.3), connected to by Debian's Chromium so the host starts:
// test/integration in a trusted folder, test/integration-restricted in an
// untrusted one (Restricted Mode). Prints the host's mocha output and one
// `TURNSTONE_RESULT {passed, failed, skipped, skippedTitles}` line summed over
// both. The counts come from a file the host writes (test/integration/index.ts),
// never from scraped log lines: a suite that wrote none has failed.
import { build } from 'esbuild';
import { copyFileSync, existsSync, mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import * as path from 'node:path';
import { format } from 'node:util';
import type { RunResult } from './support/result-reporter.cjs';
import { launchChromium, REPO_ROOT, startCodeServer, waitForWorkbench } from './support/code-server';

const OUT = path.join(REPO_ROOT, '.vscode-test', 'integration-build');
const verbose = Boolean(process.env.TURNSTONE_VERBOSE);
const TIMEOUT_MS = Number(process.env.TURNSTONE_INTEGRATION_TIMEOUT_MS ?? 15 * 60_000);
// The extension host inherits this: its reliability scenarios land beside the mocha ones.
process.env.TURNSTONE_RELIABILITY_LOG ??= path.join(REPO_ROOT, 'test-results', 'reliability.jsonl');

interface Suite {
  name: string;
  dir: string;
  trusted: boolean;
}

const SUITES: Suite[] = [
  { name: 'integration', dir: 'test/integration', trusted: true },
  { name: 'restricted', dir: 'test/integration-restricted', trusted: false },
];

/** TURNSTONE_TEST_FILES (file names, comma-separated; `npm run test:file`) narrows the run to those files. */
const ONLY_FILES = process.env.TURNSTONE_TEST_FILES?.split(',').filter(Boolean);

function suiteFiles(suite: Suite): string[] {
  const all = readdirSync(path.join(REPO_ROOT, suite.dir)).filter((f) => f.endsWith('.test.ts'));
  return ONLY_FILES ? all.filter((f) => ONLY_FILES.includes(f)) : all;
}

async function bundleTests(suite: Suite): Promise<string> {
  const out = path.join(OUT, suite.name);
  rmSync(out, { recursive: true, force: true });
  const dir = path.join(REPO_ROOT, suite.dir);
  const entries = [path.join(REPO_ROOT, 'test', 'integration', 'index.ts'), ...suiteFiles(suite).map((f) => path.join(dir, f))];
  await build({
    entryPoints: entries,
    outdir: out,
    // Flat: index.js finds the suite's *.test.js beside itself.
    entryNames: '[name]',
    bundle: true,
    platform: 'node',
    format: 'cjs',
    target: 'node20',
    sourcemap: 'inline',
    // mocha is resolved from the repo's node_modules at run time; vscode is the host's.
    external: ['vscode', 'mocha'],
    logLevel: 'warning',
  });
  // Host code loads these bundles late, from beside itself (load-core.ts, load-panel-support.ts):
  // the tests' bundle needs the built ones beside it too.
  for (const lazy of ['core.js', 'panel-support.js']) copyFileSync(path.join(REPO_ROOT, 'dist', lazy), path.join(out, lazy));
  return path.join(out, 'index.js');
}

/** The offline workbench logs its failed marketplace lookups and socket chatter; hide them unless asked. */
function isWorkbenchNoise(line: string): boolean {
  return /ENOTFOUND|^\s+at .*\.js:\d+|^(Resolving connection token|Resolved connection token|Creating a socket|Updating additional builtin|\[Service Worker\]|ChatSessionStore)/.test(line);
}

const failedRun = (why: string): RunResult => ({ passed: 0, failed: 1, skipped: 0, skippedTitles: [], failedTitles: [why] });

function readResult(file: string): RunResult | undefined {
  if (!existsSync(file)) return undefined;
  const r = JSON.parse(readFileSync(file, 'utf8')) as RunResult;
  return Number.isInteger(r.passed) && Number.isInteger(r.failed) && Number.isInteger(r.skipped) ? r : undefined;
}

async function runSuite(suite: Suite): Promise<RunResult & { code: number }> {
  const testsEntry = await bundleTests(suite);
  const resultDir = mkdtempSync(path.join(tmpdir(), 'turnstone-result-'));
  const resultFile = path.join(resultDir, 'result.json');
  console.log(`\n[${suite.name}] ${suite.dir} in ${suite.trusted ? 'a trusted' : 'an untrusted (Restricted Mode)'} folder`);
  const server = await startCodeServer({
    workspaceTemplate: path.join(REPO_ROOT, 'test', 'fixtures', 'workspace'),
    // A fake key: the tests talk to the local mock API only.
    env: { ANTHROPIC_API_KEY: 'sk-ant-integration-test-key', ANTHROPIC_BASE_URL: '', TURNSTONE_RESULT_FILE: resultFile },
    workspaceTrust: !suite.trusted,
    // VS Code's own git extension off: the tests make and delete repositories in the workspace, and the extension's
    // commands still running on one just deleted (check-ignore writing to a git that exited) threw EPIPE in the
    // extension host, which mocha there counts against whichever test is running (seen once on a fresh clone).
    // Turnstone does its own git work and never uses that extension.
    userSettings: { 'git.enabled': false },
  });
  const browser = await launchChromium();
  try {
    const page = await browser.newPage({ viewport: { width: 1400, height: 900 } });
    let resolveExit!: (code: number) => void;
    const exitCode = new Promise<number>((r) => (resolveExit = r));
    await page.exposeFunction('codeAutomationExit', (code: number) => resolveExit(code));
    await page.exposeFunction('codeAutomationLog', (_type: string, args: unknown[]) => {
      const line = format(...(Array.isArray(args) ? args : [args]));
      for (const l of line.split('\n')) {
        if (!verbose && isWorkbenchNoise(l)) continue;
        process.stdout.write(`${l}\n`);
      }
    });
    await page.goto(server.url({ extensionTestsPath: testsEntry }));
    await waitForWorkbench(page);
    const timer = new Promise<number>((r) => setTimeout(() => r(-1), TIMEOUT_MS));
    const code = await Promise.race([exitCode, timer]);
    if (code === -1) {
      console.error(`[${suite.name}] did not finish within ${TIMEOUT_MS} ms`);
      return { ...failedRun(`${suite.name}: did not finish`), code: 1 };
    }
    const result = readResult(resultFile);
    if (!result) {
      console.error(`[${suite.name}] wrote no result (exit ${code}): the suite failed to load or the host died`);
      return { ...failedRun(`${suite.name}: wrote no result`), code: 1 };
    }
    // A non-zero exit with no failing test (e.g. the runner itself threw) is still a failure.
    if (code !== 0 && result.failed === 0) {
      result.failed = 1;
      result.failedTitles.push(`${suite.name}: exit ${code} without a failing test`);
    }
    return { ...result, code: code === 0 ? 0 : 1 };
  } finally {
    rmSync(resultDir, { recursive: true, force: true });
    await browser.close();
    await server.stop();
    if (process.env.TURNSTONE_SHOW_SERVER_LOGS) console.log(server.logs());
  }
}

async function main(): Promise<number> {
  const total: RunResult = { passed: 0, failed: 0, skipped: 0, skippedTitles: [], failedTitles: [] };
  let code = 0;
  for (const suite of SUITES) {
    // A suite none of the named files is in does not start its VS Code.
    if (ONLY_FILES && suiteFiles(suite).length === 0) continue;
    const r = await runSuite(suite).catch((error: unknown) => {
      console.error(`[${suite.name}] ${error instanceof Error ? (error.stack ?? error.message) : String(error)}`);
      return { ...failedRun(`${suite.name}: ${error instanceof Error ? error.message : String(error)}`), code: 1 };
    });
    total.passed += r.passed;
    total.failed += r.failed;
    total.skipped += r.skipped;
    total.skippedTitles.push(...r.skippedTitles.map((t) => `[${suite.name}] ${t}`));
    total.failedTitles.push(...r.failedTitles.map((t) => `[${suite.name}] ${t}`));
    code ||= r.code;
  }
  console.log(`TURNSTONE_RESULT ${JSON.stringify(total)}`);
  return code;
}

main().then(
  (code) => process.exit(code),
  (error) => {
    console.error(error instanceof Error ? error.stack : error);
    process.exit(1);
  },
);
