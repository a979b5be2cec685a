// Issue 45: the browser tool in the headless CLI (node dist/cli.js against the scripted
// Anthropic mock, puppeteer-core from dist/browser.js) on a small local web app: an allowed
// origin opens and a click changes the page; screenshots are saved beside the session file;
// another origin needs approval (denied: nobody can answer); the browser is gone when the
// CLI ends, also after Ctrl+C. Needs `node esbuild.mjs` first; skipped without a browser.
import * as assert from 'node:assert/strict';
import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { findBrowser } from '../../../src/tools/browser/find-browser';
import { processRunning as isAlive } from '../../../src/tools/os/process-state';
import { startAppServer, type AppServer } from '../../fixtures/browser/app-server';
import { MockAnthropicServer, textReply, toolUseReply } from '../../fixtures/mock-anthropic';
import { waitFor } from '../../fixtures/mcp-servers';
import { runCli } from '../../support/run-cli';

/** Browser processes running now with a profile under `tmp` (the CLI's TMPDIR: this test's own). */
function browserProcesses(tmp: string): number[] {
  const pids: number[] = [];
  for (const name of readdirSync('/proc')) {
    if (!/^\d+$/.test(name)) continue;
    try {
      if (readFileSync(`/proc/${name}/cmdline`, 'utf8').includes(`${tmp}/turnstone-browser-`) && isAlive(Number(name))) pids.push(Number(name));
    } catch {
      // Gone meanwhile.
    }
  }
  return pids;
}

(findBrowser(undefined) ? describe : describe.skip)('CLI: browser (issue 45, node dist/cli.js against the mock API)', function () {
  this.timeout(120_000);
  let server: MockAnthropicServer;
  let app: AppServer;
  let other: AppServer;
  let ws: string;
  let env: Record<string, string>;
  let tmp: string;
  const profiles = () => readdirSync(tmp).filter((n) => n.startsWith('turnstone-browser-'));

  beforeEach(async () => {
    server = await MockAnthropicServer.start();
    other = await startAppServer();
    app = await startAppServer(other.origin);
    ws = mkdtempSync(path.join(os.tmpdir(), 'turnstone-cli-browser-'));
    // The CLI's own temporary folder: its browser's profile (and so its processes) are told apart from
    // those of other test files running beside this one.
    tmp = path.join(ws, 'tmp');
    mkdirSync(tmp);
    env = { ANTHROPIC_BASE_URL: server.url, ANTHROPIC_API_KEY: 'sk-test-cli', TMPDIR: tmp };
  });
  afterEach(async () => {
    await server.close();
    await app.close();
    await other.close();
    rmSync(ws, { recursive: true, force: true });
  });

  const leftOver = () => browserProcesses(tmp);
  const profilesLeft = () => profiles();

  it('an allowed origin opens and a click changes the page; screenshots beside the session file; another origin needs approval; no browser after the run', async () => {
    server.enqueue(
      toolUseReply([{ id: 'tu_open', name: 'browser', input: { action: 'open', url: app.url('/') } }]),
      toolUseReply([{ id: 'tu_click', name: 'browser', input: { action: 'click', selector: '#change' } }]),
      toolUseReply([{ id: 'tu_other', name: 'browser', input: { action: 'open', url: other.url('/') } }]),
      textReply('looked at it'),
    );
    const session = path.join(ws, 's', 'run.jsonl');
    const run = await runCli(['-p', 'check the app', '--cwd', ws, '--session', session, '--allow', `browser(origin:${app.origin})`, '--output-format', 'json'], { env });
    assert.equal(run.code, 0, run.stderr);
    const tools = (server.bodies[0]!.tools as { name: string }[]).map((t) => t.name);
    assert.ok(tools.includes('browser'), 'the model is offered the browser');
    const results = JSON.parse(run.stdout).tool_results as { content: string; is_error: boolean }[];
    assert.equal(results[0]!.is_error, false, results[0]!.content);
    assert.match(results[0]!.content, /^Title: Test app$/m);
    assert.match(results[1]!.content, /^Title: Clicked$/m);
    assert.equal(results[2]!.is_error, true);
    assert.match(results[2]!.content, /needs approval/);
    assert.ok(!other.hits.includes('/'), 'the second origin was never asked');
    // The screenshot went to the model as an image, and to a file beside the session.
    const sent = JSON.stringify(server.bodies[1]!.messages);
    assert.match(sent, /"type":"image","source":\{"type":"base64","media_type":"image\/png"/);
    const shots = path.join(ws, 's', 'screenshots', 'run');
    assert.ok(existsSync(shots), `no ${shots}`);
    assert.equal(readdirSync(shots).filter((f) => f.endsWith('.png')).length, 2);
    assert.match(results[0]!.content, new RegExp(`Screenshot saved: ${shots.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}`));
    await waitFor(() => leftOver().length === 0, 'no browser process after the CLI ended');
    assert.deepEqual(profilesLeft(), [], 'the temporary profile is removed');
  });

  it('Ctrl+C while a page loads ends the CLI and its browser', async () => {
    server.enqueue(toolUseReply([{ id: 'tu_hang', name: 'browser', input: { action: 'open', url: app.url('/hang') } }]), textReply('never'));
    const run = await runCli(['-p', 'open it', '--cwd', ws, '--allow', `browser(origin:${app.origin})`, '--output-format', 'json'], {
      env,
      onSpawn: (child) =>
        void waitFor(() => app.hits.includes('/hang') && leftOver().length > 0, 'the page to be asked for', 60_000).then(() => child.kill('SIGINT')),
    });
    assert.equal(run.code, 130, run.stderr);
    await waitFor(() => leftOver().length === 0, 'no browser process after Ctrl+C');
    assert.deepEqual(profilesLeft(), [], 'the temporary profile is removed');
  });
});
