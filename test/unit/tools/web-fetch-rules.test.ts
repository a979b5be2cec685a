// Issue 42, item 15: web_fetch rules that name a site or a page match on the
// URL's structure (scheme, host and port, then whole path segments), never as
// text: a rule for https://example.test is no rule for
// https://example.test.evil.test/, and /docs is not /docs-evil.
import assert from 'node:assert/strict';
import { matchContent, matchDomain } from '../../../src/runtime/policy/permission-rules';
import { PermissionPolicy, type PermissionRules, type PolicyInput } from '../../../src/runtime/policy/permissions';

const fetchUse = (url: string): PolicyInput => ({ toolName: 'web_fetch', readOnly: true, assessment: { need: 'fetch', subject: url } });
const decide = (url: string, rules: PermissionRules) => new PermissionPolicy('ask', rules).decide(fetchUse(url)).kind;

describe('runtime: web_fetch rules match URLs by structure (issue 42)', () => {
  it('issue 42 item 15: a site prefix rule covers that origin only, never a host that begins with its text', () => {
    const rule = 'https://example.test:*';
    for (const url of ['https://example.test.evil.test/', 'https://example.testevil.test/', 'https://example.test@evil.test/', 'https://example.test:8443/', 'http://example.test/', 'https://evil.test/?u=https://example.test']) {
      assert.ok(!matchContent(rule, url), url);
    }
    for (const url of ['https://example.test/', 'https://example.test/a/b?q=1', 'https://EXAMPLE.test:443/x', 'https://example.test./x']) assert.ok(matchContent(rule, url), url);
    assert.equal(decide('https://example.test.evil.test/', { allow: [`web_fetch(${rule})`] }), 'ask', 'an allow rule does not reach the look-alike');
    assert.equal(decide('https://example.test/page', { allow: [`web_fetch(${rule})`] }), 'allow');
  });

  it('issue 42 item 15: a path prefix covers /docs and what lies below it, not /docs-evil', () => {
    const rule = 'https://x.test/docs:*';
    for (const url of ['https://x.test/docs-evil', 'https://x.test/docsx/a', 'https://x.test/doc', 'https://x.test/', 'https://x.test/other/docs', 'https://x.test/docs/%2e%2e/admin', 'https://x.test/docs/..%2Fadmin']) {
      assert.ok(!matchContent(rule, url), url);
    }
    for (const url of ['https://x.test/docs', 'https://x.test/docs/', 'https://x.test/docs/a', 'https://x.test/docs/a/b?c=d', 'https://x.test/%64ocs/a']) assert.ok(matchContent(rule, url), url);
    // Written with a trailing slash, the same.
    assert.ok(matchContent('https://x.test/docs/:*', 'https://x.test/docs'));
    assert.ok(!matchContent('https://x.test/docs/:*', 'https://x.test/docs-evil'));
    // A query in the rule: that path, that query, and more parameters after it.
    assert.ok(matchContent('https://x.test/search?q=a:*', 'https://x.test/search?q=a&page=2'));
    assert.ok(!matchContent('https://x.test/search?q=a:*', 'https://x.test/search?q=ab'));
  });

  it('issue 42 item 15: a URL rule without :* is that URL, as the parser normalises it', () => {
    assert.ok(matchContent('https://example.test', 'https://example.test/'));
    assert.ok(matchContent('https://Example.test:443/a/./b', 'https://example.test/a/b'));
    for (const url of ['https://example.test/x', 'https://example.test.evil.test/', 'https://example.test/?q']) assert.ok(!matchContent('https://example.test', url), url);
  });

  it('issue 42 item 15: a deny rule for a path holds against escapes a server reads as that path', () => {
    const rules = { allow: ['web_fetch'], deny: ['web_fetch(https://x.test/admin:*)'] };
    for (const url of ['https://x.test/admin', 'https://x.test/%61dmin/users', 'https://x.test/docs/..%2Fadmin', 'https://x.test/docs/..%5cadmin/x', 'https://x.test./admin']) assert.equal(decide(url, rules), 'deny', url);
    assert.equal(decide('https://x.test/administrator', rules), 'allow');
    // An allow rule must cover both readings of an escaped slash.
    assert.equal(decide('https://x.test/docs/..%2Fadmin', { allow: ['web_fetch(https://x.test/docs:*)'] }), 'ask');
  });

  it('issue 42 item 15: domain rules keep their meaning: one host, or every host below one, label by label', () => {
    assert.ok(matchDomain('example.com', 'https://example.com/'));
    assert.ok(!matchDomain('example.com', 'https://example.com.evil.net/'));
    assert.ok(matchDomain('*.example.com', 'https://a.b.example.com/'));
    assert.ok(!matchDomain('*.example.com', 'https://example.com/'));
    assert.ok(!matchDomain('*.example.com', 'https://badexample.com/'));
    // Spelled as the URL parser spells hosts: Unicode names as punycode, IPv6 in brackets.
    assert.ok(matchDomain('bücher.example', 'https://xn--bcher-kva.example/'));
    assert.ok(matchDomain('*.bücher.example', 'https://www.bücher.example/'));
    assert.ok(matchDomain('[::1]', 'http://[::1]:8080/'));
    // Text a URL would read as more than a host names none.
    for (const pattern of ['evil.test@example.com', 'example.com:443', 'example.com/path', '*.0.0.1']) assert.ok(!matchDomain(pattern, 'https://example.com/') && !matchDomain(pattern, 'http://127.0.0.1/'), pattern);
  });
});
