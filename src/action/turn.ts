// Runs one turn of the Turnstone CLI (dist/cli.js beside this bundle) with
// `--output-format stream-json`, handing each event line to the progress log as
// it comes and keeping the final `result` object.
import { spawn } from 'node:child_process';
import { mkdirSync, writeFileSync } from 'node:fs';
import * as path from 'node:path';
import { type CliResult } from '../cli/output';
import { type ActionInputs, type Env } from './inputs';
import { RUNNER_FILE_VARIABLES } from './runner-files';

/** Variables the agent's process must never get: the runner's own tokens, and the files whose content changes later steps. */
export const RUNNER_ONLY: readonly string[] = [
  'GITHUB_TOKEN',
  'ACTIONS_RUNTIME_TOKEN',
  'ACTIONS_RUNTIME_URL',
  'ACTIONS_RESULTS_URL',
  'ACTIONS_CACHE_URL',
  'ACTIONS_ID_TOKEN_REQUEST_TOKEN',
  'ACTIONS_ID_TOKEN_REQUEST_URL',
  // A command that appends to these would set variables, PATH entries or outputs for the steps after this one.
  ...RUNNER_FILE_VARIABLES,
];

export interface TurnPlan {
  args: string[];
  env: Env;
  sessionFile: string;
}

/**
 * The CLI's arguments and environment. The keys go into the child's environment
 * only (the CLI then keeps them out of the process that runs commands); every
 * INPUT_* variable stays behind, since the keys arrive as inputs too.
 */
export function planTurn(inputs: ActionInputs, env: Env, dirs: { workspace: string; temp: string; sessionName: string }): TurnPlan {
  const own = path.join(dirs.temp, 'turnstone-action');
  mkdirSync(own, { recursive: true });
  const sessionFile = path.join(own, `${dirs.sessionName}.jsonl`);
  const args = ['-p', inputs.prompt, '--cwd', dirs.workspace, '--output-format', 'stream-json', '--permission-mode', inputs.permissionMode, '--session', sessionFile];
  if (inputs.model) args.push('--model', inputs.model);
  for (const rule of inputs.allowedRules) args.push('--allow', rule);
  for (const rule of inputs.deniedRules) args.push('--deny', rule);
  if (inputs.maxCostUsd) args.push('--max-cost-usd', inputs.maxCostUsd);
  if (inputs.maxIterations) args.push('--max-iterations', inputs.maxIterations);
  const asFile = (value: string, name: string) => {
    if (!value.startsWith('{')) return path.resolve(dirs.workspace, value);
    const file = path.join(own, name);
    writeFileSync(file, value, { mode: 0o600 });
    return file;
  };
  if (inputs.settings) args.push('--settings', asFile(inputs.settings, 'settings.json'));
  if (inputs.mcpConfig) args.push('--mcp-config', asFile(inputs.mcpConfig, 'mcp.json'));

  const child: Env = {};
  for (const [name, value] of Object.entries(env)) {
    if (name.startsWith('INPUT_') || RUNNER_ONLY.includes(name)) continue;
    child[name] = value;
  }
  if (inputs.anthropicApiKey) child.ANTHROPIC_API_KEY = inputs.anthropicApiKey;
  if (inputs.openaiApiKey) child.OPENAI_API_KEY = inputs.openaiApiKey;
  if (inputs.provider) child.TURNSTONE_PROVIDER = inputs.provider;
  return { args, env: child, sessionFile };
}

export interface TurnOutcome {
  /** The CLI's result object; absent when it stopped before the turn (bad usage, no key). */
  result: CliResult | undefined;
  exitCode: number;
  /** The CLI's stderr, for the error message when there is no result. */
  stderr: string;
}

export interface TurnListener {
  onEvent(event: Record<string, unknown>): void;
  onStderr(text: string): void;
}

export function runTurn(cli: string, plan: TurnPlan, listener: TurnListener): Promise<TurnOutcome> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [cli, ...plan.args], { env: plan.env, stdio: ['ignore', 'pipe', 'pipe'] });
    let result: CliResult | undefined;
    let partial = '';
    let stderr = '';
    const onLine = (line: string) => {
      if (line.trim() === '') return;
      let event: unknown;
      try {
        event = JSON.parse(line);
      } catch {
        listener.onStderr(`${line}\n`);
        return;
      }
      if (event === null || typeof event !== 'object') return;
      const record = event as Record<string, unknown>;
      if (record.type === 'result') result = record as unknown as CliResult;
      else listener.onEvent(record);
    };
    child.stdout.setEncoding('utf8');
    child.stdout.on('data', (chunk: string) => {
      partial += chunk;
      for (let nl = partial.indexOf('\n'); nl >= 0; nl = partial.indexOf('\n')) {
        onLine(partial.slice(0, nl));
        partial = partial.slice(nl + 1);
      }
    });
    // Whole lines only: a chunk can end mid-line, and the log would show it as two.
    let stderrPartial = '';
    child.stderr.setEncoding('utf8');
    child.stderr.on('data', (chunk: string) => {
      stderr += chunk;
      stderrPartial += chunk;
      const end = stderrPartial.lastIndexOf('\n');
      if (end < 0) return;
      listener.onStderr(stderrPartial.slice(0, end + 1));
      stderrPartial = stderrPartial.slice(end + 1);
    });
    child.on('error', reject);
    child.on('close', (code, signal) => {
      onLine(partial);
      if (stderrPartial) listener.onStderr(stderrPartial);
      resolve({ result, exitCode: code ?? (signal ? 128 : 1), stderr });
    });
    // The runner cancels a job with SIGINT, then SIGTERM: pass it on so the CLI stops its turn and saves the session.
    for (const sig of ['SIGINT', 'SIGTERM'] as const) process.once(sig, () => child.kill(sig));
  });
}
