// Issue 46, plugins through the real CLI (`node dist/cli.js`) against the scripted mock API: `--plugin-dir`
// loads the fixture plugin for the run, so `/toolkit:review` expands, its skill and agent are offered, its
// PreToolUse hook runs on read_file (a marker file), and its MCP server (the everything server from
// node_modules) is started and its tool called. Without the flag, none of it is there.
import * as assert from 'node:assert/strict';
import { existsSync, mkdtempSync, readFileSync, realpathSync, rmSync, writeFileSync } from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { MockAnthropicServer, textReply, toolUseReply } from '../../fixtures/mock-anthropic';
import { EVERYTHING_BIN } from '../../fixtures/mcp-servers';
import { runCli } from '../../support/run-cli';

const TOOLKIT = path.resolve(__dirname, '..', '..', 'fixtures', 'plugins', 'marketplace', 'plugins', 'toolkit');

type Body = { system: unknown; tools: { name: string; description?: string }[]; messages: { role: string; content: unknown }[] };

describe('46 plugins: CLI --plugin-dir (node dist/cli.js against the mock API)', function () {
  this.timeout(90_000);
  let api: MockAnthropicServer;
  let ws: string;
  let env: Record<string, string>;

  beforeEach(async () => {
    api = await MockAnthropicServer.start();
    ws = realpathSync(mkdtempSync(path.join(os.tmpdir(), 'turnstone-plugins-cli-')));
    writeFileSync(path.join(ws, 'a.txt'), 'hello\n');
    env = { ANTHROPIC_BASE_URL: api.url, ANTHROPIC_API_KEY: 'sk-test-cli', TURNSTONE_TEST_EVERYTHING_BIN: EVERYTHING_BIN, HOME: ws };
  });
  afterEach(async () => {
    await api.close();
    rmSync(ws, { recursive: true, force: true });
  });

  it('/toolkit:review expands; the skill, the agent and the MCP tool are offered; the hook runs on read_file; the MCP tool answers', async () => {
    api.enqueue(
      toolUseReply([
        { id: 'tu_read', name: 'read_file', input: { path: 'a.txt' } },
        { id: 'tu_echo', name: 'mcp__toolkit-everything__echo', input: { message: 'from the plugin' } },
      ]),
      textReply('Reviewed.'),
    );
    const run = await runCli(['-p', '/toolkit:review a.txt', '--cwd', ws, '--plugin-dir', TOOLKIT, '--allow', 'mcp__toolkit-everything', '--output-format', 'json'], { env });
    assert.equal(run.code, 0, run.stderr);
    const first = api.bodies[0] as Body;
    const user = JSON.stringify(first.messages[0]!.content);
    assert.match(user, /TOOLKIT-REVIEW: review a\.txt against the house rules in /);
    assert.ok(!user.includes('/toolkit:review'), 'the command was expanded, not sent as typed');
    assert.match(JSON.stringify(first.system), /- toolkit:changelog: Write a changelog entry in the toolkit's format/);
    assert.match(first.tools.find((t) => t.name === 'agent')!.description!, /toolkit:auditor/);
    assert.ok(first.tools.some((t) => t.name === 'mcp__toolkit-everything__echo'), 'the plugin\'s MCP tool is offered');
    const result = JSON.parse(run.stdout) as { result: string; tool_results: { name: string; is_error: boolean; content: string }[] };
    assert.deepEqual(result.tool_results.map((r) => [r.name, r.is_error]), [['read_file', false], ['mcp__toolkit-everything__echo', false]]);
    assert.equal(result.tool_results[1]!.content, 'Echo: from the plugin');
    assert.equal(readFileSync(path.join(ws, 'plugin-hook-ran.txt'), 'utf8'), 'PreToolUse read_file\n');
    assert.equal(result.result, 'Reviewed.');
  });

  it('the plugin\'s skill loads through the skill tool and its agent runs as a subagent with its own prompt', async () => {
    api.enqueue(
      toolUseReply([{ id: 'tu_skill', name: 'skill', input: { name: 'toolkit:changelog' } }]),
      toolUseReply([{ id: 'tu_agent', name: 'agent', input: { description: 'audit', prompt: 'Audit a.txt', agent: 'toolkit:auditor' } }]),
      textReply('No risky commands.'),
      textReply('Done.'),
    );
    const run = await runCli(['-p', 'write the changelog and audit', '--cwd', ws, '--plugin-dir', TOOLKIT, '--output-format', 'json'], { env });
    assert.equal(run.code, 0, run.stderr);
    const result = JSON.parse(run.stdout) as { result: string; tool_results: { name: string; is_error: boolean; content: string }[] };
    assert.deepEqual(result.tool_results.map((r) => [r.name, r.is_error]), [['skill', false], ['agent', false]]);
    assert.match(result.tool_results[0]!.content, /TOOLKIT-CHANGELOG-BODY/);
    assert.match(result.tool_results[1]!.content, /No risky commands\./);
    const sub = api.bodies[2] as Body;
    assert.match(JSON.stringify(sub.system), /TOOLKIT-AUDITOR-PROMPT/);
    assert.deepEqual(sub.tools.map((t) => t.name).sort(), ['grep_search', 'read_file']);
    assert.equal(result.result, 'Done.');
  });

  it('without --plugin-dir none of it is there: the command is plain text, no MCP tool, no hook', async () => {
    api.enqueue(toolUseReply([{ id: 'tu_read', name: 'read_file', input: { path: 'a.txt' } }]), textReply('ok'));
    const run = await runCli(['-p', '/toolkit:review a.txt', '--cwd', ws, '--output-format', 'json'], { env });
    assert.equal(run.code, 0, run.stderr);
    const first = api.bodies[0] as Body;
    assert.match(JSON.stringify(first.messages[0]!.content), /\/toolkit:review a\.txt/);
    assert.ok(!first.tools.some((t) => t.name.startsWith('mcp__')));
    assert.ok(!JSON.stringify(first.system).includes('toolkit:changelog'));
    assert.equal(existsSync(path.join(ws, 'plugin-hook-ran.txt')), false);
  });

  it('-p /skills lists the plugin\'s skill; a folder that is no plugin is a warning, a missing one a usage error', async () => {
    const list = await runCli(['-p', '/skills', '--cwd', ws, '--plugin-dir', TOOLKIT, '--plugin-dir', ws], { env: { HOME: ws } });
    assert.equal(list.code, 0, list.stderr);
    assert.match(list.stdout, /- toolkit:changelog: Write a changelog entry in the toolkit's format \(toolkit plugin: skills\/changelog\)/);
    assert.match(list.stderr, /is not a plugin: it has no \.claude-plugin\/plugin\.json/);
    const missing = await runCli(['-p', 'hi', '--cwd', ws, '--plugin-dir', path.join(ws, 'nope')], { env });
    assert.equal(missing.code, 2);
    assert.match(missing.stderr, /--plugin-dir '.*nope' is not a folder/);
    assert.equal(api.requests.length, 0);
  });
});
