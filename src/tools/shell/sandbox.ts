// The OS sandbox for the `bash` tool (contracts.md "Command sandbox"), on Linux
// with bubblewrap. Chosen over @anthropic-ai/sandbox-runtime after measuring a
// sandboxed `true` here: bwrap ~5 ms vs ~2 ms unsandboxed; srt ~29 ms as a
// library (its HTTP/SOCKS proxies and socat bridges on every command) and
// ~280 ms as the `srt` CLI. srt also routes all traffic through its own
// domain allow-list proxy, while we keep the network on unless the user says
// `deny`, which bwrap does with one flag (--unshare-net).
//
// What the sandbox gives a command (the boundary; rules only decide when to ask):
// - the whole file system read-only, except the workspace folders and a temp folder of its own
//   (mounted at /tmp, TMPDIR; made for this command and removed after it), so nothing a command
//   leaves in a shared temp folder can wait for Turnstone or the next command;
// - inside the workspace, the files that make something run outside the sandbox later are
//   read-only: .mcp.json, .vscode/, .turnstone/, .claude/, .gitmodules, .envrc, and git's config
//   and hooks (nested repositories, worktrees, submodules and a core.hooksPath folder included);
//   one of the workspace folder's own that is missing and that the command creates is removed when the
//   command ends, and the model told (an empty read-only placeholder would have to be created in the
//   user's workspace, and a killed Turnstone would leave it behind);
// - the workspace's secret files (the sensitive-file list) unreadable, unless
//   turnstone.sandbox.hideSecrets is false;
// - ~/.ssh, ~/.aws, ~/.gnupg, ~/.config/gcloud, ~/.docker, ~/.kube, ~/.azure, ~/.config/gh,
//   ~/.netrc, ~/.git-credentials, ~/.npmrc, ~/.pypirc, ~/.password-store and the user's runtime
//   folder (agent and IPC sockets) hidden;
// - its own PID namespace with its own /proc: other processes' environments
//   (the extension host's, the CLI's) are not there to read;
// - no capabilities (CI runs as root: without --cap-drop root could remount / writable);
// - a new session: it cannot push keystrokes into the terminal it was typed in (TIOCSTI);
// - the long-lived sockets that would let it act outside the sandbox covered with /dev/null:
//   Docker's (root on the host), and the ssh-agent's, VS Code's IPC and git sockets named in
//   our environment (their variables unset inside).
// What it does not: the rest of the home folder stays readable, abstract unix sockets stay
// reachable, and background processes end with the command (its PID namespace ends).
import { closeSync, lstatSync, openSync, realpathSync, statSync } from 'node:fs';
import { lstat, readdir, rm } from 'node:fs/promises';
import * as os from 'node:os';
import * as path from 'node:path';
import { rootControlPaths } from './control-files';
import { processPrivateDir, privateSubdir } from '../os/private-dir';
import { cachedScan } from './protected-layout';
import { BASE_ARGS, type SandboxMode, type SandboxNetwork, type SandboxStatus, sandboxStatus } from './sandbox-probe';

export { probeBwrap, SANDBOX_MODES, SANDBOX_NETWORKS, type SandboxMode, type SandboxNetwork, type SandboxStatus, sandboxStatus } from './sandbox-probe';
import { type SensitiveMatcher, sensitiveFileMatcher } from '../../runtime/policy/sensitive-files';

/** Home-relative folders and files a command never reads inside the sandbox: credentials and keys. */
export const HIDDEN_HOME_PATHS: readonly string[] = [
  '.ssh', '.aws', '.gnupg', '.config/gcloud', '.docker', '.kube', '.azure', '.config/gh', '.netrc', '.git-credentials',
  '.npmrc', '.pypirc', '.password-store', '.config/hub', '.terraform.d', '.config/op', '.local/share/keyrings', '.vault-token',
];

export interface SandboxPolicy {
  /** Folders the command may write (the workspace folders). */
  writable: readonly string[];
  network: SandboxNetwork;
  home?: string;
  /** The command's own temp folder, mounted at /tmp (and named by TMPDIR). */
  privateTmp?: string;
  /** Existing paths inside the writable folders to mount read-only (control files). */
  readOnly?: readonly string[];
  /** Files to make unreadable (secrets), and the unreadable file mounted over them. */
  masked?: { files: readonly string[]; with: string };
  /** The user's runtime folder (XDG_RUNTIME_DIR: agent and IPC sockets), hidden. */
  runtimeDir?: string;
}

function realOrResolved(p: string): string {
  try {
    return realpathSync(p);
  } catch {
    return path.resolve(p);
  }
}

/** bwrap's arguments up to (not including) the program to run. Mount order matters: later mounts cover earlier ones. */
export function bwrapArgs(policy: SandboxPolicy): string[] {
  const args = [...BASE_ARGS];
  if (policy.network === 'deny') args.push('--unshare-net');
  // The real /tmp is hidden behind the command's own, so what one command leaves there cannot wait for the next.
  if (policy.privateTmp) args.push('--bind', policy.privateTmp, '/tmp', '--setenv', 'TMPDIR', '/tmp');
  if (policy.runtimeDir && statSync(policy.runtimeDir, { throwIfNoEntry: false })?.isDirectory()) args.push('--tmpfs', policy.runtimeDir);
  const writable = new Set<string>();
  for (const dir of policy.writable) {
    // Bound at both spellings: a workspace under a symlinked /tmp is written through either.
    for (const p of new Set([path.resolve(dir), realOrResolved(dir)])) {
      if (statSync(p, { throwIfNoEntry: false })?.isDirectory()) writable.add(p);
    }
  }
  // Parents first, so a workspace inside another writable folder is bound after (over) it.
  for (const p of [...writable].sort((a, b) => a.length - b.length)) args.push('--bind', p, p);
  // After the writable folders, which they sit in. Each is checked again now: a path gone since the scan would
  // make bwrap create it (in the user's workspace) or fail.
  for (const p of policy.readOnly ?? []) if (lstatSync(p, { throwIfNoEntry: false })) args.push('--ro-bind', p, p);
  for (const file of policy.masked?.files ?? []) {
    const target = maskTarget(file);
    if (target) args.push('--ro-bind', policy.masked!.with, target);
  }
  // Hidden last: a workspace that is the home folder must not bring ~/.ssh back.
  const home = policy.home ?? os.homedir();
  const hidden = new Set<string>();
  for (const rel of HIDDEN_HOME_PATHS) {
    const p = path.join(home, rel);
    if (!lstatSync(p, { throwIfNoEntry: false })) continue;
    for (const target of new Set([p, realOrResolved(p)])) {
      const st = statSync(target, { throwIfNoEntry: false });
      if (!st || hidden.has(target)) continue;
      hidden.add(target);
      if (st.isDirectory()) args.push('--tmpfs', target);
      else args.push('--ro-bind', '/dev/null', target);
    }
  }
  const tmp = [realOrResolved(os.tmpdir()), '/tmp'];
  for (const socket of escapeSockets()) {
    // A socket in the hidden /tmp or runtime folder is out of reach already (and may vanish before bwrap mounts).
    if (policy.privateTmp && tmp.some((t) => isInside(socket, t))) continue;
    if (policy.runtimeDir && isInside(socket, realOrResolved(policy.runtimeDir))) continue;
    args.push('--ro-bind', '/dev/null', socket);
  }
  for (const name of ESCAPE_SOCKET_VARS) args.push('--unsetenv', name);
  return args;
}

const isInside = (p: string, dir: string) => p === dir || p.startsWith(dir.endsWith(path.sep) ? dir : `${dir}${path.sep}`);

/** Where to mount a mask for a secret: the file itself, or what a link named like a secret leads to (if it exists). */
function maskTarget(file: string): string | undefined {
  const st = lstatSync(file, { throwIfNoEntry: false });
  if (!st) return undefined;
  if (!st.isSymbolicLink()) return st.isDirectory() ? undefined : file;
  const real = realOrResolved(file);
  return statSync(real, { throwIfNoEntry: false })?.isFile() ? real : undefined;
}

let unreadable: string | undefined;
/** A file nobody can read (mode 000; the sandbox drops root's override), mounted over secrets. */
function unreadableFile(): string {
  if (!unreadable) {
    unreadable = path.join(processPrivateDir(), 'hidden-secret');
    closeSync(openSync(unreadable, 'w', 0o000));
  }
  return unreadable;
}

/** Variables that name a socket leading outside the sandbox; unset inside it as well. */
const ESCAPE_SOCKET_VARS = ['SSH_AUTH_SOCK', 'VSCODE_IPC_HOOK_CLI', 'VSCODE_GIT_IPC_HANDLE', 'DOCKER_HOST'];

/**
 * Unix sockets through which a command could act outside the sandbox: Docker's
 * (root on the host), and those SSH_AUTH_SOCK / VSCODE_IPC_HOOK_CLI /
 * VSCODE_GIT_IPC_HANDLE / DOCKER_HOST name (the ssh-agent, the `code` CLI, git
 * credentials). Only long-lived ones: covering a socket that vanishes before
 * bwrap mounts over it (another VS Code window closing) would fail the command,
 * so other windows' sockets in /tmp are not chased (a known gap, in the README).
 */
export function escapeSockets(env: NodeJS.ProcessEnv = process.env): string[] {
  const candidates = new Set<string>(['/var/run/docker.sock', '/run/docker.sock']);
  for (const name of ESCAPE_SOCKET_VARS) {
    const value = env[name]?.replace(/^unix:\/\//, '');
    if (value && path.isAbsolute(value)) candidates.add(value);
  }
  // /var/run is usually a symlink to /run: one mount per real socket.
  const real = new Set<string>();
  for (const p of candidates) if (lstatSync(p, { throwIfNoEntry: false })?.isSocket() || statSync(p, { throwIfNoEntry: false })?.isSocket()) real.add(realOrResolved(p));
  return [...real].sort();
}

export interface SandboxSettings {
  mode: SandboxMode;
  network: SandboxNetwork;
  /** The workspace folders, read at each command (folders can be added while a session runs). */
  roots: readonly string[];
  /** turnstone.sandbox.hideSecrets (default true): the workspace's secret files are unreadable inside. */
  hideSecrets?: boolean;
  /** Which files are secrets (the default list plus turnstone.permissions.sensitiveFiles). */
  sensitive?: SensitiveMatcher;
}

export interface CommandSandboxOptions {
  /** Told once, the first time a command runs without the sandbox it should have had. */
  onUnavailable?: (reason: string) => void;
  home?: string;
  /**
   * How long a scan of the workspace for control and secret files is reused (default 5 s; a workspace
   * folder's own top level is read at every command). A secret file created deeper in the tree within
   * that time is hidden from the command after the next scan.
   */
  layoutTtlMs?: number;
}

/** One command's sandbox: the bwrap prefix to run it with, and the clean-up once it ended. */
export interface SandboxedRun {
  readonly prefix: string[];
  /**
   * Removes the command's temp folder and the empty folders mounted for it, and undoes any control file it
   * created (the model is told which, in the returned notes).
   */
  finish(): Promise<string[]>;
}

/** Wraps `bash -c` commands for the Shell adapters; settings are read per command so changes apply live. */
export class CommandSandbox {
  private told = false;
  /** The built-in list, made once: the layout scan is reused only for the same matcher. */
  private defaultSensitive: SensitiveMatcher | undefined;

  constructor(
    private readonly settings: () => SandboxSettings,
    private readonly options: CommandSandboxOptions = {},
  ) {}

  status(): Promise<SandboxStatus> {
    return sandboxStatus({ excludeRoots: this.settings().roots });
  }

  /** Whether a command started now would run sandboxed (not `off`, and a sandbox is available here). */
  async active(): Promise<boolean> {
    return this.settings().mode !== 'off' && (await this.status()).available;
  }

  /** Whether a sandboxed command started now would find the workspace's secret files hidden. */
  async hidesSecrets(): Promise<boolean> {
    return this.settings().hideSecrets !== false && (await this.active());
  }

  /** Sets up one command's sandbox; undefined runs it as is (`off`, or no sandbox here). */
  async enter(): Promise<SandboxedRun | undefined> {
    const settings = this.settings();
    if (settings.mode === 'off') return undefined;
    const status = await this.status();
    if (!status.available) {
      if (!this.told) {
        this.told = true;
        this.options.onUnavailable?.(status.reason);
      }
      return undefined;
    }
    const sensitive = settings.sensitive ?? (this.defaultSensitive ??= sensitiveFileMatcher());
    const roots = settings.roots.map(realOrResolved);
    const layouts = await Promise.all(roots.map((r) => cachedScan(r, sensitive, this.options.layoutTtlMs)));
    const readOnly = new Set(layouts.flatMap((l) => l.control));
    const secrets = new Set(layouts.flatMap((l) => l.secrets));
    const missing: string[] = [];
    for (const root of roots) {
      // The folder's own secrets and control paths are checked now, not from the scan (reused for a few
      // seconds): a `.env` made a moment ago is hidden all the same.
      for (const e of await readdir(root, { withFileTypes: true }).catch(() => [])) {
        if ((e.isFile() || e.isSymbolicLink()) && sensitive.inWalk(e.name, () => e.name)) secrets.add(path.join(root, e.name));
      }
      const git = lstatSync(path.join(root, '.git'), { throwIfNoEntry: false });
      const hasGit = git?.isDirectory() === true;
      // A worktree's .git is a file naming its git folder: pointed elsewhere, git run later outside the sandbox
      // (the user's editor) would read a configuration the command wrote. It stays as it is.
      if (git?.isFile()) readOnly.add(path.join(root, '.git'));
      for (const relative of rootControlPaths(hasGit)) {
        const p = path.join(root, relative);
        if (lstatSync(p, { throwIfNoEntry: false })) readOnly.add(p);
        else missing.push(p);
      }
    }
    const privateTmp = await privateSubdir('tmp-');
    const hide = settings.hideSecrets !== false;
    let prefix: string[];
    try {
      prefix = [
        status.program,
        ...bwrapArgs({
          writable: settings.roots,
          network: settings.network,
          privateTmp,
          readOnly: [...readOnly],
          ...(hide ? { masked: { files: [...secrets], with: unreadableFile() } } : {}),
          ...(this.options.home ? { home: this.options.home } : {}),
          ...(process.env.XDG_RUNTIME_DIR ? { runtimeDir: process.env.XDG_RUNTIME_DIR } : {}),
        }),
      ];
    } catch (error) {
      await rm(privateTmp, { recursive: true, force: true }).catch(() => undefined);
      throw error;
    }
    return {
      prefix,
      finish: async () => {
        await rm(privateTmp, { recursive: true, force: true }).catch(() => undefined);
        const notes: string[] = [];
        for (const p of missing) {
          if (!(await lstat(p).then(() => true, () => false))) continue;
          await rm(p, { recursive: true, force: true });
          notes.push(`The command created ${p}, which makes something run outside the sandbox later (editor or agent settings, MCP servers, git configuration, submodules, direnv); the sandbox does not allow that, so Turnstone removed it. If the user wants it, they can create it, or approve running the command with sandbox: false.`);
        }
        return notes;
      },
    };
  }
}


const SANDBOX_FAILURE = /read-only file system|EROFS|permission denied|EACCES|operation not permitted|EPERM|network is unreachable|could not resolve host|temporary failure in name resolution|^bwrap: /im;

/** A hint for the model when a sandboxed command failed the way the sandbox makes commands fail. */
export function sandboxFailureHint(output: string): string | undefined {
  if (!SANDBOX_FAILURE.test(output)) return undefined;
  return (
    'This command ran in the OS sandbox: it can write only in the workspace and its own temp folder, cannot change .git/config, git hooks, .vscode/, .mcp.json and similar files, ' +
    'cannot read secret files (.env, keys), ~/.ssh, ~/.aws and similar, and cannot see other processes. ' +
    'If it failed because of that, you may run it again with `sandbox: false` (the user is asked to approve that).'
  );
}
