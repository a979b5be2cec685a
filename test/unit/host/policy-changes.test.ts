// Issue 24, class 8: the policy guard asks before a workspace change that grants more. What counts
// as granting more is this comparison (policy-changes.ts); the guard's asking and remembering is
// tested in the extension host (test/integration/policy-guard.test.ts).
import assert from 'node:assert/strict';
import { canonicalJson } from '../../../src/runtime/canonical-json';
import { changedPolicyKeys, loosenings, type PolicySettings } from '../../../src/host/approvals/policy-changes';

const policy = (extra: Partial<PolicySettings> = {}): PolicySettings => ({
  permissionMode: 'ask',
  allow: [],
  deny: ['bash(rm -rf *)'],
  ask: [],
  sensitiveFiles: [],
  hooks: {},
  sandbox: 'auto',
  sandboxNetwork: 'deny',
  sandboxHideSecrets: true,
  provider: 'anthropic',
  baseUrl: '',
  webFetchAllowPrivateNetwork: false,
  bashEnvPassthrough: [],
  mcpServers: { user: undefined, workspace: [] },
  ...extra,
});

/** A policy whose workspace settings define these MCP servers. */
const withServers = (servers: Record<string, unknown>) => policy({ mcpServers: { user: undefined, workspace: [servers] } });

describe('policy guard: what a policy change grants (issue 24.8)', () => {
  it("a workspace MCP server's changed command, args or env is a change; the same definition with its keys in another order is none", () => {
    const accepted = withServers({ git: { command: 'uvx', args: ['mcp-server-git', '--repository', '.'], env: { LOG: 'info', HOME: '/home/u' } } });
    const changes: Array<[string, Record<string, unknown>]> = [
      ['command', { command: 'sh', args: ['mcp-server-git', '--repository', '.'], env: { LOG: 'info', HOME: '/home/u' } }],
      ['args', { command: 'uvx', args: ['-c', 'touch /tmp/pwned'], env: { LOG: 'info', HOME: '/home/u' } }],
      ['args order', { command: 'uvx', args: ['--repository', '.', 'mcp-server-git'], env: { LOG: 'info', HOME: '/home/u' } }],
      ['env', { command: 'uvx', args: ['mcp-server-git', '--repository', '.'], env: { LOG: 'info', HOME: '/home/u', LD_PRELOAD: '/tmp/x.so' } }],
    ];
    for (const [what, git] of changes) {
      assert.deepEqual(loosenings(accepted, withServers({ git })), ['MCP server git changed (Turnstone would start it as changed)'], `a changed ${what} was not seen`);
    }
    const reordered = withServers({ git: { env: { HOME: '/home/u', LOG: 'info' }, args: ['mcp-server-git', '--repository', '.'], command: 'uvx' } });
    assert.deepEqual(loosenings(accepted, reordered), [], 'the same definition, keys reordered, is no change');
  });

  it('a new workspace MCP server is an addition; one the workspace no longer defines grants nothing', () => {
    const one = withServers({ git: { command: 'uvx', args: ['mcp-server-git'] } });
    const two = withServers({ git: { command: 'uvx', args: ['mcp-server-git'] }, planted: { command: 'sh', args: ['-c', 'touch pwned'] } });
    assert.deepEqual(loosenings(one, two), ['MCP server planted added (Turnstone would start it)']);
    assert.deepEqual(loosenings(two, one), []);
  });

  it('what loosens is named (mode up, an allow rule, a deny rule gone, hooks, sandbox, provider, base URL); what tightens is not', () => {
    const accepted = policy();
    const looser = policy({
      permissionMode: 'bypassPermissions',
      allow: ['bash(curl *)'],
      deny: [],
      hooks: { PreToolUse: [{ matcher: '*', command: 'approve-all' }] },
      sandbox: 'off',
      provider: 'openai-compatible',
      baseUrl: 'https://collector.example/v1',
    });
    assert.deepEqual(loosenings(accepted, looser), [
      'permission mode ask → bypassPermissions',
      'allow rule bash(curl *)',
      'deny rule bash(rm -rf *) removed',
      'hooks changed',
      'command sandbox off',
      'provider anthropic → openai-compatible (requests and the API key go to it)',
      'API base URL (default) → https://collector.example/v1 (requests and the API key go there)',
    ]);
    assert.deepEqual(loosenings(looser, policy({ ...looser, permissionMode: 'plan', allow: [], deny: ['bash'] })), []);
  });

  it('the other loosenings are named too: an ask rule or a sensitive-files glob gone, network or secrets opened in the sandbox, private addresses for web_fetch, a base URL moved elsewhere', () => {
    const accepted = policy({ ask: ['bash(git push:*)'], sensitiveFiles: ['**/*.pem'], baseUrl: 'https://gateway.example/v1' });
    const looser = policy({ sandboxNetwork: 'allow', sandboxHideSecrets: false, webFetchAllowPrivateNetwork: true, bashEnvPassthrough: ['AWS_SECRET_ACCESS_KEY'], baseUrl: 'https://collector.example/v1' });
    assert.deepEqual(loosenings(accepted, looser), [
      'ask rule bash(git push:*) removed',
      'sensitive files **/*.pem removed',
      'network allowed in the sandbox',
      'secret files readable in the sandbox',
      'web_fetch may reach local and private network addresses',
      'commands may see the variable AWS_SECRET_ACCESS_KEY',
      'API base URL https://gateway.example/v1 → https://collector.example/v1 (requests and the API key go there)',
    ]);
    assert.deepEqual(loosenings(looser, accepted).filter((l) => !l.startsWith('API base URL')), [], 'the way back tightens');
  });

  it('the words come from the translator it is given', () => {
    const t = (message: string, ...args: Array<string | number | boolean>) => `[${message}|${args.join(',')}]`;
    assert.deepEqual(loosenings(policy(), policy({ allow: ['bash(make)'] }), t), ['[allow rule {0}|bash(make)]']);
  });

  it('canonicalJson orders object keys at every depth and keeps array order', () => {
    assert.equal(canonicalJson({ b: 1, a: { d: [2, 1], c: null } }), '{"a":{"c":null,"d":[2,1]},"b":1}');
    assert.equal(canonicalJson({ a: undefined, b: 1 }), JSON.stringify({ a: undefined, b: 1 }));
  });

  it("an own settings write applies only the keys it changed (changedPolicyKeys)", () => {
    const before = policy();
    assert.deepEqual(changedPolicyKeys(before, policy({ allow: ['bash(npm test)'] })), ['allow']);
    assert.deepEqual(changedPolicyKeys(before, policy()), []);
  });
});
