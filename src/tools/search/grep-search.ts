import { z } from 'zod';
import { cutHead } from '../../runtime/text-cut';
import { ToolError } from '../errors';
import { type GrepQuery, displayPrefixFor, grepWithJs } from './grep-js';
import { type Shell } from '../ports';
import { assessSearch, resolveSearchRoot } from './search-common';
import { defineTool } from '../tool';
import { ripgrepWalkFlags } from './walk';

const count = z.number().int().min(0).max(1000);
const schema = z.object({
  pattern: z.string().min(1).describe('Regular expression to search file contents for (ripgrep syntax; escape literal braces and dots, e.g. "interface\\{\\}", "foo\\.bar").'),
  path: z.string().optional().describe('File or folder to search, relative to the workspace root or absolute (default: the workspace root).'),
  glob: z.string().optional().describe('Only search files matching this glob, e.g. "*.ts", "*.{ts,tsx}", "src/**/*.py"; prefix with ! to exclude.'),
  output_mode: z
    .enum(['content', 'files_with_matches', 'count'])
    .optional()
    .describe('"files_with_matches" (default): paths of files with a match; "content": matching lines; "count": matches per file.'),
  '-i': z.boolean().optional().describe('Case-insensitive search.'),
  '-n': z.boolean().optional().describe('Show line numbers in content mode (default true).'),
  '-A': count.optional().describe('Lines of context after each match (content mode).'),
  '-B': count.optional().describe('Lines of context before each match (content mode).'),
  '-C': count.optional().describe('Lines of context before and after each match (content mode).'),
  head_limit: z.number().int().min(1).optional().describe('Return only the first N lines or entries of the output.'),
});

const MAX_LINE_CHARS = 500;

export function ripgrepArgs(q: GrepQuery, targetArg: string | undefined): string[] {
  // Same ignore rules as the JS fallback and glob_search.
  const args = [...ripgrepWalkFlags(), '--color=never', '--no-heading', '--with-filename'];
  if (q.glob) args.push(`--glob=${q.glob}`);
  // Secret files are skipped by a folder search (after the user's glob: the last matching glob wins).
  for (const name of q.excludeNames) args.push(`--iglob=!${name}`);
  if (q.ignoreCase) args.push('--ignore-case');
  // `--sort=path` makes rg search on one thread: only content output, whose lines cannot be re-sorted safely, pays for it;
  // the one-line-per-file modes are sorted afterwards (sortRipgrepLines), which on two cores is up to twice as fast.
  if (q.mode === 'files_with_matches') args.push('--files-with-matches');
  else if (q.mode === 'count') args.push('--count');
  else {
    args.push('--sort=path');
    args.push(q.lineNumbers ? '--line-number' : '--no-line-number');
    if (q.after > 0) args.push(`--after-context=${q.after}`);
    if (q.before > 0) args.push(`--before-context=${q.before}`);
  }
  args.push(`--regexp=${q.pattern}`);
  if (targetArg !== undefined) args.push('--', targetArg);
  return args;
}

/** `rg --sort=path` order, which the JS engine's walk also gives: depth first, names compared folder by folder. */
export function comparePathOrder(a: string, b: string): number {
  const pa = a.split('/');
  const pb = b.split('/');
  for (let i = 0; i < Math.min(pa.length, pb.length); i++) {
    if (pa[i] !== pb[i]) return pa[i]! < pb[i]! ? -1 : 1;
  }
  return pa.length - pb.length;
}

/** Puts the one-line-per-file output of a parallel rg run (`path` or `path:count`) in `--sort=path` order. */
export function sortRipgrepLines(raw: string, mode: GrepQuery['mode']): string {
  if (mode === 'content') return raw;
  const lines = raw.split('\n').filter((l) => l !== '');
  const key = (line: string) => (mode === 'count' ? line.slice(0, line.lastIndexOf(':')) : line);
  const keyed = lines.map((line) => ({ line, key: key(line) }));
  keyed.sort((x, y) => comparePathOrder(x.key, y.key));
  return keyed.map((k) => `${k.line}\n`).join('');
}

async function grepWithRipgrep(rg: string, shell: Shell, q: GrepQuery, cwd: string): Promise<string | undefined> {
  if (!shell.exec) return undefined;
  let result;
  try {
    result = await shell.exec(rg, ripgrepArgs(q, q.displayPrefix === '' ? undefined : q.displayPrefix), { cwd, ...(q.signal ? { signal: q.signal } : {}) });
  } catch (error) {
    if (q.signal?.aborted) throw error;
    return undefined; // no usable binary: the JS engine answers instead
  }
  if (result.exitCode === 2 && !result.stdout) {
    throw new ToolError('search_failed', `grep_search failed: ${result.stderr.trim() || 'ripgrep exited with status 2'}`);
  }
  return sortRipgrepLines(result.stdout, q.mode);
}

/** Shared by both engines so their results read the same. */
/** The model's text and the number of result lines (files, matching lines with their context, or counts by file). */
export function shapeGrepOutput(raw: string, mode: GrepQuery['mode'], headLimit: number | undefined, maxChars: number): { text: string; matches: number } {
  let lines = raw.split('\n').map((l) => (l.endsWith('\r') ? l.slice(0, -1) : l));
  while (lines.length && lines[lines.length - 1] === '') lines.pop();
  if (lines.length === 0) return { text: 'No matches found.', matches: 0 };
  const notes: string[] = [];
  const total = lines.length;
  if (headLimit !== undefined && total > headLimit) {
    lines = lines.slice(0, headLimit);
    notes.push(`[Showing the first ${headLimit} of ${total} lines (head_limit).]`);
  }
  lines = lines.map((l) => (l.length > MAX_LINE_CHARS ? `${cutHead(l, MAX_LINE_CHARS)}… [line cut]` : l));
  let size = 0;
  let kept = 0;
  for (; kept < lines.length; kept++) {
    size += lines[kept]!.length + 1;
    if (size > maxChars) break;
  }
  if (kept < lines.length) {
    notes.push(`[Output cut at ${maxChars} characters after ${kept} of ${lines.length} lines; narrow the search with path, glob or head_limit.]`);
    lines = lines.slice(0, kept);
  }
  const header =
    mode === 'files_with_matches' ? `Found ${total} file${total === 1 ? '' : 's'}:\n` : '';
  return { text: `${header}${lines.join('\n')}${notes.length ? `\n\n${notes.join('\n')}` : ''}`, matches: total };
}

export const grepSearchTool = defineTool({
  name: 'grep_search',
  description: [
    'Searches file contents with a regular expression (ripgrep semantics and syntax). Respects .gitignore; skips node_modules, .git and binary files.',
    'output_mode: "files_with_matches" (default) lists files; "content" shows matching lines as path:line:text (context lines as path-line-text, groups separated by --); "count" shows path:count.',
    'Filter files with `glob` (e.g. "*.ts") or `path`; `-i` ignores case; `-A`/`-B`/`-C` add context lines; `head_limit` keeps the first N lines. Output is capped; narrow the search if it is cut.',
    'Use this instead of running grep or rg through bash.',
  ].join('\n'),
  schema,
  readOnly: true,
  need: 'read',
  assess: (input, env) => assessSearch(input.pattern, input.path, env),
  async execute(input, env, ctx) {
    const { resolved, stat } = await resolveSearchRoot(input.path, env);
    const firstRoot = (await env.paths.roots())[0]!;
    const context = input['-C'] ?? 0;
    const query: GrepQuery = {
      pattern: input.pattern,
      target: resolved.real,
      targetIsFile: stat.type !== 'directory',
      displayPrefix: displayPrefixFor(resolved.real, firstRoot),
      glob: input.glob,
      excludeNames: env.sensitiveFile.namePatterns,
      mode: input.output_mode ?? 'files_with_matches',
      ignoreCase: input['-i'] ?? false,
      lineNumbers: input['-n'] ?? true,
      before: input['-B'] ?? context,
      after: input['-A'] ?? context,
      ignoreRoot: resolved.root,
      maxEntries: env.limits.walkMaxEntries,
      signal: ctx.signal,
    };
    let raw: string | undefined;
    if (env.ripgrepPath && env.shell) raw = await grepWithRipgrep(env.ripgrepPath, env.shell, query, firstRoot);
    raw ??= await grepWithJs(env.workspace, query);
    const shaped = shapeGrepOutput(raw, query.mode, input.head_limit, env.limits.maxOutputChars);
    return { content: shaped.text, isError: false, counts: { matches: shaped.matches } };
  },
});
