// Issue 25, item 10: "opus" typed in the model picker selects the newest Opus.
// VS Code's quick pick sorts what matches the typed text itself (prefix matches
// first, then by name with numbers compared as numbers); this replays that rule
// (vs/base/common/comparers.ts compareAnything, VS Code 1.100) on our entries.
// The e2e test (test/e2e/panel-model-label.test.ts) types into the real picker.
import assert from 'node:assert/strict';
import { factsLine, familyEntries, listNeedsKey, MODEL_CHOICES, newestOf, type PickerRow, pickerRows, providerListLabel, withCurrentModel } from '../../../src/host/model-choices';
import { listSourceFor, presetById } from '../../../src/runtime/providers/presets';

const collator = new Intl.Collator(undefined, { numeric: true, sensitivity: 'base' });
function quickPickOrder(labels: string[], typed: string): string[] {
  const q = typed.toLowerCase();
  const matching = labels.filter((l) => l.toLowerCase().includes(q));
  return matching.sort((a, b) => {
    const [x, y] = [a.toLowerCase(), b.toLowerCase()];
    const px = x.startsWith(q);
    const py = y.startsWith(q);
    if (px !== py) return px ? -1 : 1;
    if (px && py && x.length !== y.length) return x.length - y.length;
    const sx = x.endsWith(q);
    const sy = y.endsWith(q);
    if (sx !== sy) return sx ? -1 : 1;
    return collator.compare(x, y) || x.localeCompare(y);
  });
}

/** The model rows of the picker's built-in Anthropic list, as src/host/model-picker.ts builds them. */
function builtInRows(current: string): Array<Extract<PickerRow, { kind: 'model' }>> {
  const models = [...withCurrentModel(MODEL_CHOICES.map((id) => ({ id })), current), ...familyEntries(MODEL_CHOICES).map((f) => ({ id: f.model, label: f.label }))];
  const source = { id: 'provider', label: 'Anthropic', load: () => Promise.reject(new Error('not loaded here')) };
  return pickerRows([{ source, loaded: { models } }], { model: current, provider: 'anthropic', baseUrl: undefined }).flatMap((r) => (r.kind === 'model' ? [r] : []));
}

describe('host: the model picker entries (issue 25, item 10)', () => {
  it('25.10: the newest of each family by the list order', () => {
    assert.equal(newestOf('opus'), 'claude-opus-5-5');
    assert.equal(newestOf('sonnet'), 'claude-sonnet-5-5');
    assert.equal(newestOf('haiku'), 'claude-haiku-5-5');
    assert.equal(newestOf('mythical'), undefined);
  });

  it('25.10: "opus" and "claude-opus" typed put the entry for the newest Opus first', () => {
    const picks = builtInRows('claude-sonnet-5-5');
    const labels = picks.map((p) => p.label);
    // What the bare ids alone would do: the older Opus first.
    assert.equal(quickPickOrder([...MODEL_CHOICES], 'opus')[0], 'claude-opus-4-8');
    for (const [typed, newest] of [['opus', 'claude-opus-5-5'], ['claude-opus', 'claude-opus-5-5'], ['Opus', 'claude-opus-5-5'], ['sonnet', 'claude-sonnet-5-5'], ['haiku', 'claude-haiku-5-5']] as const) {
      const first = quickPickOrder(labels, typed)[0]!;
      assert.equal(picks.find((p) => p.label === first)?.choice.model, newest, `typed ${typed}: first is ${first}`);
    }
    // A precise id still finds that id.
    assert.equal(quickPickOrder(labels, 'opus-4-8')[0], 'claude-opus-4-8');
  });

  it('25.10: the current model is marked and comes first; one the list lacks comes first too', () => {
    assert.deepEqual(builtInRows('claude-opus-4-8').filter((p) => p.current).map((p) => p.label), ['claude-opus-4-8']);
    // First, not where the list has it: VS Code opens the list on its first row (see pickerRows).
    assert.equal(builtInRows('claude-opus-4-8')[0]!.label, 'claude-opus-4-8');
    const custom = builtInRows('llama3:8b');
    assert.deepEqual(custom[0], { kind: 'model', label: 'llama3:8b', description: 'current', current: true, choice: { model: 'llama3:8b' } });
    assert.equal(custom.length, MODEL_CHOICES.length + 1 + 3, 'the list, the typed id, and one entry per family');
  });
});

describe('host: the model picker as a list of sources (issue 31)', () => {
  const source = (id: string, label: string) => ({ id, label, load: () => Promise.reject(new Error('not loaded here')) });

  it('each model with its window and price ("200k · $3/$15"); what is unknown is left out', () => {
    assert.equal(factsLine({ id: 'a', contextWindow: 200_000, price: { inputPerMTok: 3, outputPerMTok: 15 } }), '200k · $3/$15');
    assert.equal(factsLine({ id: 'b', contextWindow: 1_047_576, price: { inputPerMTok: 0.27, outputPerMTok: 1.1 } }), '1.05M · $0.27/$1.1');
    assert.equal(factsLine({ id: 'c', contextWindow: 32_768 }), '33k');
    assert.equal(factsLine({ id: 'd', price: { inputPerMTok: 0, outputPerMTok: 0 } }), 'free');
    assert.equal(factsLine({ id: 'e' }), '');
  });

  it('sources in order, each under its separator with its note (offline: the saved list); the current model marked only on its own server', () => {
    const rows = pickerRows(
      [
        { source: source('provider', 'Anthropic'), loaded: { models: [{ id: 'claude-sonnet-5-5', contextWindow: 200_000, price: { inputPerMTok: 3, outputPerMTok: 15 } }, { id: 'claude-opus-5-5' }, { id: 'claude-opus-5-5', label: 'claude-opus', name: 'newest: claude-opus-5-5' }], note: 'offline: the list saved 1/12/2026' } },
        { source: source('preset:openrouter', 'OpenRouter'), loaded: { models: [{ id: 'claude-sonnet-5-5' }], choice: { provider: 'openai-compatible', baseUrl: 'https://openrouter.ai/api/v1' } } },
        { source: source('vscode-lm', 'Empty'), loaded: { models: [] } },
      ],
      { model: 'claude-sonnet-5-5', provider: 'anthropic', baseUrl: undefined },
    );
    assert.deepEqual(
      rows.map((r) => (r.kind === 'separator' ? `-- ${r.label}` : `${r.label} [${r.description}]${r.current ? ' *' : ''}`)),
      [
        '-- Anthropic (offline: the list saved 1/12/2026)',
        'claude-sonnet-5-5 [current · 200k · $3/$15] *',
        'claude-opus-5-5 []',
        'claude-opus [newest: claude-opus-5-5]',
        '-- OpenRouter',
        'claude-sonnet-5-5 []',
      ],
    );
    const openRouterRow = rows.at(-1)!;
    assert.ok(openRouterRow.kind === 'model');
    assert.deepEqual(openRouterRow.choice, { provider: 'openai-compatible', baseUrl: 'https://openrouter.ai/api/v1', model: 'claude-sonnet-5-5' });
    // The same model on OpenRouter is current once OpenRouter is the server in use.
    const onRouter = pickerRows([{ source: source('p', 'OpenRouter'), loaded: { models: [{ id: 'm' }], choice: { provider: 'openai-compatible', baseUrl: 'https://openrouter.ai/api/v1' } } }], { model: 'm', provider: 'openai-compatible', baseUrl: 'https://openrouter.ai/api/v1/' });
    assert.equal(onRouter[1]?.kind === 'model' && onRouter[1].current, true);
  });

  it('25.10: the current model is the first row of its source, so the list opens on it with no active row set from the host', () => {
    const rows = pickerRows(
      [{ source: source('provider', 'Anthropic'), loaded: { models: [{ id: 'claude-opus-5-5' }, { id: 'claude-sonnet-5-5' }, { id: 'claude-opus-4-8' }, { id: 'claude-opus-5-5', label: 'claude-opus' }] } }],
      { model: 'claude-opus-4-8', provider: 'anthropic', baseUrl: undefined },
    );
    assert.deepEqual(
      rows.map((r) => (r.kind === 'separator' ? `-- ${r.label}` : `${r.label}${r.current ? ' *' : ''}`)),
      ['-- Anthropic', 'claude-opus-4-8 *', 'claude-opus-5-5', 'claude-sonnet-5-5', 'claude-opus'],
    );
  });

  it("issue 42 item 17: with provider openai the picker's own list is OpenAI's (or the proxy's it is pointed at), never \"set turnstone.baseUrl\"; without a key it says so", () => {
    // model-picker.ts lists the provider in use from listSourceFor, under providerListLabel, after listNeedsKey.
    assert.deepEqual(listSourceFor('openai', undefined), { shape: 'openai', baseUrl: 'https://api.openai.com/v1' });
    assert.deepEqual(listSourceFor('openai', 'http://litellm.local:4000/v1'), { shape: 'openai', baseUrl: 'http://litellm.local:4000/v1' });
    assert.equal(providerListLabel('openai', undefined, undefined, 'OpenAI-compatible server'), 'OpenAI');
    assert.equal(providerListLabel('openai', 'http://litellm.local:4000/v1', undefined, 'OpenAI-compatible server'), 'http://litellm.local:4000/v1');
    assert.equal(providerListLabel('openai-compatible', undefined, undefined, 'OpenAI-compatible server'), 'OpenAI-compatible server');
    assert.equal(providerListLabel('openai-compatible', 'https://openrouter.ai/api/v1', presetById('openrouter'), 'x'), 'OpenRouter');
    assert.equal(providerListLabel('anthropic', undefined, undefined, 'x'), 'Anthropic');
    assert.equal(listNeedsKey('openai', undefined), true);
    assert.equal(listNeedsKey('anthropic', undefined), true);
    assert.equal(listNeedsKey('openai-compatible', presetById('openrouter')), true);
    assert.equal(listNeedsKey('openai-compatible', presetById('ollama')), false, 'a local server needs none');
    assert.equal(listNeedsKey('openai-compatible', undefined), false);
  });

  it('family entries follow a live list in its order (newest first)', () => {
    assert.deepEqual(familyEntries(['claude-opus-6', 'claude-sonnet-6', 'claude-opus-5-5']), [
      { label: 'claude-opus', model: 'claude-opus-6' },
      { label: 'claude-sonnet', model: 'claude-sonnet-6' },
    ]);
  });
});
