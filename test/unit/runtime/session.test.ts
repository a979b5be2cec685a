import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { appendFile, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { ConversationRuntime } from '../../../src/runtime/loop/conversation';
import { historyProblem, normaliseHistory } from '../../../src/runtime/session/history';
import { forkSession, JsonlSessionStore, listSessions, loadSession } from '../../../src/runtime/session/session';
import { type Message } from '../../../src/runtime/types';
import { baseConfig, memoryTools, recordEvents, ScriptedModel, step } from './fakes';

const repoRoot = resolve(__dirname, '../../..');

describe('runtime: sessions', () => {
  let dir: string;
  beforeEach(async () => {
    dir = await mkdtemp(join(tmpdir(), 'turnstone-session-'));
  });
  afterEach(async () => {
    await rm(dir, { recursive: true, force: true });
  });

  it('T9: normalising history answers every tool use once, in call order, drops orphans and fills "aborted"', () => {
    const history: Message[] = [
      { role: 'user', content: [{ type: 'text', text: 'go' }] },
      { role: 'assistant', content: [{ type: 'tool_use', id: 'a', name: 'x', input: {} }, { type: 'tool_use', id: 'b', name: 'x', input: {} }, { type: 'tool_use', id: 'c', name: 'x', input: {} }] },
      {
        role: 'user',
        content: [
          { type: 'tool_result', tool_use_id: 'c', content: 'C' },
          { type: 'tool_result', tool_use_id: 'zz', content: 'orphan' },
          { type: 'tool_result', tool_use_id: 'a', content: 'A' },
          { type: 'tool_result', tool_use_id: 'a', content: 'duplicate' },
          { type: 'text', text: 'note' },
        ],
      },
      { role: 'user', content: [{ type: 'text', text: 'more' }] },
      { role: 'assistant', content: [{ type: 'text', text: 'ok' }, { type: 'tool_use', id: 'd', name: 'x', input: {} }] },
    ];
    const fixed = normaliseHistory(history);
    assert.equal(historyProblem(history) !== undefined, true);
    assert.equal(historyProblem(fixed), undefined);
    assert.deepEqual(fixed[2], {
      role: 'user',
      content: [
        { type: 'tool_result', tool_use_id: 'a', content: 'A' },
        { type: 'tool_result', tool_use_id: 'b', content: 'aborted', is_error: true, aborted: true },
        { type: 'tool_result', tool_use_id: 'c', content: 'C' },
        { type: 'text', text: 'note' },
        { type: 'text', text: 'more' },
      ],
    });
    assert.deepEqual(fixed[4], { role: 'user', content: [{ type: 'tool_result', tool_use_id: 'd', content: 'aborted', is_error: true, aborted: true }] });
    assert.deepEqual(normaliseHistory([{ role: 'user', content: [{ type: 'tool_result', tool_use_id: 'x', content: 'orphan' }] }]), []);
  });

  it('C3: a turn is written as JSONL as it goes, and loads back to the same history', async () => {
    const store = await JsonlSessionStore.create(dir, { cwd: '/ws', model: baseConfig.model });
    const model = new ScriptedModel([step('', [{ id: 'a', name: 'read_file', input: { path: 'x' } }]), step('done')]);
    const rt = new ConversationRuntime({ model, tools: memoryTools({ x: 'X' }), session: store }, baseConfig);
    await rt.runTurn('read x');
    const lines = (await readFile(store.path, 'utf8')).trim().split('\n').map((l) => JSON.parse(l) as { type: string });
    assert.equal(lines[0]!.type, 'meta');
    assert.equal(lines.filter((l) => l.type === 'message').length, 4);
    const loaded = await loadSession(store.path);
    assert.deepEqual(loaded.messages, rt.messages);
    assert.deepEqual(loaded.usage, rt.cumulativeUsage);
    assert.equal(loaded.meta?.cwd, '/ws');
    assert.deepEqual(loaded.warnings, []);
  });

  it('C3: a step\'s tool uses are on disk before any of them runs (a crash mid-tool leaves a session naming it)', async () => {
    const store = await JsonlSessionStore.create(dir, { cwd: '/ws', model: baseConfig.model });
    const tools = memoryTools({ x: 'X' });
    let onDiskWhenRun = false;
    const read = tools.tools.read_file!;
    tools.tools.read_file = {
      ...read,
      run: async (input, ctx) => {
        onDiskWhenRun = (await readFile(store.path, 'utf8')).includes('"tool_use"');
        return read.run!(input, ctx);
      },
    };
    const model = new ScriptedModel([step('', [{ id: 'a', name: 'read_file', input: { path: 'x' } }]), step('done')]);
    await new ConversationRuntime({ model, tools, session: store }, baseConfig).runTurn('read x');
    assert.ok(onDiskWhenRun, 'the assistant message with the tool use was written before the tool ran');
  });

  it('C3: sessions can be listed, resumed and forked; the fork does not touch the original', async () => {
    const first = await JsonlSessionStore.create(dir);
    await new ConversationRuntime({ model: new ScriptedModel([step('one')]), tools: memoryTools(), session: first }, baseConfig).runTurn('first session prompt');
    const second = await JsonlSessionStore.create(dir);
    await new ConversationRuntime({ model: new ScriptedModel([step('two')]), tools: memoryTools(), session: second }, baseConfig).runTurn('second session prompt');

    const list = await listSessions(dir);
    assert.deepEqual(list.map((s) => s.title).sort(), ['first session prompt', 'second session prompt']);
    assert.ok(list.every((s) => s.messageCount === 2));

    const loaded = await loadSession(first.path);
    const resumed = new ConversationRuntime({ model: new ScriptedModel([step('resumed')]), tools: memoryTools(), session: JsonlSessionStore.open(first.path) }, baseConfig, loaded);
    await resumed.runTurn('continue');
    assert.equal((await loadSession(first.path)).messages.length, 4);

    const before = await readFile(first.path, 'utf8');
    const fork = await forkSession(first.path, dir);
    assert.notEqual(fork.store.path, first.path);
    const forked = new ConversationRuntime({ model: new ScriptedModel([step('forked reply')]), tools: memoryTools(), session: fork.store }, baseConfig, fork.session);
    await forked.runTurn('in the fork');
    assert.equal(await readFile(first.path, 'utf8'), before);
    const forkLoaded = await loadSession(fork.store.path);
    assert.equal(forkLoaded.messages.length, 6);
    assert.equal(forkLoaded.meta?.forkedFrom, loaded.meta?.id);
  });

  it('C3: a corrupt or truncated last line is skipped with a warning, and appending after it stays readable', async () => {
    const store = await JsonlSessionStore.create(dir);
    await new ConversationRuntime({ model: new ScriptedModel([step('hello')]), tools: memoryTools(), session: store }, baseConfig).runTurn('hi');
    await appendFile(store.path, '{"type":"message","ts":1,"message":{"role":"assis');
    const loaded = await loadSession(store.path);
    assert.equal(loaded.messages.length, 2);
    assert.equal(loaded.warnings.length, 1);
    assert.match(loaded.warnings[0]!, /last line is not valid JSON/);

    const reopened = JsonlSessionStore.open(store.path);
    await new ConversationRuntime({ model: new ScriptedModel([step('again')]), tools: memoryTools(), session: reopened }, baseConfig, loaded).runTurn('more');
    const after = await loadSession(store.path);
    assert.equal(after.messages.length, 4);
    assert.equal(after.warnings.length, 1, 'only the torn line is lost');
    assert.match(after.warnings[0]!, /line \d+ is not valid JSON/);
  });

  it('C3: a disk error while writing warns once and the turn carries on in memory', async () => {
    const broken = await JsonlSessionStore.create(join(dir, 'ok'));
    await rm(join(dir, 'ok'), { recursive: true, force: true });
    const model = new ScriptedModel([step('', [{ id: 'a', name: 'read_file', input: { path: 'x' } }]), step('still here')]);
    const rt = new ConversationRuntime({ model, tools: memoryTools({ x: 'X' }), session: broken }, baseConfig);
    const events = recordEvents(rt);
    const s = await rt.runTurn('go');
    assert.equal(s.outcome, 'completed');
    assert.equal(s.finalText, 'still here');
    const warnings = events.filter((e) => e.type === 'warning' && e.kind === 'session_write');
    assert.equal(warnings.length, 1);
    assert.equal(rt.messages.length, 4);
  });

  it('C3: a session written by a child process that is SIGKILLed mid-turn resumes with a valid history', async function () {
    this.timeout(60_000);
    const child = spawn(process.execPath, ['--import', 'tsx', join(repoRoot, 'test/fixtures/runtime-session-child.ts'), dir], { cwd: repoRoot, stdio: ['ignore', 'pipe', 'pipe'] });
    let out = '';
    let err = '';
    child.stderr.setEncoding('utf8').on('data', (d: string) => (err += d));
    const exited = new Promise<NodeJS.Signals | null>((res) => child.on('exit', (_code, sig) => res(sig)));
    await new Promise<void>((res, rej) => {
      child.stdout.setEncoding('utf8').on('data', (d: string) => {
        out += d;
        if (out.includes('HANGING')) res();
      });
      child.on('exit', (code) => rej(new Error(`child exited early (${code}): ${err}`)));
    });
    const path = /SESSION (.+)\n/.exec(out)![1]!;
    // The hanging tool is the second step's: wait until that step's assistant message is on disk.
    const deadline = Date.now() + 30_000;
    while (!(await readFile(path, 'utf8')).includes('"h1"')) {
      assert.ok(Date.now() < deadline, `the second step never reached the session file: ${await readFile(path, 'utf8')}`);
      await new Promise((r) => setTimeout(r, 25));
    }
    child.kill('SIGKILL');
    assert.equal(await exited, 'SIGKILL');

    const loaded = await loadSession(path);
    assert.deepEqual(loaded.warnings, []);
    assert.equal(historyProblem(loaded.messages), undefined);
    assert.deepEqual(loaded.messages.map((m) => m.role), ['user', 'assistant', 'user', 'assistant', 'user']);
    assert.deepEqual(loaded.messages[4]!.content, [
      { type: 'tool_result', tool_use_id: 'h1', content: 'aborted', is_error: true, aborted: true },
      { type: 'tool_result', tool_use_id: 'h2', content: 'aborted', is_error: true, aborted: true },
    ]);

    const model = new ScriptedModel([step('picking up where we left off')]);
    const rt = new ConversationRuntime({ model, tools: memoryTools(), session: JsonlSessionStore.open(path) }, baseConfig, loaded);
    const s = await rt.runTurn('continue please');
    assert.equal(s.outcome, 'completed');
    assert.equal(historyProblem(model.requests[0]!.messages), undefined);
    const reloaded = await loadSession(path);
    assert.equal(historyProblem(reloaded.messages), undefined);
    assert.equal(reloaded.messages.length, 6);
  });

  it('C3: an empty or garbage file loads as an empty session with warnings, never a crash', async () => {
    const path = join(dir, 'garbage.jsonl');
    await writeFile(path, 'not json\n{"type":"nope"}\n\n');
    const loaded = await loadSession(path);
    assert.deepEqual(loaded.messages, []);
    assert.equal(loaded.warnings.length, 2);
  });
});
