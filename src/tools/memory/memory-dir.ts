// Where a workspace's memory lives (contracts.md "Memory"): Turnstone's own folder of the user's, outside the
// workspace (so a repository can neither ship notes nor read them with the workspace tools), one folder per
// workspace keyed by a hash of its path. The CLI uses the user's data folder (userDataDir); the editor its
// global storage (the host passes that base). `turnstone.memory.dir` overrides both: absolute, or relative
// to the workspace, or `~/…`.
import { createHash } from 'node:crypto';
import * as os from 'node:os';
import * as path from 'node:path';
import { userDataDir } from '../os/private-dir';

/** `<base>/memory/<16 hex of sha256(workspace path)>`. */
export function workspaceMemoryDir(base: string, workspaceRoot: string): string {
  const key = createHash('sha256').update(path.resolve(workspaceRoot)).digest('hex').slice(0, 16);
  return path.join(base, 'memory', key);
}

/** The CLI's default: under the user's data folder (XDG_DATA_HOME, else ~/.local/share/turnstone). */
export function defaultMemoryDir(workspaceRoot: string, env: NodeJS.ProcessEnv = process.env): string {
  return workspaceMemoryDir(userDataDir(env), workspaceRoot);
}

export interface MemorySettings {
  /** turnstone.memory.enabled */
  memoryEnabled: boolean;
  /** turnstone.memory.dir: empty means the default. */
  memoryDir: string;
}

/**
 * The memory folder for these settings, or undefined when memory is turned off. `base` is the host's own
 * place for Turnstone's data (the editor's global storage); without it, the user's data folder.
 */
export function memoryDirFor(settings: MemorySettings, workspaceRoot: string, base?: string): string | undefined {
  if (!settings.memoryEnabled) return undefined;
  const given = settings.memoryDir.trim();
  if (given === '~' || given.startsWith('~/')) return path.join(os.homedir(), given.slice(2));
  if (given) return path.resolve(workspaceRoot, given);
  return base ? workspaceMemoryDir(base, workspaceRoot) : defaultMemoryDir(workspaceRoot);
}
