// Issue 29: a subagent's block in the panel, from the runtime's events to the panel's protocol (no DOM:
// the browser e2e renders it). Driven by a real parent conversation with two subagents.
import assert from 'node:assert/strict';
import { itemsFromHistory, PanelBridge } from '../../../src/host/panel/panel-bridge';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { JsonlSessionStore, loadSession } from '../../../src/runtime/session/session';
import { withSubagents } from '../../../src/agent/subagents/agent-tool';
import { ConversationRuntime } from '../../../src/runtime/loop/conversation';
import { type AssistantEvent, type ModelClient, type ModelRequest, type ModelResponse } from '../../../src/runtime/types';
import { type HostEvent, HostEvent as HostEventSchema, type ToolView } from '../../../src/webview/protocol';
import { baseConfig, memoryTools, ScriptedPrompter, step, usage } from '../runtime/fakes';

/** Answers each conversation (by its first prompt) from its own list of replies. */
function routed(scripts: Record<string, AssistantEvent[][]>): ModelClient {
  const promptOf = (r: ModelRequest) => {
    const b = r.messages[0]?.content[0];
    return b && 'text' in b ? b.text : '';
  };
  return {
    stream: (request) => {
      const next = scripts[promptOf(request)]!.shift()!;
      return (async function* () {
        yield* next;
      })();
    },
    complete: async (): Promise<ModelResponse> => ({ content: [], usage: usage(1), stopReason: 'end_turn' }),
  };
}

type AgentView = Extract<ToolView, { kind: 'agent' }>;
const agentViews = (out: HostEvent[], id: string): AgentView[] =>
  out.flatMap((e) => (e.type === 'tool_update' && e.id === id && e.view?.kind === 'agent' ? [e.view] : []));

describe('panel bridge: subagent blocks (issue 29)', () => {
  it('29.panel: each subagent updates its own agent card (latest tool, tool uses, tokens, time) and ends with its report; its text never becomes the parent\'s reply', async () => {
    const model = routed({
      go: [
        step('', [
          { id: 'A', name: 'agent', input: { description: 'find the parser', prompt: 'one' } },
          { id: 'B', name: 'agent', input: { description: 'find the tests', prompt: 'two' } },
        ]),
        step('Both done.'),
      ],
      one: [step('', [{ id: 'r1', name: 'read_file', input: { path: 'parser.ts' } }], usage(300, 20)), step('The parser is parser.ts.', [], usage(400, 30))],
      two: [step('No tests.', [], usage(200, 10))],
    });
    const tools = withSubagents(memoryTools({ 'parser.ts': 'x' }), { maxParallel: 4, provider: 'anthropic', model: baseConfig.model, systemPrompt: baseConfig.systemPrompt });
    const rt = new ConversationRuntime({ model, tools }, baseConfig);
    const out: HostEvent[] = [];
    const bridge = new PanelBridge((e) => out.push(e), {});
    rt.subscribe((event) => bridge.handle(event));
    await rt.runTurn('go');
    for (const e of out) assert.ok(HostEventSchema.safeParse(e).success, `valid: ${JSON.stringify(e).slice(0, 200)}`);

    const a = agentViews(out, 'A');
    assert.ok(a.some((v) => v.steps?.at(-1)?.summary === 'read_file parser.ts' && v.steps.at(-1)?.status === 'running'));
    const lastA = a.at(-1)!;
    assert.deepEqual([lastA.agent, lastA.description, lastA.toolUses, lastA.tokens], ['explore', 'find the parser', 1, 750]);
    assert.equal(lastA.report, 'The parser is parser.ts.');
    assert.deepEqual(lastA.steps?.map((s) => s.status), ['done']);
    assert.equal(agentViews(out, 'B').at(-1)!.report, 'No tests.');
    const final = out.filter((e) => e.type === 'tool_update' && (e.id === 'A' || e.id === 'B') && e.status);
    assert.deepEqual(final.map((e) => (e.type === 'tool_update' ? `${e.id} ${e.status}` : '')).sort(), ['A done', 'B done']);
    // Only the parent's own text is an assistant block.
    const texts = out.filter((e) => e.type === 'assistant_delta').map((e) => (e.type === 'assistant_delta' ? e.text : ''));
    assert.deepEqual(texts, ['Both done.']);
  });

  it('29.panel: a subagent\'s approval renders inside its card and names it', async () => {
    const model = routed({
      go: [step('', [{ id: 'A', name: 'agent', input: { description: 'fix the typo', prompt: 'fix', agent: 'general' } }]), step('ok')],
      fix: [step('', [{ id: 'e1', name: 'edit_file', input: { path: 'a.ts', old_string: 'teh', new_string: 'the' } }]), step('fixed')],
    });
    const tools = withSubagents(memoryTools({ 'a.ts': 'teh' }), { maxParallel: 4, provider: 'anthropic', model: baseConfig.model, systemPrompt: baseConfig.systemPrompt });
    const rt = new ConversationRuntime({ model, tools }, { ...baseConfig, permissionMode: 'ask' });
    const out: HostEvent[] = [];
    const bridge = new PanelBridge((e) => out.push(e), {});
    rt.subscribe((event) => bridge.handle(event));
    await rt.runTurn('go', { prompter: new ScriptedPrompter({ kind: 'allow', scope: 'once' }) });
    const asked = out.flatMap((e) => (e.type === 'item_add' && e.item.kind === 'permission' ? [e.item] : []));
    assert.equal(asked.length, 1);
    assert.equal(asked[0]!.toolId, 'A');
    assert.equal(asked[0]!.title, 'The general subagent (fix the typo) asks: Edit a.ts?');
    // One author of a card's settlement: the window's pending requests (who answered, and how), never the bridge.
    assert.ok(!out.some((e) => e.type === 'permission_settled'), 'the bridge posts no settlement of its own');
  });
  it('29.panel: a resumed session\'s subagent block lists what its subagent did, from the transcript nested in the session file, and its report', async () => {
    const model = routed({
      go: [step('', [{ id: 'A', name: 'agent', input: { description: 'find the parser', prompt: 'one' } }]), step('ok')],
      one: [step('', [{ id: 'r1', name: 'read_file', input: { path: 'parser.ts' } }, { id: 'r2', name: 'read_file', input: { path: 'missing.ts' } }]), step('parser.ts has it.')],
    });
    const tools = withSubagents(memoryTools({ 'parser.ts': 'x' }), { maxParallel: 4, provider: 'anthropic', model: baseConfig.model, systemPrompt: baseConfig.systemPrompt });
    const store = await JsonlSessionStore.create(mkdtempSync(join(tmpdir(), 'turnstone-subagent-resume-')), { cwd: '/ws', model: baseConfig.model });
    await new ConversationRuntime({ model, tools, session: store }, baseConfig).runTurn('go');
    await store.flush();
    const loaded = await loadSession(store.path!);
    const card = itemsFromHistory(loaded.messages, new Map(), loaded.subagents).find((i) => i.id === 'A');
    assert.ok(card?.kind === 'tool' && card.view.kind === 'agent');
    assert.deepEqual(card.view.steps?.map((s) => [s.summary, s.status]), [['read_file parser.ts', 'done'], ['read_file missing.ts', 'error']]);
    assert.equal(card.view.toolUses, 2);
    assert.equal(card.view.report, 'parser.ts has it.');
  });
});
