// Issue 25.4: one wording for one decision. The modal, the notification and the panel's card all ask
// with approval-wording.ts; these are the words for the three requests a user sees most.
import assert from 'node:assert/strict';
import { alwaysAllowLabel, APPROVAL_LABELS, approvalLabels, approvalQuestion, subagentAsks, whyText } from '../../../src/webview/approval-wording';

describe('approval wording: what is asked and what the buttons say (issue 25.4)', () => {
  it('an edit asks "Edit <file>?" ("Create <file>?" for a new one); its dialog closes with "Review first"', () => {
    assert.equal(approvalQuestion({ need: 'edit', toolName: 'edit_file', subject: 'src/a.ts' }), 'Edit src/a.ts?');
    assert.equal(approvalQuestion({ need: 'edit', toolName: 'write_file', subject: 'src/new.ts', creates: true }), 'Create src/new.ts?');
    assert.equal(APPROVAL_LABELS.reviewFirst, 'Review first');
    assert.equal(APPROVAL_LABELS.editProposal, 'Edit proposal');
    assert.equal(APPROVAL_LABELS.allowEditsForSession, 'Allow edits for this session');
  });

  it('a command asks "Run this command?" (the command is shown beside it); "Always allow" names the rule it saves', () => {
    assert.equal(approvalQuestion({ need: 'command', toolName: 'bash', subject: 'npm test' }), 'Run this command?');
    assert.equal(alwaysAllowLabel('bash(npm test)'), 'Always allow bash(npm test)');
    // A rule too long for a button points at the rule shown in full beside it.
    assert.equal(alwaysAllowLabel(`bash(${'x'.repeat(60)})`), 'Always allow the rule below');
    assert.deepEqual([APPROVAL_LABELS.allow, APPROVAL_LABELS.deny, APPROVAL_LABELS.denyWithFeedback, APPROVAL_LABELS.decideInPanel], ['Allow', 'Deny', 'Deny with feedback…', 'Decide in panel']);
  });

  it('an MCP call (a command-like need) names the tool and its server, not "Run this command?"', () => {
    const question = approvalQuestion({ need: 'command', toolName: 'mcp__github__create_issue', subject: '', mcp: { server: 'github', tool: 'create_issue' } });
    assert.equal(question, 'Use the tool create_issue of the MCP server github?');
    assert.equal(subagentAsks({ name: 'general', description: 'file the bug' }, question), 'The general subagent (file the bug) asks: Use the tool create_issue of the MCP server github?');
    assert.equal(whyText('mcp__github__create_issue is not allowed by a rule'), 'Why Turnstone asks: mcp__github__create_issue is not allowed by a rule');
  });

  it('every word goes through the translator given (the host passes vscode.l10n.t, the panel its t)', () => {
    const t = (message: string, ...args: Array<string | number | boolean>) => `«${message}»${args.length ? `(${args.join('|')})` : ''}`;
    assert.equal(approvalQuestion({ need: 'command', toolName: 'bash', subject: 'make' }, t), '«Run this command?»');
    assert.equal(approvalLabels(t).allow, '«Allow»');
    assert.equal(alwaysAllowLabel('web_fetch(domain:docs.example.com)', t), '«Always allow {0}»(docs.example.com)');
  });
});
