// The CLI with real MCP servers: `node dist/cli.js` against the mock model API,
// with the everything server from `.mcp.json`, `.vscode/mcp.json` and
// `--mcp-config`. Covers listing, a text and an image call, a denied call, an
// allowed-by-rule call, a bad config file, and no orphan servers after SIGINT.
import * as assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { MockAnthropicServer, textReply, toolUseReply } from '../../fixtures/mock-anthropic';
import { EVERYTHING_BIN, isAlive, waitFor } from '../../fixtures/mcp-servers';
import { runCli } from '../../support/run-cli';

const server = (args: string[] = ['stdio']) => ({ command: process.execPath, args: [EVERYTHING_BIN, ...args] });

function childPids(pid: number): number[] {
  try {
    return execFileSync('ps', ['-o', 'pid=', '--ppid', String(pid)], { encoding: 'utf8' })
      .split('\n')
      .map((l) => Number(l.trim()))
      .filter((n) => n > 0);
  } catch {
    return [];
  }
}

describe('CLI with MCP servers (node dist/cli.js, real servers, mock model API)', function () {
  this.timeout(90_000);
  let api: MockAnthropicServer;
  let ws: string;
  let env: Record<string, string>;

  beforeEach(async () => {
    api = await MockAnthropicServer.start();
    ws = mkdtempSync(path.join(os.tmpdir(), 'turnstone-cli-mcp-'));
    env = { ANTHROPIC_BASE_URL: api.url, ANTHROPIC_API_KEY: 'sk-test-cli' };
  });
  afterEach(async () => {
    await api.close();
    rmSync(ws, { recursive: true, force: true });
  });

  it('reads .mcp.json: lists mcp__everything__*, runs echo and get-tiny-image when a rule allows them', async () => {
    writeFileSync(path.join(ws, '.mcp.json'), JSON.stringify({ mcpServers: { everything: server() } }));
    api.enqueue(
      toolUseReply([{ id: 'tu_echo', name: 'mcp__everything__echo', input: { message: 'from the cli' } }]),
      toolUseReply([{ id: 'tu_img', name: 'mcp__everything__get-tiny-image', input: {} }]),
      textReply('done'),
    );
    const run = await runCli(['-p', 'use mcp', '--cwd', ws, '--allow', 'mcp__everything', '--output-format', 'json'], { env });
    assert.equal(run.code, 0, run.stderr);
    const result = JSON.parse(run.stdout);
    assert.deepEqual(result.tool_results.map((r: { name: string; is_error: boolean }) => [r.name, r.is_error]), [
      ['mcp__everything__echo', false],
      ['mcp__everything__get-tiny-image', false],
    ]);
    assert.equal(result.tool_results[0].content, 'Echo: from the cli');
    assert.match(result.tool_results[1].content, /\[image 1: PNG \d+×\d+/);
    // The model receives the image itself inside the tool result.
    const third = api.bodies[2] as { messages: Array<{ content: Array<{ type: string; content?: Array<{ type: string; source?: { media_type: string } }> }> }> };
    const imageResult = third.messages[third.messages.length - 1]!.content.find((b) => b.type === 'tool_result')!;
    assert.equal(imageResult.content?.find((b) => b.type === 'image')?.source?.media_type, 'image/png');
    const first = api.bodies[0] as { tools: { name: string; input_schema: unknown }[] };
    const echo = first.tools.find((t) => t.name === 'mcp__everything__echo');
    assert.ok(echo, 'the first request lists the MCP tools');
    assert.ok(first.tools.some((t) => t.name === 'read_file'));
  });

  it('denies an MCP call nobody approved (default ask, non-interactive) and the turn goes on', async () => {
    mkdirSync(path.join(ws, '.vscode'));
    writeFileSync(path.join(ws, '.vscode', 'mcp.json'), JSON.stringify({ servers: { everything: { type: 'stdio', ...server() } } }));
    api.enqueue(toolUseReply([{ id: 'tu_echo', name: 'mcp__everything__echo', input: { message: 'x' } }]), textReply('understood'));
    const run = await runCli(['-p', 'use mcp', '--cwd', ws, '--output-format', 'json'], { env });
    assert.equal(run.code, 0, run.stderr);
    const result = JSON.parse(run.stdout);
    assert.equal(result.tool_results[0].is_error, true);
    assert.match(result.tool_results[0].content, /Permission denied: .*needs approval/);
    assert.equal(result.result, 'understood');
  });

  it('--mcp-config adds servers (repeatable, later wins); an unreadable file is exit 2 with its name', async () => {
    const a = path.join(ws, 'a.json');
    const b = path.join(ws, 'b.json');
    writeFileSync(a, JSON.stringify({ mcpServers: { one: { command: '/nonexistent/server' } } }));
    writeFileSync(b, JSON.stringify({ mcpServers: { one: server(), two: server() } }));
    api.enqueue(toolUseReply([{ id: 'tu1', name: 'mcp__one__echo', input: { message: '1' } }, { id: 'tu2', name: 'mcp__two__echo', input: { message: '2' } }]), textReply('ok'));
    const run = await runCli(['-p', 'go', '--cwd', ws, '--mcp-config', a, '--mcp-config', b, '--allow', 'mcp__one__*', '--allow', 'mcp__two__echo', '--output-format', 'json'], { env });
    assert.equal(run.code, 0, run.stderr);
    assert.deepEqual(JSON.parse(run.stdout).tool_results.map((r: { content: string }) => r.content), ['Echo: 1', 'Echo: 2']);
    const bad = await runCli(['-p', 'go', '--cwd', ws, '--mcp-config', path.join(ws, 'missing.json')], { env });
    assert.equal(bad.code, 2);
    assert.match(bad.stderr, /--mcp-config .*missing\.json: cannot read the file \(ENOENT\)/);
  });

  it('a server that fails to start is reported with its stderr and the turn goes on without it', async () => {
    writeFileSync(path.join(ws, '.mcp.json'), JSON.stringify({ mcpServers: { broken: { command: process.execPath, args: ['-e', "console.error('missing config: BROKEN_URL'); process.exit(3)"] } } }));
    api.enqueue(textReply('fine without it'));
    const run = await runCli(['-p', 'hello', '--cwd', ws, '--output-format', 'json'], { env });
    assert.equal(run.code, 0, run.stderr);
    assert.match(run.stderr, /MCP server broken could not be started: .*missing config: BROKEN_URL/s);
    assert.equal(JSON.parse(run.stdout).result, 'fine without it');
  });

  it('Ctrl+C during a slow MCP call stops the turn and leaves no server process behind', async () => {
    writeFileSync(path.join(ws, '.mcp.json'), JSON.stringify({ mcpServers: { everything: server() } }));
    api.enqueue(toolUseReply([{ id: 'tu_slow', name: 'mcp__everything__trigger-long-running-operation', input: { duration: 60, steps: 600 } }]));
    let servers: number[] = [];
    let signalled = false;
    const run = await runCli(['-p', 'slow', '--cwd', ws, '--allow', 'mcp__everything', '--output-format', 'stream-json'], {
      env,
      onLine: (line, _i, child) => {
        if (signalled || !line.includes('"tool_progress"')) return;
        signalled = true;
        servers = childPids(child.pid!);
        child.kill('SIGINT');
      },
    });
    assert.equal(run.code, 130, run.stderr);
    assert.ok(servers.length >= 1, 'the server was a child of the CLI');
    await waitFor(() => servers.every((p) => !isAlive(p)), 'every MCP server process to exit');
  });
});
