// The provider key, and every other credential-looking variable (cloud keys,
// a CI job's tokens), must be in no environment a command can read. Deleting it
// from process.env is not enough: /proc/<pid>/environ shows the environment a
// process started with. So the CLI started with one in its environment
// (the launcher) starts the real CLI again without them and hands them over
// on a pipe (fd 3): the process that runs commands never had them at start. The
// launcher stays as the commands' ancestor, so it also overwrites them in its own
// start environment (/proc/self/mem), which is what /proc/<pid>/environ reads.
import { spawn } from 'node:child_process';
import { Socket } from 'node:net';
import { looksLikeCredential } from '../runtime/policy/secret-env';
import { CREDENTIAL_ENV_VARS } from '../tools/node-adapter';
import { scrubStartEnvironment } from './start-environment';

/** Set in the relaunched CLI's environment: the fd its credentials arrive on. Not a secret itself. */
export const CREDENTIALS_FD_ENV = 'TURNSTONE_CREDENTIALS_FD';
const FD = 3;

export type Credentials = Record<string, string>;

/** What travels on the pipe: the provider's key variables and whatever else looks like a credential. */
const travelsOnPipe = (name: string) => name !== CREDENTIALS_FD_ENV && (CREDENTIAL_ENV_VARS.includes(name) || looksLikeCredential(name));

function credentialsIn(env: NodeJS.ProcessEnv): Credentials {
  const found: Credentials = {};
  for (const [name, value] of Object.entries(env)) if (value !== undefined && travelsOnPipe(name)) found[name] = value;
  return found;
}

/** True when this process should start the CLI again without its credentials. */
export function needsRelaunch(env: NodeJS.ProcessEnv = process.env): boolean {
  // Windows has no /proc to read environments from, and a detached child there gets a console window of its own.
  if (process.platform === 'win32') return false;
  return env[CREDENTIALS_FD_ENV] === undefined && Object.keys(credentialsIn(env)).length > 0;
}

/**
 * Starts this CLI again with the same arguments, without the credential
 * variables, and resolves with the exit code to use. The child runs in its own
 * process group, so a Ctrl+C in a terminal reaches only this launcher, which
 * passes each SIGINT/SIGTERM/SIGHUP on exactly once (two would mean "quit at once").
 */
export function relaunchWithoutCredentials(): Promise<number> {
  const credentials = credentialsIn(process.env);
  const env: NodeJS.ProcessEnv = { ...process.env, [CREDENTIALS_FD_ENV]: String(FD) };
  for (const name of Object.keys(credentials)) {
    delete env[name];
    delete process.env[name];
  }
  scrubStartEnvironment(Object.keys(credentials));
  const child = spawn(process.execPath, [...process.execArgv, ...process.argv.slice(1)], {
    env,
    stdio: ['inherit', 'inherit', 'inherit', 'pipe'],
    detached: true,
  });
  // One line, and the pipe stays open: the child sees it close the moment this launcher dies (SIGKILL included).
  const pipe = child.stdio[FD] as (NodeJS.WritableStream & { destroy(): void }) | null;
  pipe?.on('error', () => undefined);
  pipe?.write(`${JSON.stringify(credentials)}\n`);
  const forwarded: NodeJS.Signals[] = ['SIGINT', 'SIGTERM', 'SIGHUP'];
  const forward = (sig: NodeJS.Signals) => {
    try {
      child.kill(sig);
    } catch {
      // already gone
    }
  };
  for (const sig of forwarded) process.on(sig, forward);
  return new Promise((resolve) => {
    child.on('error', (error) => {
      for (const sig of forwarded) process.off(sig, forward);
      process.stderr.write(`turnstone: could not start: ${error.message}\n`);
      resolve(1);
    });
    child.on('exit', (code, signal) => {
      for (const sig of forwarded) process.off(sig, forward);
      pipe?.destroy();
      if (signal) {
        // Die the way the child did, so whoever started us sees the same signal.
        process.kill(process.pid, signal);
        return;
      }
      resolve(code ?? 1);
    });
  });
}

/**
 * In the relaunched CLI: the credentials from the launcher's pipe (one JSON
 * line). The pipe stays open after that; when it closes the launcher is gone
 * (killed), and this process ends at once rather than keep a turn writing to a
 * session and a terminal that someone else may be using by now.
 */
export function receiveCredentials(env: NodeJS.ProcessEnv = process.env): Promise<Credentials> {
  return receivePipe(env).then((credentials) => {
    // Back into process.env, which lives in memory /proc/<pid>/environ never shows: the cloud SDKs read their
    // keys there. Not the provider's key: it goes only where a request is made. Children get none of them
    // (childEnv) unless turnstone.bash.env.passthrough names one.
    for (const [name, value] of Object.entries(credentials)) if (!CREDENTIAL_ENV_VARS.includes(name)) process.env[name] = value;
    return credentials;
  });
}

function receivePipe(env: NodeJS.ProcessEnv): Promise<Credentials> {
  const fdText = env[CREDENTIALS_FD_ENV];
  if (fdText === undefined) return Promise.resolve({});
  delete process.env[CREDENTIALS_FD_ENV];
  return new Promise((resolve) => {
    let socket: Socket;
    try {
      socket = new Socket({ fd: Number(fdText), readable: true, writable: false });
    } catch {
      resolve({});
      return;
    }
    let text = '';
    let received = false;
    const settle = () => {
      if (received) return;
      received = true;
      const line = text.split('\n')[0] ?? '';
      const credentials: Credentials = {};
      try {
        const parsed = JSON.parse(line) as unknown;
        if (parsed && typeof parsed === 'object') {
          for (const [k, v] of Object.entries(parsed)) if (travelsOnPipe(k) && typeof v === 'string') credentials[k] = v;
        }
      } catch {
        // Nothing usable arrived: run without credentials (the CLI then says how to set a key).
      }
      text = '';
      // Only the launcher's death is listened for from here on; it must not keep this process alive.
      socket.unref();
      resolve(credentials);
    };
    socket.on('data', (chunk: Buffer) => {
      if (received) return;
      text += chunk.toString('utf8');
      if (text.includes('\n')) settle();
    });
    socket.on('error', () => undefined);
    socket.on('close', () => {
      if (!received) {
        settle();
        return;
      }
      process.exit(129);
    });
  });
}
