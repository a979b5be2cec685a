// Where a search starts, shared by glob_search and grep_search.
import { type ToolUseAssessment } from '../../runtime/types';
import { ToolError } from '../errors';
import { pinAssessed, type ResolvedPath } from '../files/paths';
import { type FileStat } from '../ports';
import { type ToolEnv } from '../tool';

export async function assessSearch(pattern: string, searchPath: string | undefined, env: ToolEnv): Promise<ToolUseAssessment> {
  const resolved = await env.paths.resolve(searchPath ?? '.');
  pinAssessed(resolved);
  const assessment: ToolUseAssessment = { need: 'read', subject: pattern };
  if (!resolved.root) assessment.outsideWorkspace = [resolved.real];
  // Searching inside one secret file reads it: ask like read_file does.
  const secret = env.sensitiveFile(resolved.root ? resolved.display : resolved.real);
  if (secret) assessment.sensitive = `${resolved.display} may hold secrets (matches ${secret})`;
  return assessment;
}

export async function resolveSearchRoot(searchPath: string | undefined, env: ToolEnv): Promise<{ resolved: ResolvedPath; stat: FileStat }> {
  const resolved = await env.paths.resolve(searchPath ?? '.');
  // A folder swapped for a link to outside after the permission check must not be searched.
  env.paths.assertUnchanged(resolved, 'read');
  const stat = await env.workspace.stat(resolved.real);
  if (!stat) throw new ToolError('not_found', `Path does not exist: ${resolved.display}`);
  return { resolved, stat };
}
