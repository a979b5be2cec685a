// What @terminal attaches, in words: the active terminal's last command and its
// output as shell integration reported them, or, plainly, why there is nothing
// (no terminal, no shell integration, nothing run since Turnstone started
// watching). No clipboard: in browser VS Code every clipboard read asks the
// user ("Unable to read from the browser's clipboard"), and VS Code 1.100 has no
// stable API for a terminal's selection or its earlier scrollback.
import { cutTail } from '../../runtime/text-cut';

/** Characters of output kept per command (its tail). */
export const MAX_TERMINAL_CHARS = 30_000;

export interface TerminalSnapshot {
  name: string;
  /** VS Code's shell integration is active in it (the only way to read a command's output). */
  integration: boolean;
  /** It was open before Turnstone started watching: what ran in it before then cannot be read. */
  openedBeforeWatching: boolean;
  /** When Turnstone started watching terminals. */
  watchingSince: Date;
  last?: { command: string; exitCode: number | undefined; output: string };
}

export interface TerminalDescription {
  /** What the model gets. */
  text: string;
  /** What could not be seen, in a line for the chip; absent when the last command is attached. */
  note?: string;
}

// eslint-disable-next-line no-control-regex
const ANSI = /\x1b\[[0-?]*[ -/]*[@-~]|\x1b\][^\x07\x1b]*(?:\x07|\x1b\\)|\x1b[@-Z\\-_]/g;

const clock = (d: Date) => `${String(d.getHours()).padStart(2, '0')}:${String(d.getMinutes()).padStart(2, '0')}`;

export function describeTerminal(t: TerminalSnapshot | undefined): TerminalDescription {
  if (!t) {
    const note = 'No terminal is open: nothing to attach.';
    return { text: `Terminal: ${note}`, note };
  }
  const name = `"${t.name}"`;
  if (!t.last) {
    const note = !t.integration
      ? `Shell integration is not active in terminal ${name}, so its commands and output cannot be read (it needs bash, zsh, fish or PowerShell with terminal.integrated.shellIntegration.enabled).`
      : t.openedBeforeWatching
        ? `No command has run in terminal ${name} since Turnstone started at ${clock(t.watchingSince)}; commands run before then cannot be read. Run the command again to attach its output.`
        : `No command has run in terminal ${name} yet.`;
    return { text: `Terminal ${name}: ${note}`, note };
  }
  const output = t.last.output.replace(ANSI, '').replace(/\r(?!\n)/g, '\n');
  const cut = output.length > MAX_TERMINAL_CHARS ? `[first ${output.length - MAX_TERMINAL_CHARS} characters cut]\n` : '';
  const status = t.last.exitCode === undefined ? 'still running' : `exit code ${t.last.exitCode}`;
  const body = output.trim() ? `${cut}${cutTail(output, MAX_TERMINAL_CHARS)}` : '(no output was reported through shell integration)';
  return { text: `Last command in terminal ${name} (${status}):\n$ ${t.last.command}\n${body}\n[Only the last command is attached: earlier commands and any selection in the terminal are not.]` };
}
