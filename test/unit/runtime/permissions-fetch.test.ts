// Issue 28, web_fetch's permission: kind `fetch` asks in every mode but
// bypassPermissions, and rules name domains: `web_fetch(domain:example.com)`
// (that host) and `web_fetch(domain:*.example.com)` (any host below it).
import assert from 'node:assert/strict';
import { matchContent, matchDomain, parseRule, suggestRule } from '../../../src/runtime/policy/permission-rules';
import { PERMISSION_MODES, PermissionPolicy, type PermissionRules, type PolicyInput } from '../../../src/runtime/policy/permissions';

const fetchUse = (url: string): PolicyInput => ({ toolName: 'web_fetch', readOnly: true, assessment: { need: 'fetch', subject: url } });
const decide = (url: string, rules: PermissionRules = {}, mode: (typeof PERMISSION_MODES)[number] = 'ask') => new PermissionPolicy(mode, rules).decide(fetchUse(url));

describe('runtime: web_fetch permissions (issue 28)', () => {
  it('28.fetch: kind fetch asks in plan, ask and acceptEdits, and is allowed only in bypassPermissions', () => {
    for (const mode of PERMISSION_MODES) {
      const outcome = decide('https://example.com/docs', {}, mode);
      assert.equal(outcome.kind, mode === 'bypassPermissions' ? 'allow' : 'ask', mode);
      if (outcome.kind === 'ask') {
        assert.equal(outcome.reason, `web_fetch(https://example.com/docs) needs fetch permission in ${mode} mode`);
        assert.equal(outcome.suggestedRule, 'web_fetch(domain:example.com)', '"Always allow" names the host');
      }
    }
  });

  it('28.fetch: domain:example.com matches that host only (any scheme, port, path, case), never a look-alike', () => {
    for (const url of ['https://example.com/', 'http://EXAMPLE.com:8080/a?b=c', 'https://example.com./x']) assert.ok(matchDomain('example.com', url), url);
    for (const url of ['https://docs.example.com/', 'https://example.com.evil.net/', 'https://notexample.com/', 'https://evil.net/?u=https://example.com/', 'not a url']) {
      assert.ok(!matchDomain('example.com', url), url);
    }
  });

  it('28.fetch: domain:*.example.com matches every host below example.com, but not example.com itself', () => {
    for (const url of ['https://docs.example.com/', 'https://a.b.example.com/x']) assert.ok(matchDomain('*.example.com', url), url);
    for (const url of ['https://example.com/', 'https://badexample.com/', 'https://example.com.evil.net/']) assert.ok(!matchDomain('*.example.com', url), url);
    assert.ok(matchContent('domain:*.example.com', 'https://api.example.com/v1'), 'through the rule matcher');
  });

  it('28.fetch: allow, deny and ask rules with domain: apply to fetches; a deny rule holds even in bypassPermissions', () => {
    assert.equal(decide('https://docs.python.org/3/', { allow: ['web_fetch(domain:docs.python.org)'] }).kind, 'allow');
    assert.equal(decide('https://peps.python.org/', { allow: ['web_fetch(domain:docs.python.org)'] }).kind, 'ask');
    assert.equal(decide('https://peps.python.org/', { allow: ['web_fetch(domain:*.python.org)'] }).kind, 'allow');
    assert.equal(decide('https://python.org/', { allow: ['web_fetch(domain:*.python.org)'] }).kind, 'ask');
    assert.equal(decide('https://tracker.example/', { allow: ['web_fetch'] }).kind, 'allow', 'the bare tool allows every fetch');
    const denied = decide('https://evil.example/x', { allow: ['web_fetch'], deny: ['web_fetch(domain:evil.example)'] }, 'bypassPermissions');
    assert.deepEqual(denied, { kind: 'deny', reason: 'denied by rule web_fetch(domain:evil.example): web_fetch(https://evil.example/x)' });
    assert.equal(decide('https://a.example/', { ask: ['web_fetch(domain:a.example)'] }, 'bypassPermissions').kind, 'ask');
  });

  it('28.fetch: "allow for this session" remembers the domain rule, which then covers other pages of that host only', () => {
    const p = new PermissionPolicy('ask');
    const first = p.decide(fetchUse('https://docs.rs/serde/latest/serde/'));
    assert.equal(first.kind, 'ask');
    p.remember(first.kind === 'ask' ? first.suggestedRule : '');
    assert.equal(p.decide(fetchUse('https://docs.rs/tokio/')).kind, 'allow');
    assert.equal(p.decide(fetchUse('https://crates.io/')).kind, 'ask');
  });

  it('28.fetch: the suggested rule of a fetch is its host; rules parse as written', () => {
    assert.equal(suggestRule('web_fetch', 'https://Sub.Example.com:8443/a', undefined, 'fetch'), 'web_fetch(domain:sub.example.com)');
    assert.deepEqual(parseRule('web_fetch(domain:*.example.com)'), { tool: 'web_fetch', content: 'domain:*.example.com', source: 'web_fetch(domain:*.example.com)' });
  });
});
