// A session's background commands (bash `run_in_background`): started through
// the Shell port like any command (same sandbox, same permission decision
// before), then kept running while the model reads what they printed since
// its last look (bash_output) or stops them (kill_shell). Each keeps a bounded
// head/tail of its unread output in memory and its output in a log file of
// the process's private folder, capped (64 MB by default: head and tail kept,
// the cut marked, kept-output.ts), so a command printing 100 MB costs a file,
// not the host's memory, and one printing forever costs no more than the cap.
// A filtered read (bash_output's filter) goes through the log, line by line,
// from where the last read ended, so it sees every unread line the log holds.
// The session stops them all when it ends.
import * as path from 'node:path';
import { cutHead } from '../../runtime/text-cut';
import { type Message } from '../../runtime/types';
import { ToolError } from '../errors';
import { BoundedOutput } from '../node-adapter';
import { type Shell, type StartedCommand } from '../ports';
import { privateSubdir } from '../os/private-dir';
import { CappedLog, DEFAULT_KEPT_OUTPUT_BYTES } from './kept-output';

export type BackgroundStatus = 'running' | 'exited' | 'killed';

export interface BackgroundRead {
  id: string;
  status: BackgroundStatus;
  /** Null while running, and for a killed command. */
  exitCode: number | null;
  /** What it printed since the last read; the middle cut when long. */
  output: string;
  /** Characters printed since the last read, kept or not. */
  newChars: number;
  /** Set when the unread output was cut: the file holding all of it (up to the cap). */
  fullOutput?: string;
  /** Bytes the log's cap has cut from its middle so far (absent: none). */
  logCutBytes?: number;
  /** The cap on the log, in bytes. */
  logCapBytes: number;
  notes: string[];
}

export interface BackgroundScan extends BackgroundRead {
  /** Bytes of the unread output the cap had cut from the log before it could be read (their lines were not seen). */
  unreadCutBytes: number;
  /** The log could not be read: the lines came from the bounded unread buffer instead (why). */
  fallback?: string;
}

export interface BackgroundOptions {
  /** turnstone.bash.maxBackground: commands running at once. */
  maxRunning: () => number;
  /** Characters of unread output kept per command (head + tail). */
  maxUnreadChars: number;
  /** Where the whole output of each command goes; default a new folder in the process's private folder. */
  dir?: () => Promise<string>;
  /** turnstone.bash.outputCapMB × 1 MB: bytes of each command's log kept on disk (read per command); default 64 MB. */
  maxLogBytes?: () => number;
}

interface Entry {
  id: string;
  command: string;
  description: string;
  started: StartedCommand;
  status: BackgroundStatus;
  exitCode: number | null;
  unread: BoundedOutput;
  file: string;
  log: CappedLog;
  /** Settles once the log is written and closed (after the command ended). */
  logClosed: Promise<void>;
  /** Log offset (bytes of output) where the last read ended. */
  readOffset: number;
  notes: string[];
  /** The model has seen how it ended (bash_output or kill_shell); no note in the next request then. */
  endSeen: boolean;
  /** Ended and not yet said in a request. */
  endPending: boolean;
}

/** What the panel and a VS Code terminal follow for one command. */
export type BackgroundEvent =
  | { type: 'output'; id: string; chunk: string }
  | { type: 'ended'; id: string; status: Exclude<BackgroundStatus, 'running'>; exitCode: number | null };

export class BackgroundCommands {
  private readonly entries = new Map<string, Entry>();
  private counter = 0;
  private folder: Promise<string> | undefined;
  private readonly listeners = new Set<(event: BackgroundEvent) => void>();
  private readonly exitHook = () => this.killAllNow();

  constructor(private readonly options: BackgroundOptions) {
    // A process that exits without stopping them (an uncaught error) still leaves no orphan.
    process.on('exit', this.exitHook);
  }

  get running(): string[] {
    return [...this.entries.values()].filter((e) => e.status === 'running').map((e) => e.id);
  }

  onEvent(listener: (event: BackgroundEvent) => void): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  /**
   * Ids go on after the highest one the session's history names, so a resumed session (a new registry) never
   * starts a second `bash_1` while the model still reads the first one's results.
   */
  continueAfter(history: readonly Message[]): void {
    for (const message of history) {
      if (message.role !== 'user') continue;
      for (const block of message.content) {
        if (block.type !== 'tool_result') continue;
        for (const m of block.content.matchAll(/\bbash_(\d+)\b/g)) this.counter = Math.max(this.counter, Number(m[1]));
      }
    }
  }

  /** Starts `command` in the background; the id names it to bash_output and kill_shell. */
  async start(shell: Shell, command: string, options: { cwd: string; description?: string; sandbox?: boolean }): Promise<{ id: string; file: string }> {
    if (!shell.start) throw new ToolError('unavailable', 'This host cannot run commands in the background; run the command without run_in_background.');
    const max = this.options.maxRunning();
    const running = this.running;
    if (running.length >= max) {
      throw new ToolError(
        'too_many',
        `${running.length} background commands are running (${running.join(', ')}), the most turnstone.bash.maxBackground allows (${max}). ` +
          'Stop one you no longer need with kill_shell, or wait for one to exit.',
      );
    }
    const id = `bash_${++this.counter}`;
    const file = path.join(await (this.folder ??= (this.options.dir ?? (() => privateSubdir('background-')))()), `${id}.log`);
    // A new file (0600), never through a link or over something already there; capped as it streams.
    const log = new CappedLog(file, this.options.maxLogBytes?.() ?? DEFAULT_KEPT_OUTPUT_BYTES);
    let closeLog!: () => void;
    const logClosed = new Promise<void>((resolve) => (closeLog = resolve)).then(() => log.close().then(() => undefined));
    const unread = new BoundedOutput(this.options.maxUnreadChars);
    const description = options.description?.trim() || cutHead(command.split('\n')[0]!, 60);
    // Output can come before start() settles: it waits in `early` for the entry (each read then swaps its buffer).
    const made: { entry?: Entry } = {};
    const early: string[] = [];
    const onOutput = (chunk: string) => {
      log.write(chunk);
      (made.entry?.unread ?? unread).push(chunk);
      if (made.entry) this.emit({ type: 'output', id, chunk });
      else early.push(chunk);
    };
    let started: StartedCommand;
    try {
      started = await shell.start(command, { cwd: options.cwd, description, ...(options.sandbox === false ? { sandbox: false } : {}), onOutput });
    } catch (error) {
      closeLog();
      await logClosed;
      throw error;
    }
    const e: Entry = { id, command, description, started, status: 'running', exitCode: null, unread, file, log, logClosed, readOffset: 0, notes: [], endSeen: false, endPending: false };
    made.entry = e;
    this.entries.set(id, e);
    for (const chunk of early.splice(0)) this.emit({ type: 'output', id, chunk });
    void started.exited.then((exit) => {
      e.notes.push(...exit.sandboxNotes);
      if (e.status === 'running') {
        e.status = 'exited';
        e.exitCode = exit.exitCode;
        e.endPending = true;
      }
      closeLog();
      this.emit({ type: 'ended', id, status: e.status === 'killed' ? 'killed' : 'exited', exitCode: e.exitCode });
    });
    return { id, file };
  }

  /**
   * Settles once what `id` printed so far is in its log (or cut by the cap): a read after it names the cut and the
   * file holds what the read says it does. The log is written behind the output, more so on a busy machine.
   */
  async written(id: string): Promise<void> {
    await this.lookup(id).log.flush();
  }

  /** What `id` printed since the last read, as printed (terminal escapes included); its head and tail when long. */
  read(id: string): BackgroundRead {
    return this.take(this.lookup(id)).read;
  }

  /**
   * Every line `id` printed since the last read, handed to `onLine` in order (as printed: terminal escapes
   * included, no line break), read from the log so lines the unread buffer dropped are seen too. A line longer
   * than maxLineChars is handed over as its first maxLineChars characters. Lines the log's cap cut before they
   * could be read are counted in unreadCutBytes. The returned `output` is empty: the lines went to onLine.
   */
  async scan(id: string, onLine: (line: string) => void, maxLineChars = 1024 * 1024): Promise<BackgroundScan> {
    const entry = this.lookup(id);
    const { read, from, to, unread } = this.take(entry);
    const lines = new LineSplitter(onLine, maxLineChars);
    let unreadCutBytes = 0;
    let fallback: string | undefined;
    try {
      await entry.log.read(
        from,
        to,
        (bytes) => lines.push(bytes),
        (cut) => {
          lines.end();
          unreadCutBytes += cut;
        },
      );
      lines.end();
    } catch (error) {
      // No log to read (the disk failed): what memory kept of the unread output is all there is.
      fallback = error instanceof Error ? error.message : String(error);
      const kept = new LineSplitter(onLine, maxLineChars);
      kept.push(Buffer.from(unread.toString(), 'utf8'));
      kept.end();
    }
    return { ...read, output: '', unreadCutBytes, ...(fallback !== undefined ? { fallback } : {}), ...(entry.log.cutBytes > 0 ? { logCutBytes: entry.log.cutBytes } : {}) };
  }

  /** Ends the unread window of `entry`: its buffer is swapped and the log offset moves to what the log has taken. */
  private take(entry: Entry): { read: BackgroundRead; from: number; to: number; unread: BoundedOutput } {
    const unread = entry.unread;
    entry.unread = new BoundedOutput(this.options.maxUnreadChars);
    const from = entry.readOffset;
    const to = entry.log.acceptedBytes;
    entry.readOffset = to;
    if (entry.status !== 'running') entry.endSeen = true;
    const read: BackgroundRead = {
      id: entry.id,
      status: entry.status,
      exitCode: entry.exitCode,
      output: unread.toString(),
      newChars: unread.totalChars,
      ...(unread.truncated ? { fullOutput: entry.file } : {}),
      ...(entry.log.cutBytes > 0 ? { logCutBytes: entry.log.cutBytes } : {}),
      logCapBytes: entry.log.cap,
      notes: entry.notes.splice(0),
    };
    return { read, from, to, unread };
  }

  /** Shows a running command where the host shows it (its terminal); false when it has ended or nothing shows it. */
  reveal(id: string): boolean {
    const entry = this.entries.get(id);
    if (entry?.status !== 'running' || !entry.started.reveal) return false;
    entry.started.reveal();
    return true;
  }

  /** Stops `id`'s whole process tree; settles once it is gone. */
  async kill(id: string): Promise<{ id: string; status: BackgroundStatus; exitCode: number | null; wasRunning: boolean }> {
    const entry = this.lookup(id);
    const wasRunning = entry.status === 'running';
    if (wasRunning) entry.status = 'killed';
    // Also after it exited: something it left running in its group goes too.
    await entry.started.kill();
    entry.endSeen = true;
    return { id, status: entry.status, exitCode: entry.exitCode, wasRunning };
  }

  /** Stops every command of the session (new session, window closed, CLI exit, interrupt), and what stops with them. */
  async killAll(): Promise<void> {
    await Promise.all([...[...this.entries.keys()].map((id) => this.kill(id)), ...[...this.companions].map((stop) => stop())]);
  }

  private readonly companions = new Set<() => Promise<void>>();

  /**
   * Something else of the session's that must stop with its commands (the browser tool's page): on every
   * killAll, so on Stop-with-kill, a new session and close. Returns the call that takes it off again.
   */
  stopWithCommands(stop: () => Promise<void>): () => void {
    this.companions.add(stop);
    return () => this.companions.delete(stop);
  }

  /** killAll and forget: the registry is not used again. Settles once every spill file is closed, so its folder can go. */
  async dispose(): Promise<void> {
    await this.killAll();
    await Promise.all([...this.entries.values()].map((e) => e.logClosed));
    process.off('exit', this.exitHook);
    this.listeners.clear();
  }

  /**
   * One line per command that ended since the last request and whose end the model has not read:
   * the next request carries them.
   */
  takeExitNotes(): string[] {
    const notes: string[] = [];
    for (const e of this.entries.values()) {
      if (!e.endPending) continue;
      e.endPending = false;
      if (e.endSeen) continue;
      e.endSeen = true;
      notes.push(`Background command ${e.id} (${e.description}) exited with code ${e.exitCode ?? 'unknown'}; read its last output with bash_output.`);
    }
    return notes;
  }

  private killAllNow(): void {
    for (const e of this.entries.values()) e.started.killNow();
  }

  private lookup(id: string): Entry {
    const entry = this.entries.get(id);
    if (entry) return entry;
    const known = [...this.entries.keys()];
    throw new ToolError('not_found', `No background command ${JSON.stringify(id)} in this session${known.length ? ` (known: ${known.join(', ')})` : ' (none was started)'}.`);
  }

  private emit(event: BackgroundEvent): void {
    for (const listener of this.listeners) listener(event);
  }
}

/** Bytes in, lines out: UTF-8 decoded across chunk boundaries; \n, \r\n and a lone \r end a line (as a terminal shows it). */
class LineSplitter {
  private decoder = new TextDecoder();
  private line = '';
  private overlong = false;
  private afterCR = false;

  constructor(
    private readonly onLine: (line: string) => void,
    private readonly maxLineChars: number,
  ) {}

  push(bytes: Buffer): void {
    this.text(this.decoder.decode(bytes, { stream: true }));
  }

  /** The partial line so far is a line (the end, or a cut follows). */
  end(): void {
    this.text(this.decoder.decode());
    this.decoder = new TextDecoder();
    if (this.line !== '' || this.overlong) this.onLine(this.line);
    this.line = '';
    this.overlong = false;
    this.afterCR = false;
  }

  private text(text: string): void {
    let at = 0;
    if (this.afterCR && text.startsWith('\n')) at = 1;
    this.afterCR = false;
    while (at < text.length) {
      const nl = text.indexOf('\n', at);
      const cr = text.indexOf('\r', at);
      const stop = nl < 0 ? cr : cr < 0 ? nl : Math.min(nl, cr);
      if (stop < 0) {
        this.add(text.slice(at));
        return;
      }
      this.add(text.slice(at, stop));
      this.onLine(this.line);
      this.line = '';
      this.overlong = false;
      at = stop + 1;
      if (text[stop] === '\r') {
        if (at === text.length) this.afterCR = true;
        else if (text[at] === '\n') at++;
      }
    }
  }

  private add(part: string): void {
    if (this.overlong) return;
    const room = this.maxLineChars - this.line.length;
    if (part.length <= room) {
      this.line += part;
      return;
    }
    // On a character boundary: never half of a surrogate pair.
    this.line += cutHead(part, room);
    this.overlong = true;
  }
}
