// Issue 27: a resumed session's tool cards come from facts saved beside the text, never from the text.
// An interrupted tool use is saved with `aborted`, which reaches the panel's replay and never a model.
import assert from 'node:assert/strict';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { itemsFromHistory } from '../../../src/host/panel/panel-bridge';
import { ConversationRuntime } from '../../../src/runtime/loop/conversation';
import { toAnthropicParams } from '../../../src/runtime/providers/anthropic-params';
import { toChatMessages } from '../../../src/runtime/providers/openai-compatible';
import { JsonlSessionStore, loadSession } from '../../../src/runtime/session/session';
import { type Message, type ModelRequest, type ToolResultBlock } from '../../../src/runtime/types';
import { baseConfig, deferred, memoryTools, ScriptedModel, step } from '../runtime/fakes';

const statuses = (messages: Message[]) => itemsFromHistory(messages).flatMap((i) => (i.kind === 'tool' ? [[i.id, i.status]] : []));
const uses = (...ids: string[]): Message => ({ role: 'assistant', content: ids.map((id) => ({ type: 'tool_use' as const, id, name: 'bash', input: { command: 'make' } })) });

describe('panel: replaying a saved session (issue 27)', () => {
  let dir: string;
  beforeEach(async () => {
    dir = await mkdtemp(join(tmpdir(), 'turnstone-replay-'));
  });
  afterEach(async () => {
    await rm(dir, { recursive: true, force: true });
  });

  it('27: an interrupted tool use is saved as aborted (the one running and the ones after it) and the resumed cards say so', async () => {
    const running = deferred();
    const model = new ScriptedModel([step('', [{ id: 'a', name: 'read_file', input: { path: 'x' } }, { id: 'b', name: 'bash', input: { command: 'sleep 100' } }, { id: 'c', name: 'read_file', input: { path: 'x' } }])]);
    const tools = memoryTools({ x: 'X' });
    tools.tools.bash!.run = (_input, ctx) =>
      new Promise((_resolve, reject) => {
        running.resolve();
        ctx.signal.addEventListener('abort', () => reject(new Error('killed')));
      });
    const store = await JsonlSessionStore.create(dir);
    const rt = new ConversationRuntime({ model, tools, session: store }, { ...baseConfig, permissionMode: 'bypassPermissions' });
    const controller = new AbortController();
    const turn = rt.runTurn('go', { signal: controller.signal });
    await running.promise;
    controller.abort();
    assert.equal((await turn).outcome, 'aborted');
    await store.flush();

    const loaded = await loadSession(store.path);
    const saved = loaded.messages.flatMap((m) => m.content.filter((b): b is ToolResultBlock => b.type === 'tool_result'));
    assert.deepEqual(saved.map((r) => [r.tool_use_id, r.aborted]), [['a', undefined], ['b', true], ['c', true]]);
    assert.deepEqual(statuses(loaded.messages), [['a', 'done'], ['b', 'aborted'], ['c', 'aborted']]);
  });

  it('27: the saved fact decides, not the text: an aborted result with other words is aborted, an error that only says "aborted" in its text is an error', () => {
    const messages: Message[] = [
      uses('t1', 't2', 't3'),
      {
        role: 'user',
        content: [
          { type: 'tool_result', tool_use_id: 't1', content: 'stopped by the user', is_error: true, aborted: true },
          { type: 'tool_result', tool_use_id: 't2', content: 'aborted: disk full', is_error: true },
          { type: 'tool_result', tool_use_id: 't3', content: 'aborted', is_error: false },
        ],
      },
    ];
    assert.deepEqual(statuses(messages), [['t1', 'aborted'], ['t2', 'error'], ['t3', 'done']]);
  });

  it('27: a session saved before results carried the fact still shows its interrupted tool as aborted (by its "aborted" text)', () => {
    const old: Message[] = [uses('t1'), { role: 'user', content: [{ type: 'tool_result', tool_use_id: 't1', content: 'aborted', is_error: true }] }];
    assert.deepEqual(statuses(old), [['t1', 'aborted']]);
  });

  it('27: a command\'s exit and a read\'s or search\'s counts are saved with the result and a resumed card shows them, as live', async () => {
    const model = new ScriptedModel([
      step('', [{ id: 'r', name: 'read_file', input: { path: 'x' } }, { id: 'b', name: 'bash', input: { command: 'make' } }, { id: 'g', name: 'glob_search', input: { pattern: '*' } }]),
      step('done'),
    ]);
    const tools = memoryTools({ x: 'X' });
    // What the real tools return beside their text.
    tools.tools.read_file!.run = async () => ({ content: '1\tone\n2\ttwo\n3\tthree', isError: false, counts: { lines: 3 } });
    tools.tools.glob_search!.run = async () => ({ content: 'a.ts\nb.ts', isError: false, counts: { matches: 2 } });
    tools.tools.bash!.run = async () => ({ content: 'compiling\nmake: *** [all] Error 2\nExit code: 2', isError: true, exit: { code: 2, note: 'timed out after 120 s' } });
    const store = await JsonlSessionStore.create(dir);
    const rt = new ConversationRuntime({ model, tools, session: store }, { ...baseConfig, permissionMode: 'bypassPermissions' });
    assert.equal((await rt.runTurn('go')).outcome, 'completed');
    await store.flush();

    const loaded = await loadSession(store.path);
    const saved = loaded.messages.flatMap((m) => m.content.filter((b): b is ToolResultBlock => b.type === 'tool_result'));
    assert.deepEqual(saved.find((r) => r.tool_use_id === 'b')?.exit, { code: 2, note: 'timed out after 120 s' });
    assert.equal(saved.find((r) => r.tool_use_id === 'r')?.counts?.lines, 3);
    const cards = new Map(itemsFromHistory(loaded.messages).flatMap((i) => (i.kind === 'tool' ? [[i.id, i] as const] : [])));
    const bash = cards.get('b')!;
    assert.equal(bash.view.kind === 'bash' && bash.view.exitCode, 2);
    assert.equal(bash.status, 'error');
    // The output once, the exit's note as the only error line (no second, red copy of the output).
    assert.equal(bash.view.kind === 'bash' && bash.view.output?.includes('Error 2'), true);
    assert.equal(bash.error, 'timed out after 120 s');
    const read = cards.get('r')!;
    assert.equal(read.view.kind === 'read' && read.view.lines, 3);
    const glob = cards.get('g')!;
    assert.equal(glob.view.kind === 'search' && glob.view.matches, 2);
    // Never sent to a model.
    const request: ModelRequest = { model: 'm', system: '', messages: loaded.messages, tools: [], maxTokens: 100, afterToolResults: true };
    for (const body of [JSON.stringify(toAnthropicParams(request)), JSON.stringify(toChatMessages('', loaded.messages))]) {
      assert.ok(!body.includes('"exit":') && !body.includes('"counts":') && !body.includes('timed out after'), body);
    }
  });

  it('27: the saved fact is never sent to a model (Anthropic and OpenAI-compatible requests)', () => {
    const messages: Message[] = [
      { role: 'user', content: [{ type: 'text', text: 'go' }] },
      uses('t1'),
      { role: 'user', content: [{ type: 'tool_result', tool_use_id: 't1', content: 'aborted', is_error: true, aborted: true }] },
    ];
    const request: ModelRequest = { model: 'm', system: '', messages, tools: [], maxTokens: 100, afterToolResults: true };
    const anthropic = JSON.stringify(toAnthropicParams(request));
    const openai = JSON.stringify(toChatMessages('', messages));
    assert.ok(anthropic.includes('"tool_use_id":"t1"') && !anthropic.includes('"aborted":'), anthropic);
    assert.ok(openai.includes('"tool_call_id":"t1"') && !openai.includes('"aborted":'), openai);
  });
});
