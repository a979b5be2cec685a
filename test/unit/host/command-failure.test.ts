// A command that fails says so as a Turnstone error and is logged under its id (commands.ts, the Sessions
// view's Show/Stop/Remove, Allow/Deny/Edit Proposal all register through command-guard.ts).
import assert from 'node:assert/strict';
import { guardCommand } from '../../../src/host/command-failure';

function recorder() {
  const logged: string[] = [];
  const shown: string[] = [];
  return { logged, shown, report: { log: { error: (line: string) => void logged.push(line) }, show: (message: string) => void shown.push(message) } };
}

describe('host: a failing command is logged and shown (guardCommand)', () => {
  it('passes the arguments through and returns the result; nothing is reported', async () => {
    const r = recorder();
    const run = guardCommand('turnstone.x', async (a: number, b: string) => `${a}${b}`, r.report);
    assert.equal(await run(1, 'b'), '1b');
    assert.equal(await guardCommand('turnstone.y', () => 7, r.report)(), 7);
    assert.deepEqual([r.logged, r.shown], [[], []]);
  });

  it('a rejection: the log names the command and has the stack, the user gets the message, the result is undefined', async () => {
    const r = recorder();
    const run = guardCommand('turnstone.sessions.remove', async () => {
      throw new Error('git worktree remove failed: busy');
    }, r.report);
    assert.equal(await run(), undefined);
    assert.deepEqual(r.shown, ['git worktree remove failed: busy']);
    assert.equal(r.logged.length, 1);
    assert.match(r.logged[0]!, /^turnstone\.sessions\.remove failed: Error: git worktree remove failed: busy\n\s+at /);
  });

  it('a synchronous throw and a thrown non-Error are reported too', async () => {
    const r = recorder();
    assert.equal(await guardCommand('turnstone.sessions.stop', () => {
      throw new Error('no such session');
    }, r.report)(), undefined);
    assert.equal(await guardCommand('turnstone.focus', () => {
      throw 'plain text';
    }, r.report)(), undefined);
    assert.deepEqual(r.shown, ['no such session', 'plain text']);
    assert.match(r.logged[0]!, /^turnstone\.sessions\.stop failed: Error: no such session/);
    assert.equal(r.logged[1], 'turnstone.focus failed: plain text');
  });
});
