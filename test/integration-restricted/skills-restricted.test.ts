// Issue 29: in an untrusted workspace its own skills are not loaded.
import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import * as vscode from 'vscode';
import type { TurnstoneApi } from '../../src/extension';
import { MockAnthropicServer, textReply } from '../fixtures/mock-anthropic';

describe('29 skills in Restricted Mode', function () {
  this.timeout(60_000);
  let server: MockAnthropicServer;
  let turnstone: TurnstoneApi;
  const skills = () => path.join(vscode.workspace.workspaceFolders![0]!.uri.fsPath, '.claude', 'skills');

  before(async () => {
    server = await MockAnthropicServer.start();
    turnstone = await vscode.extensions.getExtension<TurnstoneApi>('turnstone.turnstone')!.activate();
    await vscode.workspace.getConfiguration('turnstone').update('baseUrl', server.url, vscode.ConfigurationTarget.Global);
    fs.mkdirSync(path.join(skills(), 'untrusted-skill'), { recursive: true });
    fs.writeFileSync(path.join(skills(), 'untrusted-skill', 'SKILL.md'), '---\nname: untrusted-skill\ndescription: Must not load\n---\nbody\n');
  });
  after(async () => {
    fs.rmSync(skills(), { recursive: true, force: true });
    await server.close();
  });

  it('a workspace skill is neither in the prompt nor offered as a tool', async () => {
    assert.equal(vscode.workspace.isTrusted, false);
    await vscode.commands.executeCommand('turnstone.newSession');
    server.enqueue(textReply('ok'));
    const summary = await turnstone.sendPrompt('hello');
    assert.equal(summary.outcome, 'completed');
    const body = server.bodies.at(-1)!;
    assert.ok(!JSON.stringify(body.system).includes('untrusted-skill'));
    assert.ok(!(body.tools as Array<{ name: string }>).some((t) => t.name === 'skill'));
  });
});
