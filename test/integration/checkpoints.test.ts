// Checkpoints in the real extension host: files changed by the edit tools and by
// bash (through the Turnstone terminal) go back to a turn's start, the
// conversation goes back by forking the session, and a hand edit is kept.
import * as assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as path from 'node:path';
import * as vscode from 'vscode';
import type { TurnstoneApi } from '../../src/extension';
import { MockAnthropicServer, textReply, toolUseReply } from '../fixtures/mock-anthropic';

const root = () => vscode.workspace.workspaceFolders![0]!.uri.fsPath;
const config = () => vscode.workspace.getConfiguration('turnstone');
const read = (rel: string) => fs.readFileSync(path.join(root(), rel), 'utf8');
const UTF16 = Buffer.concat([Buffer.from([0xff, 0xfe]), Buffer.from('grüße\r\nwelt\r\n', 'utf16le')]);
const git = (...args: string[]) => execFileSync('git', ['-c', 'user.name=t', '-c', 'user.email=t@t', ...args], { cwd: root(), stdio: 'pipe' }).toString();

describe('checkpoints in the real extension host', function () {
  this.timeout(90_000);
  let server: MockAnthropicServer;
  let turnstone: TurnstoneApi;
  let hello: string;

  before(async () => {
    server = await MockAnthropicServer.start();
    turnstone = await vscode.extensions.getExtension<TurnstoneApi>('turnstone.turnstone')!.activate();
    await config().update('baseUrl', server.url, vscode.ConfigurationTarget.Global);
    await config().update('permissionMode', 'bypassPermissions', vscode.ConfigurationTarget.Global);
    hello = read('src/hello.ts');
    fs.writeFileSync(path.join(root(), 'u16.txt'), UTF16);
    // A repository, as most workspaces are: clean files come back from git's objects, the rest from copies.
    git('init', '-q');
    git('add', '-A');
    git('commit', '-qm', 'fixture');
  });
  after(async () => {
    fs.rmSync(path.join(root(), '.git'), { recursive: true, force: true });
    for (const f of ['made-by-bash.txt', 'README.moved', 'mine.txt', 'u16.txt']) fs.rmSync(path.join(root(), f), { force: true });
    fs.writeFileSync(path.join(root(), 'src/hello.ts'), hello);
    await config().update('baseUrl', undefined, vscode.ConfigurationTarget.Global);
    await config().update('permissionMode', undefined, vscode.ConfigurationTarget.Global);
    await server.close();
  });
  beforeEach(async () => {
    server.reset();
    await vscode.commands.executeCommand('turnstone.newSession');
  });

  it('goes back two turns: files an edit and a bash command changed, then the conversation too', async () => {
    const readme = read('README.md');
    server.enqueue(
      toolUseReply([{ id: 'tu_e', name: 'edit_file', input: { path: 'src/hello.ts', old_string: 'Hello', new_string: 'Howdy' } }]),
      textReply('Edited.'),
      toolUseReply([{ id: 'tu_b', name: 'bash', input: { command: "echo created > made-by-bash.txt && mv README.md README.moved && printf '// more\\n' >> src/hello.ts", description: 'shuffle' } }]),
      textReply('Shuffled.'),
    );
    assert.equal(((await vscode.commands.executeCommand('turnstone.sendPrompt', 'first: edit hello')) as { outcome: string }).outcome, 'completed');
    assert.equal(((await vscode.commands.executeCommand('turnstone.sendPrompt', 'second: shuffle files')) as { outcome: string }).outcome, 'completed');
    assert.ok(fs.existsSync(path.join(root(), 'README.moved')));

    // Turn 2's files only: what bash did is undone, turn 1's edit stays.
    await vscode.commands.executeCommand('turnstone.restoreCheckpoint', { turn: 2, mode: 'files', confirm: false });
    assert.equal(read('README.md'), readme);
    assert.ok(!fs.existsSync(path.join(root(), 'README.moved')));
    assert.ok(!fs.existsSync(path.join(root(), 'made-by-bash.txt')));
    assert.equal(read('src/hello.ts'), hello.replace('Hello', 'Howdy'));

    // Turn 1, files and conversation: the session forks before the first message, the old one stays listed.
    const before = turnstone.sessionFile()!;
    const done = (await vscode.commands.executeCommand('turnstone.restoreCheckpoint', { turn: 1, mode: 'both', confirm: false })) as { words?: string };
    assert.equal(done.words, 'first: edit hello');
    assert.equal(read('src/hello.ts'), hello);
    const after = turnstone.sessionFile()!;
    assert.notEqual(after, before);
    assert.ok(fs.existsSync(before), 'the old branch is kept');
    const lines = fs.readFileSync(after, 'utf8').trim().split('\n').map((l) => JSON.parse(l) as { type: string; forkedFrom?: string; messages?: unknown[] });
    assert.ok(lines[0]!.forkedFrom, 'the fork names its origin');
    assert.deepEqual(lines.find((l) => l.type === 'snapshot')?.messages, []);
    assert.deepEqual(turnstone.panelSnapshot().items.filter((i) => i.kind === 'user'), []);
  });

  it('keeps a file the user changed by hand after the turn', async () => {
    server.enqueue(toolUseReply([{ id: 'tu_w', name: 'write_file', input: { path: 'mine.txt', content: 'from the agent\n' } }]), textReply('Wrote it.'));
    await vscode.commands.executeCommand('turnstone.sendPrompt', 'write mine.txt');
    fs.writeFileSync(path.join(root(), 'mine.txt'), 'from the agent\nand my own line\n');
    await vscode.commands.executeCommand('turnstone.restoreCheckpoint', { turn: 1, mode: 'files', confirm: false });
    assert.equal(read('mine.txt'), 'from the agent\nand my own line\n');
  });

  it('restores a UTF-16 file byte for byte after the session was resumed', async () => {
    server.enqueue(toolUseReply([{ id: 'tu_u', name: 'bash', input: { command: "printf 'plain now' > u16.txt", description: 'overwrite' } }]), textReply('Overwrote it.'));
    await vscode.commands.executeCommand('turnstone.sendPrompt', 'overwrite u16.txt');
    assert.equal(read('u16.txt'), 'plain now');
    const file = turnstone.sessionFile()!;
    await vscode.commands.executeCommand('turnstone.newSession');
    await vscode.commands.executeCommand('turnstone.resumeSession', file);
    await vscode.commands.executeCommand('turnstone.restoreCheckpoint', { turn: 1, mode: 'files', confirm: false });
    assert.deepEqual(fs.readFileSync(path.join(root(), 'u16.txt')), UTF16);
  });
});
