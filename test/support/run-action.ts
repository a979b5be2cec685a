// Runs the built GitHub Action entry (`node dist/action.js`, which runs
// dist/cli.js) as the runner would: INPUT_* variables, the GITHUB_* files and
// the event payload, in a fresh temp folder per run.
import { spawn } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { inputVariable } from '../../src/action/inputs';

export const ACTION = path.resolve(__dirname, '..', '..', 'dist', 'action.js');

export interface ActionRun {
  code: number | null;
  stdout: string;
  stderr: string;
  /** Outputs parsed from GITHUB_OUTPUT's `name<<DELIMITER` blocks; the raw file in outputsFile. */
  outputs: Record<string, string>;
  outputsFile: string;
  summary: string;
}

export interface RunActionOptions {
  /** Inputs by their action.yml names; set as the runner does (INPUT_ + upper-cased name). */
  inputs: Record<string, string>;
  /** Extra variables: the API base URLs, GITHUB_EVENT_NAME, … */
  env?: Record<string, string>;
  /** A payload file for GITHUB_EVENT_PATH. */
  eventFile?: string;
  workspace: string;
}

/** Reads GITHUB_OUTPUT as the runner does: `name<<DELIM` … `DELIM` blocks (and plain name=value lines). */
export function parseOutputsFile(text: string): Record<string, string> {
  const out: Record<string, string> = {};
  const lines = text.split(/\r?\n/);
  for (let i = 0; i < lines.length; i++) {
    const line = lines[i]!;
    const heredoc = /^([^=<]+)<<(.+)$/.exec(line);
    if (heredoc) {
      const [, name, delimiter] = heredoc;
      const value: string[] = [];
      for (i++; i < lines.length && lines[i] !== delimiter; i++) value.push(lines[i]!);
      if (i >= lines.length) throw new Error(`output ${name}: no closing delimiter ${delimiter}`);
      out[name!] = value.join('\n');
    } else if (line.includes('=')) out[line.slice(0, line.indexOf('='))] = line.slice(line.indexOf('=') + 1);
  }
  return out;
}

export function runAction(opts: RunActionOptions): Promise<ActionRun> {
  if (!existsSync(ACTION)) throw new Error(`${ACTION} is missing: run \`node esbuild.mjs\` first`);
  const runnerDir = mkdtempSync(path.join(os.tmpdir(), 'turnstone-runner-'));
  const temp = path.join(runnerDir, '_temp');
  mkdirSync(temp);
  const outputsFile = path.join(runnerDir, 'output');
  const summaryFile = path.join(runnerDir, 'summary');
  writeFileSync(outputsFile, '');
  writeFileSync(summaryFile, '');
  const env: Record<string, string> = {
    PATH: process.env.PATH ?? '',
    HOME: process.env.HOME ?? os.homedir(),
    GITHUB_ACTIONS: 'true',
    GITHUB_WORKSPACE: opts.workspace,
    RUNNER_TEMP: temp,
    GITHUB_OUTPUT: outputsFile,
    GITHUB_STEP_SUMMARY: summaryFile,
    GITHUB_REPOSITORY: 'octo-org/widgets',
    GITHUB_SERVER_URL: 'https://github.com',
    GITHUB_RUN_ID: '7001',
    GITHUB_RUN_ATTEMPT: '1',
    GITHUB_WORKFLOW: 'Turnstone review',
    GITHUB_JOB: 'review',
    GITHUB_EVENT_NAME: 'workflow_dispatch',
    ...(opts.eventFile ? { GITHUB_EVENT_PATH: opts.eventFile } : {}),
    ...opts.env,
  };
  for (const [name, value] of Object.entries(opts.inputs)) env[inputVariable(name)] = value;
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [ACTION], { env, stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (d: Buffer) => (stdout += d.toString()));
    child.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
    child.on('error', reject);
    child.on('close', (code) => {
      const raw = readFileSync(outputsFile, 'utf8');
      resolve({ code, stdout, stderr, outputs: parseOutputsFile(raw), outputsFile: raw, summary: readFileSync(summaryFile, 'utf8') });
    });
  });
}
