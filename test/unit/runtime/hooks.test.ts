import assert from 'node:assert/strict';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ConversationRuntime } from '../../../src/runtime/loop/conversation';
import { hookMatches, mergeHookFeedback, ShellHookRunner } from '../../../src/runtime/policy/hooks';
import { loadShellParser } from '../../../src/runtime/policy/shell-parser';
import { baseConfig, memoryTools, ScriptedModel, step } from './fakes';

const signal = () => new AbortController().signal;

describe('runtime: hooks as child processes', () => {
  let dir: string;
  before(async () => {
    dir = await mkdtemp(join(tmpdir(), 'turnstone-hooks-'));
    // Matchers like bash(git:*) are matched on the command's syntax tree.
    await loadShellParser();
  });
  after(async () => {
    await rm(dir, { recursive: true, force: true });
  });

  it('P5: a hook gets the event as JSON on stdin; exit 0 with JSON stdout can allow, rewrite the input and leave a message', async () => {
    const seen = join(dir, 'stdin.json');
    const runner = new ShellHookRunner(
      { PreToolUse: [{ matcher: 'bash', command: `cat > '${seen}'; echo '{"decision":"allow","updatedInput":{"command":"ls -la"},"message":"rewrote ls"}'` }] },
      { cwd: dir },
    );
    const r = await runner.run('PreToolUse', { tool_name: 'bash', tool_input: { command: 'ls' }, subject: 'ls' }, signal());
    assert.deepEqual(r, { outcome: 'ok', decision: 'allow', updatedInput: { command: 'ls -la' }, messages: ['rewrote ls'] });
    const stdin = JSON.parse(await readFile(seen, 'utf8'));
    assert.deepEqual(stdin, { hook_event_name: 'PreToolUse', tool_name: 'bash', tool_input: { command: 'ls' }, subject: 'ls' });
  });

  it('P5: exit 2 denies with stderr as the reason; another exit code is a failure; plain stdout is feedback', async () => {
    const runner = new ShellHookRunner(
      {
        PreToolUse: [{ command: 'echo "no writes to prod" >&2; exit 2' }],
        PostToolUse: [{ command: 'echo "lint clean"' }],
        PostToolUseFailure: [{ command: 'echo oops >&2; exit 3' }],
      },
      { cwd: dir },
    );
    assert.deepEqual(await runner.run('PreToolUse', { tool_name: 'write_file' }, signal()), { outcome: 'denied', messages: ['no writes to prod'] });
    assert.deepEqual(await runner.run('PostToolUse', { tool_name: 'write_file' }, signal()), { outcome: 'ok', messages: ['lint clean'] });
    const failed = await runner.run('PostToolUseFailure', { tool_name: 'bash' }, signal());
    assert.equal(failed.outcome, 'failed');
    assert.match(failed.messages[0]!, /exit code 3: oops/);
  });

  it('P5: garbage JSON on stdout is a failure with a readable message', async () => {
    const runner = new ShellHookRunner(
      { PreToolUse: [{ command: `echo '{"decision": allow'` }], PostToolUse: [{ command: `echo '{"decision": "maybe"}'` }] },
      { cwd: dir },
    );
    const bad = await runner.run('PreToolUse', { tool_name: 'bash' }, signal());
    assert.equal(bad.outcome, 'failed');
    assert.match(bad.messages[0]!, /printed invalid JSON .*\{"decision": allow/);
    const wrong = await runner.run('PostToolUse', { tool_name: 'bash' }, signal());
    assert.equal(wrong.outcome, 'failed');
    assert.match(wrong.messages[0]!, /not a hook result/);
  });

  it('P5: a hook that runs too long is killed and reported as timed out', async () => {
    const runner = new ShellHookRunner({ Stop: [{ command: 'sleep 30', timeoutMs: 300 }] }, { cwd: dir });
    const r = await runner.run('Stop', {}, signal());
    assert.equal(r.outcome, 'failed');
    assert.match(r.messages[0]!, /timed out after 300 ms/);
  });

  it('P5: an abort kills the hook and its children, and reports cancelled', async () => {
    const marker = join(dir, 'child-survived');
    const runner = new ShellHookRunner({ PreToolUse: [{ command: `(sleep 1; touch '${marker}') & sleep 30` }] }, { cwd: dir });
    const c = new AbortController();
    const pending = runner.run('PreToolUse', { tool_name: 'bash' }, c.signal);
    setTimeout(() => c.abort(), 100);
    const r = await pending;
    assert.equal(r.outcome, 'cancelled');
    await new Promise((res) => setTimeout(res, 1500));
    await assert.rejects(readFile(marker), 'the hook process group was killed');
  });

  it('P5: matchers select hooks by tool name or rule; feedback is merged under its label', () => {
    assert.ok(hookMatches(undefined, { tool_name: 'bash' }));
    assert.ok(hookMatches('*', { tool_name: 'bash' }));
    assert.ok(hookMatches('read_file|bash', { tool_name: 'bash' }));
    assert.ok(hookMatches('bash(git:*)', { tool_name: 'bash', subject: 'git push' }));
    assert.ok(!hookMatches('bash(git:*)', { tool_name: 'bash', subject: 'npm test' }));
    assert.ok(hookMatches('bash(git:*)', { tool_name: 'bash', subject: 'npm test && git push' }), 'per command: any part selects the hook');
    assert.ok(!hookMatches('write_file', { tool_name: 'bash' }));
    assert.equal(mergeHookFeedback(['checked'], 'output', false), 'output\n\nHook feedback:\nchecked');
    assert.equal(mergeHookFeedback(['bad', 'worse'], 'output', true), 'output\n\nHook feedback (error):\nbad\nworse');
    assert.equal(mergeHookFeedback([], 'output', true), 'output');
  });

  it('P5: in the loop, hook output lands in the tool result and a failing PostToolUse hook marks it as an error', async () => {
    const hooks = new ShellHookRunner(
      {
        PreToolUse: [{ matcher: 'read_file', command: 'echo "pre: ok"' }],
        PostToolUse: [{ matcher: 'read_file', command: 'echo "post: file looks stale" >&2; exit 1' }],
      },
      { cwd: dir },
    );
    const model = new ScriptedModel([step('', [{ id: 'a', name: 'read_file', input: { path: 'x' } }]), step('ok')]);
    const rt = new ConversationRuntime({ model, tools: memoryTools({ x: 'X' }), hooks }, baseConfig);
    const s = await rt.runTurn('read');
    const r = s.toolResults[0]!;
    assert.equal(r.isError, true);
    assert.match(r.content, /^X\n\nHook feedback:\npre: ok\n\nHook feedback \(error\):\nhook "echo .*" failed with exit code 1: post: file looks stale$/);
  });

  it('P5: a UserPromptSubmit hook can block a prompt; the turn fails without sending it', async () => {
    const hooks = new ShellHookRunner({ UserPromptSubmit: [{ command: 'grep -q password && { echo "no secrets" >&2; exit 2; } || exit 0' }] }, { cwd: dir });
    const model = new ScriptedModel([step('fine')]);
    const rt = new ConversationRuntime({ model, tools: memoryTools(), hooks }, baseConfig);
    const blocked = await rt.runTurn('my password is hunter2');
    assert.equal(blocked.outcome, 'failed');
    assert.equal(blocked.error?.kind, 'prompt_blocked');
    assert.equal(model.requests.length, 0);
    assert.equal(rt.messages.length, 0);
    assert.equal((await rt.runTurn('hello')).finalText, 'fine');
  });
});
