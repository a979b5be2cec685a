// Issue 31: a window or price found in a provider's live list reaches the loop,
// below the user's settings and above the built-in tables: the compaction
// threshold follows the listed window, a spend cap holds with the listed price.
import assert from 'node:assert/strict';
import manifest from '../../../package.json';
import { parseSettingsObject, type SettingSchema, type TurnstoneSettings } from '../../../src/agent/settings';
import { createTurnContext } from '../../../src/agent/turn-context';
import { ConversationRuntime } from '../../../src/runtime/loop/conversation';
import { type ListedModel } from '../../../src/runtime/providers/model-lists';
import { withLiveFacts } from '../../../src/runtime/providers/model-facts';
import { type PriceTable, priceFor } from '../../../src/runtime/spend/usage';
import { withTurnFacts } from '../../../src/host/model-choices';
import { memoryTools, recordEvents, ScriptedModel, step, usage } from './fakes';

const schema = manifest.contributes.configuration.properties as Record<string, SettingSchema>;
const LOCAL = 'vendor/local-coder';

function settings(extra: Record<string, unknown> = {}): TurnstoneSettings {
  return parseSettingsObject({ 'turnstone.model': LOCAL, 'turnstone.provider': 'openai-compatible', ...extra }, schema, 'test');
}

function runtime(s: TurnstoneSettings, liveModel: ListedModel | undefined, model: ScriptedModel, files: Record<string, string> = {}, cliPrices?: PriceTable) {
  const warnings: string[] = [];
  const context = createTurnContext({
    settings: s,
    permissionMode: 'bypassPermissions',
    model,
    builtInTools: () => memoryTools(files),
    systemPrompt: 'You are a test agent.',
    hooksCwd: undefined,
    liveModel,
    ...(cliPrices ? { prices: cliPrices } : {}),
    warn: (m) => warnings.push(m),
  });
  return { context, rt: new ConversationRuntime({ model: context.model, tools: context.tools }, { ...context.config, env: {} }) };
}

describe('runtime: live model facts reach the loop (issue 31)', () => {
  it('precedence: settings, then the live list, then the built-in tables', () => {
    const live: ListedModel = { id: 'claude-sonnet-5-5', contextWindow: 1_000_000, price: { inputPerMTok: 6, outputPerMTok: 22.5 } };
    // Live over built-in (the table says 200k and $3/$15).
    const fromLive = withLiveFacts(live.id, live, { contextWindow: 0, prices: {} });
    assert.equal(fromLive.contextWindow, 1_000_000);
    assert.deepEqual(priceFor(live.id, fromLive.prices), live.price);
    // Settings over live: the window, an exact price, a family price.
    assert.equal(withLiveFacts(live.id, live, { contextWindow: 150_000, prices: {} }).contextWindow, 150_000);
    assert.equal(priceFor(live.id, withLiveFacts(live.id, live, { contextWindow: 0, prices: { 'claude-sonnet-5-5': { inputPerMTok: 1, outputPerMTok: 2 } } }).prices)?.inputPerMTok, 1);
    assert.equal(priceFor(live.id, withLiveFacts(live.id, live, { contextWindow: 0, prices: { sonnet: { inputPerMTok: 2, outputPerMTok: 4 } } }).prices)?.inputPerMTok, 2);
    // Nothing live: the built-in table (0 = the table's window).
    const builtIn = withLiveFacts(live.id, undefined, { contextWindow: 0, prices: {} });
    assert.equal(builtIn.contextWindow, 0);
    assert.equal(priceFor(live.id, builtIn.prices)?.inputPerMTok, 3);
    // The picker shows the same: built-in where the list is silent.
    assert.deepEqual(withTurnFacts({ id: 'claude-opus-5-5' }, { contextWindow: 0, prices: {} }), { id: 'claude-opus-5-5', name: undefined, contextWindow: 200_000, price: { inputPerMTok: 5, outputPerMTok: 25 } });
  });

  it("the compaction threshold follows the listed window (an unlisted model's default window would not compact yet)", async () => {
    const files = { big: 'x'.repeat(36_000) };
    const steps = () => [step('', [{ id: 'r1', name: 'read_file', input: { path: 'big' } }], usage(1_000, 50)), step('done', [], usage(2_000, 10))];
    // ~9k tokens after the read: over 85% of a listed 10k window, far under the unknown-model default of 32k.
    const listed = runtime(settings(), { id: LOCAL, contextWindow: 10_000 }, new ScriptedModel(steps()), files);
    assert.equal(listed.context.config.contextWindow, 10_000);
    const events = recordEvents(listed.rt);
    const s = await listed.rt.runTurn('read big');
    assert.equal(s.context.window, 10_000);
    assert.ok(events.some((e) => e.type === 'compaction'), 'compacted before the second request');

    const unlisted = runtime(settings(), undefined, new ScriptedModel(steps()), files);
    const quiet = recordEvents(unlisted.rt);
    const t = await unlisted.rt.runTurn('read big');
    assert.equal(t.context.window, 32_000);
    assert.ok(!quiet.some((e) => e.type === 'compaction'));

    // turnstone.contextWindow still wins over the list.
    const set = runtime(settings({ 'turnstone.contextWindow': 64_000 }), { id: LOCAL, contextWindow: 10_000 }, new ScriptedModel(steps()), files);
    assert.equal(set.context.config.contextWindow, 64_000);
  });

  it('a spend cap holds with the listed price; without any price a capped request is refused (issue 42 item 11)', async () => {
    // 8192 reply tokens at a listed $15/M could cost $0.12: over a $0.10 cap, so nothing is sent.
    const live: ListedModel = { id: LOCAL, contextWindow: 200_000, price: { inputPerMTok: 3, outputPerMTok: 15 } };
    const capped = new ScriptedModel([step('hi')]);
    const { rt } = runtime(settings({ 'turnstone.maxCostPerTurnUsd': 0.1 }), live, capped);
    const s = await rt.runTurn('hello');
    assert.equal(s.outcome, 'failed');
    assert.equal(s.error?.kind, 'budget');
    assert.equal(capped.requests.length, 0);

    const unpriced = new ScriptedModel([step('hi')]);
    const u = runtime(settings({ 'turnstone.maxCostPerTurnUsd': 0.1 }), { id: LOCAL, contextWindow: 200_000 }, unpriced);
    const t = await u.rt.runTurn('hello');
    assert.equal(t.error?.kind, 'unpriced', 'a capped request to a model without a price is refused (issue 42 item 11)');
    assert.equal(unpriced.requests.length, 0);

    // A settings price is the user's word, above the list's: $0.01/M makes the same request fit the cap.
    const cheap = new ScriptedModel([step('hi')]);
    const c = runtime(settings({ 'turnstone.maxCostPerTurnUsd': 0.1, 'turnstone.modelPrices': { [LOCAL]: { input: 0.01, output: 0.01 } } }), live, cheap);
    assert.equal((await c.rt.runTurn('hello')).outcome, 'completed');
  });

  it('--model-prices wins over turnstone.modelPrices (and the live list) for the same model; the setting still prices the models the file leaves out', () => {
    const fromFile = { inputPerMTok: 7, outputPerMTok: 9 };
    const s = settings({ 'turnstone.modelPrices': { [LOCAL]: { input: 1, output: 2 }, 'other/model': { input: 3, output: 4 } } });
    const live: ListedModel = { id: LOCAL, contextWindow: 200_000, price: { inputPerMTok: 5, outputPerMTok: 6 } };
    for (const listed of [undefined, live]) {
      const { context } = runtime(s, listed, new ScriptedModel([]), {}, { [LOCAL]: fromFile });
      const label = listed ? 'with a live price' : 'without a live price';
      assert.deepEqual(priceFor(LOCAL, context.config.prices), fromFile, `${label}: the price the turn uses for ${LOCAL}`);
      assert.equal(priceFor('other/model', context.config.prices)?.inputPerMTok, 3, `${label}: the setting's price for a model the file does not name`);
    }
  });
});
