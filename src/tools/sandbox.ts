// The OS sandbox for the `bash` tool (contracts.md "Command sandbox"), on Linux
// with bubblewrap. Chosen over @anthropic-ai/sandbox-runtime after measuring a
// sandboxed `true` here: bwrap ~5 ms vs ~2 ms unsandboxed; srt ~29 ms as a
// library (its HTTP/SOCKS proxies and socat bridges on every command) and
// ~280 ms as the `srt` CLI. srt also routes all traffic through its own
// domain allow-list proxy, while we keep the network on unless the user says
// `deny`, which bwrap does with one flag (--unshare-net).
//
// What the sandbox gives a command:
// - the whole filesystem read-only, except the workspace folders and the temp folder;
// - ~/.ssh, ~/.aws, ~/.gnupg, ~/.config/gcloud, ~/.docker, ~/.kube hidden behind empty tmpfs;
// - its own PID namespace with its own /proc: other processes' environments
//   (the extension host's, the CLI's) are not there to read;
// - no capabilities (CI runs as root: without --cap-drop root could remount / writable);
// - a new session: it cannot push keystrokes into the terminal it was typed in (TIOCSTI).
// - the long-lived sockets that would let it act outside the sandbox covered with /dev/null:
//   Docker's (root on the host), and the ssh-agent's, VS Code's IPC and git sockets named in
//   our environment (their variables unset inside).
// What it does not: other unix sockets (another window's VS Code IPC socket found by listing
// /tmp) and abstract sockets stay reachable, the rest of the home folder stays readable, and
// background processes end with the command (its PID namespace ends).
import { spawn } from 'node:child_process';
import { lstatSync, realpathSync, statSync } from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { findProgram } from './program-path';

export const SANDBOX_MODES = ['auto', 'off'] as const;
export type SandboxMode = (typeof SANDBOX_MODES)[number];
export const SANDBOX_NETWORKS = ['allow', 'deny'] as const;
export type SandboxNetwork = (typeof SANDBOX_NETWORKS)[number];

/** Home-relative folders a command never reads inside the sandbox. */
export const HIDDEN_HOME_PATHS: readonly string[] = ['.ssh', '.aws', '.gnupg', '.config/gcloud', '.docker', '.kube'];

export interface SandboxPolicy {
  /** Folders the command may write (the workspace folders); the temp folder is always added. */
  writable: readonly string[];
  network: SandboxNetwork;
  home?: string;
  tmpdir?: string;
}

export type SandboxStatus = { available: true; program: string } | { available: false; reason: string };

/** What every sandboxed command gets, whatever the policy. Also what the probe runs. */
const BASE_ARGS = ['--ro-bind', '/', '/', '--dev', '/dev', '--tmpfs', '/dev/shm', '--proc', '/proc', '--unshare-pid', '--new-session', '--die-with-parent', '--cap-drop', 'ALL'];

function realOrResolved(p: string): string {
  try {
    return realpathSync(p);
  } catch {
    return path.resolve(p);
  }
}

/** bwrap's arguments up to (not including) the program to run. */
export function bwrapArgs(policy: SandboxPolicy): string[] {
  const args = [...BASE_ARGS];
  if (policy.network === 'deny') args.push('--unshare-net');
  const writable = new Set<string>();
  for (const dir of [policy.tmpdir ?? os.tmpdir(), ...policy.writable]) {
    // Bound at both spellings: a workspace under a symlinked /tmp is written through either.
    for (const p of new Set([path.resolve(dir), realOrResolved(dir)])) {
      if (statSync(p, { throwIfNoEntry: false })?.isDirectory()) writable.add(p);
    }
  }
  // Parents first, so a workspace inside the temp folder is bound after (over) it.
  for (const p of [...writable].sort((a, b) => a.length - b.length)) args.push('--bind', p, p);
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
  for (const socket of escapeSockets()) args.push('--ro-bind', '/dev/null', socket);
  for (const name of ESCAPE_SOCKET_VARS) args.push('--unsetenv', name);
  return args;
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

/** Runs `bwrap <base> true`: bwrap present but unusable (no user namespaces, AppArmor) fails here, not on the model's command. */
export function probeBwrap(program: string, timeoutMs = 5000): Promise<SandboxStatus> {
  return new Promise((resolve) => {
    let stderr = '';
    const child = spawn(program, [...BASE_ARGS, 'true'], { stdio: ['ignore', 'ignore', 'pipe'], cwd: os.tmpdir() });
    const timer = setTimeout(() => child.kill('SIGKILL'), timeoutMs);
    child.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
    child.on('error', (error) => {
      clearTimeout(timer);
      resolve({ available: false, reason: `${program} could not start (${error.message})` });
    });
    child.on('close', (code) => {
      clearTimeout(timer);
      if (code === 0) resolve({ available: true, program });
      else resolve({ available: false, reason: `${program} cannot create a sandbox here (${stderr.trim().split('\n')[0] || `exit ${code}`}); unprivileged user namespaces may be disabled` });
    });
  });
}

let probed: Promise<SandboxStatus> | undefined;

/** Whether this machine can sandbox commands; probed once per process. */
export function sandboxStatus(options: { excludeRoots?: readonly string[] } = {}): Promise<SandboxStatus> {
  if (process.platform !== 'linux') {
    return Promise.resolve({ available: false, reason: `Turnstone's command sandbox needs Linux with bubblewrap; there is none on ${process.platform} yet` });
  }
  probed ??= (async () => {
    const program = findProgram('bwrap', options);
    if (!program) return { available: false, reason: 'bubblewrap (bwrap) is not installed (Debian/Ubuntu: apt-get install bubblewrap)' } as const;
    return probeBwrap(program);
  })();
  return probed;
}

export interface SandboxSettings {
  mode: SandboxMode;
  network: SandboxNetwork;
  /** The workspace folders, read at each command (folders can be added while a session runs). */
  roots: readonly string[];
}

export interface CommandSandboxOptions {
  /** Told once, the first time a command runs without the sandbox it should have had. */
  onUnavailable?: (reason: string) => void;
  home?: string;
  tmpdir?: string;
}

/** Wraps `bash -c` commands for the Shell adapters; settings are read per command so changes apply live. */
export class CommandSandbox {
  private told = false;

  constructor(
    private readonly settings: () => SandboxSettings,
    private readonly options: CommandSandboxOptions = {},
  ) {}

  status(): Promise<SandboxStatus> {
    return sandboxStatus({ excludeRoots: this.settings().roots });
  }

  /** The argv prefix (bwrap and its arguments) to run a command with, or undefined to run it as is (`off`, or no sandbox here). */
  async prefix(): Promise<string[] | undefined> {
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
    return [
      status.program,
      ...bwrapArgs({
        writable: settings.roots,
        network: settings.network,
        ...(this.options.home ? { home: this.options.home } : {}),
        ...(this.options.tmpdir ? { tmpdir: this.options.tmpdir } : {}),
      }),
    ];
  }
}

const SANDBOX_FAILURE = /read-only file system|EROFS|permission denied|EACCES|operation not permitted|EPERM|network is unreachable|could not resolve host|temporary failure in name resolution|^bwrap: /im;

/** A hint for the model when a sandboxed command failed the way the sandbox makes commands fail. */
export function sandboxFailureHint(output: string): string | undefined {
  if (!SANDBOX_FAILURE.test(output)) return undefined;
  return (
    'This command ran in the OS sandbox: it can write only in the workspace and the temp folder, cannot read ~/.ssh, ~/.aws and similar, ' +
    'and cannot see other processes. If it failed because of that, you may run it again with `sandbox: false` (the user is asked to approve that).'
  );
}
