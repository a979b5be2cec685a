// Issue 29, Agent Skills in the real extension host: a workspace skill's name
// and description reach the system prompt (its body does not), and the skill
// tool loads its body in a turn.
import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import * as vscode from 'vscode';
import type { TurnstoneApi } from '../../src/extension';
import { MockAnthropicServer, textReply, toolUseReply } from '../fixtures/mock-anthropic';

const root = () => vscode.workspace.workspaceFolders![0]!.uri.fsPath;
const systemOf = (body: Record<string, unknown> | undefined) => JSON.stringify(body?.system ?? '');

describe('29 skills in the extension host', function () {
  this.timeout(60_000);
  let server: MockAnthropicServer;
  let turnstone: TurnstoneApi;
  const skillDir = () => path.join(root(), '.turnstone', 'skills', 'int-skill');

  before(async () => {
    server = await MockAnthropicServer.start();
    turnstone = await vscode.extensions.getExtension<TurnstoneApi>('turnstone.turnstone')!.activate();
    await vscode.workspace.getConfiguration('turnstone').update('baseUrl', server.url, vscode.ConfigurationTarget.Global);
    fs.mkdirSync(path.join(skillDir(), 'scripts'), { recursive: true });
    fs.writeFileSync(path.join(skillDir(), 'SKILL.md'), '---\nname: int-skill\ndescription: Integration skill for tests\n---\nINTEGRATION-SKILL-BODY\n');
    fs.writeFileSync(path.join(skillDir(), 'scripts', 'run.sh'), 'echo hi\n');
  });
  after(async () => {
    fs.rmSync(path.join(root(), '.turnstone', 'skills'), { recursive: true, force: true });
    await vscode.workspace.getConfiguration('turnstone').update('baseUrl', undefined, vscode.ConfigurationTarget.Global);
    await server.close();
  });
  beforeEach(async () => {
    server.reset();
    await vscode.commands.executeCommand('turnstone.newSession');
  });

  it('the prompt names the skill without its body; the skill tool returns the body and its files', async () => {
    server.enqueue(toolUseReply([{ id: 'tu_skill', name: 'skill', input: { name: 'int-skill' } }]), textReply('ok'));
    const summary = await turnstone.sendPrompt('use the skill');
    assert.equal(summary.outcome, 'completed');
    const system = systemOf(server.bodies[0]);
    assert.match(system, /- int-skill: Integration skill for tests/);
    assert.ok(!system.includes('INTEGRATION-SKILL-BODY'));
    const result = summary.toolResults.find((r) => r.name === 'skill');
    assert.equal(result?.isError, false);
    const messages = server.bodies[1]!.messages as Array<{ content: unknown }>;
    const sent = JSON.stringify(messages.at(-1)!.content);
    assert.match(sent, /INTEGRATION-SKILL-BODY/);
    assert.match(sent, /- scripts\/run\.sh/);
    // Both steps sent the same prefix.
    assert.equal(systemOf(server.bodies[1]), system);
  });
});
