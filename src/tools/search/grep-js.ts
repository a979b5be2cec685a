// The grep fallback for hosts without ripgrep. It reproduces the exact output
// of the rg invocation in grep-search.ts (same order, prefixes and `--`
// separators) so the model sees one format whichever engine ran.
import * as path from 'node:path';
import picomatch from 'picomatch';
import { ToolError } from '../errors';
import { type Workspace } from '../ports';
import { decodeText, looksBinary } from '../files/text';
import { DEFAULT_SKIP_DIRS, walkFiles } from './walk';

export type GrepOutputMode = 'content' | 'files_with_matches' | 'count';

export interface GrepQuery {
  pattern: string;
  /** Real path of the file or folder searched. */
  target: string;
  targetIsFile: boolean;
  /** How paths are printed: `prefix/relative` ('' = bare relative), as rg does for the argument it was given. */
  displayPrefix: string;
  glob: string | undefined;
  /** File-name globs of secret files a folder search skips (case-insensitive, like rg's --iglob). */
  excludeNames: readonly string[];
  mode: GrepOutputMode;
  ignoreCase: boolean;
  lineNumbers: boolean;
  before: number;
  after: number;
  ignoreRoot: string | undefined;
  maxEntries: number;
  signal?: AbortSignal;
}

export function compilePattern(pattern: string, ignoreCase: boolean): RegExp {
  const flags = ignoreCase ? 'i' : '';
  try {
    return new RegExp(pattern, `${flags}u`);
  } catch {
    try {
      return new RegExp(pattern, flags);
    } catch (error) {
      throw new ToolError('search_failed', `Invalid regular expression "${pattern}": ${(error as Error).message}`);
    }
  }
}

/** rg's --glob: no slash matches the base name anywhere; with a slash, the path from the search root; `!` excludes. */
export function globFilter(glob: string | undefined): { excludesDir(rel: string): boolean; acceptsFile(rel: string): boolean } {
  if (!glob) return { excludesDir: () => false, acceptsFile: () => true };
  const negated = glob.startsWith('!');
  const body = negated ? glob.slice(1) : glob;
  const anchored = body.replace(/\/$/, '').includes('/');
  const matcher = picomatch(anchored ? body.replace(/^\//, '') : body, { dot: true });
  const test = (rel: string) => matcher(anchored ? rel : rel.slice(rel.lastIndexOf('/') + 1));
  return negated
    ? { excludesDir: test, acceptsFile: (rel) => !test(rel) }
    : { excludesDir: () => false, acceptsFile: test };
}

export async function grepWithJs(ws: Workspace, q: GrepQuery): Promise<string> {
  const regex = compilePattern(q.pattern, q.ignoreCase);
  const filter = globFilter(q.glob);
  const secret = q.excludeNames.length > 0 ? picomatch([...q.excludeNames], { dot: true, nocase: true }) : () => false;
  const out: string[] = [];
  const useContext = q.mode === 'content' && (q.before > 0 || q.after > 0);
  let printedGroup = false;

  const searchFile = async (absolute: string, display: string) => {
    let bytes: Uint8Array;
    try {
      bytes = await ws.readFile(absolute);
    } catch {
      return;
    }
    const decoded = decodeText(bytes);
    if (looksBinary(bytes, decoded.encoding) || (decoded.encoding === 'utf8' && bytes.includes(0))) return;
    const lines = decoded.text.split('\n');
    if (decoded.text.endsWith('\n')) lines.pop();
    const matched: number[] = [];
    for (let i = 0; i < lines.length; i++) if (regex.test(lines[i]!)) matched.push(i);
    if (matched.length === 0) return;
    if (q.mode === 'files_with_matches') {
      out.push(display);
      return;
    }
    if (q.mode === 'count') {
      out.push(`${display}:${matched.length}`);
      return;
    }
    const isMatch = new Set(matched);
    let lastPrinted = -2;
    for (const m of matched) {
      const from = Math.max(0, m - q.before, lastPrinted + 1);
      const to = Math.min(lines.length - 1, m + q.after);
      if (useContext && from > lastPrinted + 1 && printedGroup) out.push('--');
      for (let i = from; i <= to; i++) {
        const sep = isMatch.has(i) ? ':' : '-';
        out.push(q.lineNumbers ? `${display}${sep}${i + 1}${sep}${lines[i]}` : `${display}${sep}${lines[i]}`);
        lastPrinted = i;
      }
      printedGroup = true;
    }
  };

  if (q.targetIsFile) {
    await searchFile(q.target, q.displayPrefix);
    return out.join('\n');
  }
  await walkFiles(
    ws,
    q.target,
    {
      skipDirs: DEFAULT_SKIP_DIRS,
      respectGitignore: true,
      ignoreRoot: q.ignoreRoot,
      symlinks: 'skip',
      maxEntries: q.maxEntries,
      ...(q.signal ? { signal: q.signal } : {}),
    },
    async (file) => {
      if (!filter.acceptsFile(file.relative)) return;
      if (secret(file.relative.slice(file.relative.lastIndexOf('/') + 1))) return;
      if (file.relative.split('/').slice(0, -1).some((_, i, parts) => filter.excludesDir(parts.slice(0, i + 1).join('/')))) return;
      await searchFile(file.absolute, q.displayPrefix ? `${q.displayPrefix}/${file.relative}` : file.relative);
    },
  );
  return out.join('\n');
}

export function displayPrefixFor(targetReal: string, firstRootReal: string): string {
  const rel = path.relative(firstRootReal, targetReal);
  if (rel === '') return '';
  if (rel.startsWith('..') || path.isAbsolute(rel)) return targetReal;
  return rel.split(path.sep).join('/');
}
