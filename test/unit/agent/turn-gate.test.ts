// The controller's "no turn running or finishing" gate. A prompt sent as a turn
// ends (the panel is idle, the end-of-turn checkpoint still being written) waits
// for that work; the wait must let the work's own I/O run (stress found the
// extension host frozen when it looped on the turn's already-settled promise).
// Each scenario runs in a worker: a wait that never yields would freeze this
// thread, mocha's timeout with it.
import * as assert from 'node:assert/strict';
import { Worker } from 'node:worker_threads';
import { TurnGate } from '../../../src/agent/turn-gate';

/** Runs `body` (an async function body with `gate`, `io` and `steps` in scope) in a worker; resolves with `steps`. */
function scenario(body: string): Promise<string[]> {
  return new Promise<string[]>((resolve, reject) => {
    const worker = new Worker(
      `const { parentPort } = require('node:worker_threads');
      const { TurnGate } = require(${JSON.stringify(require.resolve('../../../src/agent/turn-gate'))});
      const io = () => new Promise((resolve) => setImmediate(resolve));
      const gate = new TurnGate();
      const steps = [];
      (async () => { ${body} })().then(() => parentPort.postMessage(steps));`,
      { eval: true, execArgv: ['-r', 'tsx/cjs'] },
    );
    // Generous: a scenario takes a few ms; only a wait that spins without yielding gets here.
    const timer = setTimeout(() => void worker.terminate().then(() => reject(new Error('the wait never let the finishing turn do its I/O (the thread spun)'))), 15_000);
    worker.once('message', (steps: string[]) => {
      clearTimeout(timer);
      void worker.terminate();
      resolve(steps);
    });
    worker.once('error', (e) => {
      clearTimeout(timer);
      reject(e);
    });
  });
}

describe('agent: TurnGate', () => {
  it('is idle at once when no turn has begun', async () => {
    const gate = new TurnGate();
    assert.equal(gate.busy, false);
    await gate.idle();
  });

  it('waits for a finishing turn whose end-of-turn work does I/O, and lets that I/O run', async () => {
    const steps = await scenario(`
      const end = gate.begin();
      // The turn's own promise has settled; its finally still does I/O before it ends.
      const finishing = (async () => {
        await io();
        steps.push('checkpoint written');
        await io();
        end();
      })();
      await gate.idle();
      steps.push('next prompt sent');
      await finishing;
      steps.push(gate.busy ? 'busy' : 'idle');`);
    assert.deepEqual(steps, ['checkpoint written', 'next prompt sent', 'idle']);
  });

  it('also waits for a turn begun while it waited (a queued prompt)', async () => {
    const steps = await scenario(`
      const endFirst = gate.begin();
      const waited = gate.idle().then(() => steps.push('idle'));
      await io();
      // The first turn's finally starts the queued one before it is done.
      const endSecond = gate.begin();
      endFirst();
      await io();
      steps.push('second turn still running');
      endSecond();
      await waited;`);
    assert.deepEqual(steps, ['second turn still running', 'idle']);
  });
});
