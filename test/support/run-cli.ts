// Runs the built headless CLI (`node dist/cli.js`) as a real child process, for
// the CLI's end-to-end tests and the reliability scenarios that go through it.
import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync } from 'node:fs';
import * as path from 'node:path';

export const CLI = path.resolve(__dirname, '..', '..', 'dist', 'cli.js');

export interface CliRun {
  code: number | null;
  signal: NodeJS.Signals | null;
  stdout: string;
  stderr: string;
  /** Milliseconds from spawn to exit. */
  ms: number;
}

export interface RunCliOptions {
  /** Added to a minimal PATH + HOME environment (nothing else of the test process leaks in). */
  env?: Record<string, string | undefined>;
  /** Called with all of stdout so far, after each chunk. */
  onStdout?: (text: string, child: ChildProcess) => void;
  /** Called with all of stderr so far, after each chunk. */
  onStderr?: (text: string, child: ChildProcess) => void;
  /** Called with every complete stdout line (stream-json: one event per line) and its 1-based index. */
  onLine?: (line: string, index: number, child: ChildProcess) => void;
  /** The CLI process's working directory (default: the test's). */
  cwd?: string;
  /** Called once right after spawn (e.g. to arm a kill timer). */
  onSpawn?: (child: ChildProcess) => void;
}

export function runCli(args: string[], opts: RunCliOptions = {}): Promise<CliRun> {
  if (!existsSync(CLI)) throw new Error(`${CLI} is missing: run \`node esbuild.mjs\` first`);
  const started = Date.now();
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [CLI, ...args], {
      env: { PATH: process.env.PATH, HOME: process.env.HOME, ...opts.env },
      stdio: ['ignore', 'pipe', 'pipe'],
      ...(opts.cwd ? { cwd: opts.cwd } : {}),
    });
    let stdout = '';
    let stderr = '';
    let partial = '';
    let lines = 0;
    child.stdout.on('data', (d: Buffer) => {
      const text = d.toString();
      stdout += text;
      opts.onStdout?.(stdout, child);
      if (!opts.onLine) return;
      partial += text;
      for (let nl = partial.indexOf('\n'); nl >= 0; nl = partial.indexOf('\n')) {
        const line = partial.slice(0, nl);
        partial = partial.slice(nl + 1);
        opts.onLine(line, ++lines, child);
      }
    });
    child.stderr.on('data', (d: Buffer) => {
      stderr += d.toString();
      opts.onStderr?.(stderr, child);
    });
    child.on('error', reject);
    child.on('close', (code, signal) => resolve({ code, signal, stdout, stderr, ms: Date.now() - started }));
    opts.onSpawn?.(child);
  });
}
