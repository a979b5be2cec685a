import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { AGENT_TOOL, MAX_REPORT_CHARS, withSubagents } from '../../../src/agent/subagents/agent-tool';
import { type AgentDefinition } from '../../../src/agent/subagents/agents';
import { ConversationRuntime, type ConversationConfig } from '../../../src/runtime/loop/conversation';
import { type RuntimeEvent } from '../../../src/runtime/events';
import { historyProblem } from '../../../src/runtime/session/history';
import { JsonlSessionStore, loadSession } from '../../../src/runtime/session/session';
import { type AssistantEvent, type Message, type ModelClient, type ModelRequest, type ModelResponse, type ToolExecutor, type ToolResultBlock } from '../../../src/runtime/types';
import { baseConfig, deferred, type Deferred, FakeTools, memoryTools, recordEvents, ScriptedModel, ScriptedPrompter, step, usage } from './fakes';

/** The first user text of a request: which conversation (the parent, or which subagent) is asking. */
const promptOf = (request: ModelRequest): string => {
  const first = request.messages[0];
  const block = first?.role === 'user' ? first.content.find((b) => b.type === 'text') : undefined;
  return block && 'text' in block ? block.text : '';
};

type Reply = AssistantEvent[] | ((request: ModelRequest, signal: AbortSignal) => AsyncIterable<AssistantEvent>);

/** A model that answers each conversation from its own script, whatever order their requests come in. */
class RoutedModel implements ModelClient {
  readonly requests: ModelRequest[] = [];
  constructor(private readonly scripts: Record<string, Reply[]>) {}
  stream(request: ModelRequest, signal: AbortSignal): AsyncIterable<AssistantEvent> {
    this.requests.push(structuredClone(request));
    const prompt = promptOf(request);
    const next = this.scripts[prompt]?.shift();
    if (!next) throw new Error(`RoutedModel: nothing scripted for "${prompt}" (request ${this.requests.length})`);
    if (typeof next === 'function') return next(request, signal);
    return (async function* () {
      yield* next;
    })();
  }
  async complete(): Promise<ModelResponse> {
    return { content: [{ type: 'text', text: 'summary' }], usage: usage(10), stopReason: 'end_turn' };
  }
  requestsOf(prompt: string): ModelRequest[] {
    return this.requests.filter((r) => promptOf(r) === prompt);
  }
}

/** A reply that waits for `gate` (or the request's cancellation) before it streams `events`. */
function held(gate: Deferred<void>, events: AssistantEvent[], started?: () => void): Reply {
  return (_request, signal) =>
    (async function* () {
      started?.();
      await new Promise<void>((resolve, reject) => {
        signal.addEventListener('abort', () => reject(new Error('aborted')), { once: true });
        void gate.promise.then(resolve);
      });
      yield* events;
    })();
}

const agentUse = (id: string, prompt: string, agent?: string) => ({ id, name: AGENT_TOOL, input: { description: `look ${id}`, prompt, ...(agent ? { agent } : {}) } });
const results = (messages: readonly Message[]) => messages.flatMap((m) => (m.role === 'user' ? m.content.filter((b): b is ToolResultBlock => b.type === 'tool_result') : []));

function runtimeWith(model: ModelClient, tools: ToolExecutor, config: Partial<ConversationConfig> = {}, store?: JsonlSessionStore) {
  return new ConversationRuntime({ model, tools, ...(store ? { session: store } : {}) }, { ...baseConfig, ...config });
}

const agentTools = (custom: AgentDefinition[] = [], base: ToolExecutor = memoryTools({ 'a.ts': 'export const a = 1;' })) =>
  withSubagents(base, { maxParallel: 4, provider: 'anthropic', model: baseConfig.model, systemPrompt: baseConfig.systemPrompt, custom });

describe('subagents: the agent tool', () => {
  it('three explore subagents in one step run at the same time, each with its own context and read-only tools, and report back in call order', async () => {
    const gate = deferred();
    let inFlight = 0;
    const started = () => {
      // Released only once all three are waiting at once: run one after another, they would never get here.
      if (++inFlight === 3) gate.resolve();
    };
    const model = new RoutedModel({
      'fix the bug': [step('Looking.', [agentUse('t1', 'find A'), agentUse('t2', 'find B'), agentUse('t3', 'find C')]), step('All three reported.')],
      'find A': [held(gate, step('A is in a.ts:1'), started)],
      'find B': [held(gate, step('B is nowhere'), started)],
      'find C': [held(gate, step('C is in c.ts:9'), started)],
    });
    const rt = runtimeWith(model, agentTools());
    const events = recordEvents(rt);
    const summary = await rt.runTurn('fix the bug');

    assert.equal(summary.outcome, 'completed');
    assert.deepEqual(results(rt.messages).map((r) => [r.tool_use_id, r.content, r.is_error ?? false]), [
      ['t1', 'A is in a.ts:1', false],
      ['t2', 'B is nowhere', false],
      ['t3', 'C is in c.ts:9', false],
    ]);
    // Each subagent's request holds its own prompt only, the explore prompt, and the parent's read-only tools without `agent`.
    for (const prompt of ['find A', 'find B', 'find C']) {
      const [request] = model.requestsOf(prompt);
      assert.equal(request!.messages.length, 1);
      assert.ok(request!.system.startsWith('You are an exploration subagent'));
      assert.ok(request!.system.includes(baseConfig.systemPrompt));
      assert.deepEqual(request!.tools.map((t) => t.name).sort(), ['glob_search', 'read_file']);
    }
    assert.ok(model.requestsOf('fix the bug')[0]!.tools.some((t) => t.name === AGENT_TOOL));
    // The user sees each one start, work (its own events, wrapped) and finish; the parent's text is its own.
    assert.deepEqual(events.filter((e) => e.type === 'subagent_started').map((e) => e.type === 'subagent_started' && [e.agentId, e.agent]), [['t1', 'explore'], ['t2', 'explore'], ['t3', 'explore']].map((x) => x));
    assert.ok(events.some((e) => e.type === 'subagent_event' && e.agentId === 't2' && e.event.type === 'text_delta' && e.event.text === 'B is nowhere'));
    assert.ok(!events.some((e) => e.type === 'text_delta' && e.text.includes('nowhere')));
    // Their requests are charged to the parent's turn and session: 2 parent steps + 3 subagent steps.
    assert.equal(summary.turnUsage.input_tokens, 500);
    assert.equal(rt.cumulativeUsage.input_tokens, 500);
    const finished = events.filter((e): e is Extract<RuntimeEvent, { type: 'subagent_finished' }> => e.type === 'subagent_finished');
    assert.deepEqual(finished.map((e) => [e.report.outcome, e.report.usage.input_tokens]), [['completed', 100], ['completed', 100], ['completed', 100]]);
    assert.equal(historyProblem(rt.messages), undefined);
  });

  it('a subagent cannot start subagents (depth 1), and an unknown agent name is refused with the list', async () => {
    const model = new RoutedModel({
      go: [step('', [agentUse('t1', 'do it', 'general'), agentUse('t2', 'x', 'nobody')]), step('ok')],
      'do it': [step('done')],
    });
    const rt = runtimeWith(model, agentTools());
    await rt.runTurn('go');
    const [sub] = model.requestsOf('do it');
    assert.ok(!sub!.tools.some((t) => t.name === AGENT_TOOL));
    // general: all of the parent's tools.
    assert.deepEqual(sub!.tools.map((t) => t.name).sort(), ['bash', 'edit_file', 'glob_search', 'read_file', 'write_file']);
    const refused = results(rt.messages).find((r) => r.tool_use_id === 't2')!;
    assert.equal(refused.is_error, true);
    assert.match(refused.content, /no agent named "nobody": use one of explore, general/);
  });

  it('a custom agent\'s tools narrow its parent\'s and can never widen them: names the parent lacks grant nothing, the parent\'s rules and mode hold', async () => {
    const reviewer: AgentDefinition = { name: 'reviewer', description: 'reviews', systemPrompt: 'You review.', tools: ['Read', 'Grep', 'Bash', 'web_fetch', 'mcp__evil__*'] };
    // The parent has no web_fetch and no MCP tools; its rules deny bash.
    const model = new RoutedModel({
      go: [step('', [agentUse('t1', 'review', 'reviewer')]), step('ok')],
      review: [step('', [{ id: 's1', name: 'bash', input: { command: 'rm -rf /' } }, { id: 's2', name: 'write_file', input: { path: 'x', content: 'y' } }]), step('reviewed')],
    });
    const base = memoryTools({});
    const rt = runtimeWith(model, agentTools([reviewer], base), { permissionMode: 'bypassPermissions', permissionRules: { deny: ['bash'] } });
    await rt.runTurn('go');
    const [sub] = model.requestsOf('review');
    assert.deepEqual(sub!.tools.map((t) => t.name).sort(), ['bash', 'read_file']);
    const second = model.requestsOf('review')[1]!;
    const subResults = results(second.messages);
    assert.match(subResults.find((r) => r.tool_use_id === 's1')!.content, /Permission denied/);
    assert.match(subResults.find((r) => r.tool_use_id === 's2')!.content, /unknown tool: write_file/);
    assert.deepEqual(base.calls, []);
  });

  it('a custom agent\'s tools: [mcp__git] grants mcp__git__* but not mcp__github__* (a server name is matched whole, up to its __)', async () => {
    const gitOnly: AgentDefinition = { name: 'git-helper', description: 'git', systemPrompt: 'You use git.', tools: ['mcp__git'] };
    const gitStar: AgentDefinition = { name: 'git-star', description: 'git', systemPrompt: 'You use git.', tools: ['mcp__git__*'] };
    const base = new FakeTools({
      read_file: { readOnly: true },
      mcp__git__status: { readOnly: true },
      mcp__git__log: { readOnly: true },
      mcp__github__create_issue: { readOnly: false },
      mcp__gitlab__merge: { readOnly: false },
    });
    const model = new RoutedModel({
      go: [step('', [agentUse('t1', 'bare', 'git-helper'), agentUse('t2', 'star', 'git-star')]), step('ok')],
      bare: [step('', [{ id: 's1', name: 'mcp__github__create_issue', input: {} }]), step('done')],
      star: [step('done')],
    });
    const rt = runtimeWith(model, agentTools([gitOnly, gitStar], base), { permissionMode: 'bypassPermissions' });
    await rt.runTurn('go');
    for (const prompt of ['bare', 'star']) assert.deepEqual(model.requestsOf(prompt)[0]!.tools.map((t) => t.name).sort(), ['mcp__git__log', 'mcp__git__status'], `${prompt}: the tools offered`);
    // Called anyway, a tool of another server is unknown to the subagent and never runs.
    assert.match(results(model.requestsOf('bare')[1]!.messages).find((r) => r.tool_use_id === 's1')!.content, /unknown tool: mcp__github__create_issue/);
    assert.deepEqual(base.calls, []);
  });

  it('a subagent is never offered the agent tool, whatever its agent file lists (none, agent, Agent, Task, *), and a call to it is refused', async () => {
    const listing = (name: string, tools?: string[]): AgentDefinition => ({ name, description: name, systemPrompt: `You are ${name}.`, ...(tools ? { tools } : {}) });
    const custom = [listing('names-agent', ['agent', 'read_file']), listing('claude-names', ['Agent', 'Task', 'Read']), listing('star', ['*', 'mcp__*'])];
    const started = ['general', ...custom.map((a) => a.name)];
    const model = new RoutedModel({
      go: [step('', started.map((agent, i) => agentUse(`t${i}`, `as ${agent}`, agent))), step('ok')],
      ...Object.fromEntries(started.map((agent, i) => [`as ${agent}`, [step('', [agentUse(`nested${i}`, 'deeper')]), step('done')]])),
    });
    const rt = runtimeWith(model, agentTools(custom), { permissionMode: 'bypassPermissions' });
    const events = recordEvents(rt);
    await rt.runTurn('go');
    for (const agent of started) {
      const [first, second] = model.requestsOf(`as ${agent}`);
      assert.ok(!first!.tools.some((t) => t.name === AGENT_TOOL), `${agent} was offered ${AGENT_TOOL}: ${first!.tools.map((t) => t.name).join(', ')}`);
      const nested = results(second!.messages)[0]!;
      assert.equal(nested.is_error, true, `${agent}'s call to ${AGENT_TOOL} was not refused: ${nested.content}`);
    }
    assert.deepEqual(model.requestsOf('deeper'), [], 'no subagent of a subagent ever sent a request');
    assert.deepEqual(events.filter((e) => e.type === 'subagent_started').length, started.length);
  });

  it('a subagent\'s usage is charged at its own model\'s price, not the parent\'s', async () => {
    const cheap: AgentDefinition = { name: 'cheap', description: 'cheap', systemPrompt: 'You are cheap.', model: 'cheap-model' };
    const prices = { 'parent-model': { inputPerMTok: 100, outputPerMTok: 0 }, 'cheap-model': { inputPerMTok: 1, outputPerMTok: 0 } };
    const model = new RoutedModel({ go: [step('', [agentUse('t1', 'cheaply', 'cheap')]), step('ok')], cheaply: [step('done', [], usage(1_000_000))] });
    const rt = runtimeWith(model, withSubagents(memoryTools(), { maxParallel: 1, provider: 'anthropic', model: 'parent-model', systemPrompt: 'p', custom: [cheap] }), { model: 'parent-model', prices });
    const events = recordEvents(rt);
    const summary = await rt.runTurn('go');
    assert.equal(model.requestsOf('cheaply')[0]!.model, 'cheap-model');
    const finished = events.find((e): e is Extract<RuntimeEvent, { type: 'subagent_finished' }> => e.type === 'subagent_finished')!;
    assert.equal(finished.report.costUsd, 1, 'the subagent\'s own figure: 1M input tokens at $1/M');
    // The parent's two requests: 200 input tokens at $100/M; the subagent's million at $1/M, not $100/M.
    assert.equal(Math.round(summary.costUsd * 1e6) / 1e6, 1.02, 'the turn\'s cost, in dollars');
    assert.equal(summary.unpricedRequests, 0);
  });

  it('Claude Code\'s model aliases in agent files (haiku, sonnet, opus, inherit) name the provider\'s current model, or the parent\'s where the provider serves no Claude (issue 42.12)', async () => {
    const agents: AgentDefinition[] = ['haiku', 'Sonnet', 'opus', 'inherit', 'my-own-model'].map((model) => ({ name: `a-${model}`, description: model, systemPrompt: 'x', model }));
    const modelsSent = async (provider: string, agentModel?: string) => {
      const prompts = agents.map((a) => `task for ${a.name}`);
      const model = new RoutedModel({
        go: [step('', agents.map((a, i) => agentUse(`t${i}`, prompts[i]!, a.name))), step('ok')],
        ...Object.fromEntries(prompts.map((p) => [p, [step('done')]])),
      });
      const tools = withSubagents(memoryTools(), { maxParallel: 8, provider, model: 'parent-model', systemPrompt: 'p', custom: agents, ...(agentModel ? { agentModel } : {}) });
      await runtimeWith(model, tools, { model: 'parent-model' }).runTurn('go');
      return prompts.map((p) => model.requestsOf(p)[0]!.model);
    };
    assert.deepEqual(await modelsSent('anthropic'), ['claude-haiku-5-5', 'claude-sonnet-5-5', 'claude-opus-5-5', 'parent-model', 'my-own-model']);
    // The clouds: the newest ids their table maps (cloud-config.ts), which the request then carries as theirs.
    for (const provider of ['bedrock', 'vertex']) {
      assert.deepEqual(await modelsSent(provider), ['claude-haiku-4-5-20251001', 'claude-sonnet-4-5-20250929', 'claude-opus-4-5-20251101', 'parent-model', 'my-own-model'], provider);
    }
    assert.deepEqual(await modelsSent('openai-compatible'), ['parent-model', 'parent-model', 'parent-model', 'parent-model', 'my-own-model'], 'no Claude there: the parent\'s model');
    // turnstone.agents.model may be an alias too; `inherit` in a file then means that model.
    assert.deepEqual(await modelsSent('anthropic', 'haiku'), ['claude-haiku-5-5', 'claude-sonnet-5-5', 'claude-opus-5-5', 'claude-haiku-5-5', 'my-own-model']);
  });

  it('an approval asked by a subagent reaches the user naming it, and "allow for this session" there holds for the parent too', async () => {
    const prompter = new ScriptedPrompter({ kind: 'allow', scope: 'session' });
    const model = new RoutedModel({
      go: [step('', [agentUse('t1', 'edit it', 'general')]), step('', [{ id: 'p1', name: 'bash', input: { command: 'make' } }]), step('ok')],
      'edit it': [step('', [{ id: 's1', name: 'bash', input: { command: 'make' } }]), step('made')],
    });
    const rt = runtimeWith(model, agentTools(), { permissionMode: 'ask' });
    await rt.runTurn('go', { prompter });
    assert.equal(prompter.requests.length, 1);
    assert.deepEqual(prompter.requests[0]!.agent, { id: 't1', name: 'general', description: 'look t1' });
    assert.deepEqual(rt.sessionRules, ['bash(make)']);
  });

  it('the report the parent sees is capped: the main context grows by at most MAX_REPORT_CHARS per subagent', async () => {
    const long = 'x'.repeat(MAX_REPORT_CHARS * 2);
    const model = new RoutedModel({ go: [step('', [agentUse('t1', 'ramble')]), step('ok')], ramble: [step(long)] });
    const rt = runtimeWith(model, agentTools());
    await rt.runTurn('go');
    const report = results(rt.messages)[0]!.content;
    assert.ok(report.length <= MAX_REPORT_CHARS + 60, `${report.length}`);
    assert.match(report, /report cut: \d+ more characters/);
  });

  it('a fan-out is stopped by the spend cap before it passes it: requests in flight count against the cap, and the turn ends with kind budget', async () => {
    // Each request reserves its whole reply limit (32 000 tokens at $15/M = $0.48): two subagents fit under $1.20 beside the parent's spend, three do not.
    const gate = deferred();
    const model = new RoutedModel({
      go: [step('', [agentUse('t1', 'one'), agentUse('t2', 'two'), agentUse('t3', 'three')])],
      one: [held(gate, step('1'))],
      two: [held(gate, step('2'))],
      three: [held(gate, step('3'))],
    });
    const rt = runtimeWith(model, agentTools(), { maxTokens: 32_000, maxCostPerTurnUsd: 1.2 });
    const events = recordEvents(rt);
    // The held subagents go on once one of the three has been stopped.
    rt.subscribe((e) => {
      if (e.type === 'subagent_finished' && e.report.outcome === 'failed') gate.resolve();
    });
    const summary = await rt.runTurn('go');
    const stopped = events.filter((e) => e.type === 'subagent_finished' && e.report.error?.kind === 'budget');
    assert.equal(stopped.length, 1);
    assert.equal(model.requests.length, 3, 'the parent and two subagents sent; the third never did');
    assert.equal(summary.outcome, 'failed');
    assert.equal(summary.error?.kind, 'budget');
    assert.ok(summary.costUsd <= 1.2);
    assert.equal(historyProblem(rt.messages), undefined);
    // The stopped one's result says why; the two that ran reported.
    assert.deepEqual(results(rt.messages).map((r) => r.is_error ?? false), [false, false, true]);
  });

  it('Stop during a fan-out ends every subagent, leaves a valid session file with their nested transcripts, and the session resumes', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'turnstone-subagents-'));
    const store = await JsonlSessionStore.create(dir, { cwd: '/ws', model: baseConfig.model });
    const never = deferred();
    let waiting = 0;
    const controller = new AbortController();
    const started = () => {
      if (++waiting === 2) controller.abort();
    };
    const model = new RoutedModel({
      go: [step('Fanning out.', [agentUse('t1', 'slow one'), agentUse('t2', 'slow two')])],
      'slow one': [step('', [{ id: 'r1', name: 'read_file', input: { path: 'a.ts' } }]), held(never, step('never'), started)],
      'slow two': [held(never, step('never'), started)],
    });
    const rt = runtimeWith(model, agentTools(), {}, store);
    const summary = await rt.runTurn('go', { signal: controller.signal });
    assert.equal(summary.outcome, 'aborted');
    assert.equal(historyProblem(rt.messages), undefined);
    await store.flush();

    const loaded = await loadSession(store.path!);
    assert.deepEqual(loaded.warnings, []);
    assert.equal(historyProblem(loaded.messages), undefined);
    assert.deepEqual(Object.keys(loaded.subagents).sort(), ['t1', 't2']);
    // The first subagent's read is in its own transcript, not in the parent's.
    assert.ok(loaded.subagents['t1']!.some((m) => m.role === 'user' && m.content.some((b) => b.type === 'tool_result' && b.tool_use_id === 'r1')));
    assert.ok(!loaded.messages.some((m) => m.role === 'user' && m.content.some((b) => b.type === 'tool_result' && b.tool_use_id === 'r1')));
    assert.ok(readFileSync(store.path!, 'utf8').includes('"type":"subagent"'));

    const resumed = new ConversationRuntime({ model: new ScriptedModel([step('back')]), tools: agentTools() }, baseConfig, { messages: loaded.messages });
    const again = await resumed.runTurn('and now?');
    assert.equal(again.outcome, 'completed');
    assert.equal(again.finalText, 'back');
  });
});
