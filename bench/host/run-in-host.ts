// Runs a bench script inside the real VS Code extension host (code-server +
// Chromium, as the integration tests do): the script is bundled, loaded as
// extensionTestsPath, and reports one `TURNSTONE_BENCH {json}` console line.
import { build } from 'esbuild';
import * as path from 'node:path';
import { launchChromium, REPO_ROOT, startCodeServer, waitForWorkbench } from '../../test/support/code-server';

const OUT = path.join(REPO_ROOT, '.vscode-test', 'bench-host');

export async function runInHost<T>(entry: string, options: { env?: Record<string, string>; timeoutMs?: number } = {}): Promise<T> {
  const outfile = path.join(OUT, `${path.basename(entry, '.ts')}.js`);
  await build({ entryPoints: [entry], outfile, bundle: true, platform: 'node', format: 'cjs', target: 'node20', external: ['vscode'], logLevel: 'warning' });
  const server = await startCodeServer({
    workspaceTemplate: path.join(REPO_ROOT, 'test', 'fixtures', 'workspace'),
    env: { ANTHROPIC_API_KEY: 'sk-ant-bench', ...options.env },
  });
  const browser = await launchChromium();
  try {
    const page = await browser.newPage();
    let figures: T | undefined;
    let failure: string | undefined;
    let done!: () => void;
    const finished = new Promise<void>((r) => (done = r));
    await page.exposeFunction('codeAutomationLog', (_t: string, args: unknown[]) => {
      const line = (Array.isArray(args) ? args : [args]).map(String).join(' ');
      const m = /TURNSTONE_BENCH (\{.*\})/.exec(line);
      if (m) figures = JSON.parse(m[1]!) as T;
      const f = /TURNSTONE_BENCH_FAILED (.*)/s.exec(line);
      if (f) failure = f[1];
    });
    await page.exposeFunction('codeAutomationExit', () => done());
    await page.goto(server.url({ extensionTestsPath: outfile }));
    await waitForWorkbench(page);
    const timeoutMs = options.timeoutMs ?? 600_000;
    let timer: NodeJS.Timeout | undefined;
    await Promise.race([finished, new Promise((r) => (timer = setTimeout(r, timeoutMs)))]);
    clearTimeout(timer);
    if (failure) throw new Error(`the extension host bench failed: ${failure}`);
    if (!figures) throw new Error(`the extension host reported no figures within ${timeoutMs / 1000} s`);
    return figures;
  } finally {
    await browser.close();
    await server.stop();
  }
}
