// Reading the Markdown files that define custom agents and skills, with the
// same care as instruction files: a file that is a link out of the folder it
// was found in, or to a secret, is never read; a folder of a workspace that
// leads out of the workspace is not searched. Problems are sentences naming
// the file, never throws.
import { type InstructionEntry, type InstructionReader, secretBehind } from './instructions';
import { type SensitiveMatcher } from '../policy/sensitive-files';

/** Definition files beyond this size are refused: they go whole into prompts. */
export const MAX_DEFINITION_CHARS = 64_000;
/** Entries of one definition folder looked at, so a huge folder cannot stall a turn's start. */
export const MAX_DEFINITION_ENTRIES = 200;

export interface DefinitionFolder {
  /** Absolute path as found. */
  path: string;
  /** How problems and listings name it: `.claude/agents` or `~/.turnstone/agents`. */
  label: string;
  scope: 'workspace' | 'user';
  /** Real path of the workspace folder it belongs to; absent for the user's own folders. */
  workspaceRealRoot?: string;
}

/** The folder's entry when it exists and may be searched; a problem when it leads out of its workspace. */
export async function openDefinitionFolder(reader: InstructionReader, folder: DefinitionFolder, problems: string[]): Promise<InstructionEntry | undefined> {
  const entry = await reader.stat(folder.path).catch(() => undefined);
  if (!entry || entry.type !== 'dir') return undefined;
  if (folder.workspaceRealRoot !== undefined && !reader.isWithin(folder.workspaceRealRoot, entry.realPath)) {
    problems.push(`${folder.label}/ was not read: it is a link to a place outside the workspace.`);
    return undefined;
  }
  return entry;
}

/** Sorted entry names, at most MAX_DEFINITION_ENTRIES (a problem says when more were left out). */
export async function definitionEntries(reader: InstructionReader, folder: DefinitionFolder, problems: string[]): Promise<string[]> {
  const names = (await reader.readDir(folder.path).catch(() => [] as string[])).sort();
  if (names.length > MAX_DEFINITION_ENTRIES) problems.push(`${folder.label}/ has ${names.length} entries; only the first ${MAX_DEFINITION_ENTRIES} (by name) were read.`);
  return names.slice(0, MAX_DEFINITION_ENTRIES);
}

export type DefinitionRead = { kind: 'read'; text: string; realPath: string } | { kind: 'skipped'; problem: string } | { kind: 'absent' };

/**
 * Reads one definition file. `within` is the real path of the folder it was
 * found in: the file, after links, must be inside it (a link to a file
 * elsewhere, or to a secret, is skipped with a problem).
 */
export async function readDefinitionFile(
  reader: InstructionReader,
  abs: string,
  label: string,
  within: string,
  sensitive: SensitiveMatcher | undefined,
): Promise<DefinitionRead> {
  const entry = await reader.stat(abs).catch(() => undefined);
  if (!entry) return { kind: 'absent' };
  if (entry.type !== 'file') return { kind: 'skipped', problem: `${label} was not read: it is not a regular file.` };
  if (!reader.isWithin(within, entry.realPath)) return { kind: 'skipped', problem: `${label} was not read: it is a link to ${entry.realPath}, outside its folder.` };
  const secret = sensitive ? secretBehind(sensitive, label, entry.realPath, within) : undefined;
  if (secret) return { kind: 'skipped', problem: secret };
  let bytes: Uint8Array;
  try {
    bytes = await reader.readFile(abs);
  } catch (error) {
    return { kind: 'skipped', problem: `${label} could not be read (${error instanceof Error ? error.message : String(error)}).` };
  }
  if (bytes.includes(0)) return { kind: 'skipped', problem: `${label} was not read: it is a binary file.` };
  const text = new TextDecoder('utf-8').decode(bytes);
  if (text.length > MAX_DEFINITION_CHARS) return { kind: 'skipped', problem: `${label} is longer than ${MAX_DEFINITION_CHARS.toLocaleString('en-US')} characters and is not used.` };
  return { kind: 'read', text, realPath: entry.realPath };
}

/** The workspace-relative label of a path in folder `index` of several: the first folder's paths bare, others under the folder's name. */
export function workspaceLabel(folderName: string, index: number, rel: string): string {
  return index === 0 ? rel : `${folderName}/${rel}`;
}
