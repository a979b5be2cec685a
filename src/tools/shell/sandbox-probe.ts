// Whether this machine can sandbox commands (bubblewrap on Linux), probed once
// per process; apart from the sandbox itself so activation can ask without
// loading the layout scan and the sensitive-file matcher (see sandbox.ts).
import { spawn } from 'node:child_process';
import * as os from 'node:os';
import { findProgram } from '../os/program-path';

export const SANDBOX_MODES = ['auto', 'off'] as const;
export type SandboxMode = (typeof SANDBOX_MODES)[number];
export const SANDBOX_NETWORKS = ['allow', 'deny'] as const;
export type SandboxNetwork = (typeof SANDBOX_NETWORKS)[number];

export type SandboxStatus = { available: true; program: string } | { available: false; reason: string };

/** What every sandboxed command gets, whatever the policy. Also what the probe runs. */
export const BASE_ARGS = ['--ro-bind', '/', '/', '--dev', '/dev', '--tmpfs', '/dev/shm', '--proc', '/proc', '--unshare-pid', '--new-session', '--die-with-parent', '--cap-drop', 'ALL'];

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
