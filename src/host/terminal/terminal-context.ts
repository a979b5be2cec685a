// Watches the editor's terminals for @terminal: each terminal's last command
// and its output, recorded through shell integration as it runs (a command's
// output can only be read from its start). What it cannot see is said in
// ./terminal-description.ts.
import * as vscode from 'vscode';
import { describeTerminal, MAX_TERMINAL_CHARS, type TerminalDescription, type TerminalSnapshot } from './terminal-description';
import { cutTail } from '../../runtime/text-cut';

type LastCommand = NonNullable<TerminalSnapshot['last']>;

export class TerminalRecorder implements vscode.Disposable {
  private readonly last = new WeakMap<vscode.Terminal, LastCommand>();
  /** Terminals that were already open when watching began. */
  private readonly openedBefore = new WeakSet<vscode.Terminal>(vscode.window.terminals);
  private readonly since = new Date();
  private readonly subs: vscode.Disposable[];

  constructor() {
    this.subs = [
      vscode.window.onDidStartTerminalShellExecution((e) => {
        const record: LastCommand = { command: e.execution.commandLine.value, exitCode: undefined, output: '' };
        // read() must start at once: data written before the first read() is not delivered.
        const stream = e.execution.read();
        void (async () => {
          try {
            for await (const chunk of stream) record.output = cutTail(record.output + chunk, MAX_TERMINAL_CHARS * 2);
          } catch {
            /* the terminal went away */
          }
        })();
        this.last.set(e.terminal, record);
      }),
      vscode.window.onDidEndTerminalShellExecution((e) => {
        const record = this.last.get(e.terminal);
        if (record) {
          record.exitCode = e.exitCode;
          record.command = e.execution.commandLine.value || record.command;
        }
      }),
    ];
  }

  /** The active terminal's last command and output, or why there is none. */
  describeActive(): TerminalDescription {
    const terminal = vscode.window.activeTerminal;
    if (!terminal) return describeTerminal(undefined);
    const last = this.last.get(terminal);
    return describeTerminal({
      name: terminal.name,
      integration: terminal.shellIntegration !== undefined,
      openedBeforeWatching: this.openedBefore.has(terminal),
      watchingSince: this.since,
      ...(last ? { last: { ...last } } : {}),
    });
  }

  dispose(): void {
    for (const s of this.subs) s.dispose();
  }
}
