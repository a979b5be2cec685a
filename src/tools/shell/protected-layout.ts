// What in a workspace folder the OS sandbox must protect: the control files
// (control-files.ts) that exist, at any depth (nested repositories count), and
// the secret files (the sensitive-file list) it hides from commands. Found by
// one walk that never follows links and skips dependency folders; the bash
// tool also asks it which secrets a recursive read would reach.
import { type Dirent } from 'node:fs';
import { lstat, readdir, readFile } from 'node:fs/promises';
import * as path from 'node:path';
import { canonicalName, CONTROL_DIRS, CONTROL_FILES, GIT_CONTROL } from './control-files';
import { type SensitiveMatcher } from '../../runtime/policy/sensitive-files';

export interface ProtectedLayout {
  /** Existing control files and folders (absolute), to be read-only inside the sandbox. */
  control: string[];
  /** Secret files (absolute), to be unreadable inside the sandbox unless the user lets them through. */
  secrets: string[];
  /** The walk stopped at its entry cap: what lies past it was not seen. */
  incomplete: boolean;
}

/** Folders no secret or control file of the project's own lives in, and that are too large to walk each time. */
const SKIP_DIRS = new Set(['node_modules', '.pnpm-store', '.yarn', '__pycache__', '.venv', 'venv', '.tox', '.mypy_cache', '.gradle', 'target']);
const CONTROL_DIR_NAMES = new Set(CONTROL_DIRS);
const CONTROL_FILE_NAMES = new Set(CONTROL_FILES);

export interface ScanOptions {
  sensitive: SensitiveMatcher;
  maxEntries?: number;
}

/** Walks `root` (not following links) for control and secret files. */
export async function scanProtected(root: string, options: ScanOptions): Promise<ProtectedLayout> {
  const out: ProtectedLayout = { control: [], secrets: [], incomplete: false };
  const max = options.maxEntries ?? 200_000;
  let seen = 0;
  const queue: string[] = [root];
  while (queue.length > 0) {
    const dir = queue.pop()!;
    let entries: Dirent[];
    try {
      entries = await readdir(dir, { withFileTypes: true });
    } catch {
      continue;
    }
    for (const e of entries) {
      if (++seen > max) {
        out.incomplete = true;
        return out;
      }
      // Every name of interest starts with a dot once ignorable code points are dropped (or is the 8.3 `git~1`).
      const name = e.name.charCodeAt(0) === 46 || !/^[\w-]/.test(e.name) || /^git~/i.test(e.name) ? canonicalName(e.name) : '';
      const full = `${dir}${path.sep}${e.name}`;
      if (name === '.git' || name === 'git~1') {
        await gitControl(root, full, e.isDirectory() ? full : await gitdirOf(full), out);
        continue;
      }
      if (CONTROL_DIR_NAMES.has(name) || CONTROL_FILE_NAMES.has(name)) {
        out.control.push(full);
        continue;
      }
      if (e.isDirectory()) {
        if (!SKIP_DIRS.has(e.name)) queue.push(full);
        continue;
      }
      if ((e.isFile() || e.isSymbolicLink()) && options.sensitive.inWalk(e.name, () => path.relative(root, full))) out.secrets.push(full);
    }
  }
  return out;
}

const scans = new Map<string, { at: number; sensitive: SensitiveMatcher; layout: Promise<ProtectedLayout> }>();

/**
 * The scan of `root`, reused for `ttlMs`: the sandbox (before each command) and the bash tool's assessment
 * (recursive reads) share it, and a large tree is not walked before every command.
 */
export function cachedScan(root: string, sensitive: SensitiveMatcher, ttlMs = 5000): Promise<ProtectedLayout> {
  const cached = scans.get(root);
  if (cached && cached.sensitive === sensitive && Date.now() - cached.at < ttlMs) return cached.layout;
  const layout = scanProtected(root, { sensitive });
  scans.set(root, { at: Date.now(), sensitive, layout });
  if (scans.size > 32) scans.delete(scans.keys().next().value!);
  layout.catch(() => scans.delete(root));
  return layout;
}

/** A `.git` file (worktree, submodule) names its git folder: `gitdir: <path>`. */
async function gitdirOf(file: string): Promise<string | undefined> {
  try {
    const m = /^gitdir:\s*(.+?)\s*$/m.exec(await readFile(file, 'utf8'));
    return m ? path.resolve(path.dirname(file), m[1]!) : undefined;
  } catch {
    return undefined;
  }
}

const within = (root: string, p: string) => {
  const rel = path.relative(root, p);
  return rel !== '' && !rel.startsWith('..') && !path.isAbsolute(rel);
};

/**
 * What git runs from a repository: its config and hooks, those of a worktree's common folder and of
 * submodules (`.git/modules/*`), and a `core.hooksPath` folder inside the workspace (`.husky`).
 * Only paths inside the workspace need protecting: the rest of the file system is read-only already.
 */
async function gitControl(root: string, dotGit: string, gitdir: string | undefined, out: ProtectedLayout): Promise<void> {
  if (!gitdir) return;
  const dirs = [gitdir];
  const common = await readFile(path.join(gitdir, 'commondir'), 'utf8').catch(() => undefined);
  if (common) dirs.push(path.resolve(gitdir, common.trim()));
  const modules = await readdir(path.join(gitdir, 'modules'), { withFileTypes: true }).catch(() => []);
  for (const m of modules) if (m.isDirectory()) dirs.push(path.join(gitdir, 'modules', m.name));
  for (const dir of dirs) {
    if (!within(root, dir)) continue;
    for (const name of GIT_CONTROL) {
      const p = path.join(dir, name);
      if (await lstat(p).then(() => true, () => false)) out.control.push(p);
    }
    const hooksPath = await configuredHooksPath(path.join(dir, 'config'));
    if (hooksPath) {
      const abs = path.resolve(path.dirname(dotGit), hooksPath);
      if (within(root, abs) && (await lstat(abs).then(() => true, () => false))) out.control.push(abs);
    }
  }
}

/** `core.hooksPath` as the repository's own config file sets it (includes are not followed). */
async function configuredHooksPath(config: string): Promise<string | undefined> {
  const text = await readFile(config, 'utf8').catch(() => '');
  let section = '';
  for (const line of text.split(/\r?\n/)) {
    const header = /^\s*\[\s*([^\]\s"]+)/.exec(line);
    if (header) section = header[1]!.toLowerCase();
    const kv = /^\s*hookspath\s*=\s*"?([^"\n]*?)"?\s*$/i.exec(line);
    if (kv && section === 'core' && kv[1]) return kv[1].replace(/^~(?=\/)/, process.env.HOME ?? '~');
  }
  return undefined;
}
