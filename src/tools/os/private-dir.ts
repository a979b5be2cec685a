// Folders only Turnstone writes. A file Turnstone creates where a command
// can write (the shared temp folder) could be replaced by a link first, and
// the write would go wherever the link points: per-command temp folders, the
// sandbox's masks and the terminal's capture files live in a folder of this
// process instead (mkdtemp: 0700, a random name nobody can take in advance),
// and files are created exclusively, without following links.
import { constants, mkdtempSync, rmSync } from 'node:fs';
import { mkdir, mkdtemp, open, type FileHandle } from 'node:fs/promises';
import * as os from 'node:os';
import * as path from 'node:path';

let dir: string | undefined;

/** This process's private folder, made on first use and removed when the process exits. */
export function processPrivateDir(base: string = os.tmpdir()): string {
  if (dir) return dir;
  const made = mkdtempSync(path.join(base, `turnstone-${process.pid}-`));
  dir = made;
  process.once('exit', () => rmSync(made, { recursive: true, force: true }));
  return made;
}

/** A new folder inside the private folder (0700). */
export async function privateSubdir(prefix: string): Promise<string> {
  const parent = path.join(processPrivateDir(), 'runs');
  await mkdir(parent, { recursive: true, mode: 0o700 });
  return mkdtemp(path.join(parent, prefix));
}

/** Creates `file` for writing; fails if anything (a file, a link) is already there, and never follows a link. */
export function createExclusive(file: string, mode = 0o600): Promise<FileHandle> {
  return open(file, constants.O_WRONLY | constants.O_CREAT | constants.O_EXCL | constants.O_NOFOLLOW, mode);
}

/**
 * Turnstone's own files of this user that outlive a process (the full output of long commands): in the
 * user's cache folder, which sandboxed commands cannot write, never in the shared temp folder.
 */
export function userCacheDir(env: NodeJS.ProcessEnv = process.env): string {
  const base = env.XDG_CACHE_HOME && path.isAbsolute(env.XDG_CACHE_HOME) ? env.XDG_CACHE_HOME : path.join(os.homedir(), '.cache');
  return path.join(base, 'turnstone');
}

/**
 * Turnstone's own files of this user that must outlive the cache (the memory tool's notes): the user's data
 * folder (`$XDG_DATA_HOME`, else the platform's own place, as agent/worktrees.ts), never the cache, which a user
 * or a tool may clear at any time.
 */
export function userDataDir(env: NodeJS.ProcessEnv = process.env, platform: NodeJS.Platform = process.platform, home = os.homedir()): string {
  const base =
    env.XDG_DATA_HOME && path.isAbsolute(env.XDG_DATA_HOME)
      ? env.XDG_DATA_HOME
      : platform === 'win32'
        ? env.LOCALAPPDATA && path.isAbsolute(env.LOCALAPPDATA)
          ? env.LOCALAPPDATA
          : path.join(home, 'AppData', 'Local')
        : platform === 'darwin'
          ? path.join(home, 'Library', 'Application Support')
          : path.join(home, '.local', 'share');
  return path.join(base, 'turnstone');
}
