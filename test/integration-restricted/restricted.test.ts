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
