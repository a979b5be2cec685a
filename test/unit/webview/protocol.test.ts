import assert from 'node:assert/strict';
import { HostToWebview, type HostToWebview as HostMsg, WebviewToHost, type WebviewToHostInput, isSafeLinkHref } from '../../../src/webview/protocol';

const hostSamples: HostMsg[] = [
  { type: 'restore', snapshot: { items: [{ kind: 'user', id: 'u1', text: 'hi' }], turn: 'idle', notices: [], queued: [] } },
  { type: 'session', session: { id: 's', title: 'T', model: 'm' } },
  { type: 'item_add', item: { kind: 'tool', id: 't', name: 'bash', status: 'running', view: { kind: 'bash', command: 'ls', exitCode: null } } },
  { type: 'item_add', item: { kind: 'tool', id: 't2', name: 'edit_file', status: 'done', view: { kind: 'edit', path: 'a', added: 1, removed: 2, diff: '@@\n-a\n+b' } } },
  { type: 'item_add', item: { kind: 'permission', id: 'p', toolName: 'bash', title: 'Run?', subject: 'ls', settled: { decision: 'deny', feedback: 'no', by: 'dialog' } } },
  { type: 'item_add', item: { kind: 'compaction', id: 'c', tokensBefore: 5, tokensAfter: 1 } },
  { type: 'item_add', item: { kind: 'user', id: 'u2', text: 'Review src/a.ts for bugs.', slashCommand: '/review src/a.ts' } },
  { type: 'item_add', item: { kind: 'error', id: 'e', message: 'x', retryable: true } },
  { type: 'assistant_delta', id: 'a', text: 'x', stepId: 's1' },
  { type: 'thinking_delta', id: 'th', text: 'y' },
  { type: 'block_end', id: 'th', durationMs: 4000 },
  { type: 'tool_update', id: 't', status: 'done', view: { kind: 'search', mode: 'grep', pattern: 'x', matches: 3 } },
  { type: 'tool_output', id: 't', chunk: 'out' },
  { type: 'step_discarded', stepId: 's1' },
  { type: 'permission_settled', requestId: 'p', settlement: { decision: 'allow' } },
  { type: 'turn', state: 'running' },
  { type: 'reconnecting', attempt: 1, maxAttempts: 5 },
  { type: 'usage', usage: { inputTokens: 1, outputTokens: 2, cacheReadTokens: 3, cacheWriteTokens: 4, costUsd: 0.1 } },
  { type: 'notices', notices: [{ id: 'n', kind: 'restricted', text: 'r', actions: [{ id: 'a', label: 'A' }] }] },
  { type: 'queued', items: [{ id: 'q', text: 'later' }] },
  { type: 'attach_candidates', candidates: [{ kind: 'file', path: 'a.ts', label: 'a.ts' }] },
  { type: 'compose', text: 'x', focus: true },
  { type: 'attach_candidates', query: 'pro', candidates: [{ kind: 'problems', path: 'Diagnostics', label: 'problems' }, { kind: 'folder', path: 'src/ui', label: 'ui/' }] },
  { type: 'attachment_measured', kind: 'git', path: 'git', tokens: 1200 },
  { type: 'instructions', files: [{ label: 'AGENTS.md', chars: 10, included: 10 }], notes: ['cut'], restricted: true },
  { type: 'slash_commands', commands: [{ name: 'compact', description: 'd', source: 'builtin' }, { name: 'review', description: 'r', source: 'custom', file: '.turnstone/commands/review.md' }] },
  { type: 'batch', events: [{ type: 'turn', state: 'idle' }, { type: 'assistant_delta', id: 'a', text: 'y' }] },
];

const webviewSamples: WebviewToHostInput[] = [
  { type: 'ready' },
  { type: 'send', text: 'hi', attachments: [{ kind: 'selection', path: 'a.ts', label: 'a.ts:1-2', range: { startLine: 1, endLine: 2 } }] },
  { type: 'steer', text: 'x', attachments: [] },
  { type: 'queue', text: 'x', attachments: [] },
  { type: 'unqueue', id: 'q' },
  { type: 'stop' },
  { type: 'retry', itemId: 'e' },
  { type: 'permission_decision', requestId: 'p', decision: 'allow_session' },
  { type: 'permission_decision', requestId: 'p', decision: 'deny', feedback: 'use make' },
  { type: 'open_diff', requestId: 'p' },
  { type: 'open_diff', toolId: 't' },
  { type: 'review_changes', toolId: 't' },
  { type: 'open_link', href: 'https://example.com/a?b#c' },
  { type: 'open_link', href: 'mailto:a@b.c' },
  { type: 'open_file', path: 'src/a.ts', line: 3 },
  { type: 'show_tool_output', toolId: 't' },
  { type: 'open_terminal' },
  { type: 'new_session' },
  { type: 'resume_session' },
  { type: 'resume_session', sessionId: 's1' },
  { type: 'select_model' },
  { type: 'select_model', model: 'claude-opus-5-5' },
  { type: 'attach', query: '' },
  { type: 'attach_measure', attachment: { kind: 'terminal', path: 'terminal', label: 'terminal' } },
  { type: 'open_instructions', label: 'AGENTS.md' },
  { type: 'slash_list' },
  { type: 'notice_action', noticeId: 'n', actionId: 'a' },
  { type: 'log', level: 'warn', message: 'x' },
];

describe('webview protocol', function () {
  it('round-trips every host message through JSON unchanged', function () {
    for (const m of hostSamples) {
      const parsed = HostToWebview.parse(JSON.parse(JSON.stringify(m)));
      assert.deepEqual(parsed, m, m.type);
    }
  });

  it('round-trips every webview message through JSON unchanged', function () {
    for (const m of webviewSamples) assert.deepEqual(WebviewToHost.parse(JSON.parse(JSON.stringify(m))), m, m.type);
  });

  it('fills defaults the webview may omit', function () {
    assert.deepEqual(WebviewToHost.parse({ type: 'send', text: 'x' }), { type: 'send', text: 'x', attachments: [] });
  });

  const badHost: unknown[] = [
    null, 'x', 42, [], {}, { type: 'nope' },
    { type: 'item_add', item: { kind: 'user', id: '', text: 'x' } },
    { type: 'item_add', item: { kind: 'permission', id: 'p' } },
    { type: 'item_add', item: { kind: 'tool', id: 't', name: 'bash', status: 'weird', view: { kind: 'bash', command: 'ls' } } },
    { type: 'item_add', item: { kind: 'tool', id: 't', name: 'bash', status: 'done', view: { kind: 'html', html: '<b>' } } },
    { type: 'assistant_delta', id: 'a' },
    { type: 'assistant_delta', id: 'a', text: 5 },
    { type: 'turn', state: 'paused' },
    { type: 'usage', usage: { inputTokens: -1, outputTokens: 0, cacheReadTokens: 0, cacheWriteTokens: 0 } },
    { type: 'batch', events: [] },
    { type: 'batch', events: [{ type: 'batch', events: [{ type: 'turn', state: 'idle' }] }] },
    { type: 'permission_settled', requestId: 'p', settlement: { decision: 'maybe' } },
    { type: 'restore', snapshot: { items: 'x' } },
  ];
  it('rejects malformed host messages', function () {
    for (const m of badHost) assert.equal(HostToWebview.safeParse(m).success, false, JSON.stringify(m));
  });

  const badWebview: unknown[] = [
    undefined, {}, { type: 'send' }, { type: 'send', text: '' }, { type: 'send', text: 'x', attachments: [{ kind: 'url', path: 'x', label: 'x' }] },
    { type: 'permission_decision', requestId: 'p', decision: 'always' },
    { type: 'open_diff' },
    { type: 'review_changes' },
    { type: 'review_changes', path: '/etc/passwd' },
    { type: 'open_link', href: 'javascript:alert(1)' },
    { type: 'open_link', href: 'JAVASCRIPT:alert(1)' },
    { type: 'open_link', href: 'data:text/html,<script>1</script>' },
    { type: 'open_link', href: 'vscode://settings' },
    { type: 'open_link', href: 'file:///etc/passwd' },
    { type: 'open_link', href: '/relative' },
    { type: 'retry' },
    { type: 'eval', code: '1' },
  ];
  it('rejects malformed webview messages, including unsafe links', function () {
    for (const m of badWebview) assert.equal(WebviewToHost.safeParse(m).success, false, JSON.stringify(m));
  });

  it('allows only http(s) and mailto links', function () {
    assert.ok(isSafeLinkHref('https://a.b'));
    assert.ok(isSafeLinkHref('http://a.b'));
    assert.ok(isSafeLinkHref('mailto:x@y.z'));
    for (const h of ['javascript:1', ' javascript:1', 'data:,x', 'command:workbench.action.quit', 'vscode-resource:/x', '#top', '']) assert.equal(isSafeLinkHref(h), false, h);
  });
});
