// Temp workspaces for the Node-adapter tests.
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { NodeShell, NodeWorkspace } from '../../../src/tools/node-adapter';
import { type ToolExecutorOptions, createToolExecutor } from '../../../src/tools/registry';

export function tempDir(prefix = 'turnstone-tools-'): string {
  return fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), prefix)));
}

export interface NodeToolEnv {
  executor: ReturnType<typeof createToolExecutor>;
  /** Holds `ws` (the workspace root) and room for "outside" files next to it. */
  base: string;
  root: string;
  outputDir: string;
  cleanup(): Promise<void>;
}

export async function makeNodeEnv(options: ToolExecutorOptions = {}): Promise<NodeToolEnv> {
  const base = tempDir();
  const root = path.join(base, 'ws');
  const outputDir = path.join(base, 'output');
  fs.mkdirSync(root);
  const executor = createToolExecutor(
    { workspace: new NodeWorkspace(root), shell: new NodeShell() },
    { ripgrepPath: 'rg', outputDir, homeDir: path.join(base, 'home'), ...options },
  );
  return { executor, base, root, outputDir, cleanup: async () => fs.rmSync(base, { recursive: true, force: true }) };
}

export const ctx = () => ({ signal: new AbortController().signal });

/** Alive means running: a zombie (killed, not yet reaped by an init that may never reap) is dead. */
export { processRunning as isAlive } from '../../../src/tools/os/process-state';

/** A fresh Node tool environment per test (set up around the calling describe), with path and run shortcuts. */
export function useNodeEnv(): { env: () => NodeToolEnv; file: (name: string) => string; run: (name: string, input: Record<string, unknown>) => ReturnType<NodeToolEnv['executor']['execute']> } {
  let env: NodeToolEnv;
  beforeEach(async () => {
    env = await makeNodeEnv();
  });
  afterEach(() => env.cleanup());
  return { env: () => env, file: (name) => path.join(env.root, name), run: (name, input) => env.executor.execute(name, input, ctx()) };
}
