// Pieces shared by the three file tools: the permission assessment of a path
// and loading a text file the way an edit needs it.
import { type PermissionNeed, type ToolUseAssessment } from '../../runtime/types';
import { ToolError } from '../errors';
import { pinAssessed, type ResolvedPath, sensitiveReason } from './paths';
import { type FileStat } from '../ports';
import { type DecodedText, decodeText, detectEncoding, looksBinary } from './text';
import { type ToolEnv } from '../tool';
import { skillFolderOf } from '../skill/skill';

export function assessPath(resolved: ResolvedPath, need: PermissionNeed, env: Pick<ToolEnv, 'sensitiveFile' | 'skills'>): ToolUseAssessment {
  const assessment: ToolUseAssessment = { need, subject: resolved.display };
  // A found skill's folder reads like the workspace (the real path, so a link in it leading out does not); writes there still ask.
  const skillRead = need === 'read' && !resolved.root && skillFolderOf(resolved.real, env.skills?.() ?? []) !== undefined;
  if (!resolved.root && !skillRead) assessment.outsideWorkspace = [resolved.real];
  // Reads are pinned too: a folder swapped for a link to outside after the check must not leak a file to the model.
  pinAssessed(resolved);
  if (need === 'edit') {
    const sensitive = sensitiveReason(resolved);
    if (sensitive) assessment.sensitive = sensitive;
  }
  // Secrets ask before they are read, whatever the tool (sensitive-files.ts).
  const secret = env.sensitiveFile(resolved.root ? resolved.display : resolved.real);
  if (secret && !assessment.sensitive) assessment.sensitive = `${resolved.display} may hold secrets (matches ${secret})`;
  return assessment;
}

export interface LoadedText extends DecodedText {
  stat: FileStat;
  bytes: Uint8Array;
}

/** Loads an existing file for modification; undefined when it does not exist. */
export async function loadForWrite(env: ToolEnv, resolved: ResolvedPath): Promise<LoadedText | undefined> {
  // The path must still mean what the permission check saw (a swapped-in symlink must not redirect the write).
  env.paths.assertUnchanged(resolved);
  const stat = await env.workspace.stat(resolved.real);
  if (!stat) return undefined;
  if (stat.type === 'directory') throw new ToolError('is_directory', `${resolved.display} is a directory, not a file.`);
  if (stat.type !== 'file') throw new ToolError('not_a_file', `${resolved.display} is not a regular file.`);
  const bytes = await env.workspace.readFile(resolved.real);
  if (looksBinary(bytes, detectEncoding(bytes))) {
    throw new ToolError('binary', `${resolved.display} is a binary file; the file tools only change text files.`);
  }
  const decoded = decodeText(bytes);
  await yieldToEventLoop();
  return { ...decoded, stat, bytes };
}

/**
 * Splits CPU-heavy steps on big files (decode, match, encode, hash) into
 * separate event-loop turns, so the extension host never stalls for their sum.
 */
export function yieldToEventLoop(): Promise<void> {
  return new Promise((resolve) => setImmediate(resolve));
}

export function checkFreshness(env: ToolEnv, resolved: ResolvedPath, loaded: LoadedText, requireRead: boolean): void {
  const freshness = env.reads.check(resolved.real, loaded.bytes);
  if (freshness === 'stale') {
    throw new ToolError(
      'stale',
      `${resolved.display} has changed on disk since you last read it (someone or something else modified it). Read it again with read_file and redo your change on the current content.`,
    );
  }
  if (freshness === 'unread' && requireRead) {
    throw new ToolError(
      'not_read',
      `${resolved.display} already exists and you have not read it yet. Read it with read_file first so you do not overwrite content you have not seen; for a small change, use edit_file.`,
    );
  }
}
