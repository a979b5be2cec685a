// Issue 14 through the real extension host: the context and spend settings
// reach the runtime (a settings change rebuilds it before the next turn).
import * as assert from 'node:assert/strict';
import * as vscode from 'vscode';
import { MockAnthropicServer, textReply, toolUseReply } from '../fixtures/mock-anthropic';

const config = () => vscode.workspace.getConfiguration('turnstone');

interface Summary {
  outcome: string;
  error?: { kind: string; message: string };
  context: { tokens: number; window: number; percent: number };
}

describe('context and spend settings in the real extension host', function () {
  this.timeout(60_000);
  let server: MockAnthropicServer;

  before(async () => {
    server = await MockAnthropicServer.start();
    await vscode.extensions.getExtension('turnstone.turnstone')!.activate();
    await config().update('baseUrl', server.url, vscode.ConfigurationTarget.Global);
  });
  after(async () => {
    for (const key of ['baseUrl', 'maxCostPerTurnUsd', 'maxOutputTokens', 'contextWindow']) await config().update(key, undefined, vscode.ConfigurationTarget.Global);
    await server.close();
  });
  beforeEach(async () => {
    server.reset();
    await vscode.commands.executeCommand('turnstone.newSession');
  });

  it('turnstone.maxCostPerTurnUsd stops the turn before the request that could pass it: failed, kind budget', async () => {
    await config().update('maxCostPerTurnUsd', 0.05, vscode.ConfigurationTarget.Global);
    // Each request reserves its whole reply limit (issue 26): 1000 tokens ($0.015 at sonnet prices) lets the first go.
    await config().update('maxOutputTokens', 1000, vscode.ConfigurationTarget.Global);
    server.enqueue(toolUseReply([{ id: 'tu_1', name: 'glob_search', input: { pattern: '*.none' } }], { usage: { input_tokens: 20_000, output_tokens: 100 } }), textReply('never sent'));
    const summary = (await vscode.commands.executeCommand('turnstone.sendPrompt', 'look around')) as Summary;
    assert.equal(summary.outcome, 'failed');
    assert.equal(summary.error?.kind, 'budget');
    assert.match(summary.error!.message, /per-turn cap of \$0\.05/);
    assert.equal(server.requests.length, 1);
    await config().update('maxCostPerTurnUsd', undefined, vscode.ConfigurationTarget.Global);
    await config().update('maxOutputTokens', undefined, vscode.ConfigurationTarget.Global);
  });

  it('turnstone.contextWindow overrides the model table, also for a session already running', async () => {
    server.enqueue(textReply('first'), textReply('second'));
    const first = (await vscode.commands.executeCommand('turnstone.sendPrompt', 'hello')) as Summary;
    assert.equal(first.context.window, 200_000);
    await config().update('contextWindow', 50_000, vscode.ConfigurationTarget.Global);
    const second = (await vscode.commands.executeCommand('turnstone.sendPrompt', 'again')) as Summary;
    assert.equal(second.outcome, 'completed');
    assert.equal(second.context.window, 50_000);
    assert.equal(second.context.percent, Math.round((second.context.tokens / 50_000) * 1000) / 10);
  });
});
