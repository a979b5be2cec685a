// Issue 43, the AgentSession step: one object runs a session's turns for every face. Checked against the real
// runtime, real background commands (real bash, the real process table) and the scripted model.
import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { AgentSession } from '../../../src/agent/agent-session';
import { ConversationRuntime, type TurnContext } from '../../../src/runtime/loop/conversation';
import { type RuntimeEvent } from '../../../src/runtime/events';
import { historyProblem } from '../../../src/runtime/session/history';
import { NodeShell } from '../../../src/tools/node-adapter';
import { BackgroundCommands } from '../../../src/tools/shell/background';
import { processesWith, until } from '../../support/process-tree';
import { baseConfig, deferred, memoryTools, ScriptedModel, step } from '../runtime/fakes';
import { tempDir } from '../tools/helpers';

function sessionOver(model: ScriptedModel, extra: Partial<ConstructorParameters<typeof AgentSession>[0]> = {}) {
  const context: TurnContext = { model, tools: memoryTools({ 'a.ts': 'A' }), config: { ...baseConfig } };
  const made: ConversationRuntime[] = [];
  const log: string[] = [];
  const session = new AgentSession({
    turnContext: async () => context,
    openRuntime: (c) => {
      const runtime = made[0] ?? new ConversationRuntime({ model: c.model, tools: c.tools }, c.config);
      if (made.length === 0) made.push(runtime);
      return runtime;
    },
    checkpoints: { turnStarted: (index, words) => log.push(`start ${index} ${words}`), turnEnded: async () => void log.push('end') },
    ...extra,
  });
  return { session, made, log };
}

describe('AgentSession (issue 43)', function () {
  this.timeout(60_000);

  it('issue 43 AgentSession: the runtime is made once; each turn runs its cycle (context, turn-start checkpoint, turn, turn-end checkpoint); events reach subscribers made before the runtime', async () => {
    const model = new ScriptedModel([step('one'), step('two'), step('three')]);
    const { session, made, log } = sessionOver(model);
    const events: RuntimeEvent['type'][] = [];
    session.subscribe((e) => events.push(e.type));
    assert.equal((await session.submit('first', { checkpoint: { words: 'first' } })).finalText, 'one');
    assert.equal((await session.submit('second', { checkpoint: { words: 'second' } })).finalText, 'two');
    assert.equal(made.length, 1);
    assert.equal(session.current, made[0]);
    assert.deepEqual(log, ['start 0 first', 'end', 'start 2 second', 'end']);
    assert.equal(events.filter((t) => t === 'turn_ended').length, 2);
    const third = session.submit('third');
    await assert.rejects(session.submit('fourth'), /already running/);
    assert.equal((await third).finalText, 'three');
  });

  it('issue 43 AgentSession: a Stop pressed while the turn is still being set up stops it: no request, history intact', async () => {
    const model = new ScriptedModel([step('never sent')]);
    const setUp = deferred();
    const entered = deferred();
    const { session } = sessionOver(model, {
      prepare: async () => {
        entered.resolve();
        await setUp.promise;
      },
    });
    const turn = session.submit('hello');
    await entered.promise;
    assert.equal(session.isRunning, true, 'running from the set-up on');
    session.interrupt();
    setUp.resolve();
    const summary = await turn;
    assert.equal(summary.outcome, 'aborted');
    assert.equal(model.requests.length, 0);
    assert.equal(historyProblem(session.current!.messages), undefined);
    assert.equal(session.isRunning, false);
  });

  it("issue 43 AgentSession, issue 47 item 2: a plain interrupt() leaves the session's background commands running; interrupt({ kill }) ends them, close() waits for them", async () => {
    const base = tempDir('turnstone-agent-session-');
    const background = new BackgroundCommands({ maxRunning: () => 4, maxUnreadChars: 2000, dir: async () => base });
    try {
      const marker = `4343.${Math.floor(Math.random() * 1e9)}`;
      await background.start(new NodeShell({ killGraceMs: 500 }), `sleep ${marker}`, { cwd: base });
      await until('the background command to run', () => processesWith(marker).length > 0);
      const { session } = sessionOver(new ScriptedModel([]), { background: () => background });
      session.interrupt();
      // A plain Stop is the turn's: the command still runs once a turn after it has come and gone.
      const later = sessionOver(new ScriptedModel([step('later')]), { background: () => background });
      await later.session.submit('go on');
      assert.ok(processesWith(marker).length > 0, 'a plain Stop ended a background command');
      session.interrupt({ kill: true });
      await until('the background command to end', () => processesWith(marker).length === 0);
      await session.close();
      assert.equal(session.current, undefined);
    } finally {
      await background.dispose();
      fs.rmSync(path.join(base), { recursive: true, force: true });
    }
  });
});
