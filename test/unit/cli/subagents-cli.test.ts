// Issue 29, subagents through the real CLI (`node dist/cli.js`) against the scripted mock API:
// stream-json lines of a subagent carry its agent_id, the json result breaks usage down per
// subagent, and the subagent's transcript is nested in the session file.
import * as assert from 'node:assert/strict';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { MockAnthropicServer, textReply, toolUseReply } from '../../fixtures/mock-anthropic';
import { runCli } from '../../support/run-cli';

const fanOut = toolUseReply([
  { id: 'tu_a', name: 'agent', input: { description: 'find the parser', prompt: 'Where is the parser?' } },
  { id: 'tu_b', name: 'agent', input: { description: 'find the tests', prompt: 'Where are the tests?' } },
]);

describe('29.agents: CLI (node dist/cli.js against the mock API)', function () {
  this.timeout(90_000);
  let ws: string;
  let api: MockAnthropicServer;
  let env: Record<string, string>;
  beforeEach(async () => {
    ws = mkdtempSync(path.join(os.tmpdir(), 'turnstone-agents-cli-'));
    writeFileSync(path.join(ws, 'parser.ts'), 'export function parse() {}\n');
    api = await MockAnthropicServer.start();
    env = { ANTHROPIC_BASE_URL: api.url, ANTHROPIC_API_KEY: 'sk-test-cli' };
  });
  afterEach(async () => {
    await api.close();
    rmSync(ws, { recursive: true, force: true });
  });

  it('29.agents: stream-json lines of each subagent carry its agent_id; the result lists each subagent with its usage, which the total includes', async () => {
    // Both subagents get the same reply, whichever asks first.
    api.enqueue(fanOut, textReply('Found it.', { usage: { input_tokens: 40, output_tokens: 5 } }), textReply('Found it.', { usage: { input_tokens: 40, output_tokens: 5 } }), textReply('Both found.'));
    const session = path.join(ws, 's.jsonl');
    const run = await runCli(['-p', 'explore', '--cwd', ws, '--session', session, '--output-format', 'stream-json'], { env });
    assert.equal(run.code, 0, run.stderr);
    const lines = run.stdout.trim().split('\n').map((l) => JSON.parse(l) as Record<string, unknown>);
    const started = lines.filter((l) => l.type === 'subagent_started');
    assert.deepEqual(started.map((l) => [l.agent_id, l.agent, l.description]), [
      ['tu_a', 'explore', 'find the parser'],
      ['tu_b', 'explore', 'find the tests'],
    ]);
    for (const id of ['tu_a', 'tu_b']) {
      assert.ok(lines.some((l) => l.agent_id === id && l.type === 'text_delta'), `text of ${id}`);
      assert.ok(lines.some((l) => l.agent_id === id && l.type === 'usage'), `usage of ${id}`);
    }
    // The parent's own text never carries an agent_id.
    assert.ok(lines.filter((l) => l.type === 'text_delta' && l.agent_id === undefined).every((l) => !String(l.text).includes('Found it')));
    const result = lines.at(-1) as { type: string; result: string; usage: { input_tokens: number }; subagents: Array<{ agent_id: string; outcome: string; usage: { input_tokens: number } }> };
    assert.equal(result.type, 'result');
    assert.equal(result.result, 'Both found.');
    assert.deepEqual(result.subagents.map((s) => [s.agent_id, s.outcome, s.usage.input_tokens]).sort(), [['tu_a', 'completed', 40], ['tu_b', 'completed', 40]]);
    assert.ok(result.usage.input_tokens >= 80 + 2, `${result.usage.input_tokens}`);
    // The subagents' requests: their own prompt, explore's tools, no agent tool.
    const subRequests = api.bodies.filter((b) => JSON.stringify(b.system).includes('exploration subagent'));
    assert.equal(subRequests.length, 2);
    for (const body of subRequests) {
      const names = (body.tools as Array<{ name: string }>).map((t) => t.name).sort();
      assert.ok(!names.includes('agent') && !names.includes('bash') && names.includes('read_file'), names.join(','));
    }
    // Nested in the session file, linked by the tool use id.
    const records = readFileSync(session, 'utf8').trim().split('\n').map((l) => JSON.parse(l) as { type: string; agentId?: string });
    assert.deepEqual([...new Set(records.filter((r) => r.type === 'subagent').map((r) => r.agentId))].sort(), ['tu_a', 'tu_b']);
  });

  it('29.agents: text output shows each subagent start and end on stderr; json gives "subagents": [] when none ran', async () => {
    api.enqueue(toolUseReply([{ id: 'tu_a', name: 'agent', input: { description: 'read the parser', prompt: 'Read parser.ts' } }]), toolUseReply([{ id: 'r1', name: 'read_file', input: { path: 'parser.ts' } }]), textReply('parse() is empty.'), textReply('Done.'));
    const text = await runCli(['-p', 'look', '--cwd', ws], { env });
    assert.equal(text.code, 0, text.stderr);
    assert.match(text.stderr, /↳ explore: read the parser/);
    assert.match(text.stderr, / {2}✓ read_file parser\.ts/);
    assert.match(text.stderr, /✓ explore: read the parser \(completed, 1 tool use/);
    assert.equal(text.stdout.trim(), 'Done.');

    api.enqueue(textReply('Hi.'));
    const none = await runCli(['-p', 'hi', '--cwd', ws, '--output-format', 'json'], { env });
    assert.deepEqual(JSON.parse(none.stdout).subagents, []);
  });
  it('29.agents: a custom agent file is offered in the agent tool\'s description and its tools narrow the subagent\'s (Read → read_file only)', async () => {
    mkdirSync(path.join(ws, '.turnstone', 'agents'), { recursive: true });
    writeFileSync(path.join(ws, '.turnstone', 'agents', 'reviewer.md'), '---\nname: reviewer\ndescription: Reviews one file for bugs\ntools: Read, Bash\n---\nYou review code. Report bugs with line numbers.\n');
    api.enqueue(toolUseReply([{ id: 'tu_r', name: 'agent', input: { description: 'review the parser', prompt: 'Review parser.ts', agent: 'reviewer' } }]), textReply('No bugs.'), textReply('Reviewed.'));
    const run = await runCli(['-p', 'review', '--cwd', ws, '--output-format', 'json'], { env });
    assert.equal(run.code, 0, run.stderr);
    assert.equal(JSON.parse(run.stdout).subagents[0].agent, 'reviewer');
    const [parent, sub] = api.bodies;
    const agentTool = (parent!.tools as Array<{ name: string; description: string }>).find((t) => t.name === 'agent')!;
    assert.match(agentTool.description, /- reviewer: Reviews one file for bugs/);
    assert.ok(JSON.stringify(sub!.system).includes('You review code.'));
    // Bash is listed but the subagent gets only what the parent has and the list grants: read_file and bash, never agent.
    const names = (sub!.tools as Array<{ name: string }>).map((t) => t.name).sort();
    assert.deepEqual(names.filter((n) => n !== 'bash_output' && n !== 'kill_shell'), ['bash', 'read_file']);
  });
});
