// MCP configuration: the three places and their order, both JSON shapes,
// variable expansion, JSONC, per-entry errors, names, and the rule forms.
import * as assert from 'node:assert/strict';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { describeServer, expandValue, mergeLayers, parseServerMap, readServerFile, readWorkspaceServers, redact, secretsOf } from '../../../../src/runtime/mcp/config';
import { mcpToolName } from '../../../../src/runtime/mcp/names';
import { parseRule, ruleNamesTool } from '../../../../src/runtime/policy/permission-rules';

describe('MCP: configuration, names and rules', () => {
  let ws: string;
  beforeEach(() => {
    ws = mkdtempSync(path.join(os.tmpdir(), 'turnstone-mcp-cfg-'));
  });
  afterEach(() => rmSync(ws, { recursive: true, force: true }));

  it('expands ${workspaceFolder}, ${env:NAME} and Claude-style ${NAME} / ${NAME:-default}; leaves ${input:…} alone', () => {
    const ctx = { workspaceFolder: '/w', env: { TOKEN: 't0k', HOME: '/home/u' } };
    assert.equal(expandValue('${workspaceFolder}/db', ctx), '/w/db');
    assert.equal(expandValue('Bearer ${env:TOKEN}', ctx), 'Bearer t0k');
    assert.equal(expandValue('${TOKEN}-${MISSING:-fallback}-${env:MISSING}', ctx), 't0k-fallback-');
    assert.equal(expandValue('${input:apiKey}', ctx), '${input:apiKey}');
  });

  it('reads .vscode/mcp.json ({"servers"}, JSONC) then .mcp.json ({"mcpServers"}); later wins per name; the user setting comes first', async () => {
    mkdirSync(path.join(ws, '.vscode'));
    writeFileSync(
      path.join(ws, '.vscode', 'mcp.json'),
      `{
        // VS Code's format
        "servers": {
          "common": { "type": "stdio", "command": "from-vscode", "args": ["\${workspaceFolder}/x"], },
          "web": { "type": "http", "url": "https://example.test/mcp", "headers": { "Authorization": "Bearer \${env:GH}" } },
        },
        "inputs": []
      }`,
    );
    writeFileSync(path.join(ws, '.mcp.json'), JSON.stringify({ mcpServers: { common: { command: 'from-claude', env: { API_KEY: 'abcdef' } }, old: { type: 'sse', url: 'http://127.0.0.1:1/sse' } } }));
    const ctx = { workspaceFolder: ws, env: { GH: 'ghp_secret' } };
    const user = parseServerMap({ common: { command: 'from-user' }, mine: { command: 'mine' } }, 'user', 'turnstone.mcpServers', ctx);
    const merged = mergeLayers([user, ...(await readWorkspaceServers(ws, ctx))]);
    assert.deepEqual(merged.problems, []);
    const byName = Object.fromEntries(merged.servers.map((s) => [s.name, s]));
    assert.deepEqual(Object.keys(byName).sort(), ['common', 'mine', 'old', 'web']);
    assert.equal(byName.common!.transport === 'stdio' && byName.common!.command, 'from-claude');
    assert.equal(byName.common!.origin, 'workspace');
    assert.equal(byName.mine!.origin, 'user');
    const web = byName.web!;
    assert.ok(web.transport === 'http');
    assert.equal(web.headers.Authorization, 'Bearer ghp_secret');
    assert.equal(byName.old!.transport, 'sse');
    assert.deepEqual(secretsOf(web), ['ghp_secret']);
    assert.equal(describeServer(web), 'http: https://example.test/mcp');
    assert.deepEqual(secretsOf(byName.common!), ['abcdef']);
    assert.equal(redact('key=abcdef!', secretsOf(byName.common!)), 'key=***!');
  });

  it('one bad entry is a problem naming it, the others still load; a broken file says why; a missing file is nothing', async () => {
    const layer = parseServerMap({ servers: { good: { command: 'ok' }, bad: { args: ['no command'] }, worse: { type: 'http', url: 'not a url' } } }, 'cli', 'x.json', { workspaceFolder: undefined, env: {} });
    assert.deepEqual(layer.servers.map((s) => s.name), ['good']);
    assert.deepEqual(layer.problems.map((p) => p.server), ['bad', 'worse']);
    writeFileSync(path.join(ws, 'broken.json'), '{ "mcpServers": ');
    const broken = await readServerFile(path.join(ws, 'broken.json'), 'cli', { workspaceFolder: ws, env: {} }, true);
    assert.match(broken.problems[0]!.message, /not valid JSON/);
    const missing = await readServerFile(path.join(ws, 'nope.json'), 'workspace', { workspaceFolder: ws, env: {} });
    assert.deepEqual(missing, { servers: [], problems: [] });
    const required = await readServerFile(path.join(ws, 'nope.json'), 'cli', { workspaceFolder: ws, env: {} }, true);
    assert.match(required.problems[0]!.message, /ENOENT/);
  });

  it('names tools mcp__<server>__<tool>, characters outside [A-Za-z0-9_-] becoming _', () => {
    assert.equal(mcpToolName('github', 'create_issue'), 'mcp__github__create_issue');
    assert.equal(mcpToolName('my server.v2', 'get/thing:now'), 'mcp__my_server_v2__get_thing_now');
  });

  it('rules mcp__srv__tool, mcp__srv__* and mcp__srv name the right tools and no others', () => {
    assert.ok(ruleNamesTool('mcp__github__create_issue', 'mcp__github__create_issue'));
    assert.ok(ruleNamesTool('mcp__github__*', 'mcp__github__create_issue'));
    assert.ok(ruleNamesTool('mcp__github', 'mcp__github__create_issue'));
    assert.ok(!ruleNamesTool('mcp__github', 'mcp__github2__create_issue'));
    assert.ok(!ruleNamesTool('mcp__git', 'mcp__github__x'));
    assert.ok(!ruleNamesTool('mcp__github__create', 'mcp__github__create_issue'), 'a tool rule is not a prefix');
    assert.ok(!ruleNamesTool('read', 'read_file'));
    assert.equal(parseRule('mcp__github__*').tool, 'mcp__github__*');
    assert.throws(() => parseRule('read*'), /only MCP rules may end in \*/);
  });
});
