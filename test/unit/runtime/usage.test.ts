import assert from 'node:assert/strict';
import { ConversationRuntime } from '../../../src/runtime/loop/conversation';
import { type RuntimeEvent } from '../../../src/runtime/events';
import { costUsd, modelFamily, priceFor, UsageTracker } from '../../../src/runtime/spend/usage';
import { baseConfig, memoryTools, recordEvents, ScriptedModel, step, usage } from './fakes';

describe('runtime: usage and turn diff', () => {
  it('C4: prices come per model family, cache writes cost 1.25× and reads 0.1× of input', () => {
    assert.equal(modelFamily('claude-opus-5-5'), 'opus');
    assert.equal(modelFamily('claude-haiku-4-5-20251001'), 'haiku');
    assert.equal(priceFor('llama3.2:latest'), undefined);
    const sonnet = priceFor('claude-sonnet-5-5')!;
    assert.equal(costUsd(usage(1_000_000, 0), sonnet), sonnet.inputPerMTok);
    assert.equal(costUsd(usage(0, 1_000_000), sonnet), sonnet.outputPerMTok);
    assert.equal(costUsd(usage(0, 0, 0, 1_000_000), sonnet), sonnet.inputPerMTok * 1.25);
    assert.ok(Math.abs(costUsd(usage(0, 0, 1_000_000, 0), sonnet) - sonnet.inputPerMTok * 0.1) < 1e-9);
    assert.equal(costUsd(usage(1_000_000), priceFor('llama3')), 0, 'unknown models cost nothing rather than a guess');
    const overridden = priceFor('claude-sonnet-5-5', { sonnet: { inputPerMTok: 10, outputPerMTok: 20 } })!;
    assert.equal(overridden.inputPerMTok, 10);
    assert.equal(priceFor('my-proxy-model', { 'my-proxy-model': { inputPerMTok: 1, outputPerMTok: 2 } })?.outputPerMTok, 2);
  });

  it('C4: usage is reported per step and cumulatively, including cache tokens, and resumes from a session', async () => {
    const model = new ScriptedModel([
      step('', [{ id: 'a', name: 'read_file', input: { path: 'x' } }], usage(100, 20, 0, 1000)),
      step('ok', [], usage(50, 10, 1000, 0)),
    ]);
    const rt = new ConversationRuntime({ model, tools: memoryTools({ x: 'X' }) }, { ...baseConfig, prices: { sonnet: { inputPerMTok: 1_000_000, outputPerMTok: 1_000_000 } } });
    const events = recordEvents(rt);
    const s = await rt.runTurn('go');
    const usageEvents = events.filter((e): e is Extract<RuntimeEvent, { type: 'usage' }> => e.type === 'usage');
    assert.equal(usageEvents.length, 2);
    assert.deepEqual(usageEvents[1]!.step, usage(50, 10, 1000, 0));
    assert.deepEqual(usageEvents[1]!.cumulative, { input_tokens: 150, output_tokens: 30, cache_read_input_tokens: 1000, cache_creation_input_tokens: 1000 });
    // input 1 $/token, output 1, cache write 1.25, cache read 0.1
    assert.equal(usageEvents[0]!.stepCostUsd, 100 + 20 + 1250);
    assert.equal(usageEvents[1]!.costUsd, 100 + 20 + 1250 + 50 + 10 + 100);
    assert.equal(s.costUsd, usageEvents[1]!.costUsd);
    const tracker = new UsageTracker('claude-sonnet-5-5', {}, s.usage);
    assert.deepEqual(tracker.cumulative, s.usage);
  });

  it('C5: the turn diff keeps each file as it was before the turn first changed it, and as it ended', async () => {
    const model = new ScriptedModel([
      step('', [{ id: 'a', name: 'edit_file', input: { path: 'a.ts', old_string: 'one', new_string: 'two' } }]),
      step('', [
        { id: 'b', name: 'edit_file', input: { path: 'a.ts', old_string: 'two', new_string: 'three' } },
        { id: 'c', name: 'write_file', input: { path: 'new.ts', content: 'fresh' } },
      ]),
      step('done'),
    ]);
    const rt = new ConversationRuntime({ model, tools: memoryTools({ 'a.ts': 'one' }) }, { ...baseConfig, permissionMode: 'acceptEdits' });
    const events = recordEvents(rt);
    const s = await rt.runTurn('edit twice');
    assert.deepEqual(s.fileChanges, [
      { path: 'a.ts', before: 'one', after: 'three' },
      { path: 'new.ts', before: null, after: 'fresh' },
    ]);
    assert.ok(events.some((e) => e.type === 'tool_finished' && e.fileChange?.path === 'new.ts'));

    const back = new ConversationRuntime(
      { model: new ScriptedModel([step('', [{ id: 'd', name: 'edit_file', input: { path: 'a.ts', old_string: 'one', new_string: 'two' } }]), step('', [{ id: 'e', name: 'edit_file', input: { path: 'a.ts', old_string: 'two', new_string: 'one' } }]), step('done')]), tools: memoryTools({ 'a.ts': 'one' }) },
      { ...baseConfig, permissionMode: 'acceptEdits' },
    );
    assert.deepEqual((await back.runTurn('edit and edit back')).fileChanges, [], 'a file changed and changed back is not in the turn\'s changes');
  });
});
