// Runs the integration suites inside the extension host of a real VS Code
// (code-server 1.100.3), connected to by Debian's Chromium so the host starts:
// test/integration in a trusted folder, test/integration-restricted in an
// untrusted one (Restricted Mode). Prints the host's mocha output and one
// `TURNSTONE_RESULT {passed, failed}` line summed over both.
import { build } from 'esbuild';
import { readdirSync, rmSync } from 'node:fs';
import * as path from 'node:path';
import { format } from 'node:util';
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

async function bundleTests(suite: Suite): Promise<string> {
  const out = path.join(OUT, suite.name);
  rmSync(out, { recursive: true, force: true });
  const dir = path.join(REPO_ROOT, suite.dir);
  const entries = [path.join(REPO_ROOT, 'test', 'integration', 'index.ts'), ...readdirSync(dir).filter((f) => f.endsWith('.test.ts')).map((f) => path.join(dir, f))];
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
  return path.join(out, 'index.js');
}

/** The offline workbench logs its failed marketplace lookups and socket chatter; hide them unless asked. */
function isWorkbenchNoise(line: string): boolean {
  return /ENOTFOUND|^\s+at .*\.js:\d+|^(Resolving connection token|Resolved connection token|Creating a socket|Updating additional builtin|\[Service Worker\]|ChatSessionStore)/.test(line);
}

async function runSuite(suite: Suite): Promise<{ code: number; passed: number; failed: number }> {
  const testsEntry = await bundleTests(suite);
  console.log(`\n[${suite.name}] ${suite.dir} in ${suite.trusted ? 'a trusted' : 'an untrusted (Restricted Mode)'} folder`);
  const server = await startCodeServer({
    workspaceTemplate: path.join(REPO_ROOT, 'test', 'fixtures', 'workspace'),
    // A fake key: the tests talk to the local mock API only.
    env: { ANTHROPIC_API_KEY: 'sk-ant-integration-test-key', ANTHROPIC_BASE_URL: '' },
    workspaceTrust: !suite.trusted,
  });
  const browser = await launchChromium();
  let passed = 0;
  let failed = 0;
  try {
    const page = await browser.newPage({ viewport: { width: 1400, height: 900 } });
    let resolveExit!: (code: number) => void;
    const exitCode = new Promise<number>((r) => (resolveExit = r));
    await page.exposeFunction('codeAutomationExit', (code: number) => resolveExit(code));
    await page.exposeFunction('codeAutomationLog', (_type: string, args: unknown[]) => {
      const line = format(...(Array.isArray(args) ? args : [args]));
      for (const l of line.split('\n')) {
        const counts = /^\s*(\d+) (passing|failing)/.exec(l);
        if (counts) {
          if (counts[2] === 'passing') passed = Number(counts[1]);
          else failed = Number(counts[1]);
        }
        if (!verbose && isWorkbenchNoise(l)) continue;
        process.stdout.write(`${l}\n`);
      }
    });
    await page.goto(server.url({ extensionTestsPath: testsEntry }));
    await waitForWorkbench(page);
    const timer = new Promise<number>((r) => setTimeout(() => r(-1), TIMEOUT_MS));
    const code = await Promise.race([exitCode, timer]);
    if (code === -1) {
      console.error(`integration tests did not finish within ${TIMEOUT_MS} ms`);
      failed++;
    } else if (code !== 0 && failed === 0) {
      failed = 1; // the run failed before any test could report (e.g. a load error)
    }
    return { code: code === 0 ? 0 : 1, passed, failed };
  } finally {
    await browser.close();
    await server.stop();
    if (process.env.TURNSTONE_SHOW_SERVER_LOGS) console.log(server.logs());
  }
}

async function main(): Promise<number> {
  let passed = 0;
  let failed = 0;
  let code = 0;
  for (const suite of SUITES) {
    const r = await runSuite(suite).catch((error: unknown) => {
      console.error(`[${suite.name}] ${error instanceof Error ? (error.stack ?? error.message) : String(error)}`);
      return { code: 1, passed: 0, failed: 1 };
    });
    passed += r.passed;
    failed += r.failed;
    code ||= r.code;
  }
  console.log(`TURNSTONE_RESULT ${JSON.stringify({ passed, failed })}`);
  return code;
}

main().then(
  (code) => process.exit(code),
  (error) => {
    console.error(error instanceof Error ? error.stack : error);
    process.exit(1);
  },
);
