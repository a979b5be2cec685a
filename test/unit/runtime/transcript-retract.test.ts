// Issue 47 item 5: a turn that failed before any reply can be taken back, so the next prompt replaces the
// failed one instead of being merged with it into one user message. Transcript.mark/retract: what the
// runtime needs (ConversationRuntime.runTurn marks the history before the input and retracts it when the
// next turn brings new input after a failure); the session file gets a snapshot, so a resume agrees.
import assert from 'node:assert/strict';
import { type SessionRecord, type SessionStore } from '../../../src/runtime/session/session';
import { Transcript } from '../../../src/runtime/session/transcript';
import { type Message } from '../../../src/runtime/types';
import { ConversationRuntime } from '../../../src/runtime/loop/conversation';
import { ModelError } from '../../../src/runtime/types';
import { baseConfig, memoryTools, ScriptedModel, step } from './fakes';

function transcript(messages: Message[]) {
  const records: SessionRecord[] = [];
  const store: SessionStore = { path: undefined, append: async (r) => void records.push(r), flush: async () => undefined } as SessionStore;
  return { t: new Transcript(messages, store, () => 0, () => undefined), records };
}
const text = (t: string) => ({ type: 'text' as const, text: t });
const earlier: Message[] = [
  { role: 'user', content: [text('hi')] },
  { role: 'assistant', content: [text('Hello.')] },
];

describe('transcript: a failed prompt taken back (issue 47 item 5)', () => {
  it('issue 47 item 5: the failed prompt is retracted: the next prompt starts its own user message, and the file holds a snapshot', () => {
    const { t, records } = transcript(earlier);
    const mark = t.mark();
    t.appendUser([text('failed words')]);
    assert.equal(t.unansweredSince(mark), true);
    assert.equal(t.retract(mark), true);
    assert.deepEqual(t.messages, earlier);
    t.appendUser([text('new words')]);
    assert.deepEqual(t.messages.at(-1), { role: 'user', content: [text('new words')] });
    assert.ok(!JSON.stringify(t.messages).includes('failed words'));
    const snapshot = records.find((r) => r.type === 'snapshot');
    assert.ok(snapshot && snapshot.type === 'snapshot' && snapshot.reason === 'retract');
    assert.ok(!JSON.stringify(snapshot.messages).includes('failed words'));
  });

  it('issue 47 item 5: after an aborted turn (a user message last) only the failed input is taken back', () => {
    const aborted: Message[] = [...earlier, { role: 'user', content: [text('[interrupted]')] }];
    const { t } = transcript(aborted);
    const mark = t.mark();
    t.appendUser([text('failed words')]);
    assert.equal(t.messages.length, 3, 'joined the trailing user message');
    assert.equal(t.retract(mark), true);
    assert.deepEqual(t.messages, aborted);
  });

  it('issue 47 item 5: nothing is taken back once the model answered, or after compaction rewrote the history', () => {
    const { t } = transcript(earlier);
    const mark = t.mark();
    t.appendUser([text('words')]);
    t.appendAssistant({ role: 'assistant', content: [text('Partly done.')] });
    assert.equal(t.retract(mark), false);
    assert.equal(t.messages.length, 4);

    const other = transcript(earlier).t;
    const before = other.mark();
    other.appendUser([text('words')]);
    other.replace([{ role: 'user', content: [text('summary')] }], 'compaction');
    assert.equal(other.retract(before), false);
    assert.equal(other.messages.length, 1);

    const nothing = transcript(earlier).t;
    assert.equal(nothing.retract(nothing.mark()), false, 'no input was added');
  });
});


describe('runtime: the next prompt replaces a failed one', () => {
  it('issue 47 item 5: after a failed turn the next request carries only the new words; Retry carries the failed ones once', async () => {
    const model = new ScriptedModel([new ModelError('invalid_request', 'x', { status: 400 }), step('ok'), new ModelError('invalid_request', 'x', { status: 400 }), step('retried')]);
    const rt = new ConversationRuntime({ model, tools: memoryTools() }, baseConfig);
    await rt.runTurn('failed words');
    await rt.runTurn('new words');
    const body = JSON.stringify(model.requests[1]!.messages);
    assert.ok(!body.includes('failed words'), body);
    assert.ok(body.includes('new words'));
    await rt.runTurn('third');
    await rt.runTurn('');
    const retried = JSON.stringify(model.requests[3]!.messages);
    assert.equal(retried.split('third').length - 1, 1, retried);
  });
});
