// Runs test/integration/*.test.ts inside the extension host of a real VS Code
// (code-server 1.100.3), connected to by Debian's Chromium so the host starts.
// Prints the host's mocha output and a `TURNSTONE_RESULT {passed, failed}` line.
import { build } from 'esbuild';
import { readdirSync, rmSync } from 'node:fs';
import * as path from 'node:path';
import { format } from 'node:util';
import { launchChromium, REPO_ROOT, startCodeServer, waitForWorkbench } from './support/code-server';

const OUT = path.join(REPO_ROOT, '.vscode-test', 'integration-build');
const verbose = Boolean(process.env.TURNSTONE_VERBOSE);
const TIMEOUT_MS = Number(process.env.TURNSTONE_INTEGRATION_TIMEOUT_MS ?? 15 * 60_000);

async function bundleTests(): Promise<string> {
  rmSync(OUT, { recursive: true, force: true });
  const dir = path.join(REPO_ROOT, 'test', 'integration');
  const entries = readdirSync(dir).filter((f) => f.endsWith('.ts')).map((f) => path.join(dir, f));
  await build({
    entryPoints: entries,
    outdir: OUT,
    bundle: true,
    platform: 'node',
    format: 'cjs',
    target: 'node20',
    sourcemap: 'inline',
    // mocha is resolved from the repo's node_modules at run time; vscode is the host's.
    external: ['vscode', 'mocha'],
    logLevel: 'warning',
  });
  return path.join(OUT, 'index.js');
}

/** The offline workbench logs its failed marketplace lookups and socket chatter; hide them unless asked. */
function isWorkbenchNoise(line: string): boolean {
  return /ENOTFOUND|^\s+at .*\.js:\d+|^(Resolving connection token|Resolved connection token|Creating a socket|Updating additional builtin|\[Service Worker\]|ChatSessionStore)/.test(line);
}

async function main(): Promise<number> {
  const testsEntry = await bundleTests();
  const server = await startCodeServer({
    workspaceTemplate: path.join(REPO_ROOT, 'test', 'fixtures', 'workspace'),
    // A fake key: the tests talk to the local mock API only.
    env: { ANTHROPIC_API_KEY: 'sk-ant-integration-test-key', ANTHROPIC_BASE_URL: '' },
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
    return code === 0 ? 0 : 1;
  } finally {
    await browser.close();
    await server.stop();
    if (process.env.TURNSTONE_SHOW_SERVER_LOGS) console.log(server.logs());
    console.log(`TURNSTONE_RESULT ${JSON.stringify({ passed, failed })}`);
  }
}

main().then(
  (code) => process.exit(code),
  (error) => {
    console.error(error instanceof Error ? error.stack : error);
    process.exit(1);
  },
);
