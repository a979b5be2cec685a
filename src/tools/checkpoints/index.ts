// Opening a session's checkpoints and letting the tools' writes feed them. It
// lives with the tools: it snapshots the workspace through their Workspace port.
import { type Workspace } from '../ports';
import { type ToolExecutor } from '../../runtime/types';
import { DEFAULT_SKIP_DIRS, walkFiles } from '../search/walk';
import { findProgram } from '../os/program-path';
import { gitRunner, gitTopLevel } from './scan';
import { CheckpointStore } from './store';

export { CheckpointStore, type Checkpoint, type RestoreEntry, type RestorePlan, type RestoreResult } from './store';
export { type FileState } from './scan';

export const DEFAULT_CHECKPOINT_MAX_FILE_BYTES = 5 * 1024 * 1024;

export async function openCheckpointStore(options: { dir: string; root: string; workspace: Workspace; maxFileBytes?: number }): Promise<CheckpointStore> {
  const gitPath = findProgram(process.platform === 'win32' ? 'git.exe' : 'git', { excludeRoots: [options.root] });
  const git = gitPath ? gitRunner(options.root, gitPath) : undefined;
  const isRepoTop = git ? (await gitTopLevel(git, options.root)) !== undefined : false;
  return CheckpointStore.open({
    dir: options.dir,
    root: options.root,
    git: isRepoTop ? git : undefined,
    maxFileBytes: options.maxFileBytes ?? DEFAULT_CHECKPOINT_MAX_FILE_BYTES,
    walk: async (visit) => {
      await walkFiles(
        options.workspace,
        options.root,
        { skipDirs: DEFAULT_SKIP_DIRS, respectGitignore: true, ignoreRoot: options.root, symlinks: 'skip', maxEntries: 1_000_000 },
        (f) => visit(f.relative),
      );
    },
  });
}

/**
 * The workspace the tools write through, with the running turn's checkpoint told first about every file a
 * write, delete or rename is about to change, so content git does not hold is copied while it is still intact.
 */
export function withCheckpointCapture(workspace: Workspace, checkpoints: () => CheckpointStore | undefined): Workspace {
  const before = async (...paths: string[]) => {
    const store = checkpoints();
    if (!store) return;
    for (const p of paths) await store.beforeWrite(p).catch(() => undefined);
  };
  return new Proxy(workspace, {
    get(target, prop, receiver) {
      const value = Reflect.get(target, prop, receiver) as unknown;
      if (typeof value !== 'function') return value;
      if (prop === 'writeFile' || prop === 'delete') {
        return async (p: string, ...rest: unknown[]) => {
          await before(p);
          return (value as (...a: unknown[]) => unknown).call(target, p, ...rest);
        };
      }
      if (prop === 'rename') {
        return async (from: string, to: string) => {
          await before(from, to);
          return (value as (...a: unknown[]) => unknown).call(target, from, to);
        };
      }
      return (value as (...a: unknown[]) => unknown).bind(target);
    },
  });
}

/**
 * The tools, each run waiting first for the turn's checkpoint (`settled`): it is taken while the turn's first
 * request streams, and must see the files as they were before any tool (a command included) changed one.
 */
export function afterCheckpoint(tools: ToolExecutor, settled: () => Promise<void>): ToolExecutor {
  return new Proxy(tools, {
    get(target, prop, receiver) {
      const value = Reflect.get(target, prop, receiver) as unknown;
      if (typeof value !== 'function') return value;
      if (prop === 'execute') {
        return async (...args: Parameters<ToolExecutor['execute']>) => {
          await settled();
          return target.execute(...args);
        };
      }
      return (value as (...a: unknown[]) => unknown).bind(target);
    },
  });
}
