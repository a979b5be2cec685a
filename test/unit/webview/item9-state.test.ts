// Issue 47 item 9, the panel's state rules behind two fixes (the e2e is test/e2e/panel/item9-rest.test.ts):
// a draft stays with the session it was typed in, and a finished plan counts as outlived once the next turn started.
import assert from 'node:assert/strict';
import { type PlanTodo, type TranscriptItem } from '../../../src/webview/protocol';
import { toolViewFromInput } from '../../../src/webview/tool-view';
import { finishedPlanOutlived } from '../../../src/webview/ui/plan-view';
import { MAX_KEPT_DRAFTS, SessionDrafts } from '../../../src/webview/ui/session-drafts';

const draft = (text: string) => ({ text, attachments: [] });
const file = { kind: 'file' as const, path: 'src/a.ts', label: 'a.ts' };

describe('issue 47 item 9: drafts per session', () => {
  it('the same session again (answer to ready, view shown again) keeps the composer as it is', () => {
    const d = new SessionDrafts();
    assert.equal(d.switch('fork', 'fork', draft('typed')), undefined);
    assert.equal(d.switch(undefined, 'fork', draft('typed')), undefined, 'no session known before: nothing to give back');
    assert.deepEqual(d.saved(), []);
  });

  it("another session gets its own draft (or none); the fork's comes back with the fork", () => {
    const d = new SessionDrafts();
    assert.deepEqual(d.switch('fork', 'main', { text: 'for the fork', attachments: [file] }), draft(''));
    assert.deepEqual(d.get('fork'), { text: 'for the fork', attachments: [file] });
    assert.deepEqual(d.switch('main', 'fork', draft('for main')), { text: 'for the fork', attachments: [file] });
    assert.equal(d.get('fork'), undefined, 'the shown session has its draft in the composer, not kept aside');
    assert.deepEqual(d.switch('fork', 'main', draft('')), draft('for main'));
    assert.equal(d.get('fork'), undefined, 'an emptied draft is not kept');
    assert.deepEqual(d.switch('main', undefined, draft('x')), draft(''), 'a session not named yet gets an empty composer');
  });

  it('keeps images in memory only, the text and chips in the saved state, and at most MAX_KEPT_DRAFTS', () => {
    const d = new SessionDrafts<string[]>();
    d.switch('a', 'b', { text: '', attachments: [], images: ['png'] });
    assert.deepEqual(d.get('a')?.images, ['png'], 'images alone are a draft');
    assert.deepEqual(d.saved(), [], 'images are not written to the saved state');
    for (let i = 0; i < MAX_KEPT_DRAFTS + 5; i++) d.switch(`s${i}`, `s${i + 1}`, draft(`words ${i}`));
    const saved = d.saved();
    assert.equal(saved.length, MAX_KEPT_DRAFTS);
    assert.equal(saved.at(-1)?.session, `s${MAX_KEPT_DRAFTS + 4}`, 'the oldest are forgotten first');
    const again = new SessionDrafts(saved);
    assert.deepEqual(again.switch('x', `s${MAX_KEPT_DRAFTS + 4}`, draft('')), draft(`words ${MAX_KEPT_DRAFTS + 4}`), 'a reload keeps them');
  });
});

describe('issue 47 item 9: a finished plan outlived by the next turn', () => {
  const done: PlanTodo[] = Array.from({ length: 5 }, (_, i) => ({ content: `Step ${i + 1}`, activeForm: `Doing ${i + 1}`, status: 'completed' }));
  const write: TranscriptItem = { kind: 'tool', id: 'p', name: 'todo_write', status: 'done', view: toolViewFromInput('todo_write', { todos: done }) };
  const user = (id: string, extra: Partial<Extract<TranscriptItem, { kind: 'user' }>> = {}): TranscriptItem => ({ kind: 'user', id, text: id, ...extra });

  it('outlived only when every item is done and a message started a turn after its last write', () => {
    assert.equal(finishedPlanOutlived([user('u1'), write], done), false, 'finished in this turn: still shown');
    assert.equal(finishedPlanOutlived([user('u1'), write, user('u2')], done), true, 'the next turn started');
    assert.equal(finishedPlanOutlived([user('u1'), write, user('q', { delivery: 'queued' })], done), true, 'a queued message starts the next turn');
    assert.equal(finishedPlanOutlived([user('u1'), write, user('s', { delivery: 'steer' })], done), false, 'a steered message joins the same turn');
    assert.equal(finishedPlanOutlived([user('u1'), write, user('k', { unsent: 'waiting_key' })], done), false, 'a message waiting for a key started nothing');
    assert.equal(finishedPlanOutlived([user('u1'), write, user('u2'), write], done), false, 'written again in the new turn');
    const open = done.map((todo, i) => (i === 4 ? { ...todo, status: 'in_progress' as const } : todo));
    assert.equal(finishedPlanOutlived([user('u1'), write, user('u2')], open), false, 'an unfinished plan stays open');
    assert.equal(finishedPlanOutlived([user('u1'), write, user('u2')], []), false);
    assert.equal(finishedPlanOutlived([user('u2')], done), true, 'its write is older than the items shown');
  });
});
