// Turns through the real extension host: the command, the runtime, the tools
// and the permission UI, against the local mock of the Messages API.
import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import * as vscode from 'vscode';
import type { TurnstoneApi } from '../../src/extension';
import { MockAnthropicServer, textReply, toolUseReply } from '../fixtures/mock-anthropic';

const root = () => vscode.workspace.workspaceFolders![0]!.uri.fsPath;
const config = () => vscode.workspace.getConfiguration('turnstone');

async function api(): Promise<TurnstoneApi> {
  const ext = vscode.extensions.getExtension<TurnstoneApi>('turnstone.turnstone')!;
  return ext.activate();
}

function waitFor<T>(event: vscode.Event<T>, timeoutMs = 20_000): Promise<T> {
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error('timed out waiting for an event')), timeoutMs);
    const sub = event((value) => {
      clearTimeout(timer);
      sub.dispose();
      resolve(value);
    });
  });
}

describe('turns in the real extension host', function () {
  this.timeout(60_000);
  let server: MockAnthropicServer;
  let turnstone: TurnstoneApi;

  before(async () => {
    server = await MockAnthropicServer.start();
    turnstone = await api();
    await config().update('baseUrl', server.url, vscode.ConfigurationTarget.Global);
  });
  after(async () => {
    await config().update('baseUrl', undefined, vscode.ConfigurationTarget.Global);
    await config().update('permissionMode', undefined, vscode.ConfigurationTarget.Global);
    await server.close();
  });
  beforeEach(async () => {
    server.reset();
    await vscode.commands.executeCommand('turnstone.newSession');
  });

  it('turnstone.sendPrompt runs read → edit → final text in acceptEdits mode and the file changes on disk', async () => {
    await config().update('permissionMode', 'acceptEdits', vscode.ConfigurationTarget.Global);
    const file = path.join(root(), 'notes.txt');
    fs.writeFileSync(file, 'status: draft\n');
    server.enqueue(
      toolUseReply([{ id: 'tu_read', name: 'read_file', input: { path: 'notes.txt' } }]),
      toolUseReply([{ id: 'tu_edit', name: 'edit_file', input: { path: 'notes.txt', old_string: 'draft', new_string: 'final' } }]),
      textReply('Marked the notes final.'),
    );
    const summary = (await vscode.commands.executeCommand('turnstone.sendPrompt', 'mark the notes final')) as { outcome: string; finalText: string };
    assert.equal(summary.outcome, 'completed');
    assert.equal(summary.finalText, 'Marked the notes final.');
    assert.equal(fs.readFileSync(file, 'utf8'), 'status: final\n');
    assert.equal(server.requests.length, 3);
    // The key came from the environment and reached the API, never a setting.
    const auth = String(server.requests[0]!.headers['x-api-key'] ?? server.requests[0]!.headers['authorization'] ?? '');
    assert.ok(auth.endsWith(process.env.ANTHROPIC_API_KEY!), 'the key from the environment reached the API');
    // The panel mirror shows the user message, two tool cards and the reply.
    const kinds = turnstone.panelSnapshot().items.map((i) => i.kind);
    assert.deepEqual(kinds.filter((k) => k !== 'thinking'), ['user', 'tool', 'tool', 'assistant']);
    // A session file was written as the turn went.
    const sessionFile = turnstone.sessionFile();
    assert.ok(sessionFile && fs.existsSync(sessionFile));
    assert.ok(!fs.readFileSync(sessionFile, 'utf8').includes(process.env.ANTHROPIC_API_KEY!), 'the key is not in the session file');
  });

  it('in ask mode a pending edit opens a diff of original and proposal, and the decision API settles it; undoTurn restores the file', async () => {
    await config().update('permissionMode', 'ask', vscode.ConfigurationTarget.Global);
    turnstone.setDialogsEnabled(false);
    const file = path.join(root(), 'app.txt');
    fs.writeFileSync(file, 'one\ntwo\n');
    server.enqueue(
      toolUseReply([{ id: 'tu_r', name: 'read_file', input: { path: 'app.txt' } }]),
      toolUseReply([{ id: 'tu_e', name: 'edit_file', input: { path: 'app.txt', old_string: 'two', new_string: 'TWO' } }]),
      textReply('Done.'),
    );
    const requested = waitFor(turnstone.onDidRequestPermission);
    const turn = turnstone.sendPrompt('shout the second line');
    const id = await requested;
    assert.equal(id, 'tu_e');

    // The diff tab: left the current file, right the proposal.
    let diffTab: vscode.Tab | undefined;
    for (let i = 0; i < 100 && !diffTab; i++) {
      diffTab = vscode.window.tabGroups.all.flatMap((g) => g.tabs).find((t) => t.input instanceof vscode.TabInputTextDiff && t.label.includes('proposed by Turnstone'));
      if (!diffTab) await new Promise((r) => setTimeout(r, 50));
    }
    assert.ok(diffTab, 'a diff tab opened');
    const input = diffTab.input as vscode.TabInputTextDiff;
    assert.equal((await vscode.workspace.openTextDocument(input.original)).getText(), 'one\ntwo\n');
    assert.equal((await vscode.workspace.openTextDocument(input.modified)).getText(), 'one\nTWO\n');
    assert.equal(fs.readFileSync(file, 'utf8'), 'one\ntwo\n', 'nothing is written before the decision');

    assert.equal(turnstone.decide(id, { kind: 'allow', scope: 'once' }), true);
    assert.equal(turnstone.decide(id, { kind: 'deny' }), false, 'a request settles once');
    const summary = await turn;
    assert.equal(summary.outcome, 'completed');
    assert.equal(fs.readFileSync(file, 'utf8'), 'one\nTWO\n');
    const stillOpen = vscode.window.tabGroups.all.flatMap((g) => g.tabs).some((t) => t.label.includes('proposed by Turnstone'));
    assert.equal(stillOpen, false, 'the diff tab closes when the decision is made');

    const undone = (await vscode.commands.executeCommand('turnstone.undoTurn', { confirm: false })) as { restored: string[] };
    assert.equal(undone.restored.length, 1);
    assert.equal(fs.readFileSync(file, 'utf8'), 'one\ntwo\n');
  });

  it('the user can edit the proposal before allowing: their version is written and the model is told', async () => {
    await config().update('permissionMode', 'ask', vscode.ConfigurationTarget.Global);
    turnstone.setDialogsEnabled(false);
    const file = path.join(root(), 'edit-me.txt');
    fs.writeFileSync(file, 'alpha\n');
    server.enqueue(
      toolUseReply([{ id: 'tu_r2', name: 'read_file', input: { path: 'edit-me.txt' } }]),
      toolUseReply([{ id: 'tu_w2', name: 'edit_file', input: { path: 'edit-me.txt', old_string: 'alpha', new_string: 'beta' } }]),
      textReply('OK.'),
    );
    const requested = waitFor(turnstone.onDidRequestPermission);
    const turn = turnstone.sendPrompt('change it');
    const id = await requested;
    const proposed = turnstone.pendingPermissions().find((p) => p.id === id)!.proposedUri!;
    const doc = await vscode.workspace.openTextDocument(vscode.Uri.parse(proposed));
    const edit = new vscode.WorkspaceEdit();
    edit.replace(doc.uri, new vscode.Range(0, 0, doc.lineCount, 0), 'gamma\n');
    assert.ok(await vscode.workspace.applyEdit(edit));
    turnstone.decide(id, { kind: 'allow', scope: 'once' });
    await turn;
    assert.equal(fs.readFileSync(file, 'utf8'), 'gamma\n');
    const third = JSON.stringify(server.bodies[2]);
    assert.ok(third.includes('The user edited your proposal'), 'the tool result tells the model');
    assert.ok(third.includes('+gamma'));
  });

  it('a denial with feedback reaches the model and the file stays unchanged', async () => {
    await config().update('permissionMode', 'ask', vscode.ConfigurationTarget.Global);
    turnstone.setDialogsEnabled(false);
    server.enqueue(toolUseReply([{ id: 'tu_b', name: 'bash', input: { command: 'rm -rf build', description: 'clean' } }]), textReply('Understood.'));
    const requested = waitFor(turnstone.onDidRequestPermission);
    const turn = turnstone.sendPrompt('clean up');
    const id = await requested;
    turnstone.decide(id, { kind: 'deny', feedback: 'use npm run clean instead' });
    await turn;
    const second = JSON.stringify(server.bodies[1]);
    assert.ok(second.includes('use npm run clean instead'));
  });
});
