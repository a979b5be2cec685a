// The file listing behind glob_search. On a local folder with ripgrep at hand
// the listing is `rg --files` (parallel, native: a 100k-file tree in a fraction
// of the JS walk's time); without it (virtual workspaces, untrusted windows
// with no process spawning, no rg) the JS walk answers. Both apply the same
// rules: .gitignore files without needing a git repository, hidden files
// listed, the skipped folder names left out at any depth. One difference, the
// same as grep_search's: ripgrep does not list symlinks, the walk lists a
// symlinked file by name (neither follows a symlinked folder).
import * as path from 'node:path';
import { type Shell, type Workspace } from '../ports';
import { ripgrepWalkFlags, type WalkedFile, type WalkOptions, walkFiles } from './walk';

export interface ListFilesEnv {
  workspace: Workspace;
  shell: Shell | undefined;
  ripgrepPath: string | undefined;
}

/**
 * The last segment of a glob as a file-name filter ripgrep can apply while it
 * lists (`src/**\/*.md` → `*.md`: a file-type glob matches the name at any
 * depth), so a 100k-file tree yields only the candidates. Always a superset of
 * what `pattern` matches; the caller still matches every name exactly. None
 * when the last segment is not a plain name glob both engines read the same way.
 */
export function nameGlobOf(pattern: string): string | undefined {
  if (pattern.startsWith('!')) return undefined;
  const cut = pattern.lastIndexOf('/');
  const last = pattern.slice(cut + 1);
  const head = pattern.slice(0, Math.max(cut, 0));
  const balanced = (s: string) => [...s].filter((c) => c === '{').length === [...s].filter((c) => c === '}').length;
  if (last === '' || last.includes('**') || /[()|+@]/.test(last) || !balanced(head) || !balanced(last)) return undefined;
  return last;
}

export function ripgrepListArgs(skipDirs: ReadonlySet<string>, nameGlob?: string): string[] {
  return [
    ...ripgrepWalkFlags(skipDirs),
    '--files',
    // NUL-separated: a file name may hold a newline.
    '--null',
    // As a file type, not --glob: rg's globs override ignore rules (a --glob=* would list what .gitignore hides).
    ...(nameGlob ? [`--type-add=turnstonename:${nameGlob}`, '--type=turnstonename'] : []),
  ];
}

export interface ListOptions extends WalkOptions {
  /** See nameGlobOf: lets ripgrep list fewer names; the walk ignores it. */
  nameGlob?: string;
}

async function listWithRipgrep(rg: string, shell: Shell, start: string, options: ListOptions): Promise<WalkedFile[] | undefined> {
  if (!shell.exec) return undefined;
  let result;
  try {
    // No path argument: names come out relative to the start folder, as the walk gives them.
    result = await shell.exec(rg, ripgrepListArgs(options.skipDirs, options.nameGlob), { cwd: start, ...(options.signal ? { signal: options.signal } : {}) });
  } catch (error) {
    if (options.signal?.aborted) throw error;
    return undefined; // no usable binary: the walk answers instead
  }
  // 1 is "no files"; 2 with output means some folders were unreadable (skipped, as the walk does).
  // Anything else (killed, failed outright) leaves the answer to the walk, which is never wrong, only slower.
  const listedSome = result.exitCode === 0 || result.exitCode === 1 || (result.exitCode === 2 && result.stdout !== '');
  if (!listedSome) return undefined;
  return result.stdout
    .split('\0')
    .filter((name) => name !== '')
    .map((name) => ({ absolute: path.join(start, name), relative: name.split(path.sep).join('/') }));
}

/** Visits every listed file under `start`; returns whether the entry cap cut the listing short. */
export async function listFiles(env: ListFilesEnv, start: string, options: ListOptions, visit: (file: WalkedFile) => void): Promise<{ truncated: boolean }> {
  const listed = env.ripgrepPath && env.shell ? await listWithRipgrep(env.ripgrepPath, env.shell, start, options) : undefined;
  if (!listed) return walkFiles(env.workspace, start, options, visit);
  const truncated = listed.length > options.maxEntries;
  for (const file of truncated ? listed.slice(0, options.maxEntries) : listed) visit(file);
  return { truncated };
}
