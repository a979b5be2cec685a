import * as path from 'node:path';
import { z } from 'zod';
import { type FileChange } from '../../runtime/types';
import { reportNewProblems, watchProblems } from './edit-problems';
import { ToolError } from '../errors';
import { assessPath, checkFreshness, loadForWrite } from './file-common';
import { type ResolvedPath } from './paths';
import { countLines, encodeText, detectEol, withEol } from './text';
import { type ToolEnv, defineTool } from '../tool';

const schema = z.object({
  path: z.string().min(1).describe('File to write: relative to the workspace root, or absolute. Parent folders are created.'),
  content: z.string().describe('The complete new content of the file.'),
});
type Input = z.output<typeof schema>;

interface WritePlan {
  resolved: ResolvedPath;
  change: FileChange;
  bytes: Uint8Array;
  existed: boolean;
  eolNote: string;
}

async function plan(input: Input, env: ToolEnv): Promise<WritePlan> {
  const resolved = await env.paths.resolve(input.path);
  const existing = await loadForWrite(env, resolved);
  if (!existing) {
    return {
      resolved,
      change: { path: resolved.real, before: null, after: input.content },
      bytes: encodeText(input.content, 'utf8'),
      existed: false,
      eolNote: '',
    };
  }
  checkFreshness(env, resolved, existing, true);
  const eol = detectEol(existing.text);
  const after = withEol(input.content, eol);
  const eolNote = eol === '\r\n' && after !== input.content ? ' Line endings kept as CRLF.' : '';
  return {
    resolved,
    change: { path: resolved.real, before: existing.text, after },
    bytes: encodeText(after, existing.encoding),
    existed: true,
    eolNote,
  };
}

export const writeFileTool = defineTool({
  name: 'write_file',
  description: [
    'Writes a file with the given content, creating it (and its parent folders) or replacing it completely.',
    'To replace an existing file you must have read it with read_file first, and it must not have changed on disk since; otherwise the write is refused and you should read it again.',
    "The file's existing line endings (LF or CRLF) and encoding are kept. Prefer edit_file for changing part of a file; use write_file for new files or complete rewrites.",
  ].join('\n'),
  schema,
  readOnly: false,
  need: 'edit',
  async assess(input, env) {
    return assessPath(await env.paths.resolve(input.path), 'edit', env);
  },
  async preview(input, env) {
    try {
      return (await plan(input, env)).change;
    } catch (error) {
      if (error instanceof ToolError) return undefined;
      throw error;
    }
  },
  async execute(input, env, ctx) {
    const p = await plan(input, env);
    const { resolved, change } = p;
    const lines = countLines(change.after ?? '');
    if (p.existed && change.before === change.after) {
      return { content: `No change: ${resolved.display} already has exactly this content.`, isError: false };
    }
    if (!p.existed) await env.workspace.mkdir(path.dirname(resolved.real));
    const problems = await watchProblems(env, resolved.real, ctx.signal);
    try {
      await env.workspace.writeFile(resolved.real, p.bytes);
    } catch (error) {
      problems?.dispose();
      throw error;
    }
    const stat = await env.workspace.stat(resolved.real);
    if (stat) env.reads.record(resolved.real, stat, p.bytes);
    const what = p.existed
      ? `Updated ${resolved.display}: ${lines} line${lines === 1 ? '' : 's'} (was ${countLines(change.before ?? '')}).${p.eolNote}`
      : `Created ${resolved.display} (${lines} line${lines === 1 ? '' : 's'}, ${p.bytes.length} bytes).`;
    const note = await reportNewProblems(problems, { display: resolved.display, before: change.before, after: change.after ?? '' }, ctx.signal);
    return { content: note ? `${what}\n\n${note}` : what, isError: false, fileChange: change };
  },
});
