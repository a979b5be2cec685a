import { z } from 'zod';
import { type FileChange } from '../../runtime/types';
import { summarizeEdit } from './edit-diff';
import { reportNewProblems, watchProblems } from './edit-problems';
import { ToolError } from '../errors';
import { type LoadedText, assessPath, checkFreshness, loadForWrite, yieldToEventLoop } from './file-common';
import { type ResolvedPath } from './paths';
import { closestCandidates } from './similar';
import { detectEol, encodeText, withEol } from './text';
import { type ToolEnv, defineTool } from '../tool';

const schema = z.object({
  path: z.string().min(1).describe('File to edit: relative to the workspace root, or absolute.'),
  old_string: z.string().describe('Exact text to replace, including whitespace and indentation, as it appears in the file (without read_file line-number prefixes).'),
  new_string: z.string().describe('Text to put in its place (must differ from old_string).'),
  replace_all: z.boolean().optional().describe('Replace every occurrence instead of requiring exactly one (default false).'),
});
type Input = z.output<typeof schema>;

interface EditPlan {
  resolved: ResolvedPath;
  loaded: LoadedText;
  after: string;
  positions: number[];
  oldString: string;
  newString: string;
}

function findAll(text: string, needle: string): number[] {
  const out: number[] = [];
  for (let i = text.indexOf(needle); i !== -1; i = text.indexOf(needle, i + needle.length)) out.push(i);
  return out;
}

function lineOf(text: string, pos: number): number {
  let n = 1;
  for (let i = text.indexOf('\n'); i !== -1 && i < pos; i = text.indexOf('\n', i + 1)) n++;
  return n;
}

function noMatchMessage(display: string, text: string, oldString: string): string {
  const candidates = closestCandidates(text, oldString);
  let head = `old_string was not found in ${display}. It must match the file exactly, including whitespace and indentation; the file was not changed.`;
  const nonEmpty = oldString.split('\n').filter((l) => l.trim() !== '');
  if (nonEmpty.length > 0 && nonEmpty.every((l) => /^\s*\d+\t/.test(l))) {
    head += '\nold_string looks like it includes the line-number prefixes that read_file shows (number + tab); leave them out.';
  }
  if (candidates.length === 0) return `${head}\nNo similar lines were found; read the file again to see its current content.`;
  const parts = candidates.map((c) => {
    const shown = c.lines.slice(0, 8).map((l, j) => `${String(c.line + j).padStart(6)}\t${l}`);
    if (c.lines.length > 8) shown.push(`   ... (${c.lines.length - 8} more lines)`);
    const label = c.whitespaceOnly ? 'same text except for whitespace' : `${Math.round(c.score * 100)}% similar ignoring whitespace`;
    const end = c.line + Math.max(0, c.lines.length - 1);
    return `Lines ${c.line}${end > c.line ? `-${end}` : ''} (${label}):\n${shown.join('\n')}`;
  });
  return `${head}\nClosest candidates:\n${parts.join('\n\n')}`;
}

async function plan(input: Input, env: ToolEnv): Promise<EditPlan> {
  if (input.old_string === input.new_string) {
    throw new ToolError('no_change', 'old_string and new_string are identical, so there is nothing to change.');
  }
  if (input.old_string === '') {
    throw new ToolError('no_match', 'old_string is empty. To create a file or replace all of its content, use write_file.');
  }
  const resolved = await env.paths.resolve(input.path);
  const loaded = await loadForWrite(env, resolved);
  if (!loaded) throw new ToolError('not_found', `File does not exist: ${resolved.display}. To create a file, use write_file.`);
  checkFreshness(env, resolved, loaded, false);
  if (loaded.lossy) {
    throw new ToolError('encoding', `${resolved.display} is not valid ${loaded.encoding.startsWith('utf16') ? 'UTF-16' : 'UTF-8'}; editing it as text would change bytes outside the edit. Use bash for this file.`);
  }
  const text = loaded.text;
  const eol = detectEol(text);
  let oldString = input.old_string;
  const newString = withEol(input.new_string, eol);
  let positions = findAll(text, oldString);
  if (positions.length === 0 && eol) {
    // Models write "\n"; a CRLF file holds "\r\n" (and the reverse for pasted CRLF text).
    const converted = withEol(oldString, eol);
    if (converted !== oldString) {
      positions = findAll(text, converted);
      oldString = converted;
    }
  }
  if (positions.length === 0) {
    throw new ToolError('no_match', noMatchMessage(resolved.display, text, input.old_string));
  }
  if (positions.length > 1 && !input.replace_all) {
    const lines = positions.slice(0, 10).map((p) => lineOf(text, p));
    throw new ToolError(
      'ambiguous',
      `old_string occurs ${positions.length} times in ${resolved.display} (at lines ${lines.join(', ')}${positions.length > 10 ? ', …' : ''}); the file was not changed. Include more surrounding lines to make it unique, or set replace_all to true to change every occurrence.`,
    );
  }
  let after: string;
  if (positions.length === 1) {
    const p = positions[0]!;
    after = text.slice(0, p) + newString + text.slice(p + oldString.length);
  } else {
    const parts: string[] = [];
    let last = 0;
    for (const p of positions) {
      parts.push(text.slice(last, p), newString);
      last = p + oldString.length;
    }
    parts.push(text.slice(last));
    after = parts.join('');
  }
  return { resolved, loaded, after, positions, oldString, newString };
}

function describeRanges(ranges: Array<{ start: number; end: number }>): string {
  const shown = ranges.slice(0, 10).map((r) => (r.end > r.start ? `${r.start}-${r.end}` : `${r.start}`));
  const label = ranges.length === 1 && ranges[0]!.end === ranges[0]!.start ? 'line' : 'lines';
  return `${label} ${shown.join(', ')}${ranges.length > 10 ? `, … (${ranges.length - 10} more)` : ''}`;
}

export const editFileTool = defineTool({
  name: 'edit_file',
  description: [
    'Replaces an exact string in a file. old_string must match the file exactly (whitespace and indentation included, without the line-number prefixes read_file shows) and occur exactly once, unless replace_all is true.',
    'Include enough surrounding lines in old_string to make it unique. If it is not found, the error shows the closest lines in the file; if it occurs more than once, the error lists where.',
    'Line endings and encoding of the file are kept (you can write "\\n" for a CRLF file). A failed edit leaves the file untouched. The result shows a unified diff and the changed line numbers.',
  ].join('\n'),
  schema,
  readOnly: false,
  need: 'edit',
  async assess(input, env) {
    return assessPath(await env.paths.resolve(input.path), 'edit', env);
  },
  async preview(input, env): Promise<FileChange | undefined> {
    try {
      const p = await plan(input, env);
      return { path: p.resolved.real, before: p.loaded.text, after: p.after };
    } catch (error) {
      if (error instanceof ToolError) return undefined;
      throw error;
    }
  },
  async execute(input, env, ctx) {
    const p = await plan(input, env);
    await yieldToEventLoop();
    const bytes = encodeText(p.after, p.loaded.encoding);
    const problems = await watchProblems(env, p.resolved.real, ctx.signal);
    try {
      await env.workspace.writeFile(p.resolved.real, bytes);
    } catch (error) {
      problems?.dispose();
      throw error;
    }
    const stat = await env.workspace.stat(p.resolved.real);
    if (stat) env.reads.record(p.resolved.real, stat, bytes);
    await yieldToEventLoop();
    const summary = summarizeEdit(p.loaded.text, p.after, p.positions, p.oldString, p.newString, p.resolved.display);
    const n = p.positions.length;
    const head = `Edited ${p.resolved.display}: replaced ${n} occurrence${n === 1 ? '' : 's'}; changed ${describeRanges(summary.changedLines)}.`;
    const note = await reportNewProblems(problems, { display: p.resolved.display, before: p.loaded.text, after: p.after }, ctx.signal);
    const content = summary.diff ? `${head}\n${summary.diff}` : head;
    return {
      content: note ? `${content}\n\n${note}` : content,
      isError: false,
      fileChange: { path: p.resolved.real, before: p.loaded.text, after: p.after },
    };
  },
});
