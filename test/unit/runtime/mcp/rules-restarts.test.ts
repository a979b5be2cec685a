// Issue 26.10 and the MCP restart counter: server-wide rules go by the tool's
// real server (a server named `docs__admin` is not `docs`), through the policy,
// the real tool source with two everything servers, and the CLI; a server that
// proved healthy gets its restarts back.
import * as assert from 'node:assert/strict';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { parseServerMap } from '../../../../src/runtime/mcp/config';
import { McpManager } from '../../../../src/runtime/mcp/manager';
import { PermissionPolicy } from '../../../../src/runtime/policy/permissions';
import { withMcpTools } from '../../../../src/tools/mcp-tools';
import { NodeWorkspace } from '../../../../src/tools/node-adapter';
import { createToolExecutor } from '../../../../src/tools/registry';
import { MockAnthropicServer, textReply, toolUseReply } from '../../../fixtures/mock-anthropic';
import { everythingStdio, waitFor } from '../../../fixtures/mcp-servers';
import { runCli } from '../../../support/run-cli';

const decide = (policy: PermissionPolicy, toolName: string, mcpServer: string) =>
  policy.decide({ toolName, readOnly: false, assessment: { need: 'command', subject: '', mcpServer } }).kind;

describe('MCP: rules match the real server; restarts come back after a clean start (issue 26)', function () {
  this.timeout(90_000);
  let ws: string;
  const managers: McpManager[] = [];
  const make = (servers: Record<string, unknown>, maxRestarts?: number) => {
    const m = new McpManager(parseServerMap(servers, 'user', 'test', { workspaceFolder: undefined, env: {} }), { startTimeoutMs: 20_000, ...(maxRestarts !== undefined ? { maxRestarts } : {}) });
    managers.push(m);
    return m;
  };
  const signal = () => new AbortController().signal;
  beforeEach(() => {
    ws = mkdtempSync(path.join(os.tmpdir(), 'turnstone-mcp-rules-'));
  });
  afterEach(async () => {
    await Promise.all(managers.splice(0).map((m) => m.dispose()));
    rmSync(ws, { recursive: true, force: true });
  });

  it('26.10: mcp__docs covers server docs only, never server docs__admin; mcp__docs__admin and mcp__docs__admin__* cover the latter', () => {
    const docs = new PermissionPolicy('ask', { allow: ['mcp__docs'] });
    assert.equal(decide(docs, 'mcp__docs__admin__wipe', 'docs__admin'), 'ask', 'tool wipe of server docs__admin');
    assert.equal(decide(docs, 'mcp__docs__admin__wipe', 'docs'), 'allow', 'tool admin__wipe of server docs');
    assert.equal(decide(docs, 'mcp__docs__search', 'docs'), 'allow');
    for (const rule of ['mcp__docs__admin', 'mcp__docs__admin__*']) {
      const admin = new PermissionPolicy('ask', { allow: [rule] });
      assert.equal(decide(admin, 'mcp__docs__admin__wipe', 'docs__admin'), 'allow', rule);
      assert.equal(decide(admin, 'mcp__docs__search', 'docs'), 'ask', rule);
    }
    const deny = new PermissionPolicy('bypassPermissions', { deny: ['mcp__docs'] });
    assert.equal(decide(deny, 'mcp__docs__admin__wipe', 'docs__admin'), 'allow', 'a deny rule for docs does not reach docs__admin');
    assert.equal(decide(deny, 'mcp__docs__x', 'docs'), 'deny');
  });

  it('26.10: the tool source names each tool\'s real server, for two everything servers named docs and docs__admin', async () => {
    const m = make({ docs: everythingStdio, docs__admin: everythingStdio });
    const tools = withMcpTools(createToolExecutor({ workspace: new NodeWorkspace(ws) }), m);
    await tools.prepareStep!(signal());
    assert.equal((await tools.assess('mcp__docs__echo', { message: 'x' })).mcpServer, 'docs');
    assert.equal((await tools.assess('mcp__docs__admin__echo', { message: 'x' })).mcpServer, 'docs__admin');
  });

  it('26: a server that answered a call after a restart gets its restarts back (not left dead after maxRestarts crashes in a long session)', async () => {
    const m = make({ everything: everythingStdio }, 1);
    const tools = withMcpTools(createToolExecutor({ workspace: new NodeWorkspace(ws) }), m);
    await tools.prepareStep!(signal());
    for (let crash = 1; crash <= 3; crash++) {
      const pid = m.pidOf('everything')!;
      process.kill(pid, 'SIGKILL');
      await waitFor(() => m.status()[0]!.status === 'crashed', `crash ${crash} noticed`);
      await waitFor(async () => {
        await tools.prepareStep!(signal());
        return m.status()[0]!.status === 'running';
      }, `restart after crash ${crash} (maxRestarts 1)`);
      assert.notEqual(m.pidOf('everything'), pid);
      // Answering a call proves the start clean: the count starts over.
      assert.equal((await tools.execute('mcp__everything__echo', { message: `back ${crash}` }, { signal: signal() })).content, `Echo: back ${crash}`);
    }
  });

  describe('CLI (node dist/cli.js)', () => {
    let api: MockAnthropicServer;
    beforeEach(async () => {
      api = await MockAnthropicServer.start();
    });
    afterEach(() => api.close());

    it('26.10: --allow mcp__docs runs docs\'s echo but not docs__admin\'s; --allow mcp__docs__admin runs it', async () => {
      const config = path.join(ws, 'mcp.json');
      writeFileSync(config, JSON.stringify({ mcpServers: { docs: everythingStdio, docs__admin: everythingStdio } }));
      const env = { ANTHROPIC_BASE_URL: api.url, ANTHROPIC_API_KEY: 'sk-test-cli' };
      const calls = () =>
        toolUseReply([
          { id: 'tu_1', name: 'mcp__docs__echo', input: { message: 'docs' } },
          { id: 'tu_2', name: 'mcp__docs__admin__echo', input: { message: 'admin' } },
        ]);
      api.enqueue(calls(), textReply('done'));
      const first = await runCli(['-p', 'go', '--cwd', ws, '--mcp-config', config, '--allow', 'mcp__docs', '--output-format', 'json'], { env });
      assert.equal(first.code, 0, first.stderr);
      const a = JSON.parse(first.stdout).tool_results as Array<{ name: string; is_error: boolean; content: string }>;
      assert.deepEqual(a.map((r) => [r.name, r.is_error]), [['mcp__docs__echo', false], ['mcp__docs__admin__echo', true]]);
      assert.match(a[1]!.content, /Permission denied/);

      api.enqueue(calls(), textReply('done'));
      const second = await runCli(['-p', 'go', '--cwd', ws, '--mcp-config', config, '--allow', 'mcp__docs__admin', '--output-format', 'json'], { env });
      assert.equal(second.code, 0, second.stderr);
      const b = JSON.parse(second.stdout).tool_results as Array<{ name: string; is_error: boolean; content: string }>;
      assert.deepEqual(b.map((r) => [r.name, r.is_error]), [['mcp__docs__echo', true], ['mcp__docs__admin__echo', false]]);
      assert.equal(b[1]!.content, 'Echo: admin');
    });
  });
});
