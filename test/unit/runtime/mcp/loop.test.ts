// MCP tool uses through the real turn loop and permission chain (the model is
// the scripted fake, the server the real everything server): the default asks,
// readOnlyHint approves nothing, the three rule forms allow, deny rules win,
// the list is re-prepared every step, and Stop ends a slow call.
import * as assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { ConversationRuntime } from '../../../../src/runtime/loop/conversation';
import { parseServerMap } from '../../../../src/runtime/mcp/config';
import { McpManager } from '../../../../src/runtime/mcp/manager';
import { type PermissionRules } from '../../../../src/runtime/policy/permissions';
import { withMcpTools } from '../../../../src/tools/mcp-tools';
import { NodeWorkspace } from '../../../../src/tools/node-adapter';
import { createToolExecutor } from '../../../../src/tools/registry';
import { DYNAMIC_BIN, EVERYTHING_BIN, waitFor } from '../../../fixtures/mcp-servers';
import { baseConfig, ScriptedModel, ScriptedPrompter, step } from '../fakes';

const echo = (id: string, message = 'hi') => ({ id, name: 'mcp__everything__echo', input: { message } });

describe('MCP: tool uses through the turn loop and the permission chain', function () {
  this.timeout(60_000);
  let ws: string;
  let manager: McpManager;
  before(() => {
    manager = new McpManager(
      parseServerMap({ everything: { command: process.execPath, args: [EVERYTHING_BIN, 'stdio'] }, dyn: { command: process.execPath, args: [DYNAMIC_BIN] } }, 'user', 'test', { workspaceFolder: undefined, env: {} }),
      { startTimeoutMs: 20_000 },
    );
  });
  after(async () => {
    await manager.dispose();
  });
  beforeEach(() => {
    ws = mkdtempSync(path.join(os.tmpdir(), 'turnstone-mcp-loop-'));
  });
  afterEach(() => rmSync(ws, { recursive: true, force: true }));

  const runtime = (model: ScriptedModel, rules: PermissionRules = {}) =>
    new ConversationRuntime({ model, tools: withMcpTools(createToolExecutor({ workspace: new NodeWorkspace(ws) }), manager) }, { ...baseConfig, permissionRules: rules });

  it('the first step starts the servers and offers their tools; with nobody to ask, a call is denied (readOnlyHint does not approve it)', async () => {
    const model = new ScriptedModel([step('', [echo('t1')]), step('ok')]);
    const summary = await runtime(model).runTurn('use echo');
    assert.ok(model.requests[0]!.tools.some((t) => t.name === 'mcp__everything__echo'), 'the first request already lists MCP tools');
    const r = summary.toolResults[0]!;
    assert.equal(r.isError, true);
    assert.match(r.content, /Permission denied: .*needs approval/);
  });

  for (const rule of ['mcp__everything__echo', 'mcp__everything__*', 'mcp__everything']) {
    it(`the rule ${rule} allows the call without asking`, async () => {
      const prompter = new ScriptedPrompter({ kind: 'deny' });
      const model = new ScriptedModel([step('', [echo('t1', rule)]), step('done')]);
      const summary = await runtime(model, { allow: [rule] }).runTurn('use echo', { prompter });
      assert.equal(prompter.requests.length, 0);
      assert.deepEqual(summary.toolResults.map((r) => [r.isError, r.content]), [[false, `Echo: ${rule}`]]);
    });
  }

  it('a rule for one server does not cover another; a deny rule for the server wins over an allow rule for the tool', async () => {
    const model = new ScriptedModel([step('', [{ id: 'd1', name: 'mcp__dyn__add_tool', input: { name: 'x' } }]), step('done')]);
    const summary = await runtime(model, { allow: ['mcp__everything__*', 'mcp__everything'] }).runTurn('go');
    assert.match(summary.toolResults[0]!.content, /Permission denied: .*needs approval/);
    const model2 = new ScriptedModel([step('', [echo('e1')]), step('done')]);
    const summary2 = await runtime(model2, { allow: ['mcp__everything__echo'], deny: ['mcp__everything'] }).runTurn('go');
    assert.match(summary2.toolResults[0]!.content, /denied by rule mcp__everything/);
  });

  it('the prompt names the tool and carries its input; "allow for this session" remembers the exact tool', async () => {
    const prompter = new ScriptedPrompter({ kind: 'allow', scope: 'session' });
    const model = new ScriptedModel([step('', [echo('t1', 'first')]), step('', [echo('t2', 'second')]), step('done')]);
    const rt = runtime(model);
    const summary = await rt.runTurn('echo twice', { prompter });
    assert.equal(prompter.requests.length, 1);
    const req = prompter.requests[0]!;
    assert.equal(req.toolName, 'mcp__everything__echo');
    assert.deepEqual(req.input, { message: 'first' });
    assert.equal(req.suggestedRule, 'mcp__everything__echo');
    assert.deepEqual(rt.sessionRules, ['mcp__everything__echo']);
    assert.deepEqual(summary.toolResults.map((r) => r.content), ['Echo: first', 'Echo: second']);
  });

  it('invalid input is an is_error result saying why, and nothing is asked or called', async () => {
    const prompter = new ScriptedPrompter({ kind: 'allow', scope: 'once' });
    const model = new ScriptedModel([step('', [{ id: 't1', name: 'mcp__everything__echo', input: { msg: 'typo' } }]), step('done')]);
    const summary = await runtime(model).runTurn('go', { prompter });
    assert.equal(prompter.requests.length, 0);
    assert.match(summary.toolResults[0]!.content, /invalid input for mcp__everything__echo: .*must have required property 'message'/);
  });

  it('a tool added mid-turn is offered in the very next step of the same turn', async () => {
    const model = new ScriptedModel([step('', [{ id: 'a1', name: 'mcp__dyn__add_tool', input: { name: 'late' } }]), step('', [{ id: 'l1', name: 'mcp__dyn__late', input: {} }]), step('done')]);
    const summary = await runtime(model, { allow: ['mcp__dyn'] }).runTurn('add and use');
    assert.ok(!model.requests[0]!.tools.some((t) => t.name === 'mcp__dyn__late'));
    assert.ok(model.requests[1]!.tools.some((t) => t.name === 'mcp__dyn__late'));
    assert.deepEqual(summary.toolResults.map((r) => r.content), ['added late', 'late ran']);
  });

  it('Stop during a slow MCP call ends the turn as aborted at once, and the server stays usable', async () => {
    const ac = new AbortController();
    let progressed = false;
    const model = new ScriptedModel([step('', [{ id: 's1', name: 'mcp__everything__trigger-long-running-operation', input: { duration: 30, steps: 300 } }])]);
    const rt = runtime(model, { allow: ['mcp__everything'] });
    rt.subscribe((e) => {
      if (e.type === 'tool_progress') progressed = true;
    });
    const turn = rt.runTurn('slow', { signal: ac.signal });
    await waitFor(() => progressed, 'the slow call to report progress');
    const stopped = Date.now();
    ac.abort();
    const summary = await turn;
    assert.equal(summary.outcome, 'aborted');
    assert.ok(Date.now() - stopped < 2000);
    const again = await runtime(new ScriptedModel([step('', [echo('e2', 'after stop')]), step('done')]), { allow: ['mcp__everything'] }).runTurn('again');
    assert.equal(again.toolResults[0]!.content, 'Echo: after stop');
  });
});
