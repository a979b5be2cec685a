// Alternative runner for desktop VS Code through @vscode/test-electron, for
// machines that can download VS Code (it cannot here: the update server is
// unreachable, so CI uses test/run-integration.ts with code-server instead).
import { runTests } from '@vscode/test-electron';
import { build } from 'esbuild';
import { readdirSync } from 'node:fs';
import * as path from 'node:path';

const root = path.resolve(__dirname, '..');

async function main(): Promise<void> {
  const out = path.join(root, '.vscode-test', 'integration-build');
  const dir = path.join(root, 'test', 'integration');
  await build({
    entryPoints: readdirSync(dir).filter((f) => f.endsWith('.ts')).map((f) => path.join(dir, f)),
    outdir: out,
    bundle: true,
    platform: 'node',
    format: 'cjs',
    target: 'node20',
    external: ['vscode', 'mocha'],
  });
  await runTests({
    version: process.env.VSCODE_VERSION ?? '1.100.3',
    extensionDevelopmentPath: root,
    extensionTestsPath: path.join(out, 'index.js'),
    launchArgs: [path.join(root, 'test', 'fixtures', 'workspace'), '--disable-extensions', '--disable-workspace-trust'],
  });
}

main().catch((error) => {
  console.error('desktop VS Code tests failed:', error instanceof Error ? error.message : error);
  process.exit(1);
});
