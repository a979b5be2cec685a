// Issue 27: one cancellation object per turn (a child per request and per tool
// use) and one AbortedError class, whatever was waiting when Stop came (T8).
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { getEventListeners } from 'node:events';
import * as http from 'node:http';
import { type AddressInfo } from 'node:net';
import { APIUserAbortError } from '@anthropic-ai/sdk';
import { AbortedError, isAbortedError, TurnCancellation } from '../../../src/runtime/cancellation';
import { ConversationRuntime } from '../../../src/runtime/loop/conversation';
import { type RuntimeEvent } from '../../../src/runtime/events';
import { historyProblem } from '../../../src/runtime/session/history';
import { ShellHookRunner, type HookRunner, type HooksConfig } from '../../../src/runtime/policy/hooks';
import { AnthropicModelClient } from '../../../src/runtime/providers/anthropic';
import { ModelError, type ModelClient, type ToolOutput } from '../../../src/runtime/types';
import { MockAnthropicServer, replyFrames, textReply, toolUseReply } from '../../fixtures/mock-anthropic';
import { FAST } from '../providers/helpers';
import { baseConfig, deferred, memoryTools, ScriptedPrompter } from './fakes';

const abortListeners = (signal: AbortSignal) => getEventListeners(signal, 'abort').length;
const never = <T>() => new Promise<T>(() => undefined);

/** Resolves with what `p` rejected with. */
async function rejection(p: Promise<unknown>): Promise<unknown> {
  try {
    await p;
  } catch (error) {
    return error;
  }
  assert.fail('expected a rejection');
}

/** A local server that accepts requests and never answers: fetch waits on it until its signal fires. */
async function silentServer(): Promise<{ url: string; close(): Promise<void> }> {
  const server = http.createServer(() => undefined);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}/`,
    close: () => {
      server.closeAllConnections();
      return new Promise((resolve) => server.close(() => resolve()));
    },
  };
}

describe('runtime: TurnCancellation and AbortedError (issue 27)', () => {
  it('27.cancel: cancelling the parent cancels every child and grandchild, with their signals; cancelling a child never cancels the parent', () => {
    const host = new AbortController();
    const turn = new TurnCancellation(host.signal);
    const request = turn.child();
    const tool = turn.child();
    const nested = tool.child();
    assert.equal(turn.cancelled, false);
    assert.equal(request.signal.aborted, false);

    host.abort();
    for (const c of [turn, request, tool, nested]) {
      assert.equal(c.cancelled, true);
      assert.equal(c.signal.aborted, true);
      assert.ok(c.signal.reason instanceof AbortedError, 'a port that rethrows its signal\'s reason throws the one AbortedError');
    }
    assert.throws(() => nested.throwIfCancelled(), AbortedError);

    const other = new TurnCancellation();
    const child = other.child();
    child.cancel();
    assert.equal(child.cancelled, true);
    assert.equal(other.cancelled, false, 'a child never cancels its parent');
    assert.doesNotThrow(() => other.throwIfCancelled());
    // A child made of a cancelled parent is born cancelled.
    assert.equal(turn.child().cancelled, true);
  });

  it('27.cancel: a child can be cancelled alone (a tool use\'s own timeout): the turn and its other children go on', async () => {
    const turn = new TurnCancellation();
    const timedOut = turn.child();
    const sibling = turn.child();
    const waiting = sibling.race(new Promise<string>((resolve) => setImmediate(() => resolve('still running'))));
    const raced = timedOut.race(never<string>());
    timedOut.cancel();
    assert.ok((await rejection(raced)) instanceof AbortedError);
    assert.equal(turn.cancelled, false);
    assert.equal(sibling.cancelled, false);
    assert.equal(await waiting, 'still running');
    // The turn still cancels what is left.
    turn.cancel();
    assert.equal(sibling.cancelled, true);
  });

  it('27.cancel: race settles with its promise and removes its waiter; it rejects with AbortedError as soon as cancelled', async () => {
    const host = new AbortController();
    const turn = new TurnCancellation(host.signal);
    const listeners = abortListeners(host.signal);
    assert.equal(listeners, 1, 'one listener on the host signal for the whole turn');

    for (let i = 0; i < 1000; i++) assert.equal(await turn.race(Promise.resolve(i)), i);
    const failure = new Error('the port failed');
    assert.equal(await rejection(turn.race(Promise.reject(failure))), failure, 'a port\'s own error passes through unchanged');
    assert.equal(turn.racing, 0, 'settled races leave no waiter behind');
    assert.equal(abortListeners(host.signal), listeners, 'and add no listener to the signal');
    assert.equal(abortListeners(turn.signal), 0);

    const pending = turn.race(never());
    assert.equal(turn.racing, 1);
    host.abort();
    const error = await rejection(pending);
    assert.ok(error instanceof AbortedError);
    assert.equal(error.kind, 'aborted');
    assert.equal(turn.racing, 0);
    assert.equal(abortListeners(host.signal), 0, 'the listener on the host signal went with the cancel');
    // Once cancelled, a race rejects at once, and the raced promise's later failure is not left unhandled.
    assert.ok((await rejection(turn.race(Promise.reject(new Error('late'))))) instanceof AbortedError);
  });

  it('27.cancel: dispose lets go of the parent signal and detaches the children; a disposed child no longer follows its parent', () => {
    const host = new AbortController();
    const turn = new TurnCancellation(host.signal);
    const request = turn.child();
    const disposed = turn.child();
    disposed.dispose();
    assert.equal(abortListeners(host.signal), 1);

    turn.dispose();
    assert.equal(abortListeners(host.signal), 0, 'no listener left on the host\'s signal after the turn');
    host.abort();
    assert.equal(turn.cancelled, false);
    assert.equal(request.cancelled, false);

    const parent = new TurnCancellation();
    const gone = parent.child();
    gone.dispose();
    parent.cancel();
    assert.equal(gone.cancelled, false);
  });

  it('27.cancel: isAbortedError recognises AbortedError and the platform\'s aborts (fetch, child_process, AbortSignal, the SDK), nothing else', async () => {
    assert.ok(isAbortedError(new AbortedError()));

    const silent = await silentServer();
    try {
      const controller = new AbortController();
      const fetching = rejection(fetch(silent.url, { signal: controller.signal }));
      controller.abort();
      assert.ok(isAbortedError(await fetching), 'fetch rejects with a DOMException named AbortError');
    } finally {
      await silent.close();
    }

    const controller = new AbortController();
    const exited = new Promise<unknown>((resolve) => {
      const child = execFile('sleep', ['30'], { signal: controller.signal }, (error) => resolve(error));
      child.once('spawn', () => controller.abort());
    });
    assert.ok(isAbortedError(await exited), 'child_process fails with an AbortError (code ABORT_ERR)');

    const timedOut = AbortSignal.timeout(1);
    await new Promise((resolve) => timedOut.addEventListener('abort', resolve, { once: true }));
    assert.ok(isAbortedError(AbortSignal.abort().reason));
    assert.ok(isAbortedError(new APIUserAbortError()));

    assert.equal(isAbortedError(new ModelError('retryable', 'connection lost')), false);
    assert.equal(isAbortedError(new Error('aborted')), false);
    assert.equal(isAbortedError(timedOut.reason), false, 'a timeout is not the user\'s Stop');
    assert.equal(isAbortedError('AbortError'), false);
    assert.equal(isAbortedError(undefined), false);
  });

  describe('27.cancel: every abort path of a turn ends as the one AbortedError', () => {
    let mock: MockAnthropicServer;
    let silent: Awaited<ReturnType<typeof silentServer>>;
    before(async () => {
      mock = await MockAnthropicServer.start();
      silent = await silentServer();
    });
    after(async () => {
      await mock.close();
      await silent.close();
    });
    beforeEach(() => mock.reset());

    const model = (): ModelClient => new AnthropicModelClient({ ...FAST, baseURL: mock.url });

    interface Arranged {
      model?: ModelClient;
      tools?: ReturnType<typeof memoryTools>;
      hooks?: HookRunner;
      prompter?: ScriptedPrompter;
      /** Resolves once the turn waits where the case says (or: the first runtime event of this type). */
      waiting: Promise<void> | RuntimeEvent['type'];
      /** The signal the waiting port was handed: its reason is what a port rethrowing it throws. */
      signal: () => AbortSignal | undefined;
      /** What the port itself failed with, when it is the platform's error (fetch, child_process). */
      thrown?: () => unknown;
    }

    /** The real hook runner, running `sleep 30` for `event`; `waiting` resolves once it was asked to run it. */
    function sleepingHook(event: keyof HooksConfig): Arranged {
      const runner = new ShellHookRunner({ [event]: [{ command: 'sleep 30' }] }, { cwd: process.cwd() });
      const started = deferred();
      let signal: AbortSignal | undefined;
      const hooks: HookRunner = {
        has: (e) => runner.has(e),
        run: (e, payload, s) => {
          if (e === event) {
            signal = s;
            started.resolve();
          }
          return runner.run(e, payload, s);
        },
      };
      return { hooks, waiting: started.promise, signal: () => signal };
    }

    const cases: Array<{ name: string; arrange(): Arranged }> = [
      {
        name: 'while the reply streams (the real provider, the server gone silent mid-stream)',
        arrange() {
          mock.enqueue({ kind: 'sse', frames: replyFrames([{ type: 'text', text: 'I will look at it in a moment', chunks: 4 }]), stallAfterFrames: 4 });
          const client = model();
          let signal: AbortSignal | undefined;
          const spy: ModelClient = {
            stream: (request, s) => client.stream(request, (signal = s)),
            complete: (request, s) => client.complete(request, s),
          };
          return { model: spy, waiting: 'text_delta', signal: () => signal };
        },
      },
      {
        name: 'in a tool running a child process',
        arrange() {
          mock.enqueue(toolUseReply([{ id: 'toolu_sleep', name: 'bash', input: { command: 'sleep 30' } }]));
          const tools = memoryTools();
          const started = deferred();
          let signal: AbortSignal | undefined;
          let thrown: unknown;
          tools.tools.bash!.run = (_input, ctx) =>
            new Promise<ToolOutput>((resolve, reject) => {
              signal = ctx.signal;
              const child = execFile('sleep', ['30'], { signal: ctx.signal }, (error) => {
                thrown = error;
                if (error) reject(error);
                else resolve({ content: 'slept', isError: false });
              });
              child.once('spawn', () => started.resolve());
            });
          return { tools, waiting: started.promise, signal: () => signal, thrown: () => thrown };
        },
      },
      {
        name: 'in a tool waiting on fetch',
        arrange() {
          mock.enqueue(toolUseReply([{ id: 'toolu_fetch', name: 'glob_search', input: { pattern: '*' } }]));
          const tools = memoryTools();
          const started = deferred();
          let signal: AbortSignal | undefined;
          let thrown: unknown;
          tools.tools.glob_search!.run = async (_input, ctx) => {
            signal = ctx.signal;
            const response = fetch(silent.url, { signal: ctx.signal });
            started.resolve();
            await response.catch((error: unknown) => {
              thrown = error;
              throw error;
            });
            return { content: 'fetched', isError: false };
          };
          return { tools, waiting: started.promise, signal: () => signal, thrown: () => thrown };
        },
      },
      {
        name: 'at a permission prompt nobody answers',
        arrange() {
          mock.enqueue(toolUseReply([{ id: 'toolu_make', name: 'bash', input: { command: 'make' } }]));
          const opened = deferred();
          let signal: AbortSignal | undefined;
          const prompter = new ScriptedPrompter((_req, s) => {
            signal = s;
            opened.resolve();
            // As the host's prompter does: it settles on Stop and gives way with an AbortedError.
            return new Promise((_resolve, reject) => s.addEventListener('abort', () => reject(s.reason), { once: true }));
          });
          return { prompter, waiting: opened.promise, signal: () => signal };
        },
      },
      { name: 'in a UserPromptSubmit hook', arrange: () => sleepingHook('UserPromptSubmit') },
      {
        name: 'in a PreToolUse hook',
        arrange() {
          mock.enqueue(toolUseReply([{ id: 'toolu_read', name: 'read_file', input: { path: 'x' } }]));
          return sleepingHook('PreToolUse');
        },
      },
      {
        name: 'in a Stop hook',
        arrange() {
          mock.enqueue(textReply('All done.'));
          return sleepingHook('Stop');
        },
      },
    ];

    for (const c of cases) {
      it(`27.cancel, T8: Stop ${c.name} ends the turn as 'aborted' through AbortedError, with a valid history`, async () => {
        const arranged = c.arrange();
        const rt = new ConversationRuntime(
          { model: arranged.model ?? model(), tools: arranged.tools ?? memoryTools({ x: 'X' }), ...(arranged.hooks ? { hooks: arranged.hooks } : {}) },
          { ...baseConfig, permissionMode: arranged.prompter ? 'ask' : 'bypassPermissions' },
        );
        const events: RuntimeEvent[] = [];
        const seenType = deferred();
        rt.subscribe((e) => {
          events.push(e);
          if (e.type === arranged.waiting) seenType.resolve();
        });
        const controller = new AbortController();
        const turn = rt.runTurn('go', { signal: controller.signal, ...(arranged.prompter ? { prompter: arranged.prompter } : {}) });
        await (typeof arranged.waiting === 'string' ? seenType.promise : arranged.waiting);
        controller.abort();
        const summary = await turn;

        assert.equal(summary.outcome, 'aborted');
        assert.equal(summary.error, undefined);
        assert.deepEqual(events.filter((e) => e.type === 'turn_aborted' || e.type === 'turn_failed' || e.type === 'turn_ended').map((e) => e.type), ['turn_aborted']);
        const reason = arranged.signal()?.reason as unknown;
        assert.ok(reason instanceof AbortedError, `the waiting port's signal carries the one AbortedError, got ${String(reason)}`);
        if (arranged.thrown) assert.ok(isAbortedError(arranged.thrown()), `the platform's own abort error is recognised: ${String(arranged.thrown())}`);
        assert.equal(historyProblem(rt.messages), undefined);
        for (const r of summary.toolResults) assert.equal(r.content, 'aborted');
      });
    }
  });
});
