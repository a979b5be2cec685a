// MCP in the real extension host: servers from the user setting start with the
// first turn, their tools reach the model, a rule allows a call, an unapproved
// call asks with the server, tool, description and input, and a server that
// cannot start is a panel notice while the turn goes on.
import * as assert from 'node:assert/strict';
import * as path from 'node:path';
import * as vscode from 'vscode';
import type { TurnstoneApi } from '../../src/extension';
import { MockAnthropicServer, textReply, toolUseReply } from '../fixtures/mock-anthropic';

const config = () => vscode.workspace.getConfiguration('turnstone');

function everything(): { command: string; args: string[] } {
  // The tests run bundled elsewhere; the servers live in the repo the extension is loaded from.
  const repo = vscode.extensions.getExtension('turnstone.turnstone')!.extensionPath;
  return { command: process.execPath, args: [path.join(repo, 'node_modules', '@modelcontextprotocol', 'server-everything', 'dist', 'index.js'), 'stdio'] };
}

describe('MCP servers in the real extension host', function () {
  this.timeout(90_000);
  let server: MockAnthropicServer;
  let turnstone: TurnstoneApi;

  before(async () => {
    server = await MockAnthropicServer.start();
    turnstone = await vscode.extensions.getExtension<TurnstoneApi>('turnstone.turnstone')!.activate();
    await config().update('baseUrl', server.url, vscode.ConfigurationTarget.Global);
    await config().update('permissionMode', 'ask', vscode.ConfigurationTarget.Global);
  });
  after(async () => {
    turnstone.setDialogsEnabled(true);
    for (const key of ['baseUrl', 'permissionMode', 'mcpServers', 'permissions.allow']) await config().update(key, undefined, vscode.ConfigurationTarget.Global);
    await server.close();
  });
  beforeEach(async () => {
    server.reset();
    await vscode.commands.executeCommand('turnstone.newSession');
  });

  it('MCP: nothing starts at activation; the first turn starts the server, lists mcp__everything__* and a rule allows echo', async () => {
    await config().update('mcpServers', { everything: everything() }, vscode.ConfigurationTarget.Global);
    await config().update('permissions.allow', ['mcp__everything__echo'], vscode.ConfigurationTarget.Global);
    assert.deepEqual(turnstone.mcpServers(), [], 'no server before the first turn');
    server.enqueue(toolUseReply([{ id: 'tu_echo', name: 'mcp__everything__echo', input: { message: 'from the host' } }]), textReply('Echoed.'));
    const summary = await turnstone.sendPrompt('echo something');
    assert.equal(summary.outcome, 'completed');
    assert.deepEqual(summary.toolResults.map((r) => [r.name, r.isError, r.content]), [['mcp__everything__echo', false, 'Echo: from the host']]);
    const tools = (server.bodies[0] as { tools: { name: string }[] }).tools.map((t) => t.name);
    assert.ok(tools.includes('mcp__everything__echo') && tools.includes('read_file'));
    const status = turnstone.mcpServers();
    assert.equal(status[0]?.name, 'everything');
    assert.equal(status[0]?.status, 'running');
    assert.ok(turnstone.panelSnapshot().items.some((i) => i.kind === 'tool'), 'the call is a tool card');
  });

  it('MCP: an unapproved call asks with server, tool, description and input JSON; denying it gives an is_error result', async () => {
    await config().update('mcpServers', { everything: everything() }, vscode.ConfigurationTarget.Global);
    await config().update('permissions.allow', undefined, vscode.ConfigurationTarget.Global);
    turnstone.setDialogsEnabled(false);
    server.enqueue(toolUseReply([{ id: 'tu_sum', name: 'mcp__everything__get-sum', input: { a: 2, b: 3 } }]), textReply('Not allowed then.'));
    const asked = new Promise<string>((resolve) => {
      const sub = turnstone.onDidRequestPermission((id) => {
        sub.dispose();
        resolve(id);
      });
    });
    const turn = turnstone.sendPrompt('add 2 and 3');
    const id = await asked;
    assert.equal(turnstone.pendingPermissions()[0]?.toolName, 'mcp__everything__get-sum');
    const card = turnstone.panelSnapshot().items.find((i) => i.kind === 'permission') as { title: string; subject: string; reason?: string; description?: string } | undefined;
    assert.ok(card);
    assert.equal(card.title, 'Use the tool get-sum of the MCP server everything?');
    assert.deepEqual(JSON.parse(card.subject), { a: 2, b: 3 });
    // 25.4: the server's description of the tool apart from why Turnstone asks.
    assert.match(card.description ?? '', /sum/i);
    assert.match(card.reason ?? '', /MCP tool call/);
    assert.ok(turnstone.decide(id, { kind: 'deny' }));
    const summary = await turn;
    assert.equal(summary.toolResults[0]!.isError, true);
    assert.match(summary.toolResults[0]!.content, /the user denied mcp__everything__get-sum/);
  });

  it('MCP: a server that cannot start, and an entry that cannot be read, are panel notices; the turn goes on', async () => {
    await config().update(
      'mcpServers',
      { broken: { command: process.execPath, args: ['-e', "console.error('no credentials for broken'); process.exit(4)"] }, nocommand: { args: ['x'] } },
      vscode.ConfigurationTarget.Global,
    );
    server.enqueue(textReply('Fine without it.'));
    const summary = await turnstone.sendPrompt('hello');
    assert.equal(summary.outcome, 'completed');
    const deadline = Date.now() + 10_000;
    let notice: { text: string } | undefined;
    while (!(notice = turnstone.panelSnapshot().notices.find((n) => n.id === 'mcp_failed')) && Date.now() < deadline) await new Promise((r) => setTimeout(r, 50));
    assert.ok(notice, 'a notice names the failed server');
    assert.match(notice.text, /broken: could not be started: .*no credentials for broken/);
    assert.equal(turnstone.mcpServers().find((s) => s.name === 'broken')?.status, 'failed');
    const problem = turnstone.panelSnapshot().notices.find((n) => n.id === 'mcp_config');
    assert.match(problem?.text ?? '', /nocommand in user setting turnstone\.mcpServers: .*command/);
  });
});
