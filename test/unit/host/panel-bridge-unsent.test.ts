// Issue 47 items 4–5: what the panel says of a user message the model has not got. The bridge marks the
// messages of a turn that failed before any reply "failed" (Retry, Edit), a Retry clears the mark, a new
// prompt after a failure leaves the failed one "not_sent" (Edit only), and a message held for a key is
// "waiting_key" until its turn starts. (The browser e2e, test/e2e/panel-issue47.test.ts, renders them.)
import assert from 'node:assert/strict';
import { PanelBridge } from '../../../src/host/panel/panel-bridge';
import { ConversationRuntime } from '../../../src/runtime/loop/conversation';
import { type HostEvent, HostEvent as HostEventSchema, type TranscriptItem } from '../../../src/webview/protocol';
import { ModelError } from '../../../src/runtime/types';
import { baseConfig, memoryTools, ScriptedModel, step } from '../runtime/fakes';

type UserItem = Extract<TranscriptItem, { kind: 'user' }>;

function setup(script: ConstructorParameters<typeof ScriptedModel>[0]) {
  const model = new ScriptedModel(script);
  const rt = new ConversationRuntime({ model, tools: memoryTools() }, baseConfig);
  const out: HostEvent[] = [];
  const bridge = new PanelBridge((e) => out.push(e), {});
  rt.subscribe((event) => bridge.handle(event));
  /** The message as the panel shows it now (its last item_add). */
  const shown = (id: string) => out.flatMap((e) => (e.type === 'item_add' && e.item.kind === 'user' && e.item.id === id ? [e.item as UserItem] : [])).at(-1)!;
  const valid = () => {
    for (const e of out) assert.ok(HostEventSchema.safeParse(e).success, `valid: ${JSON.stringify(e).slice(0, 200)}`);
  };
  return { rt, bridge, model, out, shown, valid };
}

// Not retried (a 400): the turn fails on its first request, as an exhausted 529 does after its retries.
const refused = () => new ModelError('invalid_request', 'refused', { status: 400 });

describe('panel bridge: messages the model has not got (issue 47)', () => {
  it('issue 47 item 5: a turn that fails before any reply leaves its message failed; Retry clears it', async () => {
    const { rt, bridge, shown, valid } = setup([refused(), step('Hello.')]);
    const id = bridge.userMessage({ text: 'hello' });
    await rt.runTurn('hello');
    assert.equal(shown(id).unsent, 'failed');
    await rt.runTurn('');
    assert.equal(shown(id).unsent, undefined, 'the retry sent it');
    valid();
  });

  it('issue 47 item 5: a new prompt after a failed one: the failed one is not sent (Edit only), the new one is sent', async () => {
    const { rt, bridge, shown, valid } = setup([refused(), step('Done.')]);
    const first = bridge.userMessage({ text: 'first' });
    await rt.runTurn('first');
    assert.equal(shown(first).unsent, 'failed');
    const second = bridge.userMessage({ text: 'second' });
    await rt.runTurn('second');
    assert.equal(shown(first).unsent, 'not_sent');
    assert.equal(shown(second).unsent, undefined);
    valid();
  });

  it('issue 47 item 5: a turn that failed after a reply (tool results kept) marks nothing', async () => {
    const { rt, bridge, out, valid } = setup([step('Looking.', [{ id: 'tu1', name: 'read_file', input: { path: 'a.ts' } }]), refused()]);
    bridge.userMessage({ text: 'read a.ts' });
    await rt.runTurn('read a.ts');
    assert.equal(out.filter((e) => e.type === 'item_add' && e.item.kind === 'user' && e.item.unsent).length, 0);
    valid();
  });

  it('issue 47 item 4: a message held for a key is waiting until its turn starts, and starts no other turn meanwhile', async () => {
    const { rt, bridge, shown, valid } = setup([step('One.'), step('Two.')]);
    const held = bridge.userMessage({ text: 'held', unsent: 'waiting_key' });
    bridge.userWithdrawn(held);
    assert.equal(shown(held).unsent, 'waiting_key');
    bridge.userForNextTurn(held);
    await rt.runTurn('held');
    assert.equal(shown(held).unsent, undefined, 'sent with the key');
    valid();
  });
});
