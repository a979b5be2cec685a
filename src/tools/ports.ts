// The two ports every tool runs against. A VS Code adapter (src/host) and a
// Node adapter (node-adapter.ts) implement them; the tools never see which.
// Paths crossing the port are absolute OS paths; the adapter maps them to its
// own addressing (URIs in VS Code) so tool logic stays string-based.

export type EntryType = 'file' | 'directory' | 'symlink' | 'other';

export interface FileStat {
  type: EntryType;
  size: number;
  mtimeMs: number;
}

export interface DirEntry {
  name: string;
  /** `symlink` is reported as such (not followed) so walkers can avoid cycles and escapes. */
  type: EntryType;
}

export type WorkspaceErrorKind = 'not_found' | 'exists' | 'is_directory' | 'not_directory' | 'permission' | 'io';

/** Adapters translate their native failures into one of these kinds so tools never parse messages. */
export class WorkspaceError extends Error {
  override readonly name = 'WorkspaceError';
  constructor(
    readonly kind: WorkspaceErrorKind,
    message: string,
    readonly path?: string,
  ) {
    super(message);
  }
}

export interface Workspace {
  /** Absolute paths of the workspace folders; the first one anchors relative paths. */
  readonly roots: readonly string[];
  /** The real path (symlinks resolved). Throws WorkspaceError('not_found') when missing. */
  realpath(path: string): Promise<string>;
  /** Follows symlinks; undefined when the path (or a symlink's target) is missing. */
  stat(path: string): Promise<FileStat | undefined>;
  readFile(path: string): Promise<Uint8Array>;
  /** Atomic: readers see the old bytes or the new ones, never a mix or an empty file. */
  writeFile(path: string, data: Uint8Array): Promise<void>;
  /** Recursive; succeeds when the folder exists. */
  mkdir(path: string): Promise<void>;
  readdir(path: string): Promise<DirEntry[]>;
  rename(from: string, to: string): Promise<void>;
  delete(path: string): Promise<void>;
}

export interface ShellRunOptions {
  cwd: string;
  /** Added to the inherited environment. */
  env?: Record<string, string>;
  timeoutMs: number;
  signal?: AbortSignal;
  onOutput?: (chunk: string) => void;
  /**
   * Output longer than `afterChars` is not held in memory: the shell streams
   * the output to `path` and keeps only its head and tail (ShellResult.savedTo
   * then names the file). A 100 MB build log must not take the extension
   * host's memory with it. The file itself is capped at `maxBytes` (default
   * 64 MB, turnstone.bash.outputCapMB): past it only its head and tail are kept,
   * the cut marked by a line (ShellResult.savedCutBytes). A shell that cannot
   * cap as it streams leaves that to the bash tool (capKeptFile).
   */
  spill?: { path: string; afterChars: number; maxBytes?: number };
  /**
   * False runs the command outside the OS sandbox (the bash tool's `sandbox: false`,
   * which the permission policy asks the user about first). Otherwise a shell with
   * a sandbox uses it.
   */
  sandbox?: boolean;
}

export interface ShellResult {
  /** Null when the process was killed by a signal without an exit status. */
  exitCode: number | null;
  /** stdout and stderr interleaved as they arrived. */
  output: string;
  timedOut: boolean;
  interrupted: boolean;
  /**
   * Set when the command printed more than the shell keeps in memory: how many
   * characters it printed in all. `output` then holds only the head and the
   * tail, with a marker where the middle was dropped.
   */
  totalChars?: number;
  /** Set when the output was spilled (see ShellRunOptions.spill): the file holds all of it, up to the cap. */
  savedTo?: string;
  /** Bytes of the output's middle the cap left out of `savedTo` (absent: the file holds all of it). */
  savedCutBytes?: number;
  /** True when the command ran inside the OS sandbox. */
  sandboxed?: boolean;
  /** What the sandbox undid after the command (a control file it created), for the model. */
  sandboxNotes?: string[];
}

export interface ExecResult {
  exitCode: number | null;
  stdout: string;
  stderr: string;
}

/** A command started to keep running (bash `run_in_background`): no timeout, output streamed as it comes. */
export interface ShellStartOptions {
  cwd: string;
  /** Names the command to the user (a VS Code terminal's title). */
  description: string;
  /** As ShellRunOptions.sandbox: false runs it outside the OS sandbox (approved first). */
  sandbox?: boolean;
  /** stdout and stderr interleaved, as they arrive. */
  onOutput(chunk: string): void;
}

/** How a started command ended; null code: killed by a signal. */
export interface StartedExit {
  exitCode: number | null;
  sandboxed: boolean;
  sandboxNotes: string[];
}

export interface StartedCommand {
  /** Settles once the command has exited and its output has been delivered. */
  readonly exited: Promise<StartedExit>;
  /** Stops the command's whole process tree (the sandbox's too); settles once it is gone. Safe to call twice. */
  kill(): Promise<void>;
  /** Last resort on process exit: SIGKILL to the tree, synchronously. */
  killNow(): void;
  /** Shows the running command to the user (its VS Code terminal); absent where nothing shows it (the CLI). */
  reveal?(): void;
}

export interface Shell {
  /** Runs a command line through bash; on timeout or abort the whole process tree dies. */
  run(command: string, options: ShellRunOptions): Promise<ShellResult>;
  /** Starts a command line through bash that keeps running, under the same sandbox as run(). Absent: no background commands. */
  start?(command: string, options: ShellStartOptions): Promise<StartedCommand>;
  /** Whether a command run now (not with `sandbox: false`) would find the workspace's secret files hidden by the OS sandbox. */
  hidesSecrets?(): Promise<boolean>;
  /**
   * Runs a program directly (no shell), for helpers such as ripgrep. Optional:
   * a host that cannot spawn processes leaves it out and tools fall back to JS.
   */
  exec?(file: string, args: string[], options: { cwd: string; signal?: AbortSignal; maxOutputBytes?: number }): Promise<ExecResult>;
}
