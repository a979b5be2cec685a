// Node implementations of the Workspace and Shell ports, for the headless CLI
// and the unit tests (and reused by the VS Code host for its child-process
// fallback). Everything here is plain fs/promises and child_process.
import { spawn } from 'node:child_process';
import { promises as fsp, type Stats } from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import {
  type DirEntry,
  type EntryType,
  type ExecResult,
  type FileStat,
  type Shell,
  type ShellResult,
  type ShellRunOptions,
  type ShellStartOptions,
  type StartedCommand,
  type Workspace,
  WorkspaceError,
  type WorkspaceErrorKind,
} from './ports';
import { cutHead, cutTail } from '../runtime/text-cut';
import { atomicTempPath, removeInterruptedWrites } from './files/interrupted-writes';
import { type CommandSandbox, type SandboxedRun } from './shell/sandbox';
import { CappedLog } from './shell/kept-output';
import { PROVIDER_PRESETS } from '../runtime/providers/presets';
import { withoutCredentials } from '../runtime/policy/secret-env';

const ERRNO_KINDS: Record<string, WorkspaceErrorKind> = {
  ENOENT: 'not_found',
  EEXIST: 'exists',
  EISDIR: 'is_directory',
  ENOTDIR: 'not_directory',
  EACCES: 'permission',
  EPERM: 'permission',
};

export function toWorkspaceError(error: unknown, p?: string): WorkspaceError {
  if (error instanceof WorkspaceError) return error;
  const code = (error as NodeJS.ErrnoException | undefined)?.code;
  const kind = (code && ERRNO_KINDS[code]) || 'io';
  return new WorkspaceError(kind, (error as Error | undefined)?.message ?? String(error), p);
}

function entryType(s: Stats | { isFile(): boolean; isDirectory(): boolean; isSymbolicLink(): boolean }): EntryType {
  if (s.isSymbolicLink()) return 'symlink';
  if (s.isFile()) return 'file';
  if (s.isDirectory()) return 'directory';
  return 'other';
}

export class NodeWorkspace implements Workspace {
  readonly roots: readonly string[];

  constructor(roots: string | readonly string[]) {
    const list = typeof roots === 'string' ? [roots] : [...roots];
    if (list.length === 0) throw new Error('NodeWorkspace needs at least one root folder');
    this.roots = list.map((r) => path.resolve(r));
  }

  async realpath(p: string): Promise<string> {
    try {
      return await fsp.realpath(p);
    } catch (error) {
      throw toWorkspaceError(error, p);
    }
  }

  async stat(p: string): Promise<FileStat | undefined> {
    try {
      const s = await fsp.stat(p);
      return { type: entryType(s), size: s.size, mtimeMs: s.mtimeMs };
    } catch (error) {
      const e = toWorkspaceError(error, p);
      if (e.kind === 'not_found' || e.kind === 'not_directory') return undefined;
      throw e;
    }
  }

  async readFile(p: string): Promise<Uint8Array> {
    try {
      return await fsp.readFile(p);
    } catch (error) {
      throw toWorkspaceError(error, p);
    }
  }

  async writeFile(p: string, data: Uint8Array): Promise<void> {
    const tmp = atomicTempPath(p);
    try {
      let mode: number | undefined;
      try {
        mode = (await fsp.stat(p)).mode & 0o7777;
      } catch {
        mode = undefined;
      }
      await fsp.writeFile(tmp, data, mode === undefined ? {} : { mode });
      await fsp.rename(tmp, p);
      // What an earlier, killed write of this file left beside it.
      await removeInterruptedWrites(p);
    } catch (error) {
      await fsp.rm(tmp, { force: true }).catch(() => undefined);
      throw toWorkspaceError(error, p);
    }
  }

  async mkdir(p: string): Promise<void> {
    try {
      await fsp.mkdir(p, { recursive: true });
    } catch (error) {
      throw toWorkspaceError(error, p);
    }
  }

  async readdir(p: string): Promise<DirEntry[]> {
    try {
      const entries = await fsp.readdir(p, { withFileTypes: true });
      return entries.map((d) => ({ name: d.name, type: entryType(d) }));
    } catch (error) {
      throw toWorkspaceError(error, p);
    }
  }

  async rename(from: string, to: string): Promise<void> {
    try {
      await fsp.rename(from, to);
    } catch (error) {
      throw toWorkspaceError(error, from);
    }
  }

  async delete(p: string): Promise<void> {
    try {
      await fsp.rm(p, { recursive: true });
    } catch (error) {
      throw toWorkspaceError(error, p);
    }
  }
}

/**
 * Collects command output up to a bound: the head and a rolling tail are kept,
 * the middle is dropped. `yes` left running until its timeout must not take
 * the extension host's memory with it.
 */
export class BoundedOutput {
  private readonly head: string[] = [];
  private headChars = 0;
  private headFull = false;
  private tail: string[] = [];
  private tailChars = 0;
  private dropped = 0;
  private total = 0;

  constructor(private readonly maxChars: number = 16 * 1024 * 1024) {}

  /** Characters pushed in all, kept or not. */
  get totalChars(): number {
    return this.total;
  }

  /** True once the middle had to be dropped: toString() then holds only the head and the tail. */
  get truncated(): boolean {
    return this.total > this.maxChars;
  }

  push(text: string): void {
    this.total += text.length;
    const half = Math.floor(this.maxChars / 2);
    if (!this.headFull) {
      // Cut on a character boundary, never inside an emoji: the head ends the moment anything spills past it.
      const take = cutHead(text, half - this.headChars);
      this.head.push(take);
      this.headChars += take.length;
      text = text.slice(take.length);
      if (!text) return;
      this.headFull = true;
    }
    this.tail.push(text);
    this.tailChars += text.length;
    if (this.tailChars > half * 2) {
      // Compact rarely (only at twice the bound) so pushing stays cheap.
      const joined = this.tail.join('');
      const keep = cutTail(joined, this.maxChars - this.headChars);
      this.dropped += joined.length - keep.length;
      this.tail = [keep];
      this.tailChars = keep.length;
    }
  }

  toString(): string {
    // The tail only fills once the head is full, so anything past the head's share of the bound is the dropped middle.
    const room = this.maxChars - this.headChars;
    let tail = this.tail.join('');
    let dropped = this.dropped;
    if (tail.length > room) {
      const kept = cutTail(tail, room);
      dropped += tail.length - kept.length;
      tail = kept;
    }
    const marker = dropped ? `\n… [${dropped} characters of output dropped in the middle: over the ${this.maxChars}-character buffer] …\n` : '';
    return `${this.head.join('')}${marker}${tail}`;
  }
}

/** How much a shell that spills keeps in memory: enough that the whole output is still there when spilling starts. */
export function spillBufferChars(spill: { afterChars: number }): number {
  return 2 * spill.afterChars + 1024 * 1024;
}

/**
 * Streams a command's output to a file once it passes `afterChars` (see ShellRunOptions.spill), capped at
 * `maxBytes` (head and tail kept, the cut marked: kept-output.ts). The producer is never paused: pausing a child's
 * pipes lost the end of the output when the child exited meanwhile; the log drops what the cap would cut before
 * it reaches the disk, so its queue stays bounded.
 */
export class OutputSpill {
  private log: CappedLog | undefined;

  constructor(private readonly target: { path: string; afterChars: number; maxBytes?: number }) {}

  /** Call after each push of `text` to `buffer`. */
  push(text: string, buffer: BoundedOutput): void {
    if (this.log) {
      this.log.write(text);
      return;
    }
    if (buffer.totalChars <= this.target.afterChars) return;
    // A new file (0600, in a 0700 folder), never through a link or over something already there.
    this.log = new CappedLog(this.target.path, this.target.maxBytes);
    // The buffer still holds every character so far (spillBufferChars).
    this.log.write(buffer.toString());
  }

  /**
   * The file once everything is on disk, with the bytes the cap cut from its middle; undefined when nothing was
   * spilled or writing failed (the partial file is removed).
   */
  async close(): Promise<{ path: string; cutBytes: number } | undefined> {
    const log = this.log;
    if (!log) return undefined;
    const summary = await log.close();
    if (!log.failed) return { path: this.target.path, cutBytes: summary.cutBytes };
    await fsp.rm(this.target.path, { force: true }).catch(() => undefined);
    return undefined;
  }
}

export interface NodeShellOptions {
  /** Characters of output kept in memory (head + tail); the middle of anything longer is dropped. */
  maxBufferedChars?: number;
  /** How long to keep reading after the main process exits, for output still in the pipe. */
  drainMs?: number;
  /** Grace between SIGTERM and SIGKILL when killing the tree. */
  killGraceMs?: number;
  /** Runs `bash` commands in the OS sandbox unless a run says `sandbox: false`. */
  sandbox?: CommandSandbox;
  /** turnstone.bash.env.passthrough: credential-looking variables commands may see all the same (read per command). */
  envPassthrough?: () => readonly string[];
}

/** Environment that keeps tools from waiting on a pager or an editor nobody can see. */
export const NON_INTERACTIVE_ENV: Record<string, string> = {
  PAGER: 'cat',
  GIT_PAGER: 'cat',
  GIT_TERMINAL_PROMPT: '0',
  TERM: 'dumb',
};

/**
 * The variables that hold the model provider's credentials. A command the
 * model runs never sees them: `printenv`, or an injected `curl … -d "$(env)"`,
 * would otherwise hand the user's key to whoever wrote the prompt. A command
 * that needs a key of its own gets it from its own config, not from ours.
 */
export const CREDENTIAL_ENV_VARS: readonly string[] = [
  'ANTHROPIC_API_KEY',
  'ANTHROPIC_AUTH_TOKEN',
  'OPENAI_API_KEY',
  // The OpenAI-compatible presets' own key variables (OPENROUTER_API_KEY, GROQ_API_KEY, …).
  ...PROVIDER_PRESETS.flatMap((p) => (p.keyVariable ? [p.keyVariable] : [])),
];

/**
 * What a command the model runs inherits: this process's environment without the provider's credentials (never,
 * whatever `passthrough` says) and without anything else that looks like a credential (secret-env.ts) unless
 * `passthrough` names it.
 */
export function commandEnv(base: NodeJS.ProcessEnv, extra: Record<string, string> = {}, passthrough: readonly string[] = []): NodeJS.ProcessEnv {
  return childEnv({ ...base, ...NON_INTERACTIVE_ENV, ...extra }, passthrough);
}

/** `base` as any child Turnstone starts may inherit it (a command, a hook): the credentials gone, the provider's always. */
export function childEnv(base: NodeJS.ProcessEnv, passthrough: readonly string[] = []): NodeJS.ProcessEnv {
  const env = withoutCredentials(base, passthrough);
  for (const name of CREDENTIAL_ENV_VARS) delete env[name];
  return env;
}

export class NodeShell implements Shell {
  private readonly drainMs: number;
  private readonly killGraceMs: number;
  private readonly maxBufferedChars: number | undefined;
  readonly sandbox: CommandSandbox | undefined;

  constructor(options: NodeShellOptions = {}) {
    this.drainMs = options.drainMs ?? 150;
    this.killGraceMs = options.killGraceMs ?? 1000;
    this.maxBufferedChars = options.maxBufferedChars;
    this.sandbox = options.sandbox;
    this.passthrough = options.envPassthrough ?? (() => []);
  }

  private readonly passthrough: () => readonly string[];

  /** The sandbox this run gets, or undefined when it runs unsandboxed. */
  enterSandbox(options: Pick<ShellRunOptions, 'sandbox'>): Promise<SandboxedRun | undefined> {
    return options.sandbox === false || !this.sandbox ? Promise.resolve(undefined) : this.sandbox.enter();
  }

  hidesSecrets(): Promise<boolean> {
    return this.sandbox ? this.sandbox.hidesSecrets() : Promise.resolve(false);
  }

  async run(command: string, options: ShellRunOptions): Promise<ShellResult> {
    const sandbox = await this.enterSandbox(options);
    if (!sandbox) return this.spawnRun(['bash', '-c', command], options);
    // spawnRun settles with a result for every failure (it never rejects), so finish() always runs.
    const result = await this.spawnRun([...sandbox.prefix, 'bash', '-c', command], options);
    const notes = await sandbox.finish();
    return { ...result, sandboxed: true, ...(notes.length > 0 ? { sandboxNotes: notes } : {}) };
  }

  private spawnRun(argv: string[], options: ShellRunOptions): Promise<ShellResult> {
    return new Promise<ShellResult>((resolve) => {
      const chunks = new BoundedOutput(options.spill ? spillBufferChars(options.spill) : this.maxBufferedChars);
      let timedOut = false;
      let interrupted = false;
      let settled = false;
      const child = spawnCommand(argv, options.cwd, this.passthrough(), options.env);
      const spill = options.spill && new OutputSpill(options.spill);
      const decoderOut = new TextDecoder();
      const decoderErr = new TextDecoder();
      const onData = (decoder: TextDecoder) => (data: Buffer) => {
        const text = decoder.decode(data, { stream: true });
        if (!text) return;
        chunks.push(text);
        spill?.push(text, chunks);
        options.onOutput?.(text);
      };
      child.stdout.on('data', onData(decoderOut));
      child.stderr.on('data', onData(decoderErr));

      let killTimer: NodeJS.Timeout | undefined;
      const killTree = () => {
        signalGroup(child.pid, 'SIGTERM');
        killTimer ??= setTimeout(() => signalGroup(child.pid, 'SIGKILL'), this.killGraceMs);
      };
      const timer = setTimeout(() => {
        timedOut = true;
        killTree();
      }, options.timeoutMs);
      const onAbort = () => {
        interrupted = true;
        killTree();
      };
      if (options.signal?.aborted) onAbort();
      else options.signal?.addEventListener('abort', onAbort, { once: true });

      const finish = (exitCode: number | null) => {
        if (settled) return;
        settled = true;
        clearTimeout(timer);
        options.signal?.removeEventListener('abort', onAbort);
        // After a kill, make sure stragglers that ignored SIGTERM are gone too.
        if ((timedOut || interrupted) && killTimer) {
          clearTimeout(killTimer);
          signalGroup(child.pid, 'SIGKILL');
        }
        child.stdout.destroy();
        child.stderr.destroy();
        void (spill ? spill.close() : Promise.resolve(undefined)).then((saved) =>
          resolve({
            exitCode,
            output: chunks.toString(),
            timedOut,
            interrupted,
            ...(chunks.truncated ? { totalChars: chunks.totalChars } : {}),
            ...(saved ? { savedTo: saved.path, ...(saved.cutBytes > 0 ? { savedCutBytes: saved.cutBytes } : {}) } : {}),
          }),
        );
      };

      child.on('error', (error) => {
        chunks.push(`${error.message}\n`);
        finish(null);
      });
      child.on('exit', (code, sig) => {
        const exitCode = code ?? (sig ? 128 + signalNumber(sig) : null);
        // A background daemon may hold the pipes open forever; the command is
        // done when bash exits, plus a short drain for bytes still in flight.
        let closed = 0;
        const onClose = () => {
          if (++closed === 2) finish(exitCode);
        };
        child.stdout.once('close', onClose);
        child.stderr.once('close', onClose);
        if (child.stdout.closed) onClose();
        if (child.stderr.closed) onClose();
        setTimeout(() => finish(exitCode), this.drainMs).unref();
      });
    });
  }

  /**
   * A background command: spawned like run()'s (same sandbox, environment and process group), with no
   * timeout; kill() stops the group (SIGTERM, then SIGKILL after the grace) and settles once the leader is gone.
   */
  async start(command: string, options: ShellStartOptions): Promise<StartedCommand> {
    const sandbox = await this.enterSandbox(options);
    const child = spawnCommand([...(sandbox?.prefix ?? []), 'bash', '-c', command], options.cwd, this.passthrough());
    const pid = child.pid;
    const decoders = [new TextDecoder(), new TextDecoder()] as const;
    child.stdout.on('data', (data: Buffer) => deliver(decoders[0].decode(data, { stream: true })));
    child.stderr.on('data', (data: Buffer) => deliver(decoders[1].decode(data, { stream: true })));
    function deliver(text: string): void {
      if (text) options.onOutput(text);
    }
    const leaderGone = new Promise<number | null>((resolve) => {
      child.on('error', (error) => {
        deliver(`${error.message}\n`);
        resolve(null);
      });
      child.on('exit', (code, sig) => resolve(code ?? (sig ? 128 + signalNumber(sig) : null)));
    });
    const exited = leaderGone.then(async (exitCode) => {
      // Output still in the pipes, unless a daemon it left holds them open.
      await Promise.race([Promise.all([once(child.stdout, 'close'), once(child.stderr, 'close')]), new Promise((r) => setTimeout(r, this.drainMs).unref())]);
      const notes = sandbox ? await sandbox.finish() : [];
      return { exitCode, sandboxed: sandbox !== undefined, sandboxNotes: notes };
    });
    let killing: Promise<void> | undefined;
    return {
      exited,
      killNow: () => signalGroup(pid, 'SIGKILL'),
      kill: () =>
        (killing ??= (async () => {
          signalGroup(pid, 'SIGTERM');
          const timer = setTimeout(() => signalGroup(pid, 'SIGKILL'), this.killGraceMs);
          await leaderGone;
          clearTimeout(timer);
          // What ignored SIGTERM, or what the command left running after its shell exited.
          signalGroup(pid, 'SIGKILL');
          child.stdout.destroy();
          child.stderr.destroy();
          await exited;
        })()),
    };
  }

  exec(file: string, args: string[], options: { cwd: string; signal?: AbortSignal; maxOutputBytes?: number }): Promise<ExecResult> {
    return new Promise<ExecResult>((resolve, reject) => {
      const max = options.maxOutputBytes ?? 64 * 1024 * 1024;
      const child = spawn(file, args, { cwd: options.cwd, stdio: ['ignore', 'pipe', 'pipe'], signal: options.signal });
      const out: Buffer[] = [];
      const err: Buffer[] = [];
      let size = 0;
      child.stdout.on('data', (d: Buffer) => {
        size += d.length;
        if (size <= max) out.push(d);
        else child.kill('SIGTERM');
      });
      child.stderr.on('data', (d: Buffer) => err.push(d));
      child.on('error', reject);
      child.on('close', (code) => {
        resolve({ exitCode: code, stdout: Buffer.concat(out).toString('utf8'), stderr: Buffer.concat(err).toString('utf8') });
      });
    });
  }
}

/** Every bash command, foreground or background, starts here. */
function spawnCommand(argv: readonly string[], cwd: string, passthrough: readonly string[], env?: Record<string, string>) {
  return spawn(argv[0]!, argv.slice(1), {
    cwd,
    env: commandEnv(process.env, env, passthrough),
    // Its own process group, so one signal to -pid reaches every descendant.
    detached: true,
    // stdin is /dev/null: a command that reads input gets EOF instead of hanging.
    stdio: ['ignore', 'pipe', 'pipe'],
  });
}

function once(stream: NodeJS.EventEmitter & { closed?: boolean }, event: string): Promise<void> {
  return stream.closed ? Promise.resolve() : new Promise((resolve) => stream.once(event, () => resolve()));
}

function signalGroup(pid: number | undefined, sig: NodeJS.Signals): void {
  if (pid === undefined) return;
  try {
    process.kill(-pid, sig);
  } catch {
    // The group is already gone.
  }
}

function signalNumber(sig: NodeJS.Signals): number {
  return os.constants.signals[sig] ?? 0;
}
