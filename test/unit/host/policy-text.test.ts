// Issue 47 item 8: the policy's reasons, Turnstone's own denial notes and the runtime's "aborted" marker reach the
// panel in the user's language (zh-cn here), never as the runtime's English; what the user or a server wrote stays.
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { itemsFromHistory } from '../../../src/host/panel/panel-bridge';
import { policyReasonText } from '../../../src/host/panel/policy-text';
import { PermissionPolicy, type PolicyInput } from '../../../src/runtime/policy/permissions';
import { loadShellParser } from '../../../src/runtime/policy/shell-parser';
import { ABORTED_RESULT } from '../../../src/runtime/session/history';
import { type Message } from '../../../src/runtime/types';
import { translator } from '../../../src/webview/l10n-format';

const zh = translator(JSON.parse(readFileSync(join(__dirname, '../../../l10n/bundle.l10n.zh-cn.json'), 'utf8')) as Record<string, string>);

describe('panel: policy reasons and interruptions in the user language (issue 47 item 8)', () => {
  before(() => loadShellParser());

  it('the reasons the policy asks with are translated, the subject kept as written', () => {
    const ask = (input: PolicyInput) => {
      const outcome = new PermissionPolicy('ask', {}).decide(input);
      assert.equal(outcome.kind, 'ask', outcome.reason);
      return outcome.reason;
    };
    const reasons = [
      ask({ toolName: 'bash', readOnly: false, assessment: { need: 'command', subject: 'touch a.txt' } }),
      ask({ toolName: 'edit_file', readOnly: false, assessment: { need: 'edit', subject: 'src/a.ts' } }),
      ask({ toolName: 'web_fetch', readOnly: true, assessment: { need: 'fetch', subject: 'https://example.com' } }),
      ask({ toolName: 'read_file', readOnly: true, assessment: { need: 'read', subject: '/etc/hosts', outsideWorkspace: ['/etc/hosts'] } }),
    ];
    for (const reason of reasons) {
      const text = policyReasonText(reason, zh);
      assert.notEqual(text, reason, `translated: ${reason}`);
      assert.doesNotMatch(text, /\b(needs|permission|mode|outside the workspace)\b/, text);
    }
    assert.equal(policyReasonText(reasons[0]!, zh), '在“询问”模式下，bash(touch a.txt) 需要命令权限');
    // In English the words stay; the mode is named as the composer's mode switch names it.
    assert.equal(policyReasonText(reasons[0]!), 'bash(touch a.txt) needs command permission in Ask mode');
  });

  it('Turnstone\'s denial notes are translated; the user\'s own feedback is kept', () => {
    assert.equal(policyReasonText('The turn was interrupted.', zh), '本轮已中断。');
    assert.equal(policyReasonText('the user denied bash. User feedback: The turn was interrupted.', zh), '你拒绝了 bash：本轮已中断。');
    assert.equal(policyReasonText('the user denied bash. User feedback: use make instead', zh), '你拒绝了 bash：use make instead');
    assert.equal(policyReasonText('the user denied edit_file', zh), '你拒绝了 edit_file');
    assert.equal(policyReasonText('a reason from a hook script', zh), 'a reason from a hook script');
  });

  it('an interrupted tool replayed from a saved session says "Interrupted" in the user language, not "aborted"', () => {
    const messages: Message[] = [
      { role: 'user', content: [{ type: 'text', text: 'run it' }] },
      { role: 'assistant', content: [{ type: 'tool_use', id: 'x', name: 'read_file', input: { path: 'a.ts' } }] },
      { role: 'user', content: [{ type: 'tool_result', tool_use_id: 'x', content: ABORTED_RESULT, is_error: true, aborted: true }] },
    ];
    const card = itemsFromHistory(messages, new Map(), {}, zh).find((i) => i.kind === 'tool');
    assert.equal(card?.kind === 'tool' && card.status, 'aborted');
    assert.equal(card?.kind === 'tool' ? card.error : undefined, '已中断');
  });
});
