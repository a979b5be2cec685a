// Bringing a worktree's work home (issue 44). A session in a worktree (worktrees.ts) changed files on its
// branch `turnstone/<name>`; its review (the host's) kept some hunks and not others. *Apply* puts the kept
// hunks into the user's own working tree: per file, the hunks from the worktree's base (the merge base of
// the user's HEAD and the branch) to the kept content, each applied where the user's file still has the
// base's lines for its region. A hunk whose region the user changed meanwhile (overlapping or touching one
// of the user's own hunks) is a conflict: listed, never written. Every file is planned before any is
// written; a write is a temporary file renamed over the old one, keeping its mode. Apply never commits and
// never touches git's index. *Merge branch* is the other way home, only when asked: the worktree's
// uncommitted work committed on its branch, then `git merge --no-ff` into a clean working tree.
import { randomBytes } from 'node:crypto';
import { chmodSync, lstatSync, mkdirSync, readFileSync, renameSync, rmSync, statSync, unlinkSync, writeFileSync } from 'node:fs';
import * as path from 'node:path';
import { decodeText, encodeText, type TextEncodingName } from '../tools/files/text';
import { privateSubdir } from '../tools/os/private-dir';
import { type Hunk, hunksOf, keepHunk, splitLines } from './review-hunks';
import { findGit, type Git, type GitBytes, gitBytesIn, gitIn, gitReason, real, recordFile, type WorktreeRecord } from './worktrees';

/** What went wrong, for the caller to word: git missing or failing, not a worktree, no base, a file unreadable or unwritable. */
export type WorktreeApplyErrorKind = 'git' | 'not-a-worktree' | 'no-base' | 'io';

/** Applying or merging could not start (nothing was written): one line that says why, and its kind. */
export class WorktreeApplyError extends Error {
  override readonly name = 'WorktreeApplyError';
  constructor(
    readonly kind: WorktreeApplyErrorKind,
    message: string,
  ) {
    super(message);
  }
}

/**
 * What the review kept of a worktree file: its text (the review's base, so only kept hunks travel), null
 * (the file's creation is not kept, or its deletion is), undefined (reviewed and settled: all of its changes
 * travel, its current content in the worktree), or false (never reviewed, e.g. a command changed it: it stays).
 */
export type KeptContent = (file: { path: string; worktreeFile: string }) => string | null | undefined | false | Promise<string | null | undefined | false>;

export interface WorktreeApplyOptions {
  /** The top of the user's work tree (the repository the worktree was made from). */
  repo: string;
  /** The worktree's folder (its top or a folder inside it). */
  worktree: string;
  /** `turnstone/<name>`. */
  branch: string;
  kept?: KeptContent;
  gitPath?: string;
}

/** A hunk of base → kept, 0-based: base lines [baseStart, +baseCount) become kept lines [keptStart, +keptCount). */
export interface ApplyHunk {
  baseStart: number;
  baseCount: number;
  keptStart: number;
  keptCount: number;
  /** Where the region is in the user's file (0-based line) as it is now; for a conflict, roughly. */
  userStart: number;
}

export type ConflictReason =
  | 'changed-meanwhile' // the user changed the lines the hunk touches
  | 'created-both' // the agent created the file and the user has one of that name
  | 'deleted-by-user' // the agent changed a file the user deleted
  | 'changed-deleted' // the agent deleted a file the user changed
  | 'binary-changed' // a binary file the user changed too
  | 'changed-while-applying'; // the user's file changed between the plan and the write

export type SkipReason = 'nothing-kept' | 'already-there' | 'not-reviewed' | 'symlink' | 'submodule';

/** One file's plan: what its bytes become, and why. */
export interface FilePlan {
  /** Relative to the repository's top, with `/`. */
  path: string;
  userFile: string;
  worktreeFile: string;
  binary: boolean;
  /** The contents as bytes (null: no such file): at the base commit, kept, in the user's tree now, what it becomes. */
  base: Buffer | null;
  kept: Buffer | null;
  user: Buffer | null;
  result: Buffer | null;
  /** The new file's mode (a created file takes the worktree file's). */
  mode?: number;
  applied: ApplyHunk[];
  conflicts: ApplyHunk[];
  conflictReason?: ConflictReason;
  skipped?: SkipReason;
}

export interface WorktreePlan {
  repo: string;
  worktree: string;
  branch: string;
  /** The commit both sides are compared with. */
  base: string;
  files: FilePlan[];
}

export interface ApplyReport {
  /** Files written (or created, or deleted), with how many hunks each took (a whole file counts one). */
  applied: { path: string; hunks: number }[];
  conflicts: { path: string; hunks: ApplyHunk[]; reason: ConflictReason }[];
  skipped: { path: string; reason: SkipReason }[];
}

interface Tools {
  git: Git;
  bytes: GitBytes;
}

function tools(at: string, gitPath: string | undefined): Tools {
  let found: string;
  try {
    found = findGit(at, gitPath);
  } catch (error) {
    throw new WorktreeApplyError('git', (error as Error).message);
  }
  return { git: gitIn(found), bytes: gitBytesIn(found) };
}

async function topOf(git: Git, dir: string, what: string): Promise<string> {
  const r = await git(dir, ['rev-parse', '--show-toplevel']);
  if (r.code !== 0 || !r.stdout.trim()) throw new WorktreeApplyError('not-a-worktree', `${dir} (${what}) is not in a git work tree: ${gitReason(r)}`);
  return real(r.stdout.trim());
}

/**
 * The commit the worktree's work is measured from: `git merge-base <user HEAD> <branch>`; without one (the
 * user's HEAD has no commit, or no common history) the commit the worktree was made from (its record beside
 * it), else the branch's own tip (then only its uncommitted work counts).
 */
export async function worktreeBase(git: Git, repo: string, worktree: string, branch: string): Promise<string> {
  const mb = await git(repo, ['merge-base', 'HEAD', `refs/heads/${branch}`]);
  if (mb.code === 0 && mb.stdout.trim()) return mb.stdout.trim();
  try {
    const record = JSON.parse(readFileSync(recordFile(worktree), 'utf8')) as WorktreeRecord;
    const ok = await git(worktree, ['rev-parse', '--verify', '--quiet', `${record.base.commit}^{commit}`]);
    if (ok.code === 0) return ok.stdout.trim();
  } catch {
    // No record: the branch's tip.
  }
  const tip = await git(worktree, ['rev-parse', '--verify', '--quiet', 'HEAD^{commit}']);
  if (tip.code === 0 && tip.stdout.trim()) return tip.stdout.trim();
  throw new WorktreeApplyError('no-base', `no commit to compare ${branch} with: ${gitReason(mb)}`);
}

interface Changed {
  path: string;
  /** git's modes: at the base ('000000': absent) and in the worktree now. */
  baseMode: string;
  newMode: string;
}

/** The worktree's changes against `base`: tracked (committed and not), and untracked files git does not ignore. */
async function changedFiles(git: Git, worktree: string, base: string): Promise<Changed[]> {
  // Submodules are never looked into: a git inside one reads that repository's own configuration (its filters).
  const diff = await git(worktree, ['diff', '--raw', '-z', '--no-renames', '--no-textconv', '--no-ext-diff', '--ignore-submodules=all', base, '--']);
  if (diff.code !== 0) throw new WorktreeApplyError('git', `cannot list the worktree's changes: ${gitReason(diff)}`);
  const out: Changed[] = [];
  const parts = diff.stdout.split('\0');
  for (let i = 0; i + 1 < parts.length; i += 2) {
    const meta = parts[i]!;
    const m = /^:(\d{6}) (\d{6}) /.exec(meta);
    if (!m) continue;
    out.push({ path: parts[i + 1]!, baseMode: m[1]!, newMode: m[2]! });
  }
  const others = await git(worktree, ['ls-files', '--others', '--exclude-standard', '-z']);
  if (others.code !== 0) throw new WorktreeApplyError('git', `cannot list the worktree's new files: ${gitReason(others)}`);
  for (const p of others.stdout.split('\0')) if (p) out.push({ path: p, baseMode: '000000', newMode: '100644' });
  return out.sort((a, b) => (a.path < b.path ? -1 : a.path > b.path ? 1 : 0));
}

function readBytes(file: string): Buffer | null {
  try {
    const st = lstatSync(file);
    if (!st.isFile()) return null;
    return readFileSync(file);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT' || (error as NodeJS.ErrnoException).code === 'ENOTDIR') return null;
    throw new WorktreeApplyError('io', `cannot read ${file}: ${(error as Error).message}`);
  }
}

/**
 * Whether `file` is reached from `root` through real folders only: every part of its path below `root` that
 * exists is a folder (the file itself a regular file) and none is a symbolic link, so a read or a write of it
 * cannot land outside `root` (a folder the agent replaced with a link, or a link the user's tree has).
 */
function reachableWithin(root: string, file: string): boolean {
  const rel = path.relative(root, file);
  if (rel === '' || rel.startsWith('..') || path.isAbsolute(rel)) return false;
  const parts = rel.split(path.sep);
  let at = root;
  for (let i = 0; i < parts.length; i++) {
    at = path.join(at, parts[i]!);
    let st;
    try {
      st = lstatSync(at);
    } catch (error) {
      const code = (error as NodeJS.ErrnoException).code;
      if (code === 'ENOENT' || code === 'ENOTDIR') return true;
      return false;
    }
    if (st.isSymbolicLink()) return false;
    if (i < parts.length - 1 ? !st.isDirectory() : !st.isFile()) return false;
  }
  return true;
}

/** A file's text as the review reads it (no byte-order mark), and the encoding that gives its bytes back. */
interface FileText {
  text: string;
  encoding: TextEncodingName;
}

/**
 * Text the hunk model can split, decoded by its byte-order mark as the editor and the review decode it (so a
 * UTF-16 file merges hunk by hunk, not whole): valid in its encoding, encoding it back gives the same bytes
 * (so untouched lines are written byte for byte), and no NUL in the first 8 KiB (in UTF-16 a NUL byte is
 * ordinary, a NUL character is not).
 */
function asText(b: Buffer | null): FileText | null | false {
  if (b === null) return null;
  const decoded = decodeText(b);
  if (decoded.lossy) return false;
  const utf16 = decoded.encoding === 'utf16le' || decoded.encoding === 'utf16be';
  if (utf16 ? decoded.text.slice(0, 8192).includes('\0') : b.subarray(0, 8192).includes(0)) return false;
  if (!Buffer.from(encodeText(decoded.text, decoded.encoding)).equals(b)) return false;
  return { text: decoded.text, encoding: decoded.encoding };
}

const encoded = (text: string, encoding: TextEncodingName) => Buffer.from(encodeText(text, encoding));

const same = (a: Buffer | null, b: Buffer | null) => (a === null || b === null ? a === b : a.equals(b));

/** Plans every changed file of the worktree; writes nothing. */
export async function planWorktreeApply(options: WorktreeApplyOptions): Promise<WorktreePlan> {
  const { git, bytes } = tools(options.repo, options.gitPath);
  const repo = await topOf(git, options.repo, 'your repository');
  const worktree = await topOf(git, options.worktree, 'the worktree');
  if (repo === worktree) throw new WorktreeApplyError('not-a-worktree', `${worktree} is your own work tree, not a worktree to apply from`);
  const base = await worktreeBase(git, repo, worktree, options.branch);
  const files: FilePlan[] = [];
  for (const change of await changedFiles(git, worktree, base)) {
    files.push(await planFile(bytes, repo, worktree, base, change, options.kept));
  }
  return { repo, worktree, branch: options.branch, base, files };
}

async function planFile(bytes: GitBytes, repo: string, worktree: string, base: string, change: Changed, kept: KeptContent | undefined): Promise<FilePlan> {
  const userFile = path.join(repo, ...change.path.split('/'));
  const worktreeFile = path.join(worktree, ...change.path.split('/'));
  const plan: FilePlan = { path: change.path, userFile, worktreeFile, binary: false, base: null, kept: null, user: null, result: null, applied: [], conflicts: [] };
  const skip = (reason: SkipReason) => ({ ...plan, skipped: reason });
  if ([change.baseMode, change.newMode].some((m) => m === '160000')) return skip('submodule');
  if ([change.baseMode, change.newMode].some((m) => m === '120000') || !reachableWithin(repo, userFile) || !reachableWithin(worktree, worktreeFile)) return skip('symlink');
  if (change.baseMode !== '000000') {
    const show = await bytes(worktree, ['cat-file', '--filters', `${base}:${change.path}`]);
    if (show.code !== 0) throw new WorktreeApplyError('git', `cannot read ${change.path} at ${base.slice(0, 7)}: ${gitReason(show)}`);
    plan.base = show.stdout;
  }
  const current = readBytes(worktreeFile);
  plan.user = readBytes(userFile);
  try {
    plan.mode = statSync(plan.user !== null ? userFile : worktreeFile).mode & 0o7777;
  } catch {
    plan.mode = undefined;
  }
  const baseText = asText(plan.base);
  const currentText = asText(current);
  const userText = asText(plan.user);
  const binary = baseText === false || currentText === false || userText === false;
  plan.binary = binary;
  const review = await kept?.({ path: change.path, worktreeFile });
  // Never reviewed: it stays, unless the user's tree has it already (changes carried into the worktree).
  if (review === false) return skip(same(plan.user, current) ? 'already-there' : 'not-reviewed');
  if (review === undefined) plan.kept = current;
  else if (binary) {
    // The review never splits a binary file: kept whole (it matches the worktree's), not at all (the base's), or not yet reviewed.
    const decoded = (b: Buffer | null) => (b === null ? null : new TextDecoder().decode(b));
    if (review === decoded(current)) plan.kept = current;
    else if (review === decoded(plan.base)) plan.kept = plan.base;
    else return skip('not-reviewed');
  } else {
    // The review reads text without a byte-order mark: it is written in the worktree file's encoding (the
    // base's when the agent deleted it), mark included, so kept text equal to the worktree's is its very bytes.
    // The base's own text is the base's bytes: an encoding the agent changed, which the review never shows, is not kept.
    const encoding = (currentText || baseText || undefined)?.encoding ?? 'utf8';
    plan.kept = review === null ? null : baseText && review === baseText.text ? plan.base : encoded(review, encoding);
  }
  if (same(plan.kept, plan.base)) return skip('nothing-kept');
  if (same(plan.user, plan.kept)) return skip('already-there');
  const whole: ApplyHunk = { baseStart: 0, baseCount: 0, keptStart: 0, keptCount: 0, userStart: 0 };
  const conflict = (reason: ConflictReason, hunks: ApplyHunk[] = [whole]): FilePlan => ({ ...plan, conflicts: hunks, conflictReason: reason, result: plan.user });
  // Whole-file cases: the user's file is still the base's, so it simply becomes the kept one.
  if (same(plan.user, plan.base)) return { ...plan, result: plan.kept, applied: [whole] };
  if (binary) return conflict('binary-changed');
  if (plan.base === null) return conflict('created-both');
  if (plan.kept === null) return conflict('changed-deleted');
  if (plan.user === null) return conflict('deleted-by-user');
  // Text on every side here: the kept text is the review's, or (settled) all of the worktree's.
  return mergeText(plan, (baseText as FileText).text, typeof review === 'string' ? review : (currentText as FileText).text, userText as FileText);
}

/** The three-way merge of one text file, hunk by hunk (see the header), written in the user's file's encoding. */
function mergeText(plan: FilePlan, base: string, kept: string, userText: FileText): FilePlan {
  const user = userText.text;
  const keptHunks = hunksOf(base, kept);
  const userHunks = hunksOf(base, user);
  const applied: ApplyHunk[] = [];
  const conflicts: ApplyHunk[] = [];
  const touches = (a: Hunk, b: Hunk) => a.baseStart <= b.baseStart + b.baseCount && b.baseStart <= a.baseStart + a.baseCount;
  const keptLines = splitLines(kept);
  const userLines = splitLines(user);
  const slice = (ls: string[], start: number, count: number) => ls.slice(start, start + count).join('');
  let already = 0;
  for (const h of keptHunks) {
    const offset = userHunks.filter((u) => u.baseStart + u.baseCount < h.baseStart).reduce((n, u) => n + u.currentCount - u.baseCount, 0);
    const hunk: ApplyHunk = { baseStart: h.baseStart, baseCount: h.baseCount, keptStart: h.currentStart, keptCount: h.currentCount, userStart: h.baseStart + offset };
    const touching = userHunks.filter((u) => touches(h, u));
    // The same change on both sides (applied before, or made by the user too): nothing to do.
    const u = touching[0];
    if (touching.length === 1 && u && u.baseStart === h.baseStart && u.baseCount === h.baseCount && slice(userLines, u.currentStart, u.currentCount) === slice(keptLines, h.currentStart, h.currentCount)) already++;
    else (touching.length > 0 ? conflicts : applied).push(hunk);
  }
  if (applied.length === 0 && conflicts.length === 0 && already > 0) return { ...plan, result: plan.user, skipped: 'already-there' };
  // From the bottom up, so a hunk's place in the user's file is not moved by the ones applied before it.
  let text = user;
  for (const a of [...applied].reverse()) {
    text = keepHunk(text, kept, { baseStart: a.userStart, baseCount: a.baseCount, currentStart: a.keptStart, currentCount: a.keptCount });
  }
  const result = applied.length > 0 ? encoded(text, userText.encoding) : plan.user;
  return { ...plan, applied, conflicts, ...(conflicts.length > 0 ? { conflictReason: 'changed-meanwhile' as const } : {}), result };
}

/** What a plan did, as the report says it (before or without writing). */
export function reportOf(plan: WorktreePlan): ApplyReport {
  const report: ApplyReport = { applied: [], conflicts: [], skipped: [] };
  for (const f of plan.files) {
    if (f.skipped) report.skipped.push({ path: f.path, reason: f.skipped });
    if (f.applied.length > 0) report.applied.push({ path: f.path, hunks: f.applied.length });
    if (f.conflicts.length > 0) report.conflicts.push({ path: f.path, hunks: f.conflicts, reason: f.conflictReason ?? 'changed-meanwhile' });
  }
  return report;
}

/**
 * Writes a plan's files: each only if the user's file is still what the plan read (otherwise it is listed
 * as a conflict and left alone). A file is written to a temporary file beside it and renamed over it.
 */
export function writeWorktreePlan(plan: WorktreePlan): ApplyReport {
  const report = reportOf(plan);
  const moved = new Set<string>();
  // Checked for every file before any is written.
  for (const f of plan.files) {
    if (f.applied.length === 0 || f.skipped) continue;
    // A folder on the way replaced with a link since the plan read it is a change of the tree too.
    if (!reachableWithin(plan.repo, f.userFile) || !same(readBytes(f.userFile), f.user)) moved.add(f.path);
  }
  for (const f of plan.files) {
    if (f.applied.length === 0 || f.skipped || moved.has(f.path)) continue;
    if (same(f.result, f.user)) continue;
    try {
      if (f.result === null) unlinkSync(f.userFile);
      else writeAtomic(f.userFile, f.result, f.mode);
    } catch (error) {
      throw new WorktreeApplyError('io', `cannot write ${f.userFile}: ${(error as Error).message}`);
    }
  }
  if (moved.size > 0) {
    report.applied = report.applied.filter((a) => !moved.has(a.path));
    for (const f of plan.files) if (moved.has(f.path)) report.conflicts.push({ path: f.path, hunks: f.applied, reason: 'changed-while-applying' });
  }
  return report;
}

function writeAtomic(file: string, data: Buffer, mode: number | undefined): void {
  mkdirSync(path.dirname(file), { recursive: true });
  const temp = path.join(path.dirname(file), `.${path.basename(file)}.turnstone-${randomBytes(4).toString('hex')}.tmp`);
  try {
    writeFileSync(temp, data, { mode: mode ?? 0o644 });
    if (mode !== undefined) chmodSync(temp, mode);
    renameSync(temp, file);
  } catch (error) {
    try {
      unlinkSync(temp);
    } catch {
      // Never made.
    }
    throw error;
  }
}

/** Plans every file, then writes those that apply: the user's working tree gets the kept hunks. Never commits. */
export async function applyWorktree(options: WorktreeApplyOptions): Promise<ApplyReport & { plan: WorktreePlan }> {
  const plan = await planWorktreeApply(options);
  return { ...writeWorktreePlan(plan), plan };
}

export interface MergeWorktreeOptions {
  repo: string;
  worktree: string;
  branch: string;
  /** The commit message for the worktree's uncommitted work (none to commit: no commit). */
  message: string;
  gitPath?: string;
}

export type MergeResult = { merged: true; commit: string; committed: boolean } | { merged: false; reason: string };

/** Signing and merge drivers would run programs the configuration names: no signing, and no merge where drivers are set. */
const NO_SIGNING = ['-c', 'commit.gpgsign=false', '-c', 'tag.gpgsign=false'];

/**
 * Merges the worktree's branch into the user's current branch, only when the user's working tree has no
 * uncommitted changes to tracked files: first the worktree's uncommitted work is committed on its branch
 * (`message`), then `git merge --no-ff`. Checked first, so a refusal changes nothing; a merge that would
 * conflict is refused before anything is done when there is nothing to commit, and undone otherwise (the
 * worktree's commit then stays on its branch).
 */
export async function mergeWorktreeBranch(options: MergeWorktreeOptions): Promise<MergeResult> {
  const { git } = tools(options.repo, options.gitPath);
  const repo = await topOf(git, options.repo, 'your repository');
  const worktree = await topOf(git, options.worktree, 'the worktree');
  const branch = options.branch;
  const on = await git(worktree, ['symbolic-ref', '-q', '--short', 'HEAD']);
  if (on.code !== 0 || on.stdout.trim() !== branch) return { merged: false, reason: `the worktree is not on ${branch} (${on.stdout.trim() || 'detached HEAD'})` };
  const userBranch = await git(repo, ['symbolic-ref', '-q', '--short', 'HEAD']);
  if (userBranch.code !== 0) return { merged: false, reason: 'your working tree is not on a branch (detached HEAD): check out the branch to merge into first' };
  if (userBranch.stdout.trim() === branch) return { merged: false, reason: `your working tree is on ${branch} itself` };
  const status = await git(repo, ['status', '--porcelain=v1', '-z', '--untracked-files=no', '--ignore-submodules=all']);
  if (status.code !== 0) return { merged: false, reason: `cannot read your working tree's status: ${gitReason(status)}` };
  if (status.stdout.replace(/\0/g, '').trim() !== '') return { merged: false, reason: 'your working tree has uncommitted changes: commit or stash them first (or use Apply, which needs no clean tree)' };
  const drivers = await git(repo, ['config', '-z', '--get-regexp', '^merge\\..*\\.driver$']);
  if (drivers.code === 0 && drivers.stdout.trim()) return { merged: false, reason: 'the repository configures a merge driver program, which Turnstone does not run: merge the branch yourself' };
  const wtStatus = await git(worktree, ['status', '--porcelain=v1', '-z', '--ignore-submodules=all', '--untracked-files=all', '--no-renames']);
  if (wtStatus.code !== 0) return { merged: false, reason: `cannot read the worktree's status: ${gitReason(wtStatus)}` };
  const dirty = wtStatus.stdout.replace(/\0/g, '').trim() !== '';
  if (!dirty) {
    // Nothing to commit: would the branch merge cleanly? (A dirty worktree is checked after its commit below.)
    const probe = await git(repo, ['merge-tree', '--write-tree', '--no-messages', 'HEAD', `refs/heads/${branch}`]);
    if (probe.code === 1) return { merged: false, reason: `${branch} conflicts with your branch: apply its kept changes instead, or merge it yourself` };
  }
  let committed = false;
  if (dirty) {
    // The paths status listed, named one by one: a plain `add -A` looks into each submodule (running that
    // repository's own filters), and an embedded repository the agent made (`?? dir/`) is not its work to commit.
    const paths = wtStatus.stdout
      .split('\0')
      .filter((e) => e.length > 3)
      .map((e) => e.slice(3))
      .filter((p) => !p.endsWith('/'));
    const list = await privateSubdir('turnstone-merge-');
    const pathspec = path.join(list, 'paths');
    writeFileSync(pathspec, paths.map((p) => `${p}\0`).join(''), { mode: 0o600 });
    const add = await git(worktree, ['add', '-A', `--pathspec-from-file=${pathspec}`, '--pathspec-file-nul']).finally(() => rmSync(list, { recursive: true, force: true }));
    if (add.code !== 0) return { merged: false, reason: `cannot stage the worktree's changes: ${gitReason(add)}` };
    const commit = await git(worktree, [...NO_SIGNING, 'commit', '--no-verify', '-q', '-m', options.message]);
    if (commit.code !== 0) {
      await git(worktree, ['reset', '-q']);
      return { merged: false, reason: `cannot commit the worktree's changes: ${gitReason(commit)}` };
    }
    committed = true;
  }
  const merge = await git(repo, [...NO_SIGNING, 'merge', '--no-ff', '--no-edit', '--no-verify', '--no-verify-signatures', '-m', `Merge branch '${branch}'`, `refs/heads/${branch}`]);
  if (merge.code !== 0) {
    await git(repo, ['merge', '--abort']);
    const reason = /conflict/i.test(merge.stdout + merge.stderr) ? `${branch} conflicts with your branch (the merge was undone${committed ? '; the worktree’s work stays committed on its branch' : ''})` : `git could not merge ${branch}: ${gitReason(merge)}`;
    return { merged: false, reason };
  }
  const head = await git(repo, ['rev-parse', 'HEAD']);
  return { merged: true, commit: head.stdout.trim(), committed };
}
