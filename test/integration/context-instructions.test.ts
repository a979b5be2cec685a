// Project instructions in the real extension host (contracts.md "Project
// instructions"): the files reach the request at the mock API through
// vscode.workspace.fs, and an edited file changes the prefix at the next turn.
import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import * as vscode from 'vscode';
import type { TurnstoneApi } from '../../src/extension';
import { MockAnthropicServer, textReply, toolUseReply } from '../fixtures/mock-anthropic';

const root = () => vscode.workspace.workspaceFolders![0]!.uri.fsPath;
const systemOf = (body: Record<string, unknown> | undefined) => JSON.stringify(body?.system ?? '');

describe('project instructions in the extension host', function () {
  this.timeout(60_000);
  let server: MockAnthropicServer;
  let turnstone: TurnstoneApi;
  const created: string[] = [];
  const put = (rel: string, text: string) => {
    const file = path.join(root(), rel);
    fs.mkdirSync(path.dirname(file), { recursive: true });
    fs.writeFileSync(file, text);
    created.push(file);
  };

  before(async () => {
    server = await MockAnthropicServer.start();
    turnstone = await vscode.extensions.getExtension<TurnstoneApi>('turnstone.turnstone')!.activate();
    await vscode.workspace.getConfiguration('turnstone').update('baseUrl', server.url, vscode.ConfigurationTarget.Global);
  });
  after(async () => {
    for (const f of created) fs.rmSync(f, { recursive: true, force: true });
    fs.rmSync(path.join(root(), '.clinerules'), { recursive: true, force: true });
    await vscode.workspace.getConfiguration('turnstone').update('baseUrl', undefined, vscode.ConfigurationTarget.Global);
    await server.close();
  });
  beforeEach(async () => {
    server.reset();
    await vscode.commands.executeCommand('turnstone.newSession');
  });

  it('AGENTS.md, CLAUDE.md and a .clinerules folder reach the system prompt after Turnstone\'s own, in order', async () => {
    put('AGENTS.md', 'Integration rule from AGENTS.');
    put('CLAUDE.md', 'Integration rule from CLAUDE.');
    put('.clinerules/style.md', 'Integration rule from Cline.');
    server.enqueue(toolUseReply([{ id: 'tu_g', name: 'glob_search', input: { pattern: '*.md' } }]), textReply('ok'));
    const summary = await turnstone.sendPrompt('hello');
    assert.equal(summary.outcome, 'completed');
    const system = systemOf(server.bodies[0]);
    const at = (s: string) => system.indexOf(s);
    assert.ok(at('You are Turnstone') >= 0 && at('You are Turnstone') < at('Instructions from AGENTS.md:\\nIntegration rule from AGENTS.'), system);
    assert.ok(at('Instructions from AGENTS.md') < at('Instructions from CLAUDE.md:\\nIntegration rule from CLAUDE.'));
    assert.ok(at('Instructions from CLAUDE.md') < at('Instructions from .clinerules/style.md:\\nIntegration rule from Cline.'));
    // S7: both steps of the turn sent the same bytes.
    assert.equal(systemOf(server.bodies[1]), system);
  });

  it('re-reads the files at the next turn: an edit changes the prefix once', async () => {
    put('AGENTS.md', 'First version.');
    server.enqueue(textReply('one'), textReply('two'), textReply('three'));
    await turnstone.sendPrompt('one');
    put('AGENTS.md', 'Second version.');
    await turnstone.sendPrompt('two');
    await turnstone.sendPrompt('three');
    const systems = server.bodies.map(systemOf);
    assert.ok(systems[0]!.includes('First version.'));
    assert.ok(systems[1]!.includes('Second version.') && !systems[1]!.includes('First version.'));
    assert.equal(systems[2], systems[1]);
  });

  it('does not follow an AGENTS.md symlink that leads outside the workspace', async () => {
    const outside = path.join(path.dirname(root()), `outside-${Date.now()}.md`);
    fs.writeFileSync(outside, 'Secret outside text.');
    try {
      const link = path.join(root(), 'AGENTS.md');
      fs.rmSync(link, { force: true });
      fs.symlinkSync(outside, link);
      created.push(link);
      server.enqueue(textReply('ok'));
      await turnstone.sendPrompt('hello');
      assert.ok(!systemOf(server.bodies[0]).includes('Secret outside text.'));
    } finally {
      fs.rmSync(outside, { force: true });
    }
  });
});
