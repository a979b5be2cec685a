// Issue 28, background commands in the real extension host: the model starts a
// node HTTP server in the background (its own terminal, named after its
// description, visible while it runs), probes it from a later bash step, and
// stops it with kill_shell; or leaves it: a new session leaves it running in the first (issue 43: sessions
// run side by side), and removing that session stops it. Terminal
// gone, no process left (the real process table).
import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import * as vscode from 'vscode';
import type { TurnstoneApi } from '../../src/extension';
import { MockAnthropicServer, textReply, toolUseReply } from '../fixtures/mock-anthropic';
import { processesWith, until } from '../support/process-tree';

const root = () => vscode.workspace.workspaceFolders![0]!.uri.fsPath;
const config = () => vscode.workspace.getConfiguration('turnstone');
const turnstone = () => vscode.extensions.getExtension<TurnstoneApi>('turnstone.turnstone')!.exports;

const SERVER = `const http = require('http'); const fs = require('fs');
const s = http.createServer((q, r) => r.end('pong from background')).listen(0, '127.0.0.1', () => {
  fs.writeFileSync('bg-port.tmp', String(s.address().port)); fs.renameSync('bg-port.tmp', 'bg-port.txt'); console.log('listening');
});`;
const PROBE = `const fs = require('fs'); const http = require('http');
(function wait() {
  if (!fs.existsSync('bg-port.txt')) return setTimeout(wait, 25);
  http.get({ host: '127.0.0.1', port: Number(fs.readFileSync('bg-port.txt', 'utf8')) }, (res) => {
    let body = ''; res.on('data', (d) => (body += d)); res.on('end', () => console.log('probe got: ' + body));
  }).on('error', (e) => { console.log('probe failed: ' + e.message); process.exit(1); });
})();`;

describe('28.bg: background commands in the real extension host', function () {
  this.timeout(120_000);
  let server: MockAnthropicServer;
  let serverFile: string;
  let title: string;

  before(async () => {
    server = await MockAnthropicServer.start();
    await vscode.extensions.getExtension<TurnstoneApi>('turnstone.turnstone')!.activate();
    await config().update('baseUrl', server.url, vscode.ConfigurationTarget.Global);
    await config().update('permissionMode', 'bypassPermissions', vscode.ConfigurationTarget.Global);
  });
  after(async () => {
    await config().update('baseUrl', undefined, vscode.ConfigurationTarget.Global);
    await config().update('permissionMode', undefined, vscode.ConfigurationTarget.Global);
    await server.close();
  });
  beforeEach(async () => {
    server.reset();
    await vscode.commands.executeCommand('turnstone.newSession');
    const tag = Math.random().toString(36).slice(2, 10);
    serverFile = `bg-server-${tag}.js`;
    title = `dev server ${tag}`;
    fs.rmSync(path.join(root(), 'bg-port.txt'), { force: true });
    fs.writeFileSync(path.join(root(), serverFile), SERVER);
    fs.writeFileSync(path.join(root(), 'bg-probe.js'), PROBE);
  });
  afterEach(() => {
    for (const pid of processesWith(serverFile)) process.kill(pid, 'SIGKILL');
    for (const f of [serverFile, 'bg-probe.js', 'bg-port.txt']) fs.rmSync(path.join(root(), f), { force: true });
  });

  const terminalNamed = (name: string) => vscode.window.terminals.find((t) => t.name === name);
  const startAndProbe = () => [
    toolUseReply([{ id: 'tu_start', name: 'bash', input: { command: `node ${serverFile}`, run_in_background: true, description: title } }]),
    toolUseReply([{ id: 'tu_probe', name: 'bash', input: { command: 'node bg-probe.js' } }]),
    textReply('The server answers.'),
  ];
  const lastResults = (request: number) => JSON.stringify((server.bodies[request] as { messages: Array<{ content: unknown }> }).messages.at(-1));

  it('28.bg: started by the model in its own terminal, probed by a later bash step, stopped by kill_shell: terminal and process gone', async () => {
    server.enqueue(...startAndProbe());
    const first = (await vscode.commands.executeCommand('turnstone.sendPrompt', 'start the dev server and test it')) as { outcome: string };
    assert.equal(first.outcome, 'completed');
    assert.match(lastResults(1), /Started in the background as bash_1/);
    assert.match(lastResults(2), /probe got: pong from background/);
    assert.ok(terminalNamed(title), `a terminal named "${title}" while it runs (terminals: ${vscode.window.terminals.map((t) => t.name).join(', ')})`);
    assert.ok(processesWith(serverFile).length > 0, 'the server runs between turns');

    server.enqueue(toolUseReply([{ id: 'tu_kill', name: 'kill_shell', input: { id: 'bash_1' } }]), textReply('Stopped.'));
    const second = (await vscode.commands.executeCommand('turnstone.sendPrompt', 'stop it')) as { outcome: string };
    assert.equal(second.outcome, 'completed');
    assert.match(lastResults(4), /Stopped bash_1/);
    await until('the terminal to close', () => !terminalNamed(title));
    await until('no server process', () => processesWith(serverFile).length === 0);
  });

  it('28.bg: a server left running survives a new session (the first stays open) and is stopped when that session is removed: terminal and process gone', async () => {
    server.enqueue(...startAndProbe());
    const turn = (await vscode.commands.executeCommand('turnstone.sendPrompt', 'start the dev server and test it')) as { outcome: string };
    assert.equal(turn.outcome, 'completed');
    await until('the server to run', () => processesWith(serverFile).length > 0);
    assert.ok(terminalNamed(title));
    const started = turnstone().sessionFile();
    await vscode.commands.executeCommand('turnstone.newSession');
    const first = turnstone().sessions().find((s) => s.sessionFile === started && !s.shown);
    assert.ok(first, 'the session that started the server is still open');
    assert.ok(processesWith(serverFile).length > 0 && terminalNamed(title), 'its server runs on');
    await vscode.commands.executeCommand('turnstone.sessions.remove', first.key, { confirm: false });
    await until('the terminal to close', () => !terminalNamed(title));
    await until('no server process', () => processesWith(serverFile).length === 0);
  });
});
