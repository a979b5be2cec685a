// The policy's reasons ("bash(make) needs command permission in default mode") and the host's own denial notes
// ("The turn was interrupted.") in the user's language (issue 47 item 8). The runtime words them in English for
// the model and the log (it never imports vscode); the panel gets them through `t` here. A reason not listed
// stays as the runtime wrote it. No vscode import: the panel bridge (loaded with the core) uses it too.
import { english, type Translate } from '../../webview/l10n-format';

/** A mode as the composer's mode switch names it (chrome.ts). */
function modeLabel(mode: string, t: Translate): string {
  switch (mode) {
    case 'ask':
    case 'default':
      return t('Ask');
    case 'plan':
      return t('Plan');
    case 'acceptEdits':
      return t('Accept edits');
    case 'bypassPermissions':
      return t('Bypass');
    default:
      return mode;
  }
}

const NEEDS = /^(.+) needs (command|edit|read|fetch|browser|mcp) permission in (\w+) mode$/s;

/** A policy reason or a denial note, translated where Turnstone wrote it. */
export function policyReasonText(reason: string, t: Translate = english): string {
  let m: RegExpExecArray | null;
  if ((m = NEEDS.exec(reason))) {
    const [, subject, need, name] = m as unknown as [string, string, string, string];
    const mode = modeLabel(name, t);
    switch (need) {
      case 'command':
        return t('{0} needs command permission in {1} mode', subject, mode);
      case 'edit':
        return t('{0} needs edit permission in {1} mode', subject, mode);
      case 'read':
        return t('{0} needs read permission in {1} mode', subject, mode);
      case 'fetch':
        return t('{0} needs fetch permission in {1} mode', subject, mode);
      default:
        return t('{0} needs {1} permission in {2} mode', subject, need, mode);
    }
  }
  if ((m = /^outside the workspace: (.+)$/s.exec(reason))) return t('outside the workspace: {0}', m[1]!);
  if ((m = /^sensitive path: (.+)$/s.exec(reason))) return t('sensitive path: {0}', m[1]!);
  if ((m = /^the command writes to (.+)$/s.exec(reason))) return t('the command writes to {0}', m[1]!);
  if ((m = /^(.+) is a compound command and not every part matches an allow rule$/s.exec(reason))) return t('{0} is a compound command and not every part matches an allow rule', m[1]!);
  if ((m = /^(.+) asks to run outside the OS sandbox$/s.exec(reason))) return t('{0} asks to run outside the OS sandbox', m[1]!);
  if ((m = /^rule (.+) asks for (.+)$/s.exec(reason))) return t('rule {0} asks for {1}', m[1]!, m[2]!);
  if ((m = /^(\w+) mode asks before every MCP tool call unless an allow rule covers it$/.exec(reason))) return t('{0} mode asks before every MCP tool call unless an allow rule covers it', modeLabel(m[1]!, t));
  // The runtime's note to the model when the user said no (tool-dispatch.ts).
  if ((m = /^the user denied (\S+)\. User feedback: (.*)$/s.exec(reason))) return t('You denied {0}: {1}', m[1]!, policyReasonText(m[2]!, t));
  if ((m = /^the user denied (\S+)$/.exec(reason))) return t('You denied {0}', m[1]!);
  switch (reason) {
    case 'a PreToolUse hook asks for confirmation':
      return t('a PreToolUse hook asks for confirmation');
    case 'The turn was interrupted.':
      return t('The turn was interrupted.');
    case 'Turnstone was closed.':
      return t('Turnstone was closed.');
    default:
      return reason;
  }
}
