// `npm start`: opens a real VS Code with Turnstone loaded in development mode on
// a sample workspace. Desktop `code` when it is on the PATH; otherwise code-server
// on 127.0.0.1, printing the URL to open. ANTHROPIC_API_KEY / ANTHROPIC_BASE_URL
// from this environment reach the extension host.
import { spawn, spawnSync } from 'node:child_process';
import { cpSync, existsSync, mkdirSync } from 'node:fs';
import * as path from 'node:path';
import { REPO_ROOT, startCodeServer } from '../test/support/code-server';

const dataDir = path.join(REPO_ROOT, '.turnstone-dev');
const template = path.join(REPO_ROOT, 'test', 'fixtures', 'workspace');

function hasDesktopCode(): boolean {
  if (process.env.TURNSTONE_START_MODE === 'code-server') return false;
  return spawnSync('code', ['--version'], { stdio: 'ignore' }).status === 0;
}

async function main(): Promise<void> {
  if (!process.env.ANTHROPIC_API_KEY && !process.env.OPENAI_API_KEY) {
    console.log('Note: no ANTHROPIC_API_KEY in the environment. Set one, or run "Turnstone: Set API Key" in VS Code.');
  }
  if (hasDesktopCode()) {
    const workspace = path.join(dataDir, 'workspace');
    if (!existsSync(workspace)) {
      mkdirSync(dataDir, { recursive: true });
      cpSync(template, workspace, { recursive: true });
    }
    console.log(`Opening desktop VS Code on ${workspace} with Turnstone in development mode…`);
    spawn('code', ['--new-window', `--extensionDevelopmentPath=${REPO_ROOT}`, workspace], { stdio: 'inherit', detached: true }).unref();
    return;
  }
  const prepare = spawnSync('bash', [path.join(REPO_ROOT, 'scripts', 'prepare-vscode.sh')], { stdio: 'inherit' });
  if (prepare.status !== 0) process.exit(prepare.status ?? 1);
  const port = Number(process.env.TURNSTONE_PORT ?? 8080);
  const server = await startCodeServer({
    dataDir,
    port,
    workspaceTemplate: template,
    userSettings: { 'workbench.colorTheme': 'Default Dark Modern' },
  });
  console.log('\nTurnstone is running in VS Code (code-server). Open this URL in a browser:\n');
  console.log(`  ${server.url()}\n`);
  console.log('Press Ctrl+C to stop.');
  const stop = async () => {
    await server.stop();
    process.exit(0);
  };
  process.on('SIGINT', stop);
  process.on('SIGTERM', stop);
}

main().catch((error) => {
  console.error(error instanceof Error ? error.message : error);
  process.exit(1);
});
