import { randomBytes } from 'node:crypto';
import { promises as fsp } from 'node:fs';
import * as path from 'node:path';
import { z } from 'zod';
import { analyseShell } from '../../runtime/policy/shell-analysis';
import { type ToolUseAssessment } from '../../runtime/types';
import { ToolError } from '../errors';
import { cutMiddle } from '../../runtime/text-cut';
import { CappedLog, capKeptFile, capLabel, effectiveCap, noteKeptOutput, pruneKeptOutputOnce } from './kept-output';
import { sandboxFailureHint } from './sandbox';
import { formatBytes } from '../files/text';
import { commandReach, type WordRole } from './command-reach';
import { gitHeldSecrets } from './git-secrets';
import { sensitiveReason } from '../files/paths';
import { cachedScan } from './protected-layout';
import { defineTool, type ToolEnv } from '../tool';

const MAX_TIMEOUT_MS = 600_000;

const schema = z.object({
  command: z.string().min(1).describe('The bash command line to run.'),
  timeout: z.number().int().min(1).max(MAX_TIMEOUT_MS).optional().describe('Timeout in milliseconds (default 120000, at most 600000).'),
  description: z.string().optional().describe('A few words saying what the command does, shown to the user.'),
  sandbox: z.boolean().optional().describe('Set to false to run outside the OS sandbox (only when the sandbox blocks what the command truly needs); needs the user\'s approval.'),
  run_in_background: z.boolean().optional().describe('Set to true to start a command that keeps running (a dev server, a watcher) and return at once with its id; read its output with bash_output and stop it with kill_shell.'),
});

const HARMLESS_PATHS = new Set(['/dev/null', '/dev/stdin', '/dev/stdout', '/dev/stderr', '/dev/tty']);
/** A very long command is still judged; past this many path words the rest are not resolved and it asks. */
const MAX_PATHS = 256;

/**
 * The command's syntax tree (for the policy) plus what its words lead to on the file system. Every literal
 * word (and `--opt=value` value) is resolved through links, not judged by its spelling: a plain `notes` that
 * is a link to `../secrets` or to `.env` is what it leads to. A path outside the workspace, a secret, a write
 * to a control file (.git, .vscode, .mcp.json…), a recursive read of a tree holding secrets the sandbox does
 * not hide, or a read of the repository's history when it holds a secret makes it ask, even under an allow rule.
 */
async function assessCommand(input: { command: string; sandbox?: boolean | undefined }, env: ToolEnv): Promise<ToolUseAssessment> {
  const shell = await analyseShell(input.command);
  const assessment: ToolUseAssessment = { need: 'command', subject: input.command, shell };
  if (input.sandbox === false) assessment.unsandboxed = true;
  const judge = new PathJudge(env);
  for (const w of shell.writes) await judge.check(w, 'write');
  for (const w of shell.reads) await judge.check(w, 'read');
  for (const cmd of [...shell.commands, ...shell.candidates]) {
    const reach = commandReach(cmd);
    for (let i = 1; i < cmd.words.length; i++) {
      if (cmd.literal[i] === false) continue;
      for (const value of pathValues(cmd.words[i]!)) await judge.check(value, reach.roles[i] ?? 'unknown');
    }
    if (reach.recursive) await judge.recursive(cmd.name, reach.recursive, input.sandbox !== false);
    if (reach.revisions) await judge.revisions(reach.revisions);
  }
  if (judge.outside.size > 0) assessment.outsideWorkspace = [...judge.outside];
  if (judge.reasons.size > 0) assessment.sensitive = [...judge.reasons].join('; ');
  return assessment;
}

/** The paths one word may name: itself, the value of `--opt=value`, a value glued to a short option (`-o/x`), and a `REV:path` path. */
function pathValues(word: string): string[] {
  const values = [word];
  const opt = /^--?[A-Za-z0-9-]+=(.*)$/s.exec(word);
  if (opt) values.push(opt[1]!);
  else if (/^-[A-Za-z]./.test(word) && word.includes('/')) values.push(word.slice(2));
  const rev = /^[^:/\s]*:(.+)$/.exec(word);
  if (rev && !word.includes('://')) values.push(rev[1]!);
  return values;
}

/** Collects what a command's words lead to, resolving each at most once. */
class PathJudge {
  readonly outside = new Set<string>();
  readonly reasons = new Set<string>();
  private resolved = 0;
  private readonly seen = new Set<string>();

  constructor(private readonly env: ToolEnv) {}

  async check(word: string, role: WordRole): Promise<void> {
    if (HARMLESS_PATHS.has(word) || word === '' || (role !== 'write' && word.startsWith('-'))) return;
    const key = `${role}\0${word}`;
    if (this.seen.has(key)) return;
    this.seen.add(key);
    const named = this.env.sensitiveFile(word);
    if (named) this.reasons.add(`${word} may hold secrets (matches ${named})`);
    if (++this.resolved > MAX_PATHS) {
      this.reasons.add(`more than ${MAX_PATHS} paths to check`);
      return;
    }
    const resolved = await this.env.paths.resolve(word);
    if (!resolved.root) {
      this.outside.add(resolved.real);
      return;
    }
    const secret = this.env.sensitiveFile(resolved.display);
    if (secret) this.reasons.add(`${word === resolved.display ? word : `${word} (${resolved.display})`} may hold secrets (matches ${secret})`);
    // A write, or a word of a program that may write it (`cp x .mcp.json`, `git log --output=cfg`), naming a control file asks.
    if (role === 'read') return;
    const why = sensitiveReason(resolved);
    if (why) this.reasons.add(`${role === 'write' ? 'writes' : 'names'} ${resolved.display}: ${why}`);
  }

  /** A recursive reader reads every file under its folders: the secrets there, unless the sandbox hides them. */
  async recursive(program: string, words: readonly string[], sandboxed: boolean): Promise<void> {
    if (sandboxed && (await this.env.shell?.hidesSecrets?.())) return;
    const dirs: string[] = [];
    let files = 0;
    for (const w of words) {
      const resolved = await this.env.paths.resolve(w);
      const st = await this.env.workspace.stat(resolved.real);
      if (st?.type === 'directory') dirs.push(resolved.real);
      else if (st) files++;
    }
    // A search of named files only is no recursive read; naming no existing path searches the working folder.
    if (dirs.length === 0 && files > 0) return;
    const roots = dirs.length > 0 ? dirs : [this.env.paths.firstRoot];
    const held = new Set<string>();
    const workspaceRoots = await this.env.paths.roots();
    for (const root of workspaceRoots) {
      const scan = await cachedScan(root, this.env.sensitiveFile);
      for (const secret of scan.secrets) if (roots.some((r) => within(r, secret) || within(secret, r))) held.add(path.relative(this.env.paths.firstRoot, secret) || secret);
      if (scan.incomplete) this.reasons.add(`${program} reads a folder tree too large to check for secret files`);
    }
    if (held.size > 0) {
      const list = [...held].slice(0, 5).join(', ') + (held.size > 5 ? ` and ${held.size - 5} more` : '');
      this.reasons.add(`${program} reads every file under ${roots.map((r) => this.env.paths.display(r, workspaceRoots)).join(', ')}, which holds ${list}${sandboxed ? ' (the sandbox does not hide them here)' : ''}`);
    }
  }

  /** A read of the repository's history or index: the sandbox cannot hide what git keeps, so a secret git holds asks. */
  async revisions(what: string): Promise<void> {
    const held = await gitHeldSecrets(this.env.paths.firstRoot, this.env.sensitiveFile);
    if (held.length > 0) this.reasons.add(`${what} prints content from the repository's history, which holds ${held.slice(0, 3).join(', ')}${held.length > 3 ? ` and ${held.length - 3} more` : ''}`);
  }
}

const within = (dir: string, p: string) => {
  const rel = path.relative(dir, p);
  return rel === '' || (!rel.startsWith('..') && !path.isAbsolute(rel));
};

// Colour codes, cursor movement and OSC titles (shell integration adds these) are noise to the model.
// eslint-disable-next-line no-control-regex
const ANSI = /\x1b\][^\x07\x1b]*(?:\x07|\x1b\\)|\x1b\[[0-?]*[ -/]*[@-~]|\x1b[@-Z\\-_]/g;

export function cleanTerminalOutput(s: string): string {
  return s.replace(ANSI, '').replace(/\r\n/g, '\n').replace(/\r(?!\n)/g, '\n');
}


export const bashTool = defineTool({
  name: 'bash',
  description: [
    'Runs a bash command in the workspace root and returns its combined stdout and stderr plus the exit code.',
    'Non-interactive: stdin is empty and PAGER/GIT_PAGER are `cat`, so never run commands that wait for input or open an editor (use flags such as `--yes`, `-m`, `--no-edit`).',
    'Default timeout 120000 ms; pass `timeout` (ms, up to 600000) for long builds or tests. On timeout or interrupt the whole process tree is killed.',
    'Long output is cut to its beginning and end; the full text is saved to a file whose path the result names (read it with read_file or grep_search it). Past the on-disk cap (64 MB by default) the file too keeps only its beginning and end.',
    'Use the dedicated tools instead of shell equivalents: read_file (not cat/head/tail), edit_file/write_file (not sed/echo >), glob_search (not find/ls -R), grep_search (not grep/rg).',
    'Each call starts a fresh shell in the workspace root: `cd` and exported variables do not carry over between calls (chain with && instead).',
    'Set `run_in_background: true` for a command that keeps running (a dev server, a watcher): the result is its id (bash_1, …) at once, with no timeout; read what it printed since your last look with bash_output, and stop it with kill_shell when done. You are told when one exits. Do not add `&` yourself.',
    'Where an OS sandbox is available, commands run in it: they can write only in the workspace and the temp folder, cannot read ~/.ssh, ~/.aws and similar, and background processes end with the command. Pass `sandbox: false` only to re-run a command that failed because of the sandbox; the user is asked to approve that.',
  ].join('\n'),
  schema,
  readOnly: false,
  need: 'command',
  assess: (input, env) => assessCommand(input, env),
  async execute(input, env, ctx) {
    if (!env.shell) throw new ToolError('unavailable', 'bash is not available in this workspace (for example a virtual workspace with no shell).');
    // Old kept output goes once per process, at its first command (never a file still being written).
    void pruneKeptOutputOnce(env.outputDir);
    if (input.run_in_background) return startInBackground(input, env);
    const timeoutMs = Math.min(input.timeout ?? env.limits.bashDefaultTimeoutMs, env.limits.bashMaxTimeoutMs);
    const result = await env.shell.run(input.command, {
      cwd: env.paths.firstRoot,
      timeoutMs,
      signal: ctx.signal,
      ...(ctx.onProgress ? { onOutput: ctx.onProgress } : {}),
      // Past what the model is shown, the shell streams the output to this file instead of holding it.
      // The file itself is capped: past maxKeptOutputBytes it keeps head and tail, the cut marked.
      spill: { path: outputFileName(env.outputDir), afterChars: env.limits.maxOutputChars, maxBytes: env.limits.maxKeptOutputBytes },
      ...(input.sandbox === false ? { sandbox: false } : {}),
    });
    const output = cleanTerminalOutput(result.output).replace(/\n+$/, '');
    // The start and the end, where commands put what matters (what ran, and the error or summary).
    const { head, tail, omitted } = cutMiddle(output, env.limits.maxOutputChars, { headShare: 0.4 });
    let body = head;
    if (omitted) {
      const printed = result.totalChars ?? output.length;
      const shown = output.length - omitted;
      let note: string;
      // A shell that does not cap as it streams (the editor's terminal capture) leaves the cap to this.
      const cut = result.savedTo ? (result.savedCutBytes ?? (await capKeptFile(result.savedTo, env.limits.maxKeptOutputBytes))) : undefined;
      if (result.savedTo) noteKeptOutput(env.outputDir, await fileSize(result.savedTo));
      if (result.savedTo && cut) {
        note =
          `${Math.max(omitted, printed - shown)} characters omitted. The output (${printed} characters, ${formatBytes(printed)}) is over the ${capLabel(effectiveCap(env.limits.maxKeptOutputBytes))} kept on disk: ` +
          `its beginning and end, the middle (${cut} bytes) cut where a line marks it, are saved to ${result.savedTo}`;
      } else if (result.savedTo) {
        note = `${Math.max(omitted, printed - shown)} characters omitted. Full output (${printed} characters, ${formatBytes(printed)}) saved to ${result.savedTo}`;
      } else {
        // A shell that cannot spill (or a failed spill) holds a bounded buffer: past it the middle is lost.
        // The command has run either way: an unwritable output folder must not turn its result into an error.
        const file = await saveFullOutput(env.outputDir, output, env.limits.maxKeptOutputBytes).catch((e: unknown) => new Error(e instanceof Error ? e.message : String(e)));
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
    const status = [killed, result.exitCode !== null ? `Exit code: ${result.exitCode}` : undefined, hint, ...(result.sandboxNotes ?? [])].filter((line) => line !== undefined);
    const isError = result.timedOut || result.interrupted || result.exitCode !== 0;
    // The exit code and the notes travel beside the text too, so a card shows them without parsing it.
    const note = [killed, hint, ...(result.sandboxNotes ?? [])].filter((line) => line !== undefined).join('\n');
    // Killed by us (timeout, interrupt): no code of its own to show, whatever signal status the shell saw.
    const exit = { code: killed ? null : result.exitCode, ...(note ? { note } : {}) };
    return { content: `${body || '(no output)'}\n\n${status.join('\n')}`, isError, exit };
  },
});

async function startInBackground(input: z.infer<typeof schema>, env: ToolEnv) {
  if (!env.background) throw new ToolError('unavailable', 'Background commands are not available here; run the command without run_in_background.');
  const { id } = await env.background.start(env.shell!, input.command, {
    cwd: env.paths.firstRoot,
    ...(input.description ? { description: input.description } : {}),
    ...(input.sandbox === false ? { sandbox: false } : {}),
  });
  return { content: `Started in the background as ${id}. Read its output with bash_output (id "${id}"); stop it with kill_shell.`, isError: false, background: { id } };
}

/** A flat copy of s that references no string it was sliced from (V8 keeps a slice's parent alive). */
function detached(s: string): string {
  return Buffer.from(s, 'utf8').toString('utf8');
}

function outputFileName(dir: string): string {
  const stamp = new Date().toISOString().replace(/[:.]/g, '-');
  return path.join(dir, `bash-${stamp}-${randomBytes(3).toString('hex')}.log`);
}

/** Saves what memory kept of a long output (capped like a spill: head and tail past the cap); the file's path. */
async function saveFullOutput(dir: string, output: string, capBytes: number): Promise<string> {
  const file = outputFileName(dir);
  // A new file (0600) in a private folder (0700), never through a link or over something already there.
  const log = new CappedLog(file, capBytes);
  log.write(output);
  await log.close();
  if (log.failed) {
    await fsp.rm(file, { force: true }).catch(() => undefined);
    throw new Error(log.failure);
  }
  noteKeptOutput(dir, await fileSize(file));
  return file;
}

async function fileSize(file: string): Promise<number> {
  return fsp.stat(file).then(
    (st) => st.size,
    () => 0,
  );
}
