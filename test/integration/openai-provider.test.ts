// A turn in the real extension host with turnstone.provider = openai, against the
// local mock of the Responses API: the key from OPENAI_API_KEY, reasoning shown as
// thinking, and the encrypted reasoning item sent back on the step after the tool.
import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import * as vscode from 'vscode';
import type { TurnstoneApi } from '../../src/extension';
import { MockResponsesServer, responsesReply } from '../fixtures/mock-responses';

const root = () => vscode.workspace.workspaceFolders![0]!.uri.fsPath;
const config = () => vscode.workspace.getConfiguration('turnstone');
const G = vscode.ConfigurationTarget.Global;

describe('the openai provider in the real extension host', function () {
  this.timeout(60_000);
  let server: MockResponsesServer;
  let turnstone: TurnstoneApi;
  const savedKey = process.env['OPENAI_API_KEY'];

  before(async () => {
    server = await MockResponsesServer.start();
    turnstone = await vscode.extensions.getExtension<TurnstoneApi>('turnstone.turnstone')!.activate();
    // The extension host is this process: the key is read from its environment at each request.
    process.env['OPENAI_API_KEY'] = 'sk-openai-integration-key';
    await config().update('provider', 'openai', G);
    await config().update('model', 'gpt-5-test', G);
    await config().update('baseUrl', server.baseURL, G);
    await config().update('permissionMode', 'acceptEdits', G);
  });
  after(async () => {
    for (const key of ['provider', 'model', 'baseUrl', 'permissionMode']) await config().update(key, undefined, G);
    if (savedKey === undefined) delete process.env['OPENAI_API_KEY'];
    else process.env['OPENAI_API_KEY'] = savedKey;
    fs.rmSync(path.join(root(), 'openai-notes.txt'), { force: true });
    await server.close();
  });

  it('S2/S3: reasoning shows as thinking, the tool runs, and the next step carries the encrypted reasoning back', async () => {
    await vscode.commands.executeCommand('turnstone.newSession');
    fs.writeFileSync(path.join(root(), 'openai-notes.txt'), 'gamma\n');
    server.enqueue(
      responsesReply([
        { type: 'reasoning', summary: ['Reading the notes first.'], encrypted: 'gAAAA-host-1' },
        { type: 'call', callId: 'call_host', name: 'read_file', input: { path: 'openai-notes.txt' } },
      ]),
      responsesReply([{ type: 'text', text: 'The notes say gamma.' }]),
    );
    const summary = (await vscode.commands.executeCommand('turnstone.sendPrompt', 'what do the notes say?')) as { outcome: string; finalText: string };
    assert.equal(summary.outcome, 'completed');
    assert.equal(summary.finalText, 'The notes say gamma.');
    assert.equal(server.requests.length, 2);
    assert.equal(server.requests[0]!.headers.authorization, 'Bearer sk-openai-integration-key');
    const input = server.bodies[1]!['input'] as Array<Record<string, unknown>>;
    assert.deepEqual(input[1], { type: 'reasoning', summary: [{ type: 'summary_text', text: 'Reading the notes first.' }], encrypted_content: 'gAAAA-host-1' });
    assert.equal(input[2]!['type'], 'function_call');
    assert.equal(input[3]!['type'], 'function_call_output');

    const items = turnstone.panelSnapshot().items;
    assert.deepEqual(items.map((i) => i.kind), ['user', 'thinking', 'tool', 'assistant']);
    const thinking = items[1] as { text?: string };
    assert.equal(thinking.text, 'Reading the notes first.');
    const sessionFile = turnstone.sessionFile();
    assert.ok(sessionFile);
    const saved = fs.readFileSync(sessionFile, 'utf8');
    assert.match(saved, /gAAAA-host-1/);
    assert.ok(!saved.includes('sk-openai-integration-key'), 'the key is not in the session file');
  });
});
