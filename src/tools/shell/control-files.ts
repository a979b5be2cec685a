// Files that make something run later, outside the command or tool that wrote
// them, or that loosen Turnstone's own policy: editor and agent settings, MCP
// server definitions, git's configuration and hooks, direnv files. Writing one
// is running code, so a write asks even under auto-approved edits, and inside
// the OS sandbox they are read-only (sandbox-layout.ts). One list for both.
import * as path from 'node:path';

/** Folders whose whole content is control (at any depth: nested repositories and workspace folders count too). */
export const CONTROL_DIRS: readonly string[] = ['.vscode', '.turnstone', '.claude'];
/** Single files that are control wherever they are. */
export const CONTROL_FILES: readonly string[] = ['.mcp.json', '.gitmodules', '.envrc'];
/** Inside a `.git` folder: what git runs (hooks) or what tells it what to run (config). */
export const GIT_CONTROL: readonly string[] = ['config', 'config.worktree', 'hooks'];

/** Unicode code points HFS+ ignores in names (git's is_hfs_dotgit list) plus zero-width space and BOM. */
const IGNORABLE = /[\u200b-\u200f\u202a-\u202e\u206a-\u206f\ufeff]/g;

/** A path component as a case-insensitive, Windows-trimming file system sees it. */
export function canonicalName(name: string): string {
  return name
    .normalize('NFC')
    .replace(IGNORABLE, '')
    .toLowerCase()
    .replace(/:.*$/, '') // NTFS alternate data streams: `.git::$INDEX_ALLOCATION`
    .replace(/[. ]+$/, (m) => (m.length === name.length ? m : '')); // Windows drops trailing dots and spaces (but `.`/`..` stay)
}

/**
 * Why a path (relative to its workspace folder) is a control file, in words for the question; undefined when
 * it is not one. Names are compared the way the most lenient file system would (`.GIT`, `.git.`, `.\u200cgit`).
 */
export function controlReason(relative: string): string | undefined {
  if (relative === '' || relative === '.') return undefined;
  const parts = relative.split(/[\\/]/).filter((p) => p !== '').map(canonicalName);
  const base = parts[parts.length - 1]!;
  if (parts.includes('.git') || parts.includes('git~1')) return '.git/ holds repository internals, configuration and hooks that run code';
  if (parts.includes('.turnstone')) return '.turnstone/ holds Turnstone settings, commands and hooks';
  if (parts.includes('.claude')) return '.claude/ holds agent settings, commands and hooks';
  // The editor reads settings, tasks, launch configurations, MCP servers and snippets from these; notes beside them are plain files.
  const vscodeAt = parts.indexOf('.vscode');
  if (vscodeAt >= 0 && (vscodeAt === parts.length - 1 || /\.(json|jsonc|code-snippets)$/.test(base))) return '.vscode/ holds editor settings and tasks that run commands';
  if (base.endsWith('.code-workspace')) return 'workspace files can change editor settings and tasks';
  // An MCP server entry is a command Turnstone starts on the next turn: writing one is running code.
  if (base === '.mcp.json') return '.mcp.json defines MCP servers, commands Turnstone starts on the next turn';
  if (base === '.gitmodules') return '.gitmodules tells git which repositories to fetch and how';
  if (base === '.envrc') return '.envrc runs in your shell when you enter the folder (direnv)';
  if (parts[0] === '.husky' || parts[0] === '.githooks') return 'git hook scripts run on every commit';
  // Copilot's and Turnstone's agent and skill folders, and CI workflows (which run with the repository's secrets).
  const githubAt = parts.indexOf('.github');
  if (githubAt >= 0 && githubAt < parts.length - 1) {
    const folder = parts[githubAt + 1];
    if (folder === 'agents') return '.github/agents/ holds agent definitions: their prompts and tools steer later turns';
    if (folder === 'skills') return '.github/skills/ holds skills whose instructions and scripts later turns load';
    if (folder === 'workflows') return '.github/workflows/ holds CI workflows, which run with the repository\'s secrets';
    if (folder === 'prompts') return '.github/prompts/ holds prompt files, slash commands whose text later turns send';
    if (folder === 'instructions') return '.github/instructions/ holds instructions that steer later turns';
  }
  // Cursor's rules steer later turns as the instruction files above do (issue 46 reads them).
  if (parts[0] === '.cursor' && parts[1] === 'rules') return '.cursor/rules/ holds rules that steer later turns';
  if (base === '.pre-commit-config.yaml' || base === 'lefthook.yml' || base === '.lefthook.yml') return 'git hook configuration runs commands on commit';
  return undefined;
}

/** A workspace folder's own control paths, relative (the sandbox protects those that exist and undoes the others' creation). */
export function rootControlPaths(hasGit: boolean): string[] {
  return [...CONTROL_DIRS, ...CONTROL_FILES, ...(hasGit ? GIT_CONTROL.map((name) => path.join('.git', name)) : [])];
}
