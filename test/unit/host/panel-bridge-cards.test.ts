// Issue 25.4 and 25.5: what tool cards and approval cards carry, from the
// runtime's events to the panel's protocol (no DOM: the browser e2e renders them).
import assert from 'node:assert/strict';
import { type RuntimeEvent } from '../../../src/runtime/events';
import { PanelBridge } from '../../../src/host/panel/panel-bridge';
import { alwaysAllowLabel } from '../../../src/webview/approval-wording';
import { ConversationRuntime } from '../../../src/runtime/loop/conversation';
import { baseConfig, memoryTools, ScriptedModel, step, usage } from '../runtime/fakes';
import { type HostEvent, HostEvent as HostEventSchema } from '../../../src/webview/protocol';

const run = (events: RuntimeEvent[], describeTool?: (name: string) => { server: string; tool: string; description: string } | undefined) => {
  const out: HostEvent[] = [];
  const bridge = new PanelBridge((e) => out.push(e), describeTool ? { describeTool } : {});
  bridge.handle({ type: 'turn_started', turnId: 't1', input: 'x' });
  for (const e of events) bridge.handle(e);
  for (const e of out) assert.ok(HostEventSchema.safeParse(e).success, `valid: ${JSON.stringify(e).slice(0, 200)}`);
  return out;
};
const lastUpdate = (out: HostEvent[], id: string) => out.filter((e): e is Extract<HostEvent, { type: 'tool_update' }> => e.type === 'tool_update' && e.id === id).at(-1)!;

describe('panel bridge: tool and approval cards (issue 25)', () => {
  it('issue 42 item 11 (was 26.3): a spend cap on a model with no known price refuses the turn with a card that names the setting and offers no Retry', async () => {
    const model = new ScriptedModel([step('one', [], usage(60_000, 10))]);
    const rt = new ConversationRuntime({ model, tools: memoryTools() }, { ...baseConfig, model: 'gpt-4o', maxCostPerTurnUsd: 0.01 });
    const out: HostEvent[] = [];
    const bridge = new PanelBridge((e) => out.push(e), {});
    rt.subscribe((event) => bridge.handle(event));
    await rt.runTurn('go');
    const cards = out.flatMap((e) => (e.type === 'item_add' && e.item.kind === 'error' && e.item.errorKind === 'unpriced' ? [e.item] : []));
    assert.equal(cards.length, 1);
    assert.match(cards[0]!.message, /Nothing was sent: the model has no known price/);
    assert.match(cards[0]!.hint ?? '', /turnstone\.modelPrices/);
    assert.equal(cards[0]!.retryable, false);
    assert.equal(model.requests.length, 0);
    for (const e of out) assert.ok(HostEventSchema.safeParse(e).success);
  });

  it('27: reads, searches and aborts reach the card as structured facts, never read back out of the text', () => {
    const out = run([
      { type: 'tool_use_ready', id: 'r1', name: 'read_file', input: { path: 'a.ts' } },
      // The texts say otherwise on purpose: the card shows the counts the tools reported.
      { type: 'tool_finished', id: 'r1', name: 'read_file', isError: false, content: '     1\tone', counts: { lines: 40 } },
      { type: 'tool_use_ready', id: 's1', name: 'grep_search', input: { pattern: 'x' } },
      { type: 'tool_finished', id: 's1', name: 'grep_search', isError: false, content: 'No matches found.', counts: { matches: 3 } },
      { type: 'tool_use_ready', id: 'b1', name: 'bash', input: { command: 'make' } },
      { type: 'tool_finished', id: 'b1', name: 'bash', isError: true, content: 'stopped', aborted: true },
      { type: 'tool_use_ready', id: 'b2', name: 'bash', input: { command: 'echo aborted' } },
      { type: 'tool_finished', id: 'b2', name: 'bash', isError: false, content: 'aborted', exit: { code: 0 } },
    ]);
    const read = lastUpdate(out, 'r1');
    assert.ok(read.view?.kind === 'read' && read.view.lines === 40);
    const search = lastUpdate(out, 's1');
    assert.ok(search.view?.kind === 'search' && search.view.matches === 3);
    assert.equal(lastUpdate(out, 'b1').status, 'aborted');
    assert.equal(lastUpdate(out, 'b2').status, 'done', 'a command that printed "aborted" was not aborted');
  });

  it('25.5: a failing command streamed its output: the card keeps that one copy, the exit code comes structured, no second red copy', () => {
    const content = 'passing test 1\npassing test 2\nFAIL test 3\n\nExit code: 1';
    const out = run([
      { type: 'tool_use_ready', id: 'b1', name: 'bash', input: { command: 'npm test' } },
      { type: 'tool_progress', id: 'b1', chunk: 'passing test 1\npassing test 2\nFAIL test 3\n' },
      // The text says 7 on purpose: the code shown is the structured one, never parsed from the output.
      { type: 'tool_finished', id: 'b1', name: 'bash', isError: true, content: content.replace('Exit code: 1', 'Exit code: 7'), exit: { code: 1 } },
    ]);
    const update = lastUpdate(out, 'b1');
    assert.equal(update.status, 'error');
    assert.equal(update.error, undefined, 'no copy of the output as an error line');
    assert.ok(update.view?.kind === 'bash' && update.view.exitCode === 1);
    assert.equal(update.view.output, undefined, 'the streamed output stays as it is');
  });

  it('25.5: a killed command says why once (the note), and one that streamed nothing shows its result as output', () => {
    const out = run([
      { type: 'tool_use_ready', id: 'b2', name: 'bash', input: { command: 'sleep 9' } },
      { type: 'tool_finished', id: 'b2', name: 'bash', isError: true, content: '(no output)\n\nTimed out after 1000 ms; …', exit: { code: null, note: 'Timed out after 1000 ms; …' } },
    ]);
    const update = lastUpdate(out, 'b2');
    assert.equal(update.error, 'Timed out after 1000 ms; …');
    assert.ok(update.view?.kind === 'bash' && update.view.exitCode === null && update.view.output?.startsWith('(no output)'));
  });

  it('25.4: an MCP card shows the input whole and the output (text and structured content); images ride along', () => {
    const image = { type: 'image' as const, mediaType: 'image/png' as const, data: 'iVBORw0KGgo=', width: 1, height: 1 };
    const out = run([
      { type: 'tool_use_started', id: 'm1', name: 'mcp__everything__structuredContent' },
      { type: 'tool_use_ready', id: 'm1', name: 'mcp__everything__structuredContent', input: { location: 'New York' } },
      { type: 'tool_finished', id: 'm1', name: 'mcp__everything__structuredContent', isError: false, content: 'Weather\n{\n  "temperature": 22.5\n}', images: [image] },
    ]);
    const update = lastUpdate(out, 'm1');
    assert.deepEqual(update.view, { kind: 'mcp', server: 'everything', tool: 'structuredContent', input: '{\n  "location": "New York"\n}', output: 'Weather\n{\n  "temperature": 22.5\n}' });
    assert.equal(update.images?.length, 1);
    assert.equal(update.error, undefined);
  });

  it('25.4: an MCP approval asks in the shared words, keeps the reason apart from the server\'s description, and names the rule "always" saves', () => {
    const out = run(
      [
        {
          type: 'permission_requested',
          request: { toolUseId: 'm2', toolName: 'mcp__everything__echo', input: { message: 'hi' }, need: 'command', subject: '', reason: 'ask mode asks before every MCP tool call unless an allow rule covers it', suggestedRule: 'mcp__everything__echo' },
        },
      ],
      () => ({ server: 'everything', tool: 'echo', description: 'Echoes back the input string' }),
    );
    const item = out.flatMap((e) => (e.type === 'item_add' && e.item.kind === 'permission' ? [e.item] : []))[0]!;
    assert.equal(item.title, 'Use the tool echo of the MCP server everything?');
    assert.equal(item.reason, 'Why Turnstone asks: Ask mode asks before every MCP tool call unless an allow rule covers it');
    assert.equal(item.description, 'Echoes back the input string');
    assert.equal(item.rule, 'mcp__everything__echo');
    assert.doesNotMatch(`${item.title} ${item.reason}`, /needs command permission|\bRun\b/);
  });

  it('25.4: an edit offers no "always" rule; a command does', () => {
    const out = run([
      { type: 'permission_requested', request: { toolUseId: 'e1', toolName: 'edit_file', input: {}, need: 'edit', subject: 'src/a.ts', reason: 'r', suggestedRule: 'edit_file(src/a.ts)', preview: { path: '/w/src/a.ts', before: 'a', after: 'b' } } },
      { type: 'permission_requested', request: { toolUseId: 'c1', toolName: 'bash', input: { command: 'make' }, need: 'command', subject: 'make', reason: 'r', suggestedRule: 'bash(make)' } },
    ]);
    const items = out.flatMap((e) => (e.type === 'item_add' && e.item.kind === 'permission' ? [e.item] : []));
    assert.equal(items[0]!.rule, undefined);
    assert.equal(items[0]!.title, 'Edit src/a.ts?');
    assert.equal(items[1]!.rule, 'bash(make)');
    assert.equal(items[1]!.title, 'Run this command?');
  });

  it('28.fetch: the card and the approval show the URL; "Always allow" names the host and saves its domain rule', () => {
    const url = 'https://docs.example.com/guide?x=1';
    const out = run([
      { type: 'tool_use_started', id: 'f1', name: 'web_fetch' },
      { type: 'tool_use_ready', id: 'f1', name: 'web_fetch', input: { url } },
      { type: 'permission_requested', request: { toolUseId: 'f1', toolName: 'web_fetch', input: { url }, need: 'fetch', subject: url, reason: 'web_fetch(https://docs.example.com/guide?x=1) needs fetch permission in ask mode', suggestedRule: 'web_fetch(domain:docs.example.com)' } },
    ]);
    assert.deepEqual(lastUpdate(out, 'f1').view, { kind: 'fetch', url });
    const item = out.flatMap((e) => (e.type === 'item_add' && e.item.kind === 'permission' ? [e.item] : []))[0]!;
    assert.equal(item.title, `Fetch ${url}?`);
    assert.equal(item.subject, url);
    assert.equal(item.rule, 'web_fetch(domain:docs.example.com)');
    assert.equal(alwaysAllowLabel(item.rule), 'Always allow docs.example.com');
  });
});
