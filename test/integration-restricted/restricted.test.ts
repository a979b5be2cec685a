// Restricted Mode: the folder is untrusted, so Turnstone runs in plan mode only,
// whatever the settings say: it may read, but edits and commands are refused.
import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import * as vscode from 'vscode';
import type { TurnstoneApi } from '../../src/extension';
import { MockAnthropicServer, textReply, toolUseReply } from '../fixtures/mock-anthropic';

describe('Restricted Mode (untrusted workspace)', function () {
  this.timeout(60_000);
  let server: MockAnthropicServer;
  let turnstone: TurnstoneApi;

  before(async () => {
    server = await MockAnthropicServer.start();
    turnstone = await vscode.extensions.getExtension<TurnstoneApi>('turnstone.turnstone')!.activate();
    // Restricted settings are ignored from the workspace in Restricted Mode; user settings still apply.
    await vscode.workspace.getConfiguration('turnstone').update('baseUrl', server.url, vscode.ConfigurationTarget.Global);
    await vscode.workspace.getConfiguration('turnstone').update('permissionMode', 'bypassPermissions', vscode.ConfigurationTarget.Global);
  });
  after(async () => {
    await server.close();
  });

  it('the folder is really untrusted', () => {
    assert.equal(vscode.workspace.isTrusted, false);
  });

  it('blocks edits and commands even with bypassPermissions set, while reads still work', async () => {
    const root = vscode.workspace.workspaceFolders![0]!.uri.fsPath;
    const target = path.join(root, 'src', 'hello.ts');
    const before = fs.readFileSync(target, 'utf8');
    server.enqueue(
      toolUseReply([{ id: 'tu_read', name: 'read_file', input: { path: 'src/hello.ts' } }]),
      toolUseReply([{ id: 'tu_edit', name: 'edit_file', input: { path: 'src/hello.ts', old_string: 'Hello', new_string: 'Pwned' } }]),
      toolUseReply([{ id: 'tu_bash', name: 'bash', input: { command: 'touch owned.txt' } }]),
      textReply('I could not change anything.'),
    );
    const summary = await turnstone.sendPrompt('change the greeting');
    assert.equal(summary.outcome, 'completed');
    const results = Object.fromEntries(summary.toolResults.map((r) => [r.name, r]));
    assert.equal(results['read_file']!.isError, false);
    assert.equal(results['edit_file']!.isError, true);
    assert.equal(results['bash']!.isError, true);
    assert.equal(fs.readFileSync(target, 'utf8'), before);
    assert.equal(fs.existsSync(path.join(root, 'owned.txt')), false);
  });

  it('the panel explains Restricted Mode and how to trust the folder', async () => {
    const notices = turnstone.panelSnapshot().notices;
    const restricted = notices.find((n) => n.kind === 'restricted');
    assert.ok(restricted, JSON.stringify(notices));
    assert.ok(restricted.actions.some((a) => a.id === 'trust'));
  });
});

describe('MCP in Restricted Mode', function () {
  this.timeout(60_000);
  let server: MockAnthropicServer;
  let turnstone: TurnstoneApi;
  const root = () => vscode.workspace.workspaceFolders![0]!.uri.fsPath;

  before(async () => {
    server = await MockAnthropicServer.start();
    turnstone = await vscode.extensions.getExtension<TurnstoneApi>('turnstone.turnstone')!.activate();
    await vscode.workspace.getConfiguration('turnstone').update('baseUrl', server.url, vscode.ConfigurationTarget.Global);
  });
  after(async () => {
    fs.rmSync(path.join(root(), '.mcp.json'), { force: true });
    await server.close();
  });

  it('MCP: servers from the workspace .mcp.json are skipped and the panel says which and why', async () => {
    const marker = path.join(root(), 'mcp-started.txt');
    // If the server ever started it would leave this file behind.
    fs.writeFileSync(path.join(root(), '.mcp.json'), JSON.stringify({ mcpServers: { repoTools: { command: process.execPath, args: ['-e', `require('fs').writeFileSync(${JSON.stringify(marker)}, 'x')`] } } }));
    server.enqueue(textReply('ok'));
    const summary = await turnstone.sendPrompt('hello');
    assert.equal(summary.outcome, 'completed');
    const status = turnstone.mcpServers();
    assert.deepEqual(status.map((s) => [s.name, s.status]), [['repoTools', 'skipped']]);
    assert.match(status[0]!.lastError!, /not trusted \(Restricted Mode\)/);
    const tools = (server.bodies[0] as { tools: { name: string }[] }).tools.map((t) => t.name);
    assert.ok(!tools.some((t) => t.startsWith('mcp__')));
    const deadline = Date.now() + 5000;
    let notice: { text: string } | undefined;
    while (!(notice = turnstone.panelSnapshot().notices.find((n) => n.id === 'mcp_skipped')) && Date.now() < deadline) await new Promise((r) => setTimeout(r, 50));
    assert.ok(notice);
    assert.match(notice.text, /not started in Restricted Mode: repoTools/);
    assert.equal(fs.existsSync(marker), false);
  });
});

describe('Restricted Mode: project instructions', function () {
  this.timeout(60_000);
  it('reads AGENTS.md into the request (the turn runs in plan mode only)', async () => {
    const server = await MockAnthropicServer.start();
    const root = vscode.workspace.workspaceFolders![0]!.uri.fsPath;
    const file = path.join(root, 'AGENTS.md');
    fs.writeFileSync(file, 'Restricted rule from AGENTS.');
    try {
      const turnstone = await vscode.extensions.getExtension<TurnstoneApi>('turnstone.turnstone')!.activate();
      await vscode.workspace.getConfiguration('turnstone').update('baseUrl', server.url, vscode.ConfigurationTarget.Global);
      server.enqueue(textReply('ok'));
      const summary = await turnstone.sendPrompt('hello');
      assert.equal(summary.outcome, 'completed');
      assert.ok(JSON.stringify(server.bodies[0]?.system).includes('Instructions from AGENTS.md:\\nRestricted rule from AGENTS.'));
    } finally {
      fs.rmSync(file, { force: true });
      await server.close();
    }
  });
});
