// Sessions in their own git worktree (contracts.md, fourth wave: `--worktree [name]`,
// `turnstone.worktrees.dir`, branches `turnstone/<name>`). A worktree is made from the
// current HEAD of the repository holding the session's folder, on a new branch, in a
// folder OUTSIDE the repository (the user's data folder unless the setting names another),
// so the agent's edits land there and the user's working tree stays as it is. Uncommitted
// changes are not carried over: the worktree starts from HEAD.
//
// Git runs as Turnstone's other git does (safe-git.ts): an absolute program path found
// outside the repository, no hooks, fsmonitor, pagers or external programs, every filter
// driver emptied (checking out files would otherwise run a clean/smudge program the
// repository's configuration names), and no GIT_DIR-like variables from the environment.
import { execFile } from 'node:child_process';
import { createHash, randomBytes } from 'node:crypto';
import { cpSync, existsSync, lstatSync, mkdirSync, readFileSync, realpathSync, rmdirSync, statSync, unlinkSync, writeFileSync } from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { FILTER_DRIVERS_QUERY, filterOverrides, GIT_ENV_REMOVED, NO_REPOSITORY_PROGRAMS } from '../runtime/policy/safe-git';
import { findProgram } from '../tools/os/program-path';
import { userDataDir } from '../tools/os/private-dir';

/** Every Turnstone worktree's branch is `turnstone/<name>`. */
export const WORKTREE_BRANCH_PREFIX = 'turnstone/';

/** A worktree could not be made (or looked at): one line that says why; nothing was created. */
export class WorktreeError extends Error {
  override readonly name = 'WorktreeError';
}

/**
 * Why `name` cannot name a worktree (its branch is `turnstone/<name>`), or undefined when it can: letters,
 * digits, `.`, `_` and `-`, in one or two `/`-separated parts, none starting with `.` or `-`, no `..`,
 * no `.lock` ending, at most 64 characters. Stricter than git's ref rules, so it is also a safe folder name.
 */
export function worktreeNameProblem(name: string): string | undefined {
  const hint = 'use letters, digits, ".", "_" and "-", optionally in two parts like "fix/login"';
  if (name.length === 0) return `an empty worktree name: ${hint}`;
  if (name.length > 64) return `worktree name '${name}' is longer than 64 characters`;
  if (name.includes('..')) return `worktree name '${name}' contains "..": ${hint}`;
  const parts = name.split('/');
  if (parts.length > 2) return `worktree name '${name}' has more than one "/": ${hint}`;
  for (const part of parts) {
    if (!/^[A-Za-z0-9_][A-Za-z0-9._-]*$/.test(part) || part.endsWith('.') || part.endsWith('.lock')) return `bad worktree name '${name}': ${hint}`;
  }
  return undefined;
}

/** A short readable name for a worktree nobody named: the date and a random suffix, e.g. `20261206-k3f9`. */
export function generateWorktreeName(now = new Date(), random: () => Buffer = () => randomBytes(4)): string {
  const date = `${now.getFullYear()}${String(now.getMonth() + 1).padStart(2, '0')}${String(now.getDate()).padStart(2, '0')}`;
  const suffix = [...random()].map((b) => 'abcdefghijklmnopqrstuvwxyz0123456789'[b % 36]).join('').slice(0, 4);
  return `${date}-${suffix}`;
}

/** Where worktrees go: `turnstone.worktrees.dir` (absolute or `~/…`) when set, else `<data>/turnstone/worktrees`. */
export function worktreesDir(setting: string, env: NodeJS.ProcessEnv = process.env, home = os.homedir()): string {
  const value = setting.trim();
  // The user's data folder, not the cache: worktrees hold work.
  if (!value) return path.join(userDataDir(env, process.platform, home), 'worktrees');
  const expanded = value === '~' ? home : value.startsWith('~/') || value.startsWith('~\\') ? path.join(home, value.slice(2)) : value;
  if (!path.isAbsolute(expanded)) throw new WorktreeError(`turnstone.worktrees.dir '${setting}' must be an absolute path (or start with ~/)`);
  return path.resolve(expanded);
}

/** A worktree Turnstone made. */
export interface CreatedWorktree {
  /** The worktree's top folder. */
  path: string;
  /** `turnstone/<name>`. */
  branch: string;
  name: string;
  /** Where the session runs: the folder of the worktree matching the given one (its top when that is not in the worktree). */
  cwd: string;
  /** The top of the work tree the worktree was made from. */
  repo: string;
  /** What it was made from: the branch HEAD was on (`refs/heads/main`; null when detached) and its commit. */
  base: { ref: string | null; commit: string };
  /** Uncommitted changes (tracked and untracked files) in the work tree it was made from, which the worktree does not have. */
  uncommitted: number;
  /** Those brought into the worktree instead (`carryUncommitted`), unstaged. */
  carried: number;
}

/** What `<worktree>.turnstone.json`, beside the worktree's folder, records: removal compares the branch with its base. */
export interface WorktreeRecord {
  branch: string;
  repo: string;
  base: { ref: string | null; commit: string };
  created: string;
}

/** One git run: its exit code and output. */
export interface GitResult {
  code: number;
  stdout: string;
  stderr: string;
}

/** Runs git in `cwd` as this module does (see the header). */
export type Git = (cwd: string, args: string[]) => Promise<GitResult>;
/** The same, with stdout as raw bytes (a file's content). */
export type GitBytes = (cwd: string, args: string[]) => Promise<{ code: number; stdout: Buffer; stderr: string }>;

/** The environment without variables that would point git at another repository, work tree or program. */
function gitEnv(): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = { ...process.env, GIT_OPTIONAL_LOCKS: '0', LC_ALL: 'C', GIT_TERMINAL_PROMPT: '0' };
  for (const name of GIT_ENV_REMOVED) delete env[name];
  return env;
}

/** Commands that read or write file content, and so could run a filter driver: those are emptied by name first. */
const CONTENT_COMMANDS = new Set(['worktree', 'status', 'diff', 'cat-file', 'add', 'commit', 'merge', 'merge-tree', 'stash', 'reset', 'checkout', 'apply']);
/**
 * Never into a submodule: a git run inside one reads that repository's own configuration, whose filter drivers
 * the overrides above do not name (status, diff and commit would otherwise look into a changed submodule).
 */
const NO_SUBMODULES = ['-c', 'diff.ignoreSubmodules=all', '-c', 'submodule.recurse=false'];

function rawGit(gitPath: string, cwd: string, args: string[], bytes: boolean): Promise<{ code: number; stdout: string | Buffer; stderr: string }> {
  return new Promise((resolve) => {
    execFile(
      gitPath,
      ['-C', cwd, '--no-optional-locks', '-c', 'core.quotepath=off', ...NO_REPOSITORY_PROGRAMS, ...NO_SUBMODULES, ...args],
      { encoding: bytes ? 'buffer' : 'utf8', maxBuffer: 64 * 1024 * 1024, env: gitEnv(), timeout: 600_000 },
      (error, stdout, stderr) => {
        const code = error ? (typeof (error as { code?: unknown }).code === 'number' ? ((error as { code: number }).code) : 1) : 0;
        const err = String(stderr);
        resolve({ code, stdout, stderr: err || (error && !err ? error.message : '') });
      },
    );
  });
}

/** The git command of `args`, after any `-c name=value` pairs. */
function commandOf(args: string[]): string {
  let i = 0;
  while (args[i] === '-c') i += 2;
  return args[i] ?? '';
}

async function filtered(gitPath: string, cwd: string, args: string[]): Promise<string[]> {
  if (!CONTENT_COMMANDS.has(commandOf(args))) return args;
  const drivers = await rawGit(gitPath, cwd, [...FILTER_DRIVERS_QUERY], false);
  return [...filterOverrides(drivers.code === 0 ? String(drivers.stdout) : ''), ...args];
}

export function gitIn(gitPath: string): Git {
  return async (cwd, args) => {
    const r = await rawGit(gitPath, cwd, await filtered(gitPath, cwd, args), false);
    return { ...r, stdout: String(r.stdout) };
  };
}

export function gitBytesIn(gitPath: string): GitBytes {
  return async (cwd, args) => {
    const r = await rawGit(gitPath, cwd, await filtered(gitPath, cwd, args), true);
    return { ...r, stdout: Buffer.isBuffer(r.stdout) ? r.stdout : Buffer.from(r.stdout) };
  };
}

export function findGit(excludeRoot: string, gitPath: string | undefined): string {
  const found = gitPath ?? findProgram(process.platform === 'win32' ? 'git.exe' : 'git', { excludeRoots: [excludeRoot] });
  if (!found) throw new WorktreeError('git was not found on PATH (a worktree needs git)');
  return found;
}

/** git's own one-line reason, without `fatal: ` / `error: `. */
export function gitReason(r: Pick<GitResult, 'code' | 'stderr'>): string {
  const line = r.stderr.split('\n').find((l) => l.trim() !== '') ?? `git exited with ${r.code}`;
  return line.replace(/^(fatal|error): /, '').trim();
}

export function real(p: string): string {
  try {
    return realpathSync(p);
  } catch {
    return path.resolve(p);
  }
}

function inside(child: string, parent: string): boolean {
  const rel = path.relative(parent, child);
  return rel === '' || (!rel.startsWith('..') && !path.isAbsolute(rel));
}

/** The deepest existing folder of `p`, resolved (a worktree folder does not exist yet; its parents may be links). */
function realOfNearest(p: string): string {
  let dir = path.resolve(p);
  const rest: string[] = [];
  while (!existsSync(dir)) {
    const parent = path.dirname(dir);
    if (parent === dir) break;
    rest.unshift(path.basename(dir));
    dir = parent;
  }
  return path.join(real(dir), ...rest);
}

export const recordFile = (worktree: string) => `${worktree}.turnstone.json`;

/** Counts the entries of `git status --porcelain -z` (a rename's second path is not an entry of its own). */
function statusEntries(z: string): number {
  const parts = z.split('\0').filter((p) => p !== '');
  let n = 0;
  for (let i = 0; i < parts.length; i++) {
    n++;
    if (/^[RC]/.test(parts[i]!)) i++;
  }
  return n;
}

export interface CreateWorktreeOptions {
  /** The session's folder: a folder of the repository the worktree is made from. */
  cwd: string;
  /** Undefined or empty: a generated one (generateWorktreeName). */
  name?: string;
  /** `turnstone.worktrees.dir` ('' = the default under the user's data folder). */
  dir?: string;
  env?: NodeJS.ProcessEnv;
  /** The git program (default: found on PATH, outside the repository). */
  gitPath?: string;
  /**
   * Bring the work tree's uncommitted changes along: tracked files' changes, staged or not (as one `git stash
   * create`, applied in the worktree, which leaves the work tree, its index and its stash list as they are), and
   * the untracked files git does not ignore (copied; links as links).
   */
  carryUncommitted?: boolean;
}

/** How many changes `git status` lists in a work tree (tracked and untracked, not ignored); 0 when it cannot tell. */
export async function uncommittedChanges(cwd: string, gitPath?: string): Promise<number> {
  const dir = real(cwd);
  const status = await gitIn(findGit(dir, gitPath))(dir, ['status', '--porcelain=v1', '-z', '--ignore-submodules=all']);
  return status.code === 0 ? statusEntries(status.stdout) : 0;
}

/** Carries the work tree's uncommitted changes into the new worktree (see carryUncommitted); how many there were. */
async function carryChanges(git: Git, repo: string, wt: string): Promise<number> {
  const status = await git(repo, ['status', '--porcelain=v1', '-z', '--ignore-submodules=all']);
  const count = status.code === 0 ? statusEntries(status.stdout) : 0;
  if (count === 0) return 0;
  const stash = await git(repo, ['stash', 'create']);
  if (stash.code !== 0) throw new WorktreeError(`could not read the uncommitted changes: ${gitReason(stash)}`);
  const commit = stash.stdout.trim();
  if (commit) {
    const apply = await git(wt, ['stash', 'apply', '--quiet', commit]);
    if (apply.code !== 0) throw new WorktreeError(`could not bring the uncommitted changes into the worktree: ${gitReason(apply)}`);
  }
  const others = await git(repo, ['ls-files', '--others', '--exclude-standard', '-z']);
  if (others.code !== 0) throw new WorktreeError(`could not list the untracked files: ${gitReason(others)}`);
  for (const rel of others.stdout.split('\0').filter((p) => p !== '')) {
    const from = path.join(repo, rel);
    const to = path.join(wt, rel);
    const stat = lstatSync(from, { throwIfNoEntry: false });
    if (!inside(to, wt) || !stat || !(stat.isFile() || stat.isSymbolicLink())) continue;
    mkdirSync(path.dirname(to), { recursive: true });
    cpSync(from, to, { verbatimSymlinks: true, preserveTimestamps: true });
  }
  return count;
}

/**
 * `git worktree add -b turnstone/<name> <dir>/<repo>-<hash>/<name> HEAD`, checked first so that a failure
 * creates nothing: the folder must be a git repository with a commit, the branch must not exist, the
 * worktree's folder must not exist and must be outside the repository. Throws WorktreeError.
 */
export async function createWorktree(options: CreateWorktreeOptions): Promise<CreatedWorktree> {
  const cwd = real(options.cwd);
  const git = gitIn(findGit(cwd, options.gitPath));
  const topRun = await git(cwd, ['rev-parse', '--show-toplevel']);
  const top = topRun.code === 0 ? topRun.stdout.trim() : '';
  if (!top) throw new WorktreeError(`${options.cwd} is not in a git repository (a worktree is made from one)`);
  const repo = real(top);
  const head = await git(repo, ['rev-parse', '--verify', '--quiet', 'HEAD^{commit}']);
  if (head.code !== 0) throw new WorktreeError(`the repository at ${repo} has no commit yet: a worktree starts from HEAD, so commit once first`);
  const commit = head.stdout.trim();
  const symbolic = await git(repo, ['symbolic-ref', '-q', 'HEAD']);
  const baseRef = symbolic.code === 0 ? symbolic.stdout.trim() || null : null;
  const commonRun = await git(repo, ['rev-parse', '--path-format=absolute', '--git-common-dir']);
  if (commonRun.code !== 0) throw new WorktreeError(`cannot read the repository at ${repo}: ${gitReason(commonRun)}`);
  const commonDir = real(commonRun.stdout.trim());
  const mainTop = path.basename(commonDir) === '.git' ? path.dirname(commonDir) : commonDir.replace(/\.git$/, '');

  const branchExists = async (name: string) => (await git(repo, ['rev-parse', '--verify', '--quiet', `refs/heads/${WORKTREE_BRANCH_PREFIX}${name}`])).code === 0;
  let name = options.name ?? '';
  if (name) {
    const problem = worktreeNameProblem(name);
    if (problem) throw new WorktreeError(problem);
    if (await branchExists(name)) throw new WorktreeError(`branch ${WORKTREE_BRANCH_PREFIX}${name} already exists in ${repo}: choose another worktree name`);
  } else {
    for (let tries = 0; ; tries++) {
      name = generateWorktreeName();
      if (!(await branchExists(name))) break;
      if (tries >= 20) throw new WorktreeError('could not find a free worktree name: give one');
    }
  }
  const branch = `${WORKTREE_BRANCH_PREFIX}${name}`;
  const format = await git(repo, ['check-ref-format', '--branch', branch]);
  if (format.code !== 0) throw new WorktreeError(`bad worktree name '${name}': ${gitReason(format)}`);

  let base: string;
  try {
    base = worktreesDir(options.dir ?? '', options.env ?? process.env);
  } catch (error) {
    if (error instanceof WorktreeError) throw error;
    throw new WorktreeError(String(error));
  }
  const hash = createHash('sha256').update(commonDir).digest('hex').slice(0, 8);
  const container = path.join(base, `${path.basename(mainTop) || 'repo'}-${hash}`);
  const target = path.join(container, ...name.split('/'));
  const resolvedTarget = realOfNearest(target);
  for (const root of new Set([repo, real(mainTop)])) {
    if (inside(resolvedTarget, root)) throw new WorktreeError(`the worktree folder ${target} would be inside the repository ${root}: set turnstone.worktrees.dir to a folder outside it`);
  }
  if (existsSync(target)) throw new WorktreeError(`${target} already exists: choose another worktree name`);

  // Made only now, and removed again if git fails: a failure leaves nothing behind.
  const made: string[] = [];
  for (let dir = path.dirname(target); !existsSync(dir); dir = path.dirname(dir)) made.unshift(dir);
  mkdirSync(path.dirname(target), { recursive: true });
  const add = await git(repo, ['worktree', 'add', '--quiet', '-b', branch, target, commit]);
  if (add.code !== 0) {
    for (const dir of made.reverse()) {
      try {
        rmdirSync(dir);
      } catch {
        break;
      }
    }
    throw new WorktreeError(`git could not make the worktree: ${gitReason(add)}`);
  }
  const wt = real(target);
  const record: WorktreeRecord = { branch, repo, base: { ref: baseRef, commit }, created: new Date().toISOString() };
  try {
    writeFileSync(recordFile(wt), `${JSON.stringify(record, null, 2)}\n`);
  } catch {
    // Removal then compares with the other branches instead of the base.
  }
  let carried = 0;
  if (options.carryUncommitted) {
    try {
      carried = await carryChanges(git, repo, wt);
    } catch (error) {
      // Half-carried work is worse than none: the worktree and its branch go again, and the user is told why.
      await git(repo, ['worktree', 'remove', '--force', wt]);
      await git(repo, ['branch', '-D', branch]);
      try {
        unlinkSync(recordFile(wt));
      } catch {
        // never written
      }
      throw error instanceof WorktreeError ? error : new WorktreeError(String(error));
    }
  }
  const status = await git(repo, ['status', '--porcelain=v1', '-z', '--ignore-submodules=all']);
  const sub = path.relative(repo, cwd);
  const mapped = path.join(wt, sub);
  const cwdThere = sub && statSync(mapped, { throwIfNoEntry: false })?.isDirectory() ? mapped : wt;
  const uncommitted = status.code === 0 ? statusEntries(status.stdout) : 0;
  return { path: wt, branch, name, cwd: cwdThere, repo, base: { ref: baseRef, commit }, uncommitted: carried > 0 ? 0 : uncommitted, carried };
}

export type RemoveWorktreeResult = { removed: true; branch: string } | { removed: false; reason: string };

export interface RemoveWorktreeOptions {
  /** Remove it even with uncommitted changes or commits its base does not have (the branch goes too). */
  force?: boolean;
  gitPath?: string;
}

/**
 * Removes a worktree Turnstone made, and its `turnstone/<name>` branch. Refuses (with the reason, removing
 * nothing) when it has uncommitted changes or its branch has commits not merged into the branch it was made
 * from (or, without the record of that, commits on no other branch), unless `force`.
 */
export async function removeWorktree(worktreePath: string, options: RemoveWorktreeOptions = {}): Promise<RemoveWorktreeResult> {
  if (!existsSync(worktreePath)) return { removed: false, reason: `${worktreePath} does not exist` };
  const wt = real(worktreePath);
  let git: Git;
  try {
    git = gitIn(findGit(wt, options.gitPath));
  } catch (error) {
    return { removed: false, reason: (error as Error).message };
  }
  const top = await git(wt, ['rev-parse', '--show-toplevel']);
  if (top.code !== 0 || real(top.stdout.trim()) !== wt) return { removed: false, reason: `${worktreePath} is not the top of a git worktree` };
  const dirs = await git(wt, ['rev-parse', '--path-format=absolute', '--git-dir', '--git-common-dir']);
  const [gitDir, commonDir] = dirs.stdout.trim().split('\n').map((d) => real(d.trim()));
  if (dirs.code !== 0 || !gitDir || !commonDir) return { removed: false, reason: `cannot read the worktree at ${worktreePath}: ${gitReason(dirs)}` };
  if (gitDir === commonDir) return { removed: false, reason: `${worktreePath} is a repository's main work tree, not a worktree Turnstone made` };
  const head = await git(wt, ['symbolic-ref', '-q', '--short', 'HEAD']);
  const branch = head.code === 0 ? head.stdout.trim() : '';
  if (!branch.startsWith(WORKTREE_BRANCH_PREFIX)) {
    return { removed: false, reason: `${worktreePath} is not on a ${WORKTREE_BRANCH_PREFIX}… branch (${branch || 'detached HEAD'}), so Turnstone did not make it` };
  }
  let record: WorktreeRecord | undefined;
  try {
    const parsed = JSON.parse(readFileSync(recordFile(wt), 'utf8')) as WorktreeRecord;
    if (parsed.branch === branch && typeof parsed.base?.commit === 'string') record = parsed;
  } catch {
    record = undefined;
  }
  if (!options.force) {
    const status = await git(wt, ['status', '--porcelain=v1', '-z', '--ignore-submodules=all']);
    if (status.code !== 0) return { removed: false, reason: `cannot read the worktree's status: ${gitReason(status)}` };
    const changed = statusEntries(status.stdout);
    if (changed > 0) return { removed: false, reason: `the worktree has ${changed} uncommitted change${changed === 1 ? '' : 's'} (commit or discard them, or force the removal)` };
    let unmerged: number;
    let into: string;
    const refOk = record?.base.ref ? (await git(wt, ['rev-parse', '--verify', '--quiet', `${record.base.ref}^{commit}`])).code === 0 : false;
    if (record && (refOk || /^[0-9a-f]{40,64}$/.test(record.base.commit))) {
      const against = refOk ? record.base.ref! : record.base.commit;
      into = refOk ? record.base.ref!.replace(/^refs\/heads\//, '') : `the commit it started from (${record.base.commit.slice(0, 7)})`;
      const count = await git(wt, ['rev-list', '--count', `${against}..HEAD`]);
      if (count.code !== 0) return { removed: false, reason: `cannot compare ${branch} with ${into}: ${gitReason(count)}` };
      unmerged = Number(count.stdout.trim());
    } else {
      into = 'any other branch';
      const count = await git(wt, ['rev-list', '--count', 'HEAD', '--not', `--exclude=${branch}`, '--branches']);
      if (count.code !== 0) return { removed: false, reason: `cannot compare ${branch} with the other branches: ${gitReason(count)}` };
      unmerged = Number(count.stdout.trim());
    }
    if (unmerged > 0) return { removed: false, reason: `branch ${branch} has ${unmerged} commit${unmerged === 1 ? '' : 's'} not merged into ${into} (merge them, or force the removal)` };
  }
  const remove = await git(commonDir, ['worktree', 'remove', ...(options.force ? ['--force'] : []), wt]);
  if (remove.code !== 0) return { removed: false, reason: `git could not remove the worktree: ${gitReason(remove)}` };
  const del = await git(commonDir, ['branch', '-D', branch]);
  try {
    unlinkSync(recordFile(wt));
  } catch {
    // No record, or already gone.
  }
  if (del.code !== 0) return { removed: false, reason: `the worktree was removed but not its branch ${branch}: ${gitReason(del)}` };
  return { removed: true, branch };
}
