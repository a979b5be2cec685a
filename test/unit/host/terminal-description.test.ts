// Issue 25, item 7: @terminal says plainly what it cannot see. The wording per
// case; the recording itself is tested in the real extension host
// (test/integration/context-mentions.test.ts) and the browser workbench
// (test/e2e/panel-terminal.test.ts).
import assert from 'node:assert/strict';
import { describeTerminal, MAX_TERMINAL_CHARS, type TerminalSnapshot } from '../../../src/host/terminal/terminal-description';

const since = new Date(2026, 11, 1, 9, 5);
const base: TerminalSnapshot = { name: 'bash', integration: true, openedBeforeWatching: false, watchingSince: since };

describe('host: what @terminal attaches (issue 25, item 7)', () => {
  it('25.7: no terminal open', () => {
    assert.deepEqual(describeTerminal(undefined), { text: 'Terminal: No terminal is open: nothing to attach.', note: 'No terminal is open: nothing to attach.' });
  });

  it('25.7: a terminal without shell integration cannot be read, and says why', () => {
    const d = describeTerminal({ ...base, integration: false, openedBeforeWatching: true });
    assert.match(d.note!, /^Shell integration is not active in terminal "bash", so its commands and output cannot be read \(it needs bash, zsh, fish or PowerShell with terminal\.integrated\.shellIntegration\.enabled\)\.$/);
    assert.equal(d.text, `Terminal "bash": ${d.note}`);
  });

  it('25.7: commands run before Turnstone started are named as unreadable, with the time it started', () => {
    const d = describeTerminal({ ...base, openedBeforeWatching: true });
    assert.equal(d.note, 'No command has run in terminal "bash" since Turnstone started at 09:05; commands run before then cannot be read. Run the command again to attach its output.');
  });

  it('25.7: a new terminal with nothing run yet', () => {
    assert.equal(describeTerminal(base).note, 'No command has run in terminal "bash" yet.');
  });

  it('25.7: the last command and its output, without escape sequences; what is left out is said', () => {
    const d = describeTerminal({ ...base, last: { command: 'npm test', exitCode: 1, output: '\u001b]633;C\u0007\u001b[31mFAIL\u001b[0m a.test.ts\r\nprogress 1\rprogress 2\n' } });
    assert.equal(d.note, undefined);
    assert.equal(d.text, 'Last command in terminal "bash" (exit code 1):\n$ npm test\nFAIL a.test.ts\r\nprogress 1\nprogress 2\n\n[Only the last command is attached: earlier commands and any selection in the terminal are not.]');
  });

  it('25.7: a running command, a silent one, and a long output cut to its tail', () => {
    assert.match(describeTerminal({ ...base, last: { command: 'sleep 9', exitCode: undefined, output: '' } }).text, /^Last command in terminal "bash" \(still running\):\n\$ sleep 9\n\(no output was reported through shell integration\)/);
    const long = describeTerminal({ ...base, last: { command: 'yes', exitCode: 0, output: `${'y\n'.repeat(MAX_TERMINAL_CHARS)}end` } }).text;
    assert.match(long, /\[first \d+ characters cut\]\n/);
    assert.ok(long.includes('y\nend\n'));
  });
});
