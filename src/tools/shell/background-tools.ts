// bash_output and kill_shell: reading and stopping the session's own background
// commands. Starting one was judged when bash ran it; these need no approval
// (need `read`, read-only), and they reach only this session's commands.
import { z } from 'zod';
import { type BackgroundCommands, type BackgroundRead } from './background';
import { BoundedOutput } from '../node-adapter';
import { capLabel } from './kept-output';
import { cleanTerminalOutput } from './bash';
import { ToolError } from '../errors';
import { formatBytes } from '../files/text';
import { defineTool, type ToolEnv } from '../tool';

const idSchema = z.string().min(1).describe('The id bash returned when it started the command, e.g. "bash_1".');

function registry(env: ToolEnv): BackgroundCommands {
  if (!env.background) throw new ToolError('unavailable', 'Background commands are not available here.');
  return env.background;
}

function compileFilter(filter: string): RegExp {
  try {
    return new RegExp(filter);
  } catch (error) {
    throw new ToolError('invalid_input', `filter is not a valid regular expression (${(error as Error).message}); nothing was read, so the output is still there for the next call.`);
  }
}

function statusLine(r: Pick<BackgroundRead, 'status' | 'exitCode'>): string {
  if (r.status === 'running') return 'Status: running';
  if (r.status === 'killed') return 'Status: killed';
  return `Status: exited\nExit code: ${r.exitCode ?? 'unknown'}`;
}

export const bashOutputTool = defineTool({
  name: 'bash_output',
  description: [
    'Reads what a background command (started by bash with run_in_background) printed since the last bash_output call for it, with its status (running, exited, killed) and exit code.',
    'Each call returns only new output. Pass `filter` (a regular expression) to keep only the lines that match; the other new lines are discarded. The filter sees every new line, however long the output.',
    'Long new output (or many matching lines) is cut to its beginning and end; the whole output is in the file the result names (past 64 MB, its beginning and end).',
  ].join('\n'),
  schema: z.object({
    id: idSchema,
    filter: z.string().optional().describe('A regular expression (JavaScript syntax): only new lines that match are returned.'),
  }),
  readOnly: true,
  need: 'read',
  assess: (input) => Promise.resolve({ need: 'read', subject: input.id }),
  async execute(input, env) {
    const background = registry(env);
    // Checked before reading: a bad filter must not use up the output it would have shown.
    const pattern = input.filter === undefined ? undefined : compileFilter(input.filter);
    if (pattern) return filtered(background, input.id, pattern, env.limits.maxOutputChars);
    await background.written(input.id);
    const r = background.read(input.id);
    const output = cleanTerminalOutput(r.output);
    const lines = [output.replace(/\n+$/, '') || '(no new output)'];
    if (r.fullOutput) lines.push(`[${r.newChars} characters (${formatBytes(r.newChars)}) of new output; only their beginning and end are shown. ${wholeOutput(r)}]`);
    lines.push('', statusLine(r), ...r.notes);
    return { content: lines.join('\n'), isError: false, ...(r.status === 'running' ? {} : { exit: { code: r.exitCode } }) };
  },
});

function wholeOutput(r: Pick<BackgroundRead, 'fullOutput' | 'logCutBytes' | 'logCapBytes'>): string {
  return r.logCutBytes
    ? `The output is in ${r.fullOutput}, its beginning and end: past the ${capLabel(r.logCapBytes)} kept on disk, ${r.logCutBytes} bytes of its middle were cut.`
    : `The whole output is in ${r.fullOutput}.`;
}

/**
 * bash_output with a filter: every unread line is read from the command's log (line by line, from where the last
 * read ended), so a match anywhere in a long output is found; the matching lines shown are bounded by maxChars.
 */
async function filtered(background: BackgroundCommands, id: string, pattern: RegExp, maxChars: number) {
  const matches = new BoundedOutput(maxChars);
  let matched = 0;
  const r = await background.scan(id, (raw) => {
    // A line of a progress bar or a coloured line: matched as the terminal would show it.
    for (const line of cleanTerminalOutput(raw).split('\n')) {
      if (!pattern.test(line)) continue;
      matched++;
      matches.push(`${line}\n`);
    }
  });
  const lines = [matches.toString().replace(/\n+$/, '') || (r.newChars === 0 ? '(no new output)' : '(no new line matched the filter)')];
  if (matches.truncated) lines.push(`[${matched} new lines matched (${matches.totalChars} characters); only the first and last are shown. Narrow the filter to see the rest.${r.fullOutput ? ` ${wholeOutput(r)}` : ''}]`);
  if (r.unreadCutBytes > 0) {
    lines.push(`[${r.unreadCutBytes} bytes of the new output were cut from the log (over the ${capLabel(r.logCapBytes)} kept on disk) before they could be read; the filter saw every other new line.]`);
  }
  if (r.fallback !== undefined) lines.push(`[The log could not be read (${r.fallback}); the filter saw only the beginning and end of the new output kept in memory.]`);
  lines.push('', statusLine(r), ...r.notes);
  return { content: lines.join('\n'), isError: false, ...(r.status === 'running' ? {} : { exit: { code: r.exitCode } }) };
}

export const killShellTool = defineTool({
  name: 'kill_shell',
  description: 'Stops a background command started by bash with run_in_background, with every process it started. Use it when you no longer need a server or watcher you started.',
  schema: z.object({ id: idSchema }),
  readOnly: true,
  need: 'read',
  assess: (input) => Promise.resolve({ need: 'read', subject: input.id }),
  async execute(input, env) {
    const r = await registry(env).kill(input.id);
    const content = r.wasRunning ? `Stopped ${r.id} and every process it started.` : `${r.id} had already ${r.status === 'killed' ? 'been stopped' : `exited (exit code ${r.exitCode ?? 'unknown'})`}; anything it left running was stopped.`;
    return { content, isError: false };
  },
});
