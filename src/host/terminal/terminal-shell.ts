// The Shell port in a VS Code terminal named "Turnstone" that the user can
// watch. With shell integration (it must activate within a few seconds) the
// command runs in a real shell and output comes from execution.read();
// otherwise — or for multi-line commands, which shell integration tracks
// poorly — it runs as a child process mirrored live into a pseudoterminal, so
// capturing output never depends on shell integration (the peers' most
// reported failure).
import { randomBytes } from 'node:crypto';
import * as fs from 'node:fs';
import * as path from 'node:path';
import * as vscode from 'vscode';
import { credentialNames } from '../../runtime/policy/secret-env';
import { BoundedOutput, CREDENTIAL_ENV_VARS, NodeShell, spillBufferChars } from '../../tools/node-adapter';
import { createExclusive, privateSubdir, processPrivateDir } from '../../tools/os/private-dir';
import { type ExecResult, type Shell, type ShellResult, type ShellRunOptions, type ShellStartOptions, type StartedCommand } from '../../tools/ports';
import { type CommandSandbox } from '../../tools/shell/sandbox';

export interface TerminalShellOptions {
  name?: string;
  /** How long to wait for shell integration before falling back to the pseudoterminal. */
  shellIntegrationTimeoutMs?: number;
  /** false: every command takes the pseudoterminal path (a terminal that activates late is never used). */
  shellIntegration?: boolean;
  /** After Ctrl+C on timeout or interrupt, how long before the terminal (and its process tree) is disposed. */
  killGraceMs?: number;
  /** Runs the fallback and `exec` (ripgrep). */
  childShell?: NodeShell;
  /** The OS sandbox for commands on both paths (ignored when childShell is given: that shell's own sandbox is used). */
  sandbox?: CommandSandbox;
  /** turnstone.bash.env.passthrough, read when a terminal or command starts. */
  envPassthrough?: () => readonly string[];
  log?: (message: string) => void;
}

const MAX_INTEGRATION_MISSES = 3;

// TERM stays the terminal's own; only pagers and prompts are disabled. null unsets: the provider's key, and any
// other credential the terminal would inherit (secret-env.ts) unless the user lets it through, never reaches a
// command the model runs.
function terminalEnv(passthrough: readonly string[]): Record<string, string | null> {
  return {
    PAGER: 'cat',
    GIT_PAGER: 'cat',
    GIT_TERMINAL_PROMPT: '0',
    ...Object.fromEntries(credentialNames(process.env, passthrough).map((name) => [name, null])),
    ...Object.fromEntries(CREDENTIAL_ENV_VARS.map((name) => [name, null])),
  };
}

function shellQuote(s: string): string {
  return `'${s.replace(/'/g, `'\\''`)}'`;
}

/**
 * Shell integration tracks one line typed at a prompt; a multi-line command gets
 * continuation prompts it misreads, so those take the pseudoterminal path.
 */
function suitsShellIntegration(command: string): boolean {
  return !/[\n\r]/.test(command);
}

function sleep(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}

interface PtySession {
  terminal: vscode.Terminal;
  write: vscode.EventEmitter<string>;
  opened: Promise<void>;
  /** Aborts the command running in it (Ctrl+C typed by the user, or the terminal closed). */
  interrupt?: () => void;
}

export class TerminalShell implements Shell, vscode.Disposable {
  private readonly name: string;
  private readonly integrationTimeoutMs: number;
  private readonly killGraceMs: number;
  private readonly child: NodeShell;
  private readonly log: (message: string) => void;
  private integrated: vscode.Terminal | undefined;
  private integrationFailed = false;
  private activation: Promise<boolean> | undefined;
  private misses = 0;
  private pty: PtySession | undefined;
  private queue: Promise<unknown> = Promise.resolve();
  /** How the last command ran, for the log and for tests. */
  lastMode: 'shell-integration' | 'pseudoterminal' | undefined;
  private readonly envPassthrough: () => readonly string[];
  private readonly disposables: vscode.Disposable[] = [];
  /** Where the plumbing of the next command waits for the terminal's `turnstone` function (see runnerEnv). */
  private readonly runFile = path.join(processPrivateDir(), `terminal-${randomBytes(6).toString('hex')}.run`);

  constructor(options: TerminalShellOptions = {}) {
    this.name = options.name ?? 'Turnstone';
    this.integrationTimeoutMs = options.shellIntegrationTimeoutMs ?? 3000;
    this.integrationFailed = options.shellIntegration === false;
    this.killGraceMs = options.killGraceMs ?? 2000;
    this.envPassthrough = options.envPassthrough ?? (() => []);
    this.child = options.childShell ?? new NodeShell({ ...(options.sandbox ? { sandbox: options.sandbox } : {}), envPassthrough: this.envPassthrough });
    this.log = options.log ?? (() => undefined);
    this.disposables.push(
      vscode.window.onDidCloseTerminal((t) => {
        if (t === this.integrated) this.integrated = undefined;
        if (t === this.pty?.terminal) {
          this.pty.interrupt?.();
          this.pty = undefined;
        }
      }),
    );
  }

  /** One command at a time: the terminal is shared and the user watches it in order. */
  run(command: string, options: ShellRunOptions): Promise<ShellResult> {
    const next = this.queue.then(() => this.runNow(command, options));
    this.queue = next.catch(() => undefined);
    return next;
  }

  exec(file: string, args: string[], options: { cwd: string; signal?: AbortSignal; maxOutputBytes?: number }): Promise<ExecResult> {
    return this.child.exec(file, args, options);
  }

  hidesSecrets(): Promise<boolean> {
    return this.child.hidesSecrets();
  }

  /**
   * A background command in a terminal of its own, named after its description, that the user watches; it runs
   * as the child shell's (same sandbox). Closing the terminal (or Ctrl+C in it) stops the command; once the
   * command is stopped or has exited its terminal goes, so no terminal outlives what it showed.
   */
  async start(command: string, options: ShellStartOptions): Promise<StartedCommand> {
    const write = new vscode.EventEmitter<string>();
    let markOpen!: () => void;
    const opened = new Promise<void>((resolve) => (markOpen = resolve));
    let started: StartedCommand | undefined;
    const pty: vscode.Pseudoterminal = {
      onDidWrite: write.event,
      open: () => markOpen(),
      close: () => void started?.kill(),
      handleInput: (data) => {
        if (data === '\x03') void started?.kill();
      },
    };
    const terminal = vscode.window.createTerminal({ name: options.description, pty, isTransient: true });
    terminal.show(true);
    // Output written before open() is dropped by VS Code; a terminal that never opens must not hold the command.
    await Promise.race([opened, sleep(2000)]);
    const toTerminal = (text: string) => write.fire(text.replace(/\r?\n/g, '\r\n'));
    toTerminal(`\x1b[1m$ ${command}\x1b[0m\n`);
    try {
      started = await this.child.start(command, {
        ...options,
        onOutput: (chunk) => {
          toTerminal(chunk);
          options.onOutput(chunk);
        },
      });
    } catch (error) {
      terminal.dispose();
      throw error;
    }
    void started.exited.then(() => {
      terminal.dispose();
      write.dispose();
    });
    const child = started;
    return { exited: child.exited, kill: () => child.kill(), killNow: () => child.killNow(), reveal: () => terminal.show(false) };
  }

  dispose(): void {
    for (const d of this.disposables.splice(0)) d.dispose();
    this.integrated?.dispose();
    this.pty?.terminal.dispose();
  }

  private async runNow(command: string, options: ShellRunOptions): Promise<ShellResult> {
    if (suitsShellIntegration(command) && !this.integrationFailed) {
      const terminal = await this.integratedTerminal(options);
      if (terminal?.shellIntegration) {
        this.lastMode = 'shell-integration';
        return this.runIntegrated(terminal, terminal.shellIntegration, command, options);
      }
    }
    this.lastMode = 'pseudoterminal';
    return this.runInPty(command, options);
  }

  /**
   * The bash terminal, once its shell integration is active. Activation can take
   * far longer than the wait on a busy machine, so a slow terminal is kept: this
   * command falls back to the pseudoterminal and a later one may find it ready.
   * After a few misses the terminal is dropped and the fallback is used for good.
   */
  private async integratedTerminal(options: ShellRunOptions): Promise<vscode.Terminal | undefined> {
    if (!this.integrated || this.integrated.exitStatus !== undefined) {
      const terminal = vscode.window.createTerminal({
        name: this.name,
        // The tool is `bash`: the user's default shell (zsh, fish, pwsh) would parse commands differently.
        shellPath: 'bash',
        cwd: options.cwd,
        env: { ...terminalEnv(this.envPassthrough()), ...options.env, ...runnerEnv(this.runFile) },
        isTransient: true,
      });
      terminal.show(true);
      this.integrated = terminal;
      this.activation = new Promise<boolean>((resolve) => {
        const listener = vscode.window.onDidChangeTerminalShellIntegration((e) => {
          if (e.terminal !== terminal) return;
          listener.dispose();
          resolve(true);
        });
        this.disposables.push(listener);
      });
    }
    const terminal = this.integrated;
    if (terminal.shellIntegration) return terminal;
    const activated = await Promise.race([this.activation ?? Promise.resolve(false), sleep(this.integrationTimeoutMs).then(() => false)]);
    if (activated && terminal.shellIntegration) return terminal;
    this.misses++;
    this.log(`shell integration not active after ${this.integrationTimeoutMs} ms (miss ${this.misses} of ${MAX_INTEGRATION_MISSES}); using a pseudoterminal`);
    if (this.misses >= MAX_INTEGRATION_MISSES) {
      this.integrationFailed = true;
      this.integrated = undefined;
      terminal.dispose();
    }
    return undefined;
  }

  private async runIntegrated(
    terminal: vscode.Terminal,
    integration: vscode.TerminalShellIntegration,
    command: string,
    options: ShellRunOptions,
  ): Promise<ShellResult> {
    const sameDir = integration.cwd?.fsPath === options.cwd;
    const files = await this.captureFiles();
    // The sandbox is set up now; its plumbing goes to the run file, and the line typed is the command itself.
    const sandbox = await this.child.enterSandbox(options);
    await writeRunFile(this.runFile, { cwd: sameDir ? undefined : options.cwd, files, prefix: sandbox?.prefix, note: sandboxNote(sandbox, options) });
    const commandLine = integratedCommandLine(command);
    let timedOut = false;
    let interrupted = false;
    let completed = false;
    let fileStatus: number | null | undefined;
    // With spill, the capture file already holds the complete output: memory keeps only what the model is shown.
    const bound = options.spill ? spillBufferChars(options.spill) : undefined;
    const fromFile = new BoundedOutput(bound);
    const fromStream = new BoundedOutput(bound);
    let fileSeen = false;
    let savedTo: string | undefined;

    let ended!: () => void;
    const endPromise = new Promise<void>((resolve) => (ended = resolve)).then(() => {
      completed = true;
    });
    let endEvent!: () => void;
    let endEventSeen = false;
    const endEventPromise = new Promise<void>((resolve) => (endEvent = resolve));
    const disposables: vscode.Disposable[] = [];
    this.log(`shell integration: ${commandLine}`);
    const execution = integration.executeCommand(commandLine);
    disposables.push(
      vscode.window.onDidEndTerminalShellExecution((e) => {
        if (e.execution !== execution) return;
        endEventSeen = true;
        endEvent();
        ended();
      }),
      vscode.window.onDidCloseTerminal((t) => {
        if (t !== terminal || completed) return;
        // Closed by the user while the command ran.
        if (!timedOut) interrupted = true;
        ended();
      }),
    );
    // The live stream is the fallback source of output, should the capture file be unusable.
    const reading = (async () => {
      for await (const data of execution.read()) fromStream.push(data);
    })().catch((error: unknown) => this.log(`reading terminal output failed: ${String(error)}`));

    const tail = new FileTail(files.output, (text) => {
      fileSeen = true;
      fromFile.push(text);
      options.onOutput?.(text);
    });
    const poll = setInterval(() => {
      void tail.pump();
      void fs.promises.readFile(files.status, 'utf8').then(
        (text) => {
          const status = Number.parseInt(text.trim(), 10);
          if (Number.isNaN(status)) return; // still being written
          fileStatus = status;
          ended();
        },
        () => undefined,
      );
    }, 100);

    const stop = async (why: 'timeout' | 'abort') => {
      if (completed) return;
      this.log(`shell integration: stopping (${why})`);
      if (why === 'timeout') timedOut = true;
      else interrupted = true;
      terminal.sendText('\x03', false);
      const gone = await Promise.race([endPromise.then(() => true), sleep(this.killGraceMs).then(() => false)]);
      // Ctrl+C reaches only the foreground job; disposing the terminal hangs up its whole session.
      if (!gone) {
        if (this.integrated === terminal) this.integrated = undefined;
        terminal.dispose();
        ended();
      }
    };
    const timer = setTimeout(() => void stop('timeout'), options.timeoutMs);
    const onAbort = () => void stop('abort');
    if (options.signal?.aborted) onAbort();
    else options.signal?.addEventListener('abort', onAbort, { once: true });

    try {
      await endPromise;
      if (!endEventSeen && fileStatus !== undefined) {
        // The status file usually lands just before the end event; give the event a moment.
        await Promise.race([endEventPromise, sleep(1500)]);
        // Capture does not need the event; the terminal stays (its next command is usually seen).
        if (!endEventSeen) this.log('shell integration missed the end of a command; output and status came from the capture files');
      }
      // The end event can beat the 100 ms poll to the status file. The event's own exit code is that of
      // the trailing `echo … > status`, never the command's, so read the file (it is written before that).
      if (fileStatus === undefined && !timedOut && !interrupted) fileStatus = await readStatus(files.status, 2000);
      // tee may still be copying the last bytes; it is done when its marker lands (never, while a daemon holds the output).
      const teeDone = await waitForFile(files.done, 1000);
      await Promise.race([reading, sleep(300)]);
      await tail.pump();
      // A command that printed nothing leaves an empty capture: that is its output, not the live stream's
      // shell-integration markers (`ESC ] 633 ; C BEL`), which would show as junk in the tool card.
      if (!fileSeen && teeDone) fileSeen = true;
    } finally {
      clearInterval(poll);
      clearTimeout(timer);
      options.signal?.removeEventListener('abort', onAbort);
      for (const d of disposables) d.dispose();
      await tail.close();
      if (options.spill && fileSeen && fromFile.totalChars > options.spill.afterChars) savedTo = await keepCapture(files.output, options.spill.path);
      void fs.promises.rm(files.output, { force: true });
      void fs.promises.rm(files.status, { force: true });
      void fs.promises.rm(files.done, { force: true });
      void fs.promises.rm(this.runFile, { force: true });
    }
    const notes = sandbox ? await sandbox.finish() : [];
    const captured = fileSeen ? fromFile : fromStream;
    const output = fileSeen ? captured.toString() : withoutShellMarkers(captured.toString());
    if (!fileSeen) options.onOutput?.(output);
    // Without the status file the exit code is unknown: the end event's code belongs to the trailing echo.
    const exitCode = fileStatus ?? null;
    return {
      exitCode: timedOut || interrupted ? null : exitCode,
      output,
      timedOut,
      interrupted,
      ...(captured.truncated ? { totalChars: captured.totalChars } : {}),
      ...(savedTo && captured === fromFile ? { savedTo } : {}),
      ...(sandbox ? { sandboxed: true } : {}),
      ...(notes.length > 0 ? { sandboxNotes: notes } : {}),
    };
  }

  /** In this process's private folder: a command cannot plant a link where the capture will be written. */
  private async captureFiles(): Promise<CaptureFiles> {
    const base = path.join(await privateSubdir('capture-'), 'command');
    return { output: `${base}.out`, status: `${base}.status`, done: `${base}.done` };
  }

  private ensurePty(): PtySession {
    if (this.pty && this.pty.terminal.exitStatus === undefined) return this.pty;
    const write = new vscode.EventEmitter<string>();
    let markOpen!: () => void;
    const opened = new Promise<void>((resolve) => (markOpen = resolve));
    const session: PtySession = { terminal: undefined as unknown as vscode.Terminal, write, opened };
    const pty: vscode.Pseudoterminal = {
      onDidWrite: write.event,
      open: () => markOpen(),
      close: () => {
        session.interrupt?.();
        if (this.pty === session) this.pty = undefined;
      },
      handleInput: (data) => {
        // There is no stdin to forward to; Ctrl+C is the one key that means something.
        if (data === '\x03') session.interrupt?.();
      },
    };
    session.terminal = vscode.window.createTerminal({ name: this.name, pty, isTransient: true });
    session.terminal.show(true);
    this.pty = session;
    return session;
  }

  private async runInPty(command: string, options: ShellRunOptions): Promise<ShellResult> {
    const session = this.ensurePty();
    // Output written before open() is dropped by VS Code; a terminal that never opens must not block the command.
    await Promise.race([session.opened, sleep(2000)]);
    const toTerminal = (s: string) => session.write.fire(s.replace(/\r?\n/g, '\r\n'));
    toTerminal(`\x1b[1m$ ${command}\x1b[0m\n`);
    const note = sandboxNote(options.sandbox !== false && (await this.child.sandbox?.active()), options);
    if (note) toTerminal(`\x1b[2m${note}\x1b[0m\n`);
    const local = new AbortController();
    session.interrupt = () => local.abort();
    const signal = options.signal ? AbortSignal.any([options.signal, local.signal]) : local.signal;
    try {
      const result = await this.child.run(command, {
        ...options,
        signal,
        onOutput: (chunk) => {
          toTerminal(chunk);
          options.onOutput?.(chunk);
        },
      });
      const status = result.timedOut ? 'timed out' : result.interrupted ? 'interrupted' : `exit code ${result.exitCode ?? '?'}`;
      toTerminal(`${result.output.endsWith('\n') || result.output === '' ? '' : '\n'}\x1b[2m[${status}]\x1b[0m\n\n`);
      return result;
    } finally {
      session.interrupt = undefined;
    }
  }
}

export interface CaptureFiles {
  /** The command's output, as tee copies it. */
  output: string;
  /** Its exit status, written the moment it exits. */
  status: string;
  /** Created when tee has copied everything (its input closed). */
  done: string;
}

/** The function the terminal's bash imports from its environment (bash's own `BASH_FUNC_name%%` form). */
export const RUNNER_FUNCTION = 'turnstone';

/**
 * The line typed into the integrated terminal: the command as the model wrote it, handed to the
 * terminal's `turnstone` function (runnerEnv), which reads the plumbing from the run file.
 */
export function integratedCommandLine(command: string): string {
  return `${RUNNER_FUNCTION} ${shellQuote(command)}`;
}

/**
 * The terminal's `turnstone` function: takes the plumbing the host wrote for this command (folder, capture
 * files, sandbox prefix, a one-line note) from the run file, removes it (a line recalled from history finds
 * nothing to run), prints the note dimmed, and runs the command.
 * - A child bash keeps `exit 3` or `cd` from ending or moving the terminal's own shell (a `( … )` subshell
 *   would too, but VS Code then never sees the command end).
 * - stdin from /dev/null: a command that reads input must not wait on the user's keyboard.
 * - Output is tee'd to a file and the status written to another: VS Code sometimes misses a command's end
 *   or its output (vscode#254447, seen here on a fresh terminal's first command), and capture must never
 *   depend on that. The user still watches it live.
 * - tee reads the output through a process substitution rather than a pipe, so the status is written as
 *   soon as the command exits: with `| tee`, a daemon it started (`npm run dev &`, `sleep 300 &`) holds the
 *   pipe open and neither tee nor the status line would finish until the daemon did, so bash hung until
 *   its timeout (F-TOOL-19).
 */
const RUNNER_BODY = [
  '() {',
  'local __ts_run="${TURNSTONE_RUN_FILE:-}" __ts_cwd= __ts_out= __ts_status= __ts_done= __ts_note=; local -a __ts_prefix=();',
  'if [ -z "$__ts_run" ] || [ ! -f "$__ts_run" ]; then printf "turnstone: no command waiting (Turnstone types its commands here itself)\\n" >&2; return 2; fi;',
  '. "$__ts_run"; rm -f "$__ts_run";',
  'if [ -n "$__ts_note" ]; then printf "\\033[2m%s\\033[0m\\n" "$__ts_note"; fi;',
  'if [ -n "$__ts_cwd" ]; then cd "$__ts_cwd" || return; fi;',
  '"${__ts_prefix[@]}" bash -c "$1" < /dev/null > >(tee "$__ts_out"; : > "$__ts_done") 2>&1;',
  'echo $? > "$__ts_status";',
  '}',
].join(' ');

/** The terminal's environment additions that give its bash the `turnstone` function and its run file. */
export function runnerEnv(runFile: string): Record<string, string> {
  return { [`BASH_FUNC_${RUNNER_FUNCTION}%%`]: RUNNER_BODY, TURNSTONE_RUN_FILE: runFile };
}

/** Writes the plumbing of the next command where the `turnstone` function reads it (exclusive, never through a link). */
export async function writeRunFile(
  runFile: string,
  run: { cwd: string | undefined; files: CaptureFiles; prefix: readonly string[] | undefined; note: string | undefined },
): Promise<void> {
  const lines = [
    `__ts_cwd=${run.cwd === undefined ? "''" : shellQuote(run.cwd)}`,
    `__ts_out=${shellQuote(run.files.output)}`,
    `__ts_status=${shellQuote(run.files.status)}`,
    `__ts_done=${shellQuote(run.files.done)}`,
    `__ts_note=${shellQuote(run.note ?? '')}`,
    `__ts_prefix=(${(run.prefix ?? []).map(shellQuote).join(' ')})`,
  ];
  await fs.promises.rm(runFile, { force: true });
  const handle = await createExclusive(runFile);
  try {
    await handle.writeFile(`${lines.join('\n')}\n`);
  } finally {
    await handle.close();
  }
}

/** The one short line the terminal shows about where the command runs. */
function sandboxNote(sandboxed: unknown, options: ShellRunOptions): string | undefined {
  if (options.sandbox === false) return '(outside the OS sandbox, as approved)';
  return sandboxed ? '(sandboxed: writes only in the workspace, secrets hidden)' : undefined;
}

/** The live stream carries VS Code's shell-integration sequences (OSC 633); they are not the command's output. */
function withoutShellMarkers(text: string): string {
  // eslint-disable-next-line no-control-regex -- OSC sequences are control characters by definition
  return text.replace(/\x1b\]633;[^\x07\x1b]*(?:\x07|\x1b\\)/g, '');
}

async function waitForFile(file: string, withinMs: number): Promise<boolean> {
  const deadline = Date.now() + withinMs;
  while (Date.now() < deadline) {
    if (await fs.promises.access(file).then(() => true, () => false)) return true;
    await sleep(25);
  }
  return false;
}

/** The exit status the command line wrote, waiting up to `withinMs` for it to land; null if it never does. */
async function readStatus(file: string, withinMs: number): Promise<number | null> {
  const deadline = Date.now() + withinMs;
  for (;;) {
    const text = await fs.promises.readFile(file, 'utf8').catch(() => '');
    const status = Number.parseInt(text.trim(), 10);
    if (!Number.isNaN(status)) return status;
    if (Date.now() > deadline) return null;
    await sleep(50);
  }
}

/** Moves the capture file to where the bash tool wants the full output; undefined if that fails. */
async function keepCapture(from: string, to: string): Promise<string | undefined> {
  try {
    await fs.promises.mkdir(path.dirname(to), { recursive: true });
    await fs.promises.rename(from, to).catch(async (error: NodeJS.ErrnoException) => {
      if (error.code !== 'EXDEV') throw error;
      await fs.promises.copyFile(from, to, fs.constants.COPYFILE_EXCL);
    });
    return to;
  } catch {
    return undefined;
  }
}

/** Follows a growing file (the tee'd output) and hands over what was appended, decoded as UTF-8. */
class FileTail {
  private handle: fs.promises.FileHandle | undefined;
  private position = 0;
  private pumping: Promise<void> | undefined;
  private readonly decoder = new TextDecoder();

  constructor(
    private readonly file: string,
    private readonly onText: (text: string) => void,
  ) {}

  pump(): Promise<void> {
    this.pumping ??= this.read().finally(() => (this.pumping = undefined));
    return this.pumping;
  }

  private async read(): Promise<void> {
    try {
      this.handle ??= await fs.promises.open(this.file, 'r');
    } catch {
      return; // not created yet
    }
    const buffer = Buffer.alloc(64 * 1024);
    for (;;) {
      const { bytesRead } = await this.handle.read(buffer, 0, buffer.length, this.position);
      if (bytesRead === 0) return;
      this.position += bytesRead;
      const text = this.decoder.decode(buffer.subarray(0, bytesRead), { stream: true });
      if (text) this.onText(text);
    }
  }

  async close(): Promise<void> {
    await this.pumping;
    await this.handle?.close();
    this.handle = undefined;
  }
}
