// Directory walk shared by glob_search and the JS grep fallback: depth-first
// in name order (so output is deterministic and matches `rg --sort=path`),
// honouring .gitignore files on the way down.
import * as path from 'node:path';
import ignore, { type Ignore } from 'ignore';
import { type Workspace } from '../ports';

export const DEFAULT_SKIP_DIRS: ReadonlySet<string> = new Set(['.git', 'node_modules']);

/**
 * The walk's rules as ripgrep flags, for the tools that hand the walk to rg: hidden files listed,
 * .gitignore files applied with or without a git repository, no other ignore files, and (`skipDirs`)
 * the skipped names left out at any depth, in one glob (each --glob is matched against every path).
 */
export function ripgrepWalkFlags(skipDirs: ReadonlySet<string> = DEFAULT_SKIP_DIRS): string[] {
  const skip = [...skipDirs];
  return [
    '--no-config',
    '--hidden',
    '--no-require-git',
    '--no-ignore-dot',
    '--no-ignore-global',
    '--no-ignore-exclude',
    '--no-messages',
    ...(skip.length === 0 ? [] : [`--glob=!${skip.length === 1 ? skip[0] : `{${skip.join(',')}}`}`]),
  ];
}

export interface WalkOptions {
  skipDirs: ReadonlySet<string>;
  respectGitignore: boolean;
  /** Folder whose .gitignore (and those below it down to the start) apply; usually the workspace root. */
  ignoreRoot: string | undefined;
  /** Symlinked entries are never descended into (cycles, escapes); 'files' still reports them. */
  symlinks: 'skip' | 'files';
  maxEntries: number;
  signal?: AbortSignal;
}

export interface WalkedFile {
  absolute: string;
  /** Relative to the start folder, forward slashes. */
  relative: string;
}

interface IgnoreLevel {
  dir: string;
  ig: Ignore;
}

function toPosix(p: string): string {
  return path.sep === '/' ? p : p.split(path.sep).join('/');
}

async function loadIgnore(ws: Workspace, dir: string): Promise<IgnoreLevel | undefined> {
  try {
    const text = Buffer.from(await ws.readFile(path.join(dir, '.gitignore'))).toString('utf8');
    return { dir, ig: ignore().add(text) };
  } catch {
    return undefined;
  }
}

function isIgnored(levels: IgnoreLevel[], absolute: string, isDir: boolean): boolean {
  // Deepest .gitignore first: a nested file may re-include what a parent excluded.
  for (let i = levels.length - 1; i >= 0; i--) {
    const level = levels[i]!;
    const rel = toPosix(path.relative(level.dir, absolute));
    if (!rel || rel.startsWith('../')) continue;
    const result = level.ig.test(isDir ? `${rel}/` : rel);
    if (result.ignored) return true;
    if (result.unignored) return false;
  }
  return false;
}

/** Visits files; `visit` returning false stops the walk. Returns whether the entry cap cut it short. */
export async function walkFiles(
  ws: Workspace,
  start: string,
  options: WalkOptions,
  visit: (file: WalkedFile) => boolean | void | Promise<boolean | void>,
): Promise<{ truncated: boolean }> {
  const levels: IgnoreLevel[] = [];
  if (options.respectGitignore && options.ignoreRoot) {
    const rel = path.relative(options.ignoreRoot, start);
    if (!rel.startsWith('..') && !path.isAbsolute(rel)) {
      let dir = options.ignoreRoot;
      const parts = rel ? rel.split(path.sep) : [];
      for (const part of parts) {
        const level = await loadIgnore(ws, dir);
        if (level) levels.push(level);
        dir = path.join(dir, part);
      }
    }
  }
  let entries = 0;
  let stopped = false;
  let truncated = false;

  const walkDir = async (dir: string, rel: string): Promise<void> => {
    let list;
    try {
      list = await ws.readdir(dir);
    } catch {
      return; // unreadable folders are skipped, as ripgrep does
    }
    list.sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
    let pushed = false;
    if (options.respectGitignore && list.some((e) => e.name === '.gitignore')) {
      const level = await loadIgnore(ws, dir);
      if (level) {
        levels.push(level);
        pushed = true;
      }
    }
    for (const entry of list) {
      if (stopped) break;
      if (options.signal?.aborted) {
        stopped = true;
        break;
      }
      if (++entries > options.maxEntries) {
        stopped = true;
        truncated = true;
        break;
      }
      const absolute = path.join(dir, entry.name);
      const relative = rel ? `${rel}/${entry.name}` : entry.name;
      if (entry.type === 'directory') {
        if (options.skipDirs.has(entry.name)) continue;
        if (options.respectGitignore && isIgnored(levels, absolute, true)) continue;
        await walkDir(absolute, relative);
      } else if (entry.type === 'file' || (entry.type === 'symlink' && options.symlinks === 'files')) {
        if (options.respectGitignore && isIgnored(levels, absolute, false)) continue;
        if ((await visit({ absolute, relative })) === false) stopped = true;
      }
    }
    if (pushed) levels.pop();
  };
  await walkDir(start, '');
  return { truncated };
}
