import * as path from 'node:path';
import picomatch from 'picomatch';
import { z } from 'zod';
import { ToolError } from '../errors';
import { assessSearch, resolveSearchRoot } from './search-common';
import { defineTool } from '../tool';
import { listFiles, nameGlobOf } from './list-files';
import { DEFAULT_SKIP_DIRS } from './walk';

const schema = z.object({
  pattern: z.string().min(1).describe('Glob pattern, e.g. "**/*.ts", "src/**/*.{js,jsx}", "*.md" (top level only).'),
  path: z.string().optional().describe('Folder to search in, relative to the workspace root or absolute (default: the workspace root).'),
});

type Input = z.output<typeof schema>;

/** An absolute pattern carries its own folder: split it at the first glob character. */
function globTarget(input: Input): { pattern: string; searchPath: string | undefined } {
  const pattern = input.pattern.trim().replace(/^\.\//, '');
  if (path.isAbsolute(pattern) && input.path === undefined) {
    const scan = picomatch.scan(pattern);
    return { pattern: scan.glob || '**', searchPath: scan.base || '/' };
  }
  return { pattern, searchPath: input.path };
}

export const globSearchTool = defineTool({
  name: 'glob_search',
  description: [
    'Finds files by name with a glob pattern (`*` within a folder, `**` across folders, `{a,b}` alternatives), matched against paths relative to the search folder.',
    'Respects .gitignore and skips node_modules and .git unless the pattern names them. Results are sorted by modification time, newest first, and capped at 100 with the number left out.',
    'Use it to locate files; use grep_search to search file contents.',
  ].join('\n'),
  schema,
  readOnly: true,
  need: 'read',
  assess: (input, env) => assessSearch(input.pattern, globTarget(input).searchPath, env),
  async execute(input, env, ctx) {
    const { pattern, searchPath } = globTarget(input);
    const { resolved, stat } = await resolveSearchRoot(searchPath, env);
    if (stat.type !== 'directory') throw new ToolError('not_a_file', `${resolved.display} is not a folder; glob_search needs a folder as path.`);
    const isMatch = picomatch(pattern, { dot: true });
    const skipDirs = new Set([...DEFAULT_SKIP_DIRS].filter((d) => !pattern.split('/').includes(d)));
    const matches: string[] = [];
    // Walk only below the pattern's literal folder prefix ("src" of "src/**/*.ts"): big trees, small answers.
    const scan = picomatch.scan(pattern);
    const base = scan.isGlob && scan.base && !scan.base.split('/').includes('..') ? scan.base : '';
    const start = base ? path.join(resolved.real, ...base.split('/')) : resolved.real;
    const nameGlob = nameGlobOf(pattern);
    const startStat = base ? await env.workspace.stat(start) : stat;
    const { truncated } = startStat?.type !== 'directory' ? { truncated: false } : await listFiles(
      env,
      start,
      {
        skipDirs,
        respectGitignore: true,
        ignoreRoot: resolved.root,
        symlinks: 'files',
        maxEntries: env.limits.walkMaxEntries,
        signal: ctx.signal,
        ...(nameGlob ? { nameGlob } : {}),
      },
      (file) => {
        if (isMatch(base ? `${base}/${file.relative}` : file.relative)) matches.push(file.absolute);
      },
    );
    const roots = await env.paths.roots();
    const withTimes = await Promise.all(
      matches.map(async (absolute) => ({ absolute, mtime: (await env.workspace.stat(absolute).catch(() => undefined))?.mtimeMs ?? 0 })),
    );
    withTimes.sort((a, b) => b.mtime - a.mtime || (a.absolute < b.absolute ? -1 : 1));
    const where = resolved.display === '.' ? 'the workspace root' : resolved.display;
    if (withTimes.length === 0) {
      const hint = pattern.includes('/') ? '' : ` Note: "${pattern}" only matches directly inside the folder; use "**/${pattern}" to include subfolders.`;
      return { content: `No files match "${pattern}" in ${where}.${hint}${truncated ? ' (The walk stopped early: the folder is very large; narrow path.)' : ''}`, isError: false, counts: { matches: 0 } };
    }
    const max = env.limits.globMaxResults;
    const lines = withTimes.slice(0, max).map((m) => env.paths.display(m.absolute, roots));
    if (withTimes.length > max) {
      lines.push(`(${withTimes.length - max} more matches not shown, ${withTimes.length} in total; use a more specific pattern or path.)`);
    }
    if (truncated) lines.push(`(Stopped after visiting ${env.limits.walkMaxEntries} entries; results may be incomplete. Narrow path.)`);
    return { content: lines.join('\n'), isError: false, counts: { matches: withTimes.length } };
  },
});
