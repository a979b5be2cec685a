import assert from 'node:assert/strict';
import { ConversationRuntime } from '../../../src/runtime/loop/conversation';
import { LoopGuard } from '../../../src/runtime/loop/loop-guard';
import { historyProblem } from '../../../src/runtime/session/history';
import { stopReasonOf } from '../../../src/cli/output';
import { baseConfig, memoryTools, recordEvents, ScriptedModel, ScriptedPrompter, step } from './fakes';

type Call = { id: string; name: string; input: Record<string, unknown> };
const read = (id: string, path = 'missing.ts'): Call => ({ id, name: 'read_file', input: { path } });
const glob = (id: string, pattern = '*.ts'): Call => ({ id, name: 'glob_search', input: { pattern } });
const allowAll = new ScriptedPrompter({ kind: 'allow', scope: 'once' });

describe('runtime: the loop guard (issue 42, turnstone.loopGuard.repeats)', () => {
  it('issue 42 loop guard: the same call failing the same way 3 times stops the turn before a 4th request, history intact', async () => {
    const model = new ScriptedModel([1, 2, 3, 4].map((i) => step('', [read(`r${i}`)])).concat([step('never reached')]));
    const rt = new ConversationRuntime({ model, tools: memoryTools() }, { ...baseConfig });
    const events = recordEvents(rt);
    const summary = await rt.runTurn('read it');
    assert.equal(summary.outcome, 'failed');
    assert.equal(summary.error?.kind, 'loop');
    assert.deepEqual(summary.error?.loop, { tool: 'read_file', call: 'read_file missing.ts', repeats: 3, outcome: 'error' });
    assert.match(summary.error?.message ?? '', /read_file missing\.ts\) failed the same way 3 times/);
    assert.equal(model.requests.length, 3, 'no request after the third identical failure');
    assert.equal(stopReasonOf(summary), 'loop');
    // The third result is kept: the next turn (Continue) goes on from it.
    assert.equal(historyProblem(rt.messages), undefined);
    assert.equal(rt.messages.at(-1)?.role, 'user');
    const failed = events.find((e) => e.type === 'turn_failed');
    assert.equal(failed?.type === 'turn_failed' ? failed.loop?.repeats : undefined, 3);
  });

  it('issue 42 loop guard: the same call returning the same result 3 times stops it too (outcome "result")', async () => {
    const model = new ScriptedModel([1, 2, 3].map((i) => step('', [glob(`g${i}`)])));
    const rt = new ConversationRuntime({ model, tools: memoryTools() }, { ...baseConfig });
    const summary = await rt.runTurn('look');
    assert.equal(summary.error?.kind, 'loop');
    assert.equal(summary.error?.loop?.outcome, 'result');
  });

  it('issue 42 loop guard: Continue is a new turn, with the count started again', async () => {
    const model = new ScriptedModel([...[1, 2, 3].map((i) => step('', [glob(`g${i}`)])), step('', [glob('g4')]), step('done')]);
    const rt = new ConversationRuntime({ model, tools: memoryTools() }, { ...baseConfig });
    assert.equal((await rt.runTurn('look')).error?.kind, 'loop');
    const next = await rt.runTurn('');
    assert.equal(next.outcome, 'completed');
    assert.equal(next.finalText, 'done');
    assert.equal(historyProblem(rt.messages), undefined);
  });

  it('issue 42 loop guard: a file edited in between starts the count again (a re-run after a fix is a new attempt)', async () => {
    const model = new ScriptedModel([
      step('', [glob('g1')]),
      step('', [glob('g2')]),
      step('', [{ id: 'w1', name: 'write_file', input: { path: 'notes.md', content: 'x' } }]),
      step('', [glob('g3')]),
      step('', [glob('g4')]),
      step('done'),
    ]);
    const rt = new ConversationRuntime({ model, tools: memoryTools() }, { ...baseConfig, permissionMode: 'acceptEdits' });
    const summary = await rt.runTurn('look', { prompter: allowAll });
    assert.equal(summary.outcome, 'completed', summary.error?.message);
  });

  it('issue 42 loop guard: other inputs, or repeats 0, never stop a turn', async () => {
    const varied = new ScriptedModel([...[1, 2, 3, 4].map((i) => step('', [read(`r${i}`, `f${i}.ts`)])), step('done')]);
    assert.equal((await new ConversationRuntime({ model: varied, tools: memoryTools() }, { ...baseConfig }).runTurn('go')).outcome, 'completed');
    const same = new ScriptedModel([...[1, 2, 3, 4, 5].map((i) => step('', [read(`r${i}`)])), step('done')]);
    assert.equal((await new ConversationRuntime({ model: same, tools: memoryTools() }, { ...baseConfig, loopGuardRepeats: 0 }).runTurn('go')).outcome, 'completed');
  });

  it('issue 42 loop guard: key order of the input is the same call; an interrupted call is not counted', () => {
    const guard = new LoopGuard(2);
    const a = { id: 'a', name: 'bash', input: { command: 'ls', timeout: 5 } };
    const b = { id: 'b', name: 'bash', input: { timeout: 5, command: 'ls' } };
    const c = { id: 'c', name: 'bash', input: { command: 'ls', timeout: 5 } };
    assert.equal(guard.record([a], [{ toolUseId: 'a', name: 'bash', isError: true, content: 'exit 1' }]), undefined);
    assert.equal(guard.record([c], [{ toolUseId: 'c', name: 'bash', isError: true, content: 'exit 1', aborted: true }]), undefined);
    assert.equal(guard.record([b], [{ toolUseId: 'b', name: 'bash', isError: true, content: 'exit 1' }])?.repeats, 2);
  });

  it('issue 42 stop_reason: every ending of a turn has one', () => {
    const base = { turnId: 't', assistantMessages: [], toolResults: [], promptCacheEvents: [], iterations: 1, usage: { input_tokens: 0, output_tokens: 0, cache_read_input_tokens: 0, cache_creation_input_tokens: 0 }, costUsd: 0, unpricedRequests: 0, turnUsage: { input_tokens: 0, output_tokens: 0, cache_read_input_tokens: 0, cache_creation_input_tokens: 0 }, autoCompaction: undefined, context: { tokens: 0, window: 1, percent: 0 }, finalText: '', fileChanges: [], todos: [], subagents: [] } as const;
    const of = (outcome: 'completed' | 'failed' | 'aborted', kind?: string) => stopReasonOf({ ...base, outcome, ...(kind ? { error: { kind: kind as never, message: '' } } : {}) } as never);
    assert.deepEqual(
      [of('completed'), of('aborted'), of('failed', 'max_iterations'), of('failed', 'budget'), of('failed', 'loop'), of('failed', 'overloaded')],
      ['end_turn', 'interrupted', 'max_iterations', 'spend_cap', 'loop', 'error'],
    );
  });
});
