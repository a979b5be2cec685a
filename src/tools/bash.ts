import { randomBytes } from 'node:crypto';
import { promises as fsp } from 'node:fs';
import * as path from 'node:path';
import { z } from 'zod';
import { analyseShell } from '../runtime/shell-analysis';
import { type ToolUseAssessment } from '../runtime/types';
import { ToolError } from './errors';
import { sandboxFailureHint } from './sandbox';
import { formatBytes } from './text';
import { sensitiveReason } from './paths';
import { defineTool, type ToolEnv } from './tool';

const MAX_TIMEOUT_MS = 600_000;

const schema = z.object({
  command: z.string().min(1).describe('The bash command line to run.'),
  timeout: z.number().int().min(1).max(MAX_TIMEOUT_MS).optional().describe('Timeout in milliseconds (default 120000, at most 600000).'),
  description: z.string().optional().describe('A few words saying what the command does, shown to the user.'),
  sandbox: z.boolean().optional().describe('Set to false to run outside the OS sandbox (only when the sandbox blocks what the command truly needs); needs the user\'s approval.'),
});

/** Literal words worth resolving as paths: ones that can lead outside the workspace or name a file at all. */
const PATH_LIKE = /^(\/|~(\/|$))|(^|\/)\.\.(\/|$)|\//;
const HARMLESS_PATHS = new Set(['/dev/null', '/dev/stdin', '/dev/stdout', '/dev/stderr', '/dev/tty']);
/** A very long command is still judged; past this many path words the rest are not resolved and it asks. */
const MAX_PATHS = 256;

/**
 * The command's syntax tree (for the policy) plus what its literal paths
 * resolve to: an argument or redirection leaving the workspace, a write into a
 * sensitive folder or a read of a secret file makes it ask even under an allow rule.
 */
async function assessCommand(input: { command: string; sandbox?: boolean | undefined }, env: ToolEnv): Promise<ToolUseAssessment> {
  const shell = await analyseShell(input.command);
  const assessment: ToolUseAssessment = { need: 'command', subject: input.command, shell };
  if (input.sandbox === false) assessment.unsandboxed = true;
  const outside = new Set<string>();
  const reasons: string[] = [];
  const words = [...shell.writes.map((w) => ({ w, write: true })), ...shell.paths.map((w) => ({ w, write: false }))];
  let resolvedCount = 0;
  for (const { w, write } of words) {
    if (HARMLESS_PATHS.has(w) || (!write && w.startsWith('-'))) continue;
    const secret = env.sensitiveFile(w);
    if (secret) reasons.push(`${w} may hold secrets (matches ${secret})`);
    if (!write && !PATH_LIKE.test(w)) continue;
    if (++resolvedCount > MAX_PATHS) {
      reasons.push(`more than ${MAX_PATHS} paths to check`);
      break;
    }
    const resolved = await env.paths.resolve(w);
    if (!resolved.root) outside.add(resolved.real);
    else if (write) {
      const why = sensitiveReason(resolved);
      if (why) reasons.push(`writes ${resolved.display}: ${why}`);
    } else {
      const secret = env.sensitiveFile(resolved.display);
      if (secret) reasons.push(`${resolved.display} may hold secrets (matches ${secret})`);
      // An argument may be written to (`git diff --output=…`, `sort -o …`): naming .git/ or hook files asks like a write.
      const why = sensitiveReason(resolved);
      if (why) reasons.push(`names ${resolved.display}: ${why}`);
    }
  }
  if (outside.size > 0) assessment.outsideWorkspace = [...outside];
  if (reasons.length > 0) assessment.sensitive = [...new Set(reasons)].join('; ');
  return assessment;
}

// Colour codes, cursor movement and OSC titles (shell integration adds these) are noise to the model.
// eslint-disable-next-line no-control-regex
const ANSI = /\x1b\][^\x07\x1b]*(?:\x07|\x1b\\)|\x1b\[[0-?]*[ -/]*[@-~]|\x1b[@-Z\\-_]/g;

export function cleanTerminalOutput(s: string): string {
  return s.replace(ANSI, '').replace(/\r\n/g, '\n').replace(/\r(?!\n)/g, '\n');
}

/** Keeps the start and the end, where commands put what matters (what ran, and the error or summary). */
export function truncateMiddle(text: string, maxChars: number): { head: string; tail: string; omitted: number } {
  if (text.length <= maxChars) return { head: text, tail: '', omitted: 0 };
  const headChars = Math.floor(maxChars * 0.4);
  return { head: text.slice(0, headChars), tail: text.slice(text.length - (maxChars - headChars)), omitted: text.length - maxChars };
}

export const bashTool = defineTool({
  name: 'bash',
  description: [
    'Runs a bash command in the workspace root and returns its combined stdout and stderr plus the exit code.',
    'Non-interactive: stdin is empty and PAGER/GIT_PAGER are `cat`, so never run commands that wait for input or open an editor (use flags such as `--yes`, `-m`, `--no-edit`).',
    'Default timeout 120000 ms; pass `timeout` (ms, up to 600000) for long builds or tests. On timeout or interrupt the whole process tree is killed.',
    'Long output is cut to its beginning and end; the full text is saved to a file whose path the result names (read it with read_file or grep_search it).',
    'Use the dedicated tools instead of shell equivalents: read_file (not cat/head/tail), edit_file/write_file (not sed/echo >), glob_search (not find/ls -R), grep_search (not grep/rg).',
    'Each call starts a fresh shell in the workspace root: `cd` and exported variables do not carry over between calls (chain with && instead).',
    'Where an OS sandbox is available, commands run in it: they can write only in the workspace and the temp folder, cannot read ~/.ssh, ~/.aws and similar, and background processes end with the command. Pass `sandbox: false` only to re-run a command that failed because of the sandbox; the user is asked to approve that.',
  ].join('\n'),
  schema,
  readOnly: false,
  need: 'command',
  assess: (input, env) => assessCommand(input, env),
  async execute(input, env, ctx) {
    if (!env.shell) throw new ToolError('unavailable', 'bash is not available in this workspace (for example a virtual workspace with no shell).');
    const timeoutMs = Math.min(input.timeout ?? env.limits.bashDefaultTimeoutMs, env.limits.bashMaxTimeoutMs);
    const result = await env.shell.run(input.command, {
      cwd: env.paths.firstRoot,
      timeoutMs,
      signal: ctx.signal,
      ...(ctx.onProgress ? { onOutput: ctx.onProgress } : {}),
      // Past what the model is shown, the shell streams the output to this file instead of holding it.
      spill: { path: outputFileName(env.outputDir), afterChars: env.limits.maxOutputChars },
      ...(input.sandbox === false ? { sandbox: false } : {}),
    });
    const output = cleanTerminalOutput(result.output).replace(/\n+$/, '');
    const { head, tail, omitted } = truncateMiddle(output, env.limits.maxOutputChars);
    let body = head;
    if (omitted) {
      const printed = result.totalChars ?? output.length;
      const shown = output.length - omitted;
      let note: string;
      if (result.savedTo) {
        note = `${Math.max(omitted, printed - shown)} characters omitted. Full output (${printed} characters, ${formatBytes(printed)}) saved to ${result.savedTo}`;
      } else {
        // A shell that cannot spill (or a failed spill) holds a bounded buffer: past it the middle is lost.
        // The command has run either way: an unwritable output folder must not turn its result into an error.
        const file = await saveFullOutput(env.outputDir, output).catch((e: unknown) => new Error(e instanceof Error ? e.message : String(e)));
        const where = file instanceof Error ? `they could not be saved (${file.message})` : `they are saved to ${file}`;
        note =
          printed > result.output.length
            ? `${printed - shown} characters omitted: the command printed ${printed} characters (${formatBytes(printed)}) in all. ` +
              `Only ${output.length} of them, its beginning and its end, were kept (the middle is lost); ${where}`
            : file instanceof Error
              ? `${omitted} characters omitted; the full output (${output.length} characters) could not be saved (${file.message})`
              : `${omitted} characters omitted. Full output (${output.length} characters) saved to ${file}`;
      }
      // A copy: the slices would otherwise keep the whole output (up to 32 MB) alive for as long as the result is in the history.
      body = detached(`${head}\n\n… [${note}] …\n\n${tail}`);
    } else if (result.savedTo) {
      // Spilled, but what the model sees is already complete (terminal escapes made the raw output longer).
      await fsp.rm(result.savedTo, { force: true }).catch(() => undefined);
    }
    const killed = result.timedOut
      ? `Timed out after ${timeoutMs} ms; the command and its child processes were killed.`
      : result.interrupted
        ? 'Interrupted by the user; the command and its child processes were killed.'
        : undefined;
    const hint = result.sandboxed && !result.timedOut && !result.interrupted && result.exitCode !== 0 ? sandboxFailureHint(output) : undefined;
    const status = [killed, result.exitCode !== null ? `Exit code: ${result.exitCode}` : undefined, hint].filter((line) => line !== undefined);
    const isError = result.timedOut || result.interrupted || result.exitCode !== 0;
    // The exit code and the notes travel beside the text too, so a card shows them without parsing it.
    const note = [killed, hint].filter((line) => line !== undefined).join('\n');
    // Killed by us (timeout, interrupt): no code of its own to show, whatever signal status the shell saw.
    const exit = { code: killed ? null : result.exitCode, ...(note ? { note } : {}) };
    return { content: `${body || '(no output)'}\n\n${status.join('\n')}`, isError, exit };
  },
});

/** A flat copy of s that references no string it was sliced from (V8 keeps a slice's parent alive). */
function detached(s: string): string {
  return Buffer.from(s, 'utf8').toString('utf8');
}

function outputFileName(dir: string): string {
  const stamp = new Date().toISOString().replace(/[:.]/g, '-');
  return path.join(dir, `bash-${stamp}-${randomBytes(3).toString('hex')}.log`);
}

async function saveFullOutput(dir: string, output: string): Promise<string> {
  await fsp.mkdir(dir, { recursive: true });
  const file = outputFileName(dir);
  await fsp.writeFile(file, output, 'utf8');
  return file;
}
