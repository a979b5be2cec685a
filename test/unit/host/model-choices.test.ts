// Issue 25, item 10: "opus" typed in the model picker selects the newest Opus.
// VS Code's quick pick sorts what matches the typed text itself (prefix matches
// first, then by name with numbers compared as numbers); this replays that rule
// (vs/base/common/comparers.ts compareAnything, VS Code 1.100) on our entries.
// The e2e test (test/e2e/panel-small-items.test.ts) types into the real picker.
import assert from 'node:assert/strict';
import { MODEL_CHOICES, modelPicks, newestOf } from '../../../src/host/model-choices';

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

describe('host: the model picker entries (issue 25, item 10)', () => {
  it('25.10: the newest of each family by the list order', () => {
    assert.equal(newestOf('opus'), 'claude-opus-5-5');
    assert.equal(newestOf('sonnet'), 'claude-sonnet-5-5');
    assert.equal(newestOf('haiku'), 'claude-haiku-5-5');
    assert.equal(newestOf('mythical'), undefined);
  });

  it('25.10: "opus" and "claude-opus" typed put the entry for the newest Opus first', () => {
    const picks = modelPicks('claude-sonnet-5-5');
    const labels = picks.map((p) => p.label);
    // What the bare ids alone would do: the older Opus first.
    assert.equal(quickPickOrder([...MODEL_CHOICES], 'opus')[0], 'claude-opus-4-8');
    for (const [typed, newest] of [['opus', 'claude-opus-5-5'], ['claude-opus', 'claude-opus-5-5'], ['Opus', 'claude-opus-5-5'], ['sonnet', 'claude-sonnet-5-5'], ['haiku', 'claude-haiku-5-5']] as const) {
      const first = quickPickOrder(labels, typed)[0]!;
      assert.equal(picks.find((p) => p.label === first)?.model, newest, `typed ${typed}: first is ${first}`);
    }
    // A precise id still finds that id.
    assert.equal(quickPickOrder(labels, 'opus-4-8')[0], 'claude-opus-4-8');
  });

  it('25.10: the current model is marked where it is; one the list lacks comes first', () => {
    assert.deepEqual(modelPicks('claude-opus-4-8').filter((p) => p.current).map((p) => p.label), ['claude-opus-4-8']);
    assert.equal(modelPicks('claude-opus-4-8')[0]!.label, 'claude-sonnet-5-5');
    const custom = modelPicks('llama3:8b');
    assert.deepEqual(custom[0], { label: 'llama3:8b', model: 'llama3:8b', current: true });
  });
});
