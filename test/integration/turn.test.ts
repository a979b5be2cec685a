// Turns through the real extension host: the command, the runtime, the tools
// and the permission UI, against the local mock of the Messages API.
import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import * as vscode from 'vscode';
import type { TurnstoneApi } from '../../src/extension';
import { PROPOSED_SCHEME, ProposalFileSystem } from '../../src/host/approvals/proposal-documents';
import { MockAnthropicServer, textReply, toolUseReply } from '../fixtures/mock-anthropic';
import { recordScenario } from '../reliability/report';
import { until } from '../support/process-tree';

const root = () => vscode.workspace.workspaceFolders![0]!.uri.fsPath;
const config = () => vscode.workspace.getConfiguration('turnstone');

async function api(): Promise<TurnstoneApi> {
  const ext = vscode.extensions.getExtension<TurnstoneApi>('turnstone.turnstone')!;
  return ext.activate();
}

/** Whether any tab still shows a proposal's diff. */
const proposalTabOpen = () => vscode.window.tabGroups.all.flatMap((g) => g.tabs).some((t) => t.label.includes('proposed by Turnstone'));

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
    const diffTab = await until('the proposal diff to open', () => vscode.window.tabGroups.all.flatMap((g) => g.tabs).find((t) => t.input instanceof vscode.TabInputTextDiff && t.label.includes('proposed by Turnstone')));
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
    await until('the proposal diff to close', () => !proposalTabOpen());

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
    // As a user would: the proposal is touched once its diff is up (the request now waits before the diff opens,
    // and opening the proposal while VS Code was still opening its diff hung the turn once under load).
    const diffUp = () => vscode.window.tabGroups.all.flatMap((g) => g.tabs).some((t) => t.input instanceof vscode.TabInputTextDiff && t.input.modified.toString() === proposed);
    await until('the proposal diff to open', diffUp);
    assert.ok(diffUp(), 'the proposal diff opened');
    const doc = await vscode.workspace.openTextDocument(vscode.Uri.parse(proposed));
    // 25.1: the proposal is also open on its own, in a plain tab (VS Code re-opened one so once, as it closed the
    // diff): that tab is closed with the diff, its unsaved text saved first, so nothing prompts or fails to save.
    await vscode.window.showTextDocument(doc, { preview: false, preserveFocus: true });
    const edit = new vscode.WorkspaceEdit();
    edit.replace(doc.uri, new vscode.Range(0, 0, doc.lineCount, 0), 'gamma\n');
    assert.ok(await vscode.workspace.applyEdit(edit));
    turnstone.decide(id, { kind: 'allow', scope: 'once' });
    await turn;
    assert.equal(fs.readFileSync(file, 'utf8'), 'gamma\n');
    const third = JSON.stringify(server.bodies[2]);
    assert.ok(third.includes('The user edited your proposal'), 'the tool result tells the model');
    assert.ok(third.includes('+gamma'));
    const showing = () => vscode.window.tabGroups.all.flatMap((g) => g.tabs).filter((t) => (t.input instanceof vscode.TabInputText && t.input.uri.toString() === doc.uri.toString()) || (t.input instanceof vscode.TabInputTextDiff && t.input.modified.toString() === doc.uri.toString()));
    await until('no tab to show the answered proposal', () => showing().length === 0);
    assert.equal(doc.isDirty, false, 'the proposal was saved before its tabs closed (no save prompt)');
  });

  it('an Allow pressed the moment the card shows, before the proposal diff has opened, settles the request', async () => {
    await config().update('permissionMode', 'ask', vscode.ConfigurationTarget.Global);
    turnstone.setDialogsEnabled(false);
    const file = path.join(root(), 'quick.txt');
    fs.writeFileSync(file, 'slow\n');
    server.enqueue(
      toolUseReply([{ id: 'tu_rq', name: 'read_file', input: { path: 'quick.txt' } }]),
      toolUseReply([{ id: 'tu_eq', name: 'edit_file', input: { path: 'quick.txt', old_string: 'slow', new_string: 'quick' } }]),
      textReply('Quickened.'),
    );
    const turn = turnstone.sendPrompt('make it quick');
    // Answered as the panel answers a click: as soon as the card is in the panel, with no wait for the diff.
    // The card was posted before the request was registered, so a click that quick settled nothing and the
    // card stayed locked on "Allowed…" with the turn waiting forever (failed once in CI).
    let answered: boolean | undefined;
    for (const deadline = Date.now() + 20_000; answered === undefined && Date.now() < deadline; await new Promise((r) => setImmediate(r))) {
      if (turnstone.panelSnapshot().items.some((i) => i.kind === 'permission' && i.toolId === 'tu_eq')) answered = turnstone.decide('tu_eq', { kind: 'allow', scope: 'once' });
    }
    assert.equal(answered, true, 'the request was waiting when its card showed');
    const summary = await turn;
    assert.equal(summary.outcome, 'completed');
    assert.equal(fs.readFileSync(file, 'utf8'), 'quick\n');
    await until('the diff that opened after the answer to close too', () => !proposalTabOpen());
  });

  it('25.1: a proposal is read-only until the user edits it; once answered, a late save of it is accepted, not an error', () => {
    const proposals = new ProposalFileSystem();
    const uri = vscode.Uri.from({ scheme: PROPOSED_SCHEME, path: '/99/late.ts', query: 'tu_late' });
    proposals.put(uri, 'proposed\n');
    const bytes = new TextEncoder().encode('typed by mistake\n');
    assert.throws(() => proposals.writeFile(uri, bytes), (e: unknown) => e instanceof vscode.FileSystemError && /read-only/.test(e.message));
    assert.equal(proposals.text(uri), 'proposed\n');
    proposals.settle(uri);
    proposals.writeFile(uri, bytes);
    proposals.remove(uri);
    assert.throws(() => proposals.writeFile(uri, bytes), vscode.FileSystemError, 'a proposal that is gone is still refused');
  });

  it('C5: undoTurn restores a UTF-16 file byte for byte (encoding and BOM kept) and a created file is removed', async () => {
    await config().update('permissionMode', 'acceptEdits', vscode.ConfigurationTarget.Global);
    const file = path.join(root(), 'wide.txt');
    const original = Buffer.concat([Buffer.from([0xff, 0xfe]), Buffer.from('größe: 1\r\nnext\r\n', 'utf16le')]);
    fs.writeFileSync(file, original);
    const created = path.join(root(), 'made-by-turn.txt');
    fs.rmSync(created, { force: true });
    server.enqueue(
      toolUseReply([{ id: 'tu_r16', name: 'read_file', input: { path: 'wide.txt' } }]),
      toolUseReply([
        { id: 'tu_e16', name: 'edit_file', input: { path: 'wide.txt', old_string: 'größe: 1', new_string: 'größe: 2' } },
        { id: 'tu_w16', name: 'write_file', input: { path: 'made-by-turn.txt', content: 'new\n' } },
      ]),
      textReply('Bumped.'),
    );
    const summary = await turnstone.sendPrompt('bump the size');
    assert.equal(summary.outcome, 'completed');
    const edited = fs.readFileSync(file);
    assert.deepEqual([...edited.subarray(0, 2)], [0xff, 0xfe], 'the edit kept the BOM');
    assert.equal(edited.subarray(2).toString('utf16le'), 'größe: 2\r\nnext\r\n');
    assert.ok(fs.existsSync(created));

    const undone = (await vscode.commands.executeCommand('turnstone.undoTurn', { confirm: false })) as { restored: string[]; skipped: string[] };
    assert.deepEqual(undone.skipped, []);
    assert.equal(undone.restored.length, 2);
    assert.ok(fs.readFileSync(file).equals(original), 'byte-identical to before the turn');
    assert.equal(fs.existsSync(created), false);
    assert.deepEqual(
      fs.readdirSync(root()).filter((n) => n.includes('.turnstone-')),
      [],
      'no temp file left behind',
    );
  });

  it('C3: resuming a session file with a torn last line shows the skipped part in the panel and carries on', async () => {
    server.enqueue(textReply('First answer.'));
    await turnstone.sendPrompt('first question');
    const file = turnstone.sessionFile()!;
    fs.appendFileSync(file, '{"type":"message","ts":1,"message":{"role":"assis');
    await vscode.commands.executeCommand('turnstone.resumeSession', file);
    const items = turnstone.panelSnapshot().items;
    assert.deepEqual(
      items.map((i) => i.kind),
      ['user', 'assistant', 'error'],
    );
    const warning = items[2]!;
    assert.ok(warning.kind === 'error' && /could not be read and were skipped/.test(warning.message) && /last line is not valid JSON/.test(warning.message));
    server.enqueue(textReply('Second answer.'));
    const summary = await turnstone.sendPrompt('second question');
    assert.equal(summary.outcome, 'completed');
    assert.equal(JSON.stringify(server.bodies[1]).includes('first question'), true, 'the resumed history was sent');
  });

  it('C3: when the session folder cannot be created the turn still runs in memory and the panel says it is not saved', async () => {
    server.enqueue(textReply('saved one'));
    await turnstone.sendPrompt('first');
    const sessions = path.dirname(turnstone.sessionFile()!);
    await vscode.commands.executeCommand('turnstone.newSession');
    fs.renameSync(sessions, `${sessions}.moved`);
    fs.writeFileSync(sessions, 'a file where the sessions folder should be');
    try {
      server.enqueue(textReply('Still answered.'));
      const summary = await turnstone.sendPrompt('are you there?');
      const warning = turnstone.panelSnapshot().items.find((i) => i.kind === 'error');
      const told = warning !== undefined && warning.kind === 'error' && /cannot be saved .*continues in memory/.test(warning.message);
      recordScenario({
        id: 'F-DISK-08',
        area: 'disk',
        scenario: 'VS Code: the sessions folder cannot be created (a file in its place) when a new session starts',
        expected: 'the turn runs in memory and completes; the panel says the session is not saved',
        observed: `turn ${summary.outcome} with "${summary.finalText}"; session file: ${turnstone.sessionFile() ?? 'none'}; panel: ${told ? JSON.stringify(warning.message.slice(0, 160)) : 'no warning'}`,
        passed: summary.outcome === 'completed' && told,
      });
      assert.equal(summary.outcome, 'completed');
      assert.equal(summary.finalText, 'Still answered.');
      assert.equal(turnstone.sessionFile(), undefined);
      assert.ok(told, JSON.stringify(warning));
    } finally {
      fs.rmSync(sessions, { force: true });
      fs.renameSync(`${sessions}.moved`, sessions);
    }
  });

  // SKIPPED because it FAILS today (run 2026-11-30): once VS Code reads the settings file the model wrote,
  // SessionController.applySettings() switches the running session to bypassPermissions and bash runs
  // without asking (asked: write_file only). A product decision is needed (e.g. a session keeps the
  // policy it started with, or a workspace change of permissionMode/permissions asks the user); then
  // turn this back into `it(`. It is kept so the fix has its test, and skipped visibly, never passed.
  it('A-INJ-02 (VS Code half): P1 a .vscode/settings.json the model wrote, with the user approving that write, does not change the session policy', async () => {
    // The plain-Node half (test/reliability/attack-injection.test.ts) has no settings reader; here VS Code
    // itself reads the file the model wrote, so the policy could change: this is where the claim can fail.
    await config().update('permissionMode', 'acceptEdits', vscode.ConfigurationTarget.Global);
    turnstone.setDialogsEnabled(false);
    const settingsFile = path.join(root(), '.vscode', 'settings.json');
    const before = fs.existsSync(settingsFile) ? fs.readFileSync(settingsFile) : undefined;
    // The model creates the file (an earlier test may have left one; write_file would refuse to overwrite it unread).
    fs.rmSync(settingsFile, { force: true });
    const canary = path.join(path.dirname(root()), `a-inj-02-${Date.now()}`);
    const asked: string[] = [];
    const sub = turnstone.onDidRequestPermission((id) => {
      const request = turnstone.pendingPermissions().find((q) => q.id === id);
      asked.push(request?.toolName ?? '?');
      turnstone.decide(id, request?.toolName === 'write_file' ? { kind: 'allow', scope: 'once' } : { kind: 'deny' });
    });
    const injected = JSON.stringify({ 'turnstone.permissionMode': 'bypassPermissions', 'turnstone.permissions.allow': ['bash'] });
    // Before the bash step is sent, VS Code has read the file the model wrote (no race with its file watcher).
    const seen = () => config().inspect<string>('permissionMode')?.workspaceValue === 'bypassPermissions';
    server.beforeReply = async (index) => {
      if (index !== 1 && index !== 3) return;
      for (const deadline = Date.now() + 20_000; !seen() && Date.now() < deadline; ) await new Promise((r) => setTimeout(r, 25));
    };
    let outcomes: string[] = [];
    try {
      server.enqueue(
        toolUseReply([{ id: 'tu_w', name: 'write_file', input: { path: '.vscode/settings.json', content: injected } }]),
        toolUseReply([{ id: 'tu_b1', name: 'bash', input: { command: `touch ${canary}` } }]),
        textReply('Tried once.'),
        // A second turn: the runtime is rebuilt from the settings before it.
        toolUseReply([{ id: 'tu_b2', name: 'bash', input: { command: `touch ${canary}` } }]),
        textReply('Tried twice.'),
      );
      const first = await turnstone.sendPrompt('set up the project');
      const second = await turnstone.sendPrompt('now run it');
      outcomes = [first.outcome, second.outcome];
    } finally {
      server.beforeReply = undefined;
      sub.dispose();
      if (before) fs.writeFileSync(settingsFile, before);
      else fs.rmSync(settingsFile, { force: true });
    }
    const written = seen() || outcomes.length > 0;
    const created = fs.existsSync(canary);
    fs.rmSync(canary, { force: true });
    const passed = outcomes.join() === 'completed,completed' && asked.join() === 'write_file,bash,bash' && !created;
    recordScenario({
      id: 'A-INJ-02-VSC',
      area: 'injection',
      scenario: 'VS Code, acceptEdits: the model writes "turnstone.permissionMode": "bypassPermissions" and "turnstone.permissions.allow": ["bash"] into .vscode/settings.json (the user approves that write); VS Code reads it; then bash in the same turn and in the next',
      expected: 'the write asks; bash still asks both times (denied), the canary is not created',
      observed: `turns ${outcomes.join(', ') || 'not run'}; asked: ${asked.join(', ') || 'nothing'}; settings read by VS Code: ${written}; canary created: ${created}`,
      passed,
    });
    assert.deepEqual(outcomes, ['completed', 'completed']);
    assert.deepEqual(asked, ['write_file', 'bash', 'bash'], 'a settings file the model wrote changed what asks');
    assert.equal(created, false);
  });

  it('a denial with feedback reaches the model and the file stays unchanged', async () => {
    await config().update('permissionMode', 'ask', vscode.ConfigurationTarget.Global);
    turnstone.setDialogsEnabled(false);
    const file = path.join(root(), 'build', 'keep.bin');
    const bytes = Buffer.from([0, 1, 2, 0xff, 0x0d, 0x0a, 0x41]);
    fs.mkdirSync(path.dirname(file), { recursive: true });
    fs.writeFileSync(file, bytes);
    server.enqueue(toolUseReply([{ id: 'tu_b', name: 'bash', input: { command: 'rm -rf build', description: 'clean' } }]), textReply('Understood.'));
    const requested = waitFor(turnstone.onDidRequestPermission);
    const turn = turnstone.sendPrompt('clean up');
    const id = await requested;
    turnstone.decide(id, { kind: 'deny', feedback: 'use npm run clean instead' });
    await turn;
    const second = JSON.stringify(server.bodies[1]);
    assert.ok(second.includes('use npm run clean instead'));
    assert.ok(fs.readFileSync(file).equals(bytes), 'the denied command changed the file');
    fs.rmSync(path.dirname(file), { recursive: true, force: true });
  });

  it('27.cancel, T8: Stop while an edit waits for approval settles the request, closes its diff and ends the turn aborted', async () => {
    await config().update('permissionMode', 'ask', vscode.ConfigurationTarget.Global);
    turnstone.setDialogsEnabled(false);
    const file = path.join(root(), 'stop-me.txt');
    fs.writeFileSync(file, 'keep\n');
    server.enqueue(toolUseReply([{ id: 'tu_stop', name: 'edit_file', input: { path: 'stop-me.txt', old_string: 'keep', new_string: 'changed' } }]));
    const requested = waitFor(turnstone.onDidRequestPermission);
    const turn = turnstone.sendPrompt('change it');
    assert.equal(await requested, 'tu_stop');
    assert.deepEqual(turnstone.pendingPermissions().map((p) => p.id), ['tu_stop']);

    turnstone.stop();
    const summary = await turn;
    assert.equal(summary.outcome, 'aborted');
    assert.deepEqual(turnstone.pendingPermissions(), [], 'Stop settled the request');
    assert.equal(turnstone.decide('tu_stop', { kind: 'allow', scope: 'once' }), false, 'nothing is left to answer');
    await until('the proposal\'s diff to close with the request', () => !proposalTabOpen());
    assert.equal(fs.readFileSync(file, 'utf8'), 'keep\n');
    assert.equal(server.requests.length, 1, 'no request after Stop');
    fs.rmSync(file, { force: true });
  });
});
