// Issue 26: the reply is the reply (26.5), and the steering paths read in the
// code: a Stop during a steered text's UserPromptSubmit hook keeps the tool
// results and the steered text and leaves a valid history (T7, T8, T9);
// queued inputs survive a hook that blocks the typed prompt, and a Stop.
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { ConversationRuntime } from '../../../src/runtime/loop/conversation';
import { historyProblem } from '../../../src/runtime/session/history';
import { type HookResult } from '../../../src/runtime/policy/hooks';
import { type AssistantEvent } from '../../../src/runtime/types';
import { MockAnthropicServer, streamReply, textReply } from '../../fixtures/mock-anthropic';
import { runCli } from '../../support/run-cli';
import { baseConfig, deferred, FakeTools, recordEvents, ScriptedHooks, ScriptedModel, step, usage } from './fakes';

const OK: HookResult = { outcome: 'ok', messages: [] };
const cutOff = (text: string): AssistantEvent[] => [...step(text, [], usage(100, 50)).slice(0, -1), { type: 'message_stop', stopReason: 'max_tokens' }];

describe('runtime: turn edges (issue 26)', () => {
  it('26.5: the final text is the whole reply across a max_tokens continuation, not only its tail', async () => {
    const model = new ScriptedModel([cutOff('The first half, '), step('and the second half.')]);
    const rt = new ConversationRuntime({ model, tools: new FakeTools({}) }, baseConfig);
    const s = await rt.runTurn('write');
    assert.equal(s.finalText, 'The first half, and the second half.');
    // A reply after tool use starts afresh: only text since the last tool use counts.
    const withTool = new ScriptedModel([cutOff('Looking. '), step('', [{ id: 't', name: 'probe', input: {} }]), step('Found it.')]);
    const rt2 = new ConversationRuntime({ model: withTool, tools: new FakeTools({ probe: { readOnly: true } }) }, { ...baseConfig, permissionMode: 'bypassPermissions' });
    assert.equal((await rt2.runTurn('look')).finalText, 'Found it.');
  });

  it('T8/T9 (26): a Stop during a steered text\'s UserPromptSubmit hook keeps the real tool results, carries the steered text to the next turn, and leaves no tool use without its result', async () => {
    const hookStarted = deferred();
    let blocked = 0;
    const box: { rt?: ConversationRuntime } = {};
    const tools = new FakeTools({
      read_file: {
        readOnly: true,
        run: (input) => {
          if (input.path === 'b') box.rt!.steer('also check the tests');
          return { content: 'REAL CONTENT', isError: false };
        },
      },
    });
    const hooks = new ScriptedHooks({
      UserPromptSubmit: (payload, signal) => {
        // Only the first time: the next turn's hook lets it through.
        if (payload.prompt !== 'also check the tests' || blocked++ > 0) return OK;
        hookStarted.resolve();
        return new Promise<HookResult>((resolve) => signal.addEventListener('abort', () => resolve(OK), { once: true }));
      },
    });
    const model = new ScriptedModel([step('', [{ id: 't1', name: 'read_file', input: { path: 'a' } }, { id: 't2', name: 'read_file', input: { path: 'b' } }]), step('next turn reply')]);
    const rt = new ConversationRuntime({ model, tools, hooks }, { ...baseConfig, permissionMode: 'bypassPermissions' });
    box.rt = rt;
    const stop = new AbortController();
    const turn = rt.runTurn('read a and b', { signal: stop.signal });
    await hookStarted.promise;
    stop.abort();
    const s = await turn;
    assert.equal(s.outcome, 'aborted');
    assert.equal(historyProblem(rt.messages), undefined);
    const results = rt.messages.flatMap((m) => (m.role === 'user' ? m.content.filter((b) => b.type === 'tool_result') : []));
    assert.deepEqual(results.map((r) => (r.type === 'tool_result' ? [r.tool_use_id, r.content] : [])), [['t1', 'REAL CONTENT'], ['t2', 'REAL CONTENT']]);
    assert.deepEqual(rt.queued.map((q) => q.text), ['also check the tests'], 'the steered text waits for the next turn');
    // The next turn sends it (through the hook again) and the request is valid.
    const next = await rt.runQueued();
    assert.equal(next?.outcome, 'completed');
    assert.match(JSON.stringify(model.requests[1]!.messages.at(-1)), /also check the tests/);
    assert.equal(historyProblem(model.requests[1]!.messages), undefined);
  });

  it('T7 (26): inputs queued for a turn are not lost when the hook blocks the typed prompt: each input is judged on its own', async () => {
    const model = new ScriptedModel([step('on the queued one')]);
    const hooks = new ScriptedHooks({ UserPromptSubmit: (p) => (String(p.prompt).includes('SECRET') ? { outcome: 'denied', messages: ['no secrets'] } : OK) });
    const rt = new ConversationRuntime({ model, tools: new FakeTools({}), hooks }, baseConfig);
    const events = recordEvents(rt);
    rt.queue('queued question');
    const s = await rt.runTurn('paste SECRET here');
    assert.equal(s.outcome, 'completed');
    const sent = JSON.stringify(model.requests[0]!.messages);
    assert.match(sent, /queued question/);
    assert.doesNotMatch(sent, /SECRET/);
    assert.ok(events.some((e) => e.type === 'warning' && e.kind === 'prompt_blocked' && /no secrets/.test(e.message)));

    // Everything blocked: the turn fails as before, nothing is sent.
    const blockedAll = await rt.runTurn('another SECRET');
    assert.equal(blockedAll.error?.kind, 'prompt_blocked');
    assert.equal(model.requests.length, 1);
  });

  it('T7/T8 (26): a Stop while the hook judges the turn\'s input puts the queued inputs back in the queue', async () => {
    const hookStarted = deferred();
    const hooks = new ScriptedHooks({
      UserPromptSubmit: (_p, signal) => {
        hookStarted.resolve();
        return new Promise<HookResult>((resolve) => signal.addEventListener('abort', () => resolve(OK), { once: true }));
      },
    });
    const rt = new ConversationRuntime({ model: new ScriptedModel([]), tools: new FakeTools({}), hooks }, baseConfig);
    rt.queue('first queued');
    rt.queue('second queued');
    const stop = new AbortController();
    const turn = rt.runTurn('typed', { signal: stop.signal });
    await hookStarted.promise;
    stop.abort();
    assert.equal((await turn).outcome, 'aborted');
    assert.deepEqual(rt.queued.map((q) => q.text), ['first queued', 'second queued']);
    assert.equal(historyProblem(rt.messages), undefined);
  });
});

describe('CLI: the reply is the reply (issue 26.5, node dist/cli.js)', function () {
  this.timeout(60_000);
  it('26.5: json result holds the whole final text across a max_tokens continuation, as text output prints it', async () => {
    const api = await MockAnthropicServer.start();
    const ws = mkdtempSync(path.join(os.tmpdir(), 'turnstone-reply-'));
    try {
      const env = { ANTHROPIC_BASE_URL: api.url, ANTHROPIC_API_KEY: 'sk-test-cli' };
      const replies = () => [streamReply([{ type: 'text', text: 'The first half, ' }], { stopReason: 'max_tokens', usage: { output_tokens: 50 } }), textReply('and the second half.')];
      api.enqueue(...replies());
      const json = await runCli(['-p', 'write', '--cwd', ws, '--output-format', 'json'], { env });
      assert.equal(json.code, 0, json.stderr);
      assert.equal(JSON.parse(json.stdout).result, 'The first half, and the second half.');
      api.enqueue(...replies());
      const text = await runCli(['-p', 'write', '--cwd', ws], { env });
      assert.equal(text.stdout, 'The first half, and the second half.\n');
    } finally {
      await api.close();
      rmSync(ws, { recursive: true, force: true });
    }
  });
});
