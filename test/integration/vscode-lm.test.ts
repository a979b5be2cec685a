// Issue 30, provider vscode-lm in an editor with no language model provider
// (the test host runs with its AI features off): the model picker says so
// instead of showing an empty list, and a turn fails with a message naming what
// to do rather than sending anything anywhere.
import * as assert from 'node:assert/strict';
import * as vscode from 'vscode';
import { languageModelItems } from '../../src/host/language-model/lm-picker';
import { type TurnSummary } from '../../src/runtime/events';

describe('30: provider vscode-lm where the editor has no language model', function () {
  this.timeout(60_000);
  const c = () => vscode.workspace.getConfiguration('turnstone');
  const G = vscode.ConfigurationTarget.Global;
  after(async () => {
    await c().update('provider', undefined, G);
    await c().update('model', undefined, G);
  });

  it('the picker has one item saying there are none and what to install or set', async () => {
    const items = await languageModelItems('copilot/gpt-4o');
    assert.equal(items.length, 1);
    assert.equal(items[0]?.label, 'No language models in this editor');
    assert.match(items[0]?.detail ?? '', /GitHub Copilot Chat/);
    assert.match(items[0]?.detail ?? '', /turnstone\.provider/);
    assert.equal((items[0] as { model?: string }).model, undefined, 'picking it sets no model');
  });

  it('a turn fails with a message naming the fix', async () => {
    await c().update('provider', 'vscode-lm', G);
    await c().update('model', 'copilot/gpt-4o', G);
    const turn = (await vscode.commands.executeCommand('turnstone.sendPrompt', 'hello')) as TurnSummary;
    assert.equal(turn.outcome, 'failed');
    assert.match(turn.error?.message ?? '', /no language model provider/);
    assert.match(turn.error?.message ?? '', /turnstone\.provider/);
  });
});
