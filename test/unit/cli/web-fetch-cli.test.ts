// Issue 28: web_fetch in the headless CLI (node dist/cli.js against the
// scripted Anthropic mock), fetching pages from a local server: the setting
// comes from --settings, the rule from --allow, and without a rule the
// non-interactive CLI denies the fetch.
import * as assert from 'node:assert/strict';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import * as http from 'node:http';
import { type AddressInfo } from 'node:net';
import * as os from 'node:os';
import * as path from 'node:path';
import { MockAnthropicServer, textReply, toolUseReply } from '../../fixtures/mock-anthropic';
import { startPageServer, type PageServer } from '../../fixtures/web/server';
import { runCli } from '../../support/run-cli';

describe('CLI: web_fetch (issue 28, node dist/cli.js against the mock API)', function () {
  this.timeout(60_000);
  let server: MockAnthropicServer;
  let pages: PageServer;
  let ws: string;
  let env: Record<string, string>;
  let settings: string;

  beforeEach(async () => {
    server = await MockAnthropicServer.start();
    pages = await startPageServer();
    ws = mkdtempSync(path.join(os.tmpdir(), 'turnstone-cli-fetch-'));
    settings = path.join(ws, 'settings.json');
    writeFileSync(settings, JSON.stringify({ 'turnstone.webFetch.allowPrivateNetwork': true }));
    env = { ANTHROPIC_BASE_URL: server.url, ANTHROPIC_API_KEY: 'sk-test-cli' };
  });
  afterEach(async () => {
    await server.close();
    await pages.close();
    rmSync(ws, { recursive: true, force: true });
  });

  const fetchTurn = (url: string) => server.enqueue(toolUseReply([{ id: 'tu_f', name: 'web_fetch', input: { url } }]), textReply('read it'));

  it('28.fetch: --allow web_fetch(domain:127.0.0.1) with allowPrivateNetwork in --settings: the page comes back as Markdown', async () => {
    fetchTurn(pages.url('/docs'));
    const run = await runCli(['-p', 'read the docs', '--cwd', ws, '--settings', settings, '--allow', 'web_fetch(domain:127.0.0.1)', '--output-format', 'json'], { env });
    assert.equal(run.code, 0, run.stderr);
    const result = JSON.parse(run.stdout);
    assert.equal(result.tool_results[0].is_error, false, result.tool_results[0].content);
    assert.match(result.tool_results[0].content, /^URL: http:\/\/127\.0\.0\.1:\d+\/docs\nTitle: Streams/);
    assert.match(result.tool_results[0].content, /A stream is an abstract interface/);
    assert.match(String(pages.headers.get('/docs')?.['user-agent']), /^Turnstone\/\d+\.\d+\.\d+ /, 'the User-Agent carries the version');
    const tools = (server.bodies[0]!.tools as { name: string }[]).map((t) => t.name);
    assert.ok(tools.includes('web_fetch'), 'the model is offered web_fetch');
  });

  it('28.fetch: without allowPrivateNetwork the CLI refuses the local address, and nothing reaches the server', async () => {
    fetchTurn(pages.url('/docs'));
    const run = await runCli(['-p', 'read the docs', '--cwd', ws, '--allow', 'web_fetch(domain:127.0.0.1)', '--output-format', 'json'], { env });
    assert.equal(run.code, 0, run.stderr);
    const result = JSON.parse(run.stdout);
    assert.equal(result.tool_results[0].is_error, true);
    assert.match(result.tool_results[0].content, /Refused to connect to 127\.0\.0\.1: it is a loopback address/);
    assert.deepEqual(pages.hits, []);
  });

  it('28.fetch: without a rule the non-interactive CLI denies the fetch (kind fetch asks), and a deny rule wins over --permission-mode bypassPermissions', async () => {
    fetchTurn(pages.url('/docs'));
    const asked = await runCli(['-p', 'read the docs', '--cwd', ws, '--settings', settings, '--output-format', 'json'], { env });
    const result = JSON.parse(asked.stdout);
    assert.equal(result.tool_results[0].is_error, true);
    assert.match(result.tool_results[0].content, /needs approval/);
    fetchTurn(pages.url('/docs'));
    const denied = await runCli(['-p', 'read the docs', '--cwd', ws, '--settings', settings, '--permission-mode', 'bypassPermissions', '--deny', 'web_fetch(domain:127.0.0.1)', '--output-format', 'json'], { env });
    assert.match(JSON.parse(denied.stdout).tool_results[0].content, /denied by rule web_fetch\(domain:127\.0\.0\.1\)/);
    assert.deepEqual(pages.hits, []);
  });

  it('issue 42 item 13: Ctrl+C while web_fetch converts a 9 MB page ends the CLI promptly (it took 114 s)', async () => {
    // Nested blocks without <main>: Readability's worst kind of page (512 KB of it took 3–4 s).
    const block = `${'<div>'.repeat(16)}<p>A paragraph of prose, long enough for a reader view to score it as content.</p>${'</div>'.repeat(16)}\n`;
    const huge = `<!doctype html><html><head><title>Huge</title></head><body>${block.repeat(Math.ceil((9 * 1024 * 1024) / block.length))}</body></html>`;
    // web_fetch closes its connection once it has the whole page: from then on it converts.
    let received!: () => void;
    const arrived = new Promise<void>((resolve) => (received = resolve));
    const site = http.createServer((req, res) => {
      req.socket.once('close', received);
      res.writeHead(200, { 'content-type': 'text/html; charset=utf-8' }).end(huge);
    });
    await new Promise<void>((resolve) => site.listen(0, '127.0.0.1', resolve));
    try {
      fetchTurn(`http://127.0.0.1:${(site.address() as AddressInfo).port}/huge`);
      let interrupted = 0;
      const run = await runCli(['-p', 'read it', '--cwd', ws, '--settings', settings, '--allow', 'web_fetch(domain:127.0.0.1)', '--output-format', 'json'], {
        env,
        onSpawn: (child) =>
          void arrived.then(() => {
            interrupted = Date.now();
            child.kill('SIGINT');
          }),
      });
      assert.ok(interrupted > 0, 'interrupted after the page arrived');
      assert.equal(run.code, 130, run.stderr);
      const took = Date.now() - interrupted;
      assert.ok(took < 20_000, `the CLI took ${took} ms to stop after Ctrl+C`);
    } finally {
      site.closeAllConnections();
      await new Promise<void>((resolve) => site.close(() => resolve()));
    }
  });
});
