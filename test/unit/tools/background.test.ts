// Issue 28, background commands: the registry against real bash (and the real
// bubblewrap sandbox where this machine has one), checked with the real process table.
import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { BackgroundCommands } from '../../../src/tools/shell/background';
import { NodeShell, NodeWorkspace } from '../../../src/tools/node-adapter';
import { createToolExecutor } from '../../../src/tools/registry';
import { CommandSandbox, sandboxStatus } from '../../../src/tools/shell/sandbox';
import { ConversationRuntime } from '../../../src/runtime/loop/conversation';
import { processesWith, until } from '../../support/process-tree';
import { baseConfig, ScriptedModel, step } from '../runtime/fakes';
import { tempDir } from './helpers';

const marker = () => `4242.${Math.floor(Math.random() * 1e9)}`;

describe('28.bg: background commands', function () {
  this.timeout(60_000);
  let base: string;
  let ws: string;
  let registry: BackgroundCommands;
  let max: number;

  beforeEach(() => {
    base = tempDir('turnstone-bg-');
    ws = path.join(base, 'ws');
    fs.mkdirSync(ws);
    max = 4;
    registry = new BackgroundCommands({ maxRunning: () => max, maxUnreadChars: 2000, dir: async () => base });
  });
  afterEach(async () => {
    await registry.dispose();
    fs.rmSync(base, { recursive: true, force: true });
  });

  const shell = new NodeShell({ killGraceMs: 500 });
  const readUntil = async (id: string, pattern: RegExp) => {
    let seen = '';
    return until(`${id} to print ${pattern}`, () => {
      seen += registry.read(id).output;
      return pattern.test(seen) ? seen : undefined;
    });
  };

  it('28.bg: start returns at once with bash_1, bash_2, … while the command keeps running', async () => {
    const m = marker();
    const a = await registry.start(shell, `sleep ${m}`, { cwd: ws });
    const b = await registry.start(shell, 'echo hi', { cwd: ws });
    assert.equal(a.id, 'bash_1');
    assert.equal(b.id, 'bash_2');
    await until('the sleep to run', () => processesWith(m).length > 0);
    assert.deepEqual(registry.read('bash_1').status, 'running');
  });

  it('42.10: in a resumed session ids go on after the highest its history names, so no second bash_1 appears', async () => {
    registry.continueAfter([
      { role: 'user', content: [{ type: 'text', text: 'run the server' }] },
      { role: 'assistant', content: [{ type: 'tool_use', id: 't1', name: 'bash', input: { command: 'npm run dev', run_in_background: true } }] },
      { role: 'user', content: [{ type: 'tool_result', tool_use_id: 't1', content: 'Started in the background as bash_1 (npm run dev).' }] },
      { role: 'assistant', content: [{ type: 'tool_use', id: 't2', name: 'bash_output', input: { id: 'bash_3' } }] },
      { role: 'user', content: [{ type: 'tool_result', tool_use_id: 't2', content: 'bash_3 exited with code 0.' }] },
    ]);
    const next = await registry.start(shell, 'echo resumed', { cwd: ws });
    assert.equal(next.id, 'bash_4');
  });

  it('28.bg: a read returns only what was printed since the last read, then the exit status and code', async () => {
    const fifo = path.join(base, 'go');
    const { id } = await registry.start(shell, `echo one; while [ ! -e ${fifo} ]; do sleep 0.05; done; echo two; exit 3`, { cwd: ws });
    assert.match(await readUntil(id, /one/), /^one\n$/);
    const idle = registry.read(id);
    assert.equal(idle.output, '');
    assert.equal(idle.status, 'running');
    assert.equal(idle.exitCode, null);
    fs.writeFileSync(fifo, '');
    await until('the command to exit', () => registry.running.length === 0);
    const last = registry.read(id);
    assert.equal(last.output, 'two\n');
    assert.equal(last.status, 'exited');
    assert.equal(last.exitCode, 3);
  });

  it('28.bg: bash_output: a filter keeps only the matching new lines (colour codes gone); an invalid regex is a clear error and loses nothing', async () => {
    const tools = createToolExecutor({ workspace: new NodeWorkspace(ws), shell }, { outputDir: path.join(base, 'out'), background: registry });
    const c = { signal: new AbortController().signal };
    await tools.execute('bash', { command: 'printf "GET /a 200\\nGET /b \\033[31m500\\033[0m\\nGET /c 200\\n"', run_in_background: true }, c);
    await until('the exit', () => registry.running.length === 0);
    const bad = await tools.execute('bash_output', { id: 'bash_1', filter: '(' }, c);
    assert.equal(bad.isError, true);
    assert.match(bad.content, /filter is not a valid regular expression.*nothing was read/);
    const good = await tools.execute('bash_output', { id: 'bash_1', filter: ' 500$' }, c);
    assert.match(good.content, /^GET \/b 500\n\nStatus: exited\nExit code: 0$/);
  });

  it('issue 42 item 9: bash_output\'s filter sees every unread line: a marker early in 100 000 lines is found, and only once', async () => {
    const tools = createToolExecutor({ workspace: new NodeWorkspace(ws), shell }, { outputDir: path.join(base, 'out'), background: registry });
    const c = { signal: new AbortController().signal };
    const go = path.join(base, 'go');
    // 100 000 lines with one marker early (line 5001), far past what the 2000-character unread buffer keeps; then,
    // once told to, as many again with a second marker.
    const command = `seq 1 5000; echo NEEDLE-1 early; seq 5001 100000; while [ ! -e ${go} ]; do sleep 0.05; done; seq 1 50000; echo NEEDLE-2 later; seq 50001 100000`;
    await tools.execute('bash', { command, run_in_background: true }, c);
    let seen = '';
    await until('the filter to find the first marker', async () => {
      const r = await tools.execute('bash_output', { id: 'bash_1', filter: 'NEEDLE' }, c);
      assert.equal(r.isError, false, r.content);
      seen += r.content.split('\n\nStatus:')[0] + '\n';
      return /NEEDLE-1 early/.test(seen);
    });
    assert.equal(seen.match(/NEEDLE-1/g)?.length, 1);
    fs.writeFileSync(go, '');
    await until('the command to exit', () => registry.running.length === 0);
    const last = await tools.execute('bash_output', { id: 'bash_1', filter: 'NEEDLE' }, c);
    // From where the last read ended: the second marker, not the first again.
    assert.match(last.content, /^NEEDLE-2 later\n\nStatus: exited\nExit code: 0$/);
    const none = await tools.execute('bash_output', { id: 'bash_1', filter: 'NEEDLE' }, c);
    assert.match(none.content, /^\(no new output\)/);
  });

  it('issue 42 item 9: a filter matching every one of 100 000 lines returns no more than the output limit: the first and last matches, with their count', async () => {
    const tools = createToolExecutor({ workspace: new NodeWorkspace(ws), shell }, { outputDir: path.join(base, 'out'), background: registry, limits: { maxOutputChars: 5000 } });
    const c = { signal: new AbortController().signal };
    await tools.execute('bash', { command: 'seq 1 100000', run_in_background: true }, c);
    await until('the command to exit', () => registry.running.length === 0);
    const r = await tools.execute('bash_output', { id: 'bash_1', filter: '^[0-9]+$' }, c);
    assert.ok(r.content.length < 5000 + 600, `${r.content.length} characters returned`);
    assert.match(r.content, /^1\n2\n3\n/);
    assert.match(r.content, /\n99999\n100000\n\[100000 new lines matched \(588895 characters\); only the first and last are shown/);
  });

  it('issue 42 item 8: a background command\'s log is capped as it streams: head and tail kept, the cut marked; bash_output says so', async () => {
    const capped = new BackgroundCommands({ maxRunning: () => 4, maxUnreadChars: 2000, dir: async () => path.join(base, 'capped'), maxLogBytes: () => 1024 * 1024 });
    try {
      fs.mkdirSync(path.join(base, 'capped'), { mode: 0o700 });
      const tools = createToolExecutor({ workspace: new NodeWorkspace(ws), shell }, { outputDir: path.join(base, 'out'), background: capped });
      const c = { signal: new AbortController().signal };
      const flood = 64 * 1024 * 1024;
      await tools.execute('bash', { command: `echo HEAD-START; head -c ${flood} /dev/zero | tr '\\0' 'a'; echo; echo NEEDLE-END; echo TAIL-END`, run_in_background: true }, c);
      const file = path.join(base, 'capped', 'bash_1.log');
      let largest = 0;
      await until('the command to exit', () => {
        largest = Math.max(largest, fs.existsSync(file) ? fs.statSync(file).size : 0);
        return capped.running.length === 0;
      });
      assert.ok(largest <= 1024 * 1024, `the log reached ${largest} bytes while the command ran`);
      const text = await until('the log to be closed with its tail', () => {
        const t = fs.readFileSync(file, 'utf8');
        return t.endsWith('NEEDLE-END\nTAIL-END\n') && t;
      });
      assert.ok(Buffer.byteLength(text) <= 1024 * 1024);
      assert.ok(text.startsWith('HEAD-START\naaaa'));
      const cut = /\[… (\d+) bytes cut by Turnstone: output over the 1 MB cap …\]/.exec(text);
      assert.ok(cut, 'the cut is marked');
      assert.equal(fs.statSync(file).mode & 0o777, 0o600);
      // The filter reads the log: the head's and the tail's lines match; the cut is counted, not silently lost.
      const r = await tools.execute('bash_output', { id: 'bash_1', filter: 'HEAD-START|NEEDLE-END' }, c);
      assert.match(r.content, /^HEAD-START\nNEEDLE-END\n\[\d+ bytes of the new output were cut from the log \(over the 1 MB kept on disk\)/);
      assert.equal(Number(/\[(\d+) bytes of the new output were cut/.exec(r.content)![1]), Number(cut[1]));
    } finally {
      await capped.dispose();
    }
  });

  it('issue 42 item 8: an unfiltered read of a capped log names the cap', async () => {
    const capped = new BackgroundCommands({ maxRunning: () => 4, maxUnreadChars: 2000, dir: async () => base, maxLogBytes: () => 64 * 1024 });
    try {
      const tools = createToolExecutor({ workspace: new NodeWorkspace(ws), shell }, { outputDir: path.join(base, 'out'), background: capped });
      const c = { signal: new AbortController().signal };
      await tools.execute('bash', { command: 'seq 1 100000', run_in_background: true }, c);
      await until('the command to exit', () => capped.running.length === 0);
      const r = await tools.execute('bash_output', { id: 'bash_1' }, c);
      assert.match(r.content, /^1\n2\n/);
      assert.match(r.content, /past the 65536 bytes kept on disk, \d+ bytes of its middle were cut/);
    } finally {
      await capped.dispose();
    }
  });

  it('28.bg: the exit becomes one note for the next request, once, unless the model already read it', async () => {
    const a = await registry.start(shell, 'exit 7', { cwd: ws, description: 'failing build' });
    const b = await registry.start(shell, 'exit 0', { cwd: ws });
    await until('both to exit', () => registry.running.length === 0);
    registry.read(b.id);
    const notes = registry.takeExitNotes();
    assert.deepEqual(notes.length, 1);
    assert.match(notes[0]!, /bash_1 \(failing build\) exited with code 7/);
    assert.deepEqual(registry.takeExitNotes(), []);
    void a;
  });

  it('28.bg: kill_shell stops the whole tree (a shell and the sleeps it forked): none survives', async () => {
    const m = marker();
    const { id } = await registry.start(shell, `bash -c 'sleep ${m} & sleep ${m}'`, { cwd: ws });
    await until('both sleeps to run', () => processesWith(`sleep ${m}`).length >= 2);
    const killed = await registry.kill(id);
    assert.equal(killed.wasRunning, true);
    await until('no process of the command to survive', () => processesWith(m).length === 0, 10_000);
    assert.equal(registry.read(id).status, 'killed');
    assert.deepEqual(registry.takeExitNotes(), [], 'a kill the model asked for is no news');
  });

  it('28.bg: kill_shell of a command whose shell already exited still stops the child it left running in its group', async () => {
    const m = marker();
    // The subshell's sleep outlives bash and stays in its process group; its output goes elsewhere so the pipes close with bash.
    const { id } = await registry.start(shell, `(sleep ${m} >/dev/null 2>&1 &) ; echo started`, { cwd: ws });
    await until('the shell to exit', () => registry.running.length === 0);
    // The sleep itself (comm "sleep"), not a bash still forking it, whose command line names it too.
    const comm = (pid: number) => {
      try {
        return fs.readFileSync(`/proc/${pid}/comm`, 'utf8').trim();
      } catch {
        return '';
      }
    };
    const orphan = await until(`the orphaned sleep ${m} to run`, () => processesWith(`sleep ${m}`).find((pid) => comm(pid) === 'sleep'));
    try {
      const killed = await registry.kill(id);
      assert.equal(killed.wasRunning, false);
      assert.equal(killed.status, 'exited');
      await until(`the orphaned sleep (pid ${orphan}) to be gone after kill`, () => processesWith(`sleep ${m}`).length === 0, 5_000);
    } finally {
      // Should kill() miss it, the test must not leave it running.
      for (const pid of processesWith(`sleep ${m}`)) {
        try {
          process.kill(pid, 'SIGKILL');
        } catch {
          // Gone between the look and the signal.
        }
      }
    }
  });

  it('28.bg: in the bubblewrap sandbox, kill stops the sandbox and everything in it', async function () {
    if (!(await sandboxStatus()).available) this.skip();
    const sandboxed = new NodeShell({ sandbox: new CommandSandbox(() => ({ mode: 'auto', network: 'allow', roots: [ws] })), killGraceMs: 500 });
    const m = marker();
    const { id } = await registry.start(sandboxed, `bash -c 'sleep ${m} & sleep ${m}' & sleep ${m}`, { cwd: ws });
    await until('the sleeps to run in the sandbox', () => processesWith(`sleep ${m}`).length >= 3);
    await registry.kill(id);
    await until('no process of the sandbox to survive', () => processesWith(m).length === 0, 10_000);
  });

  it('28.bg: killAll (new session, window close, CLI exit, Stop) leaves no process of any command', async () => {
    const m = marker();
    await registry.start(shell, `sleep ${m}`, { cwd: ws });
    await registry.start(shell, `(sleep ${m} &) ; sleep ${m}`, { cwd: ws });
    await until('the sleeps to run', () => processesWith(`sleep ${m}`).length >= 3);
    await registry.killAll();
    await until('no process to survive', () => processesWith(m).length === 0, 10_000);
    assert.deepEqual(registry.running, []);
  });

  it('28.bg: turnstone.bash.maxBackground: one more than the limit is a clear error naming the running ones', async () => {
    max = 2;
    const m = marker();
    await registry.start(shell, `sleep ${m}`, { cwd: ws });
    await registry.start(shell, `sleep ${m}`, { cwd: ws });
    await assert.rejects(registry.start(shell, 'true', { cwd: ws }), (e: Error & { kind?: string }) => e.kind === 'too_many' && /bash_1, bash_2/.test(e.message) && /turnstone\.bash\.maxBackground allows \(2\)/.test(e.message));
    await registry.kill('bash_1');
    assert.equal((await registry.start(shell, 'true', { cwd: ws })).id, 'bash_3');
  });

  it('28.bg: long unread output is kept as head and tail; the whole of it is in the spill file', async () => {
    const { id, file } = await registry.start(shell, 'seq 1 200000', { cwd: ws });
    await until('the exit', () => registry.running.length === 0);
    const r = registry.read(id);
    assert.ok(r.output.length < 3000, `kept ${r.output.length} characters`);
    assert.match(r.output, /^1\n2\n/);
    assert.match(r.output, /199999\n200000\n$/);
    assert.equal(r.fullOutput, file);
    await until('the spill file to be complete', () => fs.readFileSync(file, 'utf8').endsWith('\n200000\n'));
    assert.equal(fs.readFileSync(file, 'utf8').split('\n').length, 200001);
  });

  it('28.bg: through the tools: bash run_in_background, bash_output and kill_shell; unknown ids are named errors', async () => {
    const tools = createToolExecutor({ workspace: new NodeWorkspace(ws), shell }, { outputDir: path.join(base, 'out'), background: registry });
    const names = tools.definitions().map((d) => d.name);
    assert.ok(names.includes('bash_output') && names.includes('kill_shell'));
    const c = { signal: new AbortController().signal };
    const started = await tools.execute('bash', { command: 'echo ready; sleep 30', run_in_background: true, description: 'waiter' }, c);
    assert.match(started.content, /Started in the background as bash_1/);
    await until('ready', async () => /ready/.test((await tools.execute('bash_output', { id: 'bash_1' }, c)).content));
    const running = await tools.execute('bash_output', { id: 'bash_1' }, c);
    assert.match(running.content, /\(no new output\)\n\nStatus: running/);
    assert.match((await tools.execute('kill_shell', { id: 'bash_1' }, c)).content, /Stopped bash_1/);
    const unknown = await tools.execute('bash_output', { id: 'bash_9' }, c);
    assert.equal(unknown.isError, true);
    assert.match(unknown.content, /No background command "bash_9".*known: bash_1/);
    // Reading and killing need no approval; starting is judged like any command.
    assert.equal((await tools.assess('kill_shell', { id: 'bash_1' })).need, 'read');
    assert.equal(tools.isReadOnly('bash_output'), true);
    assert.equal((await tools.assess('bash', { command: 'npm run dev', run_in_background: true })).need, 'command');
  });

  it('28.bg: without a registry, bash_output and kill_shell are not offered', () => {
    const tools = createToolExecutor({ workspace: new NodeWorkspace(ws), shell }, { outputDir: path.join(base, 'out') });
    const names = tools.definitions().map((d) => d.name);
    assert.ok(!names.includes('bash_output') && !names.includes('kill_shell'));
  });

  it('28.bg: when one exits, the next request carries a one-line note (id, exit code), and only that one', async () => {
    const tools = createToolExecutor({ workspace: new NodeWorkspace(ws), shell }, { outputDir: path.join(base, 'out'), background: registry });
    const model = new ScriptedModel([
      step('', [{ id: 'b1', name: 'bash', input: { command: 'exit 5', run_in_background: true, description: 'quick check' } }]),
      // The second step answers only once the command has exited, so the third request must say so.
      async function* () {
        await until('the background command to exit', () => registry.running.length === 0);
        yield* step('', [{ id: 'g1', name: 'glob_search', input: { pattern: '*.none' } }]);
      },
      step('done'),
    ]);
    const context = { model, tools, config: { ...baseConfig, permissionMode: 'bypassPermissions' as const }, notes: () => registry.takeExitNotes() };
    const rt = new ConversationRuntime({ model, tools }, context.config);
    const summary = await rt.runTurn('check', { context });
    assert.equal(summary.outcome, 'completed');
    const noteIn = (i: number) => JSON.stringify(model.requests[i]!.messages.at(-1));
    assert.doesNotMatch(noteIn(1), /exited with code/);
    assert.match(noteIn(2), /Background command bash_1 \(quick check\) exited with code 5/);
    assert.equal(model.requests[2]!.messages.at(-1)!.content.filter((b) => b.type === 'text').length, 1);
  });
});
