// Issue 10, area 'disk': session writes failing mid-turn for real reasons —
// a read-only remount (EROFS), a full filesystem (ENOSPC on a small tmpfs and
// /dev/full), the session path turned into a folder (EISDIR) or its folder
// into a file (ENOTDIR) — through the real CLI and through the runtime.
// Expected (C3): the turn completes in memory, the user is told once, records
// written before the error still load, and when the disk comes back the file
// holds the history in order (no silent gap or reordering).
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { closeSync, existsSync, mkdirSync, mkdtempSync, openSync, readFileSync, renameSync, rmSync, symlinkSync, unlinkSync, writeFileSync, writeSync } from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { ConversationRuntime } from '../../src/runtime/loop/conversation';
import { type RuntimeEvent } from '../../src/runtime/events';
import { historyProblem } from '../../src/runtime/session/history';
import { JsonlSessionStore, loadSession } from '../../src/runtime/session/session';
import { type Message } from '../../src/runtime/types';
import { MockAnthropicServer, textReply, toolUseReply } from '../fixtures/mock-anthropic';
import { memoryTools, ScriptedModel, step } from '../unit/runtime/fakes';
import { runCli } from '../support/run-cli';
import { toolPairProblem } from './fixtures/crash-cli';
import { recordScenario } from './report';

const WARNING = /could not write the session file/g;
const warned = (text: string) => /could not write the session file/.test(text);

/**
 * Polls `act` until it stops throwing, with a deadline: a read-only remount is
 * refused (EBUSY) while a write on that filesystem is still open, and the CLI is
 * held before its next step meanwhile, so the fault is in place when it writes.
 */
async function until<T>(act: () => T, what: string, timeoutMs = 30_000): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    try {
      return act();
    } catch (error) {
      if (Date.now() > deadline) throw new Error(`${what}: ${error instanceof Error ? error.message : String(error)}`);
      await new Promise((r) => setTimeout(r, 20));
    }
  }
}

/** Waits (polling, with a deadline) until `check()` holds; throws naming `what` if it never does. */
async function condition(check: () => boolean, what: string, timeoutMs = 30_000): Promise<void> {
  await until(() => {
    if (!check()) throw new Error(`still waiting: ${what}`);
  }, what, timeoutMs);
}

// Big enough that the outage's records need new blocks of a full filesystem (a 4 KB page has room for small appends).
const PADDING = 'z'.repeat(12_000);

function script(server: MockAnthropicServer): void {
  server.reset();
  server.enqueue(
    toolUseReply([{ id: 'tu_1', name: 'write_file', input: { path: 'one.txt', content: 'one\n' } }], { text: 'Step one.' }),
    toolUseReply([{ id: 'tu_2', name: 'bash', input: { command: 'echo two > two.txt' } }], { text: `Step two. ${PADDING}` }),
    toolUseReply([{ id: 'tu_3', name: 'write_file', input: { path: 'three.txt', content: 'three\n' } }], { text: `Step three. ${PADDING}` }),
    toolUseReply([{ id: 'tu_4', name: 'write_file', input: { path: 'four.txt', content: 'four\n' } }], { text: 'Step four.' }),
    textReply('All done.'),
  );
}

interface Fault {
  id: string;
  what: string;
  /** Makes writes to `file` fail; returns the function that brings the disk back. */
  inject(file: string): () => void;
  /** Needs mount(8) (root with CAP_SYS_ADMIN). */
  needsMount?: boolean;
}

let mountsWork: boolean | undefined;
function canMount(): boolean {
  if (mountsWork !== undefined) return mountsWork;
  const probe = mkdtempSync(path.join(os.tmpdir(), 'turnstone-mount-probe-'));
  try {
    execFileSync('mount', ['-t', 'tmpfs', '-o', 'size=64k', 'tmpfs', probe], { stdio: 'ignore' });
    execFileSync('umount', [probe], { stdio: 'ignore' });
    mountsWork = true;
  } catch {
    mountsWork = false;
  }
  rmSync(probe, { recursive: true, force: true });
  return mountsWork;
}

const FAULTS: Fault[] = [
  {
    id: 'F-DISK-01',
    what: 'the session filesystem is remounted read-only mid-turn (EROFS), then read-write again',
    needsMount: true,
    inject: (file) => {
      const mnt = path.dirname(file);
      execFileSync('mount', ['-o', 'remount,ro', mnt]);
      return () => execFileSync('mount', ['-o', 'remount,rw', mnt]);
    },
  },
  {
    id: 'F-DISK-02',
    what: 'the session filesystem (a 1 MB tmpfs) fills up mid-turn (ENOSPC), then space is freed',
    needsMount: true,
    inject: (file) => {
      const filler = path.join(path.dirname(file), 'filler');
      const fd = openSync(filler, 'w');
      const chunk = Buffer.alloc(4096, 0x61);
      try {
        for (;;) writeSync(fd, chunk);
      } catch (error) {
        if ((error as NodeJS.ErrnoException).code !== 'ENOSPC') throw error;
      } finally {
        closeSync(fd);
      }
      // Squeeze out the last partial block too.
      try {
        for (;;) writeFileSync(filler, 'a', { flag: 'a' });
      } catch {
        // full
      }
      return () => unlinkSync(filler);
    },
  },
  {
    id: 'F-DISK-03',
    what: 'the session file is swapped for a symlink to /dev/full mid-turn (ENOSPC on every write), then swapped back',
    inject: (file) => {
      renameSync(file, `${file}.real`);
      symlinkSync('/dev/full', file);
      return () => {
        unlinkSync(file);
        renameSync(`${file}.real`, file);
      };
    },
  },
  {
    id: 'F-DISK-04',
    what: 'the session file path becomes a directory mid-turn (EISDIR), then the file is put back',
    inject: (file) => {
      renameSync(file, `${file}.real`);
      mkdirSync(file);
      return () => {
        rmSync(file, { recursive: true });
        renameSync(`${file}.real`, file);
      };
    },
  },
  {
    id: 'F-DISK-05',
    what: "the session file's folder becomes a plain file mid-turn (ENOTDIR), then the folder is put back",
    inject: (file) => {
      const dir = path.dirname(file);
      renameSync(dir, `${dir}.real`);
      writeFileSync(dir, 'not a folder');
      return () => {
        unlinkSync(dir);
        renameSync(`${dir}.real`, dir);
      };
    },
  },
];

type WireMessage = { role: string; content: Array<{ type: string; text?: string; id?: string; tool_use_id?: string }> };

/** The turn's full history as the model saw it: the last request's messages plus the final reply. */
function fullHistory(server: MockAnthropicServer): WireMessage[] {
  const bodies = server.bodies as Array<{ messages: WireMessage[] }>;
  const last = bodies[bodies.length - 1]!.messages;
  return [...last, { role: 'assistant', content: [{ type: 'text', text: 'All done.' }] }];
}

/** Messages reduced to what must survive: roles, texts, tool ids (a stable comparison key). */
const shape = (ms: readonly WireMessage[] | readonly Message[]) =>
  (ms as WireMessage[]).map((m) => `${m.role}:${m.content.map((b) => b.text ?? b.id ?? b.tool_use_id ?? b.type).join('|')}`);

describe('reliability: disk errors on session writes (F-DISK, C3)', function () {
  this.timeout(120_000);
  const roots: string[] = [];
  // Each scenario has its own mock server: a CLI left running by a failed scenario cannot take another's replies.
  const startServer = async () => {
    const server = await MockAnthropicServer.start();
    return { server, env: { ANTHROPIC_BASE_URL: server.url, ANTHROPIC_API_KEY: 'sk-test-disk' } };
  };

  // A scenario's tmpfs is its own: unmounted when it ends, whatever happened in it.
  let mounted: string | undefined;
  afterEach(async () => {
    const dir = mounted;
    mounted = undefined;
    if (dir) await until(() => execFileSync('umount', [dir], { stdio: 'ignore' }), `unmounting ${dir}`);
  });
  after(() => {
    for (const r of roots) rmSync(r, { recursive: true, force: true });
  });

  for (const fault of FAULTS) {
    it(`${fault.id}: ${fault.what}; the CLI turn completes, warns once on stderr, and the session keeps every record in order (C3, T9)`, async function () {
      if (fault.needsMount && !canMount()) {
        // Needs the right to mount (root with CAP_SYS_ADMIN). The same failures without mount: F-DISK-03…05.
        recordScenario({ id: fault.id, area: 'disk', scenario: fault.what, expected: 'n/a', observed: '', notRun: 'mount(8) is not permitted here (needs root with CAP_SYS_ADMIN)' });
        this.skip();
      }
      const root = mkdtempSync(path.join(os.tmpdir(), 'turnstone-disk-'));
      roots.push(root);
      const ws = path.join(root, 'ws');
      mkdirSync(ws);
      const sessionDir = path.join(root, 'sessions');
      mkdirSync(sessionDir);
      const { server, env } = await startServer();
      if (fault.needsMount) {
        execFileSync('mount', ['-t', 'tmpfs', '-o', 'size=1m', 'tmpfs', sessionDir]);
        mounted = sessionDir;
      }
      const file = path.join(sessionDir, 'disk.jsonl');
      script(server);

      // The fault goes in before the 2nd reply is sent (step 2 and later are written while it is there), and
      // the disk comes back before the 4th reply, once the CLI has said a write failed.
      let restore: (() => void) | undefined;
      let injectedAfterBytes = -1;
      let stderrSoFar = '';
      server.beforeReply = async (index) => {
        if (index === 1) {
          // The first records (the prompt, step one) must be on disk before the fault: they are what must survive it.
          await condition(() => existsSync(file) && readFileSync(file).length > 0, `${fault.id}: the first records reach the session file`);
          injectedAfterBytes = readFileSync(file).length;
          restore = await until(() => fault.inject(file), `${fault.id}: putting the fault in place`);
        }
        if (index === 3 && restore) {
          await condition(() => warned(stderrSoFar), `${fault.id}: the CLI reports the failed session write before its 4th step`);
          const back = restore;
          restore = undefined;
          await until(back, `${fault.id}: bringing the disk back`);
        }
      };
      let run;
      try {
        run = await runCli(['-p', 'do four steps', '--cwd', ws, '--permission-mode', 'bypassPermissions', '--session', file], { env, onStderr: (text) => (stderrSoFar = text) });
      } finally {
        server.beforeReply = undefined;
        try {
          if (restore) await until(restore, `${fault.id}: bringing the disk back`);
        } finally {
          await server.close();
        }
      }
      const warnings = (run.stderr.match(WARNING) ?? []).length;
      const finalLine = run.stdout.trim().split('\n').pop();
      const loaded = await loadSession(file);
      const expected = shape(fullHistory(server));
      const got = shape(loaded.messages);
      const missing = expected.filter((m) => !got.includes(m)).length;
      const inOrder = JSON.stringify(got) === JSON.stringify(expected);
      const prefixKept = injectedAfterBytes > 0;
      const problem = historyProblem(loaded.messages) ?? toolPairProblem(loaded.messages);
      const files = ['one.txt', 'two.txt', 'three.txt', 'four.txt'].filter((f) => existsSync(path.join(ws, f))).length;
      const observed =
        `exit ${run.code}, last line "${finalLine}", ${files}/4 tool files written; ${warnings} session warning(s) on stderr; ` +
        `${injectedAfterBytes} bytes on disk at the fault; after recovery the session reloads with ${loaded.warnings.length} load warning(s), ` +
        `history ${problem ? `INVALID (${problem})` : 'valid'}, ${got.length}/${expected.length} messages, ${missing} missing, ${inOrder ? 'identical to the turn' : 'NOT identical to the turn'}`;
      const passed = run.code === 0 && finalLine === 'All done.' && files === 4 && warnings === 1 && prefixKept && loaded.warnings.length === 0 && !problem && inOrder;
      recordScenario({
        id: fault.id,
        area: 'disk',
        scenario: `CLI: ${fault.what}`,
        expected: 'turn completes, one warning on stderr, records written before still load, after recovery the session holds the whole history in order',
        observed,
        passed,
      });
      assert.equal(run.code, 0, run.stderr);
      assert.equal(finalLine, 'All done.');
      assert.equal(files, 4);
      assert.equal(warnings, 1, run.stderr);
      assert.ok(prefixKept, 'the fault came after the first records were written');
      assert.deepEqual(loaded.warnings, []);
      assert.equal(problem, undefined);
      assert.deepEqual(got, expected, observed);
    });
  }

  // The CLI's other output formats must tell the user too: json (stderr) and stream-json (one warning event).
  for (const format of ['json', 'stream-json'] as const) {
    it(`F-DISK-06${format === 'json' ? 'a' : 'b'}: /dev/full swapped in mid-turn with --output-format ${format}; the user is told once (C3)`, async () => {
      const root = mkdtempSync(path.join(os.tmpdir(), 'turnstone-disk-'));
      roots.push(root);
      const ws = path.join(root, 'ws');
      mkdirSync(ws);
      const file = path.join(root, 'sessions', 'disk.jsonl');
      const { server, env } = await startServer();
      script(server);
      // In place before the 2nd reply is sent, after the first records are on disk; never mended.
      let restore: (() => void) | undefined;
      server.beforeReply = async (index) => {
        if (index !== 1) return;
        await condition(() => existsSync(file) && readFileSync(file).length > 0, 'the first records reach the session file');
        restore = FAULTS[2]!.inject(file);
      };
      let run;
      try {
        run = await runCli(['-p', 'do four steps', '--cwd', ws, '--permission-mode', 'bypassPermissions', '--output-format', format, '--session', file], { env });
      } finally {
        server.beforeReply = undefined;
        restore?.();
        await server.close();
      }
      const onStderr = (run.stderr.match(WARNING) ?? []).length;
      const events = run.stdout
        .trim()
        .split('\n')
        .flatMap((l) => {
          try {
            return [JSON.parse(l) as { type: string; kind?: string; result?: string }];
          } catch {
            return [];
          }
        });
      const warningEvents = events.filter((e) => e.type === 'warning' && e.kind === 'session_write').length;
      const result = events[events.length - 1];
      const told = format === 'json' ? onStderr : warningEvents;
      const loaded = await loadSession(file);
      const problem = historyProblem(loaded.messages) ?? toolPairProblem(loaded.messages);
      const observed = `exit ${run.code}, result "${result?.result ?? '?'}"; ${onStderr} warning line(s) on stderr, ${warningEvents} session_write warning event(s) on stdout; the session (disk never came back) reloads ${loaded.messages.length} messages written before the fault, history ${problem ?? 'valid'}`;
      const passed = run.code === 0 && result?.result === 'All done.' && told === 1 && loaded.messages.length > 0 && !problem;
      recordScenario({
        id: `F-DISK-06${format === 'json' ? 'a' : 'b'}`,
        area: 'disk',
        scenario: `CLI --output-format ${format}: the session file becomes /dev/full mid-turn (ENOSPC) and stays so`,
        expected: format === 'json' ? 'turn completes, one warning line on stderr, records before the fault load' : 'turn completes, one session_write warning event, records before the fault load',
        observed,
        passed,
      });
      assert.equal(run.code, 0, run.stderr);
      assert.equal(result?.result, 'All done.');
      assert.equal(told, 1, observed);
      assert.ok(loaded.messages.length > 0);
      assert.equal(problem, undefined);
    });
  }

  it('F-DISK-07: runtime (ConversationRuntime + JsonlSessionStore) with /dev/full swapped in by a tool mid-turn, once mended and once left broken: one session_write warning event, turn completes, file matches the history or keeps a valid prefix (C3, T9)', async () => {
    const outcomes: string[] = [];
    let ok = true;
    for (const mend of [true, false]) {
      const dir = mkdtempSync(path.join(os.tmpdir(), 'turnstone-disk-rt-'));
      roots.push(dir);
      const store = await JsonlSessionStore.create(dir, { cwd: dir, model: 'claude-sonnet-5-5' });
      const file = store.path;
      let restore: (() => void) | undefined;
      const tools = memoryTools({ 'a.txt': 'alpha' });
      tools.tools['break_disk'] = {
        readOnly: false,
        need: 'command',
        run: async () => {
          await store.flush();
          restore = FAULTS[2]!.inject(file);
          return { content: 'disk broken', isError: false };
        },
      };
      tools.tools['mend_disk'] = {
        readOnly: false,
        need: 'command',
        run: async () => {
          // Every record of the broken window has been tried against the broken disk before it is mended:
          // otherwise whether any write fails depends on how fast the store's writer ran.
          await store.flush().catch(() => undefined);
          if (mend) restore?.();
          return { content: mend ? 'disk mended' : 'still broken', isError: false };
        },
      };
      const model = new ScriptedModel([
        step('Breaking the disk.', [{ id: 'b1', name: 'break_disk' }]),
        step('Writing while broken.', [
          { id: 'w1', name: 'write_file', input: { path: 'x.txt', content: 'x' } },
          { id: 'r1', name: 'read_file', input: { path: 'a.txt' } },
        ]),
        step('Mending.', [{ id: 'm1', name: 'mend_disk' }]),
        step('Finished.'),
      ]);
      const runtime = new ConversationRuntime({ model, tools, session: store }, { model: 'claude-sonnet-5-5', systemPrompt: 'test', permissionMode: 'bypassPermissions', env: {} });
      const events: RuntimeEvent[] = [];
      runtime.subscribe((e) => events.push(e));
      const summary = await runtime.runTurn('go');
      await store.flush();
      if (!mend) restore?.();
      const warnings = events.filter((e) => e.type === 'warning' && e.kind === 'session_write').length;
      const loaded = await loadSession(file);
      const problem = historyProblem(loaded.messages) ?? toolPairProblem(loaded.messages);
      const same = JSON.stringify(shape(loaded.messages)) === JSON.stringify(shape(runtime.messages));
      // Left broken: what was written before the fault (prompt, first step) is intact.
      const prefix = JSON.stringify(shape(loaded.messages)) === JSON.stringify(shape(runtime.messages.slice(0, loaded.messages.length))) && loaded.messages.length >= 1;
      outcomes.push(
        `${mend ? 'mended' : 'left broken'}: turn ${summary.outcome}, ${warnings} warning event(s), file reloads ${loaded.messages.length}/${runtime.messages.length} messages${mend ? (same ? ', identical to the history' : ', NOT identical') : prefix ? ', a valid prefix of the history' : ', NOT a prefix'}, history ${problem ?? 'valid'}`,
      );
      ok &&= summary.outcome === 'completed' && warnings === 1 && loaded.warnings.length === 0 && !problem && (mend ? same : prefix);
    }
    const observed = outcomes.join('; ');
    recordScenario({
      id: 'F-DISK-07',
      area: 'disk',
      scenario: 'runtime: the session file becomes /dev/full mid-turn (ENOSPC), then comes back or stays broken',
      expected: "turn completes, one 'warning' event of kind session_write, the file holds the whole history in order once the disk is back, else a valid prefix",
      observed,
      passed: ok,
    });
    assert.ok(ok, observed);
  });
});
