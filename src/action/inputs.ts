// The action's inputs (contracts.md "GitHub Action"), read from the environment
// the way @actions/core's getInput does: INPUT_ + the name upper-cased with
// spaces turned to underscores (dashes are kept), the value trimmed. A bad value
// is an InputError naming the input to fix.
import { closeSync, constants, fstatSync, lstatSync, openSync, readFileSync } from 'node:fs';
import * as path from 'node:path';
import { looksLikeCredential } from '../runtime/policy/secret-env';

export const PERMISSION_MODES = ['plan', 'ask', 'acceptEdits', 'bypassPermissions'] as const;
export type ActionPermissionMode = (typeof PERMISSION_MODES)[number];

export interface ActionInputs {
  prompt: string;
  model: string | undefined;
  /** Passed to the CLI as TURNSTONE_PROVIDER (the CLI has no --provider flag yet). */
  provider: string | undefined;
  permissionMode: ActionPermissionMode;
  allowedRules: string[];
  deniedRules: string[];
  maxCostUsd: string | undefined;
  maxIterations: string | undefined;
  /** JSON text of `turnstone.*` settings, or a path to such a file. */
  settings: string | undefined;
  /** JSON text of MCP servers, or a path to such a file. */
  mcpConfig: string | undefined;
  anthropicApiKey: string | undefined;
  openaiApiKey: string | undefined;
  githubToken: string | undefined;
  comment: boolean;
  allowUntrusted: boolean;
  sessionArtifactName: string;
}

export class InputError extends Error {
  override readonly name = 'InputError';
}

export type Env = Record<string, string | undefined>;

/** The environment variable GitHub sets for an input (@actions/core's name mangling). */
export function inputVariable(name: string): string {
  return `INPUT_${name.replace(/ /g, '_').toUpperCase()}`;
}

export function getInput(env: Env, name: string): string {
  return (env[inputVariable(name)] ?? '').trim();
}

/** One entry per non-empty line, each trimmed (getMultilineInput). */
export function getMultilineInput(env: Env, name: string): string[] {
  return (env[inputVariable(name)] ?? '')
    .split(/\r?\n/)
    .map((l) => l.trim())
    .filter((l) => l !== '');
}

/** YAML 1.2 core-schema booleans only, as getBooleanInput accepts; empty means the default. */
export function getBooleanInput(env: Env, name: string, fallback: boolean): boolean {
  const value = getInput(env, name);
  if (value === '') return fallback;
  if (['true', 'True', 'TRUE'].includes(value)) return true;
  if (['false', 'False', 'FALSE'].includes(value)) return false;
  throw new InputError(`input ${name} is '${value}': use true or false`);
}

const optional = (value: string) => (value === '' ? undefined : value);

/** The prompt from `prompt`, or the file `prompt_file` names (relative to the workspace). */
function readPrompt(env: Env, workspace: string): string {
  const text = getInput(env, 'prompt');
  const file = getInput(env, 'prompt_file');
  if (text !== '' && file !== '') throw new InputError('both prompt and prompt_file are set: give one of them');
  if (text !== '') return text;
  if (file === '') throw new InputError('no prompt: set the prompt input (or prompt_file, a file in the repository)');
  let content: string;
  try {
    content = readInsideWorkspace(workspace, file);
  } catch (error) {
    if (error instanceof InputError) throw error;
    throw new InputError(`prompt_file ${file} cannot be read (${(error as NodeJS.ErrnoException).code ?? String(error)})`);
  }
  if (content.trim() === '') throw new InputError(`prompt_file ${file} is empty`);
  return content;
}

/**
 * A file of the checked-out repository, read without following a link at any step: a prompt_file that is (or
 * passes through) a link could point at the runner's credentials (~/.git-credentials, the event file of another
 * job) and make them the prompt.
 */
function readInsideWorkspace(workspace: string, file: string): string {
  const relative = path.relative(workspace, path.resolve(workspace, file));
  if (relative === '' || relative === '..' || relative.startsWith(`..${path.sep}`) || path.isAbsolute(relative)) throw new InputError(`prompt_file ${file} is outside the repository (${workspace}): name a file in it`);
  let at = workspace;
  for (const part of relative.split(path.sep)) {
    at = path.join(at, part);
    if (lstatSync(at).isSymbolicLink()) throw new InputError(`prompt_file ${file} is or passes through a link (${path.relative(workspace, at)}): name the file itself`);
  }
  // O_NOFOLLOW: the file itself swapped for a link after the check is refused by the kernel (a folder above it
  // swapped then is not: on a runner nothing else writes the checkout while the action starts).
  const fd = openSync(at, constants.O_RDONLY | constants.O_NOFOLLOW);
  try {
    if (!fstatSync(fd).isFile()) throw new InputError(`prompt_file ${file} is not a file`);
    return readFileSync(fd, 'utf8');
  } finally {
    closeSync(fd);
  }
}

function checkNumber(name: string, value: string, whole: boolean): string | undefined {
  if (value === '') return undefined;
  const n = Number(value);
  const ok = whole ? Number.isInteger(n) && n >= 1 : Number.isFinite(n) && n > 0;
  if (!ok) throw new InputError(whole ? `input ${name} is '${value}': use a whole number of at least 1` : `input ${name} is '${value}': use an amount in US dollars greater than 0, e.g. 0.50`);
  return value;
}

/** JSON text (starting with `{`) is checked here; anything else is a file the CLI reads and checks. */
function jsonOrFile(name: string, value: string): string | undefined {
  if (value === '') return undefined;
  if (!value.startsWith('{')) return value;
  try {
    const parsed: unknown = JSON.parse(value);
    if (parsed === null || typeof parsed !== 'object' || Array.isArray(parsed)) throw new Error('not an object');
  } catch (error) {
    throw new InputError(`input ${name} is not a JSON object (${error instanceof Error ? error.message : String(error)}): give JSON text or a path to a JSON file`);
  }
  return value;
}

export function readInputs(env: Env, workspace: string): ActionInputs {
  const mode = getInput(env, 'permission_mode') || 'acceptEdits';
  if (!(PERMISSION_MODES as readonly string[]).includes(mode)) throw new InputError(`input permission_mode is '${mode}': use one of ${PERMISSION_MODES.join(', ')}`);
  return {
    prompt: readPrompt(env, workspace),
    model: optional(getInput(env, 'model')),
    provider: optional(getInput(env, 'provider')),
    permissionMode: mode as ActionPermissionMode,
    allowedRules: getMultilineInput(env, 'allowed_rules'),
    deniedRules: getMultilineInput(env, 'denied_rules'),
    maxCostUsd: checkNumber('max_cost_usd', getInput(env, 'max_cost_usd'), false),
    maxIterations: checkNumber('max_iterations', getInput(env, 'max_iterations'), true),
    settings: jsonOrFile('settings', getInput(env, 'settings')),
    mcpConfig: jsonOrFile('mcp_config', getInput(env, 'mcp_config')),
    anthropicApiKey: optional(getInput(env, 'anthropic_api_key')),
    openaiApiKey: optional(getInput(env, 'openai_api_key')),
    githubToken: optional(getInput(env, 'github_token')) ?? optional(env.GITHUB_TOKEN ?? ''),
    comment: getBooleanInput(env, 'comment', false),
    allowUntrusted: getBooleanInput(env, 'allow_untrusted', false),
    sessionArtifactName: getInput(env, 'session_artifact_name'),
  };
}

/** Every secret the action can see, to mask before anything else is printed. Read raw: a key with stray spaces is still that key. */
export function secretsIn(env: Env): string[] {
  const names = ['anthropic_api_key', 'openai_api_key', 'github_token'].map(inputVariable);
  names.push('ANTHROPIC_API_KEY', 'ANTHROPIC_AUTH_TOKEN', 'OPENAI_API_KEY', 'GITHUB_TOKEN');
  const values = new Set<string>();
  const add = (raw: string) => {
    for (const v of [raw, raw.trim()]) if (v.trim() !== '') values.add(v);
  };
  for (const name of names) if (env[name] !== undefined) add(env[name]);
  // The job's own credentials (a secret passed with `env:`, the runner's tokens), by the names commands lose
  // them by. Not the other inputs: the prompt is no secret. A value this short would mask common words.
  for (const [name, value] of Object.entries(env)) {
    if (value !== undefined && !name.startsWith('INPUT_') && looksLikeCredential(name) && value.trim().length >= MIN_ENV_SECRET_LENGTH) add(value);
  }
  return [...values];
}

const MIN_ENV_SECRET_LENGTH = 8;
