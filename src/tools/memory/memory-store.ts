// The memory tool's files (contracts.md "Memory"): plain text notes the model keeps across sessions, under a
// folder of Turnstone's own (memory-dir.ts) that the model sees as `/memories`. The commands and their result
// texts follow Anthropic's client-side memory tool (memory_20250818), so a model trained on it reads them as it
// expects. Everything the model names is checked here: only `/memories/…`, no `..`, no hidden names, no link
// that leads out of the folder (real paths compared), text only, 100 KB a file, 200 files; a write whose text
// looks like a credential is refused before anything is written; every write goes to a temp file (0600, made
// exclusively, never through a link) renamed over the target, so a reader never sees half a note.
import { randomBytes } from 'node:crypto';
import { chmod, lstat, mkdir, readdir, readFile, realpath, rename, rm, stat, unlink } from 'node:fs/promises';
import * as path from 'node:path';
import { findSecret } from '../../runtime/policy/secret-text';
import { ToolError } from '../errors';
import { createExclusive } from '../os/private-dir';

export const MEMORY_ROOT = '/memories';
export const MEMORY_LIMITS = { maxFileBytes: 100 * 1024, maxFiles: 200, maxDepth: 8 } as const;

export interface MemoryLimits {
  maxFileBytes: number;
  maxFiles: number;
}

const NUMBER_WIDTH = 6;

/** 0B, 512B, 1.5K, 2M: the sizes of Anthropic's listing. */
export function formatSize(bytes: number): string {
  if (bytes < 1024) return `${bytes}B`;
  const units = ['K', 'M', 'G'];
  let size = bytes / 1024;
  let unit = 0;
  while (size >= 1024 && unit < units.length - 1) {
    size /= 1024;
    unit++;
  }
  return `${Number.isInteger(size) ? size : size.toFixed(1)}${units[unit]}`;
}

function isWithin(parent: string, child: string): boolean {
  const rel = path.relative(parent, child);
  return rel === '' || (!rel.startsWith(`..${path.sep}`) && rel !== '..' && !path.isAbsolute(rel));
}

const code = (error: unknown): string | undefined => (error as NodeJS.ErrnoException | undefined)?.code;

/** A path the model gave, checked: its `/memories/…` form and its segments below the root. */
interface MemoryPath {
  shown: string;
  segments: string[];
}

/** `/memories`, `/memories/`, `/memories/a/b.md`; never `..`, `.`, a hidden name, a backslash or a NUL. */
export function parseMemoryPath(raw: string): MemoryPath {
  const given = raw.trim();
  if (given !== MEMORY_ROOT && !given.startsWith(`${MEMORY_ROOT}/`)) {
    throw new ToolError('outside', `The path ${raw} is outside the memory directory: every memory path starts with ${MEMORY_ROOT} (for example ${MEMORY_ROOT}/notes.md).`);
  }
  if (/[\\\0]/.test(given)) throw new ToolError('invalid_input', `The path ${raw} holds a backslash or a NUL character; use plain names separated by /.`);
  const segments = given.slice(MEMORY_ROOT.length).split('/').filter((s) => s !== '');
  for (const s of segments) {
    if (s === '..' || s === '.') throw new ToolError('outside', `The path ${raw} would leave ${MEMORY_ROOT}: '${s}' is not allowed in a memory path.`);
    if (s.startsWith('.')) throw new ToolError('invalid_input', `The path ${raw} names a hidden item ('${s}'); memory names may not start with a dot.`);
    if (s.length > 255) throw new ToolError('invalid_input', `A name in ${raw} is longer than 255 characters.`);
  }
  if (segments.length > MEMORY_LIMITS.maxDepth) throw new ToolError('invalid_input', `The path ${raw} is nested deeper than ${MEMORY_LIMITS.maxDepth} folders.`);
  return { shown: segments.length === 0 ? MEMORY_ROOT : `${MEMORY_ROOT}/${segments.join('/')}`, segments };
}

function numbered(lines: readonly string[], first: number): string {
  return lines.map((line, i) => `${String(first + i).padStart(NUMBER_WIDTH, ' ')}\t${line}`).join('\n');
}

/** Text only: a NUL byte or bytes that are not UTF-8 make a note unreadable as text. */
function decode(bytes: Buffer, shown: string): string {
  if (bytes.includes(0)) throw new ToolError('binary', `${shown} is not a text file; memory files hold plain text.`);
  try {
    return new TextDecoder('utf-8', { fatal: true }).decode(bytes);
  } catch {
    throw new ToolError('encoding', `${shown} is not valid UTF-8 text; memory files hold plain text.`);
  }
}

export interface MemoryEntry {
  /** `/memories/…`, with a trailing slash for a folder. */
  path: string;
  /** Bytes (a folder: of the files below it). */
  size: number;
  directory: boolean;
  depth: number;
}

export class MemoryStore {
  /** One command at a time: parallel uses (the tool counts as a read for the loop) must not interleave writes. */
  private queue: Promise<unknown> = Promise.resolve();

  constructor(
    readonly dir: string,
    private readonly limits: MemoryLimits = MEMORY_LIMITS,
  ) {}

  private serial<T>(fn: () => Promise<T>): Promise<T> {
    const next = this.queue.then(fn, fn);
    this.queue = next.catch(() => undefined);
    return next;
  }

  /** The root's real path; undefined while it does not exist. */
  private async realRoot(): Promise<string | undefined> {
    try {
      return await realpath(this.dir);
    } catch (error) {
      if (code(error) === 'ENOENT') return undefined;
      throw error;
    }
  }

  /** Made on the first write: 0700, so no other user can read the notes. */
  private async ensureRoot(): Promise<string> {
    const existing = await this.realRoot();
    if (existing) return existing;
    await mkdir(this.dir, { recursive: true, mode: 0o700 });
    await chmod(this.dir, 0o700);
    return realpath(this.dir);
  }

  /**
   * The absolute path for a checked memory path, after making sure that neither it (when it exists) nor its
   * nearest existing ancestor resolves out of the root: a link in the folder must not lead a read or write
   * anywhere else.
   */
  private async locate(p: MemoryPath, root: string): Promise<string> {
    const target = path.join(root, ...p.segments);
    let current = target;
    for (;;) {
      let real: string | undefined;
      try {
        real = await realpath(current);
      } catch (error) {
        if (code(error) !== 'ENOENT') throw error;
      }
      if (real !== undefined) {
        if (!isWithin(root, real)) throw new ToolError('outside', `${p.shown} leads out of the memory directory through a link; it was not used.`);
        break;
      }
      // A dangling link is not missing: it points somewhere, and a write would follow it.
      const link = await lstat(current).catch(() => undefined);
      if (link?.isSymbolicLink()) throw new ToolError('outside', `${p.shown} leads out of the memory directory through a link; it was not used.`);
      if (current === root) break;
      current = path.dirname(current);
    }
    return target;
  }

  private async fileCount(root: string): Promise<number> {
    let count = 0;
    const walk = async (dir: string, depth: number): Promise<void> => {
      const entries = await readdir(dir, { withFileTypes: true }).catch(() => []);
      for (const e of entries) {
        if (e.isFile()) count++;
        else if (e.isDirectory() && depth < MEMORY_LIMITS.maxDepth) await walk(path.join(dir, e.name), depth + 1);
      }
    };
    await walk(root, 0);
    return count;
  }

  private checkText(text: string, shown: string, what: string): void {
    const secret = findSecret(text);
    if (secret) {
      throw new ToolError(
        'secret',
        `Not written: the ${what} for ${shown} looks like it holds ${secret}. Memory files are plain text that every later session reads; never store credentials, keys or tokens in them. Leave the secret out (say where it is kept instead) and try again.`,
      );
    }
    const bytes = Buffer.byteLength(text, 'utf8');
    if (bytes > this.limits.maxFileBytes) {
      throw new ToolError('too_large', `Not written: ${shown} would be ${formatSize(bytes)}, more than the ${formatSize(this.limits.maxFileBytes)} a memory file may hold. Keep notes short, or split them into several files.`);
    }
  }

  /** temp file beside the target (0600, exclusive, no link followed), then renamed over it. */
  private async writeAtomic(file: string, text: string): Promise<void> {
    const temp = path.join(path.dirname(file), `.tmp-${process.pid}-${randomBytes(6).toString('hex')}`);
    const handle = await createExclusive(temp, 0o600);
    try {
      await handle.writeFile(text, 'utf8');
      await handle.sync();
      await handle.close();
      await rename(temp, file);
    } catch (error) {
      await handle.close().catch(() => undefined);
      await unlink(temp).catch(() => undefined);
      throw error;
    }
  }

  private async readText(file: string, p: MemoryPath): Promise<string> {
    let info;
    try {
      info = await stat(file);
    } catch (error) {
      if (code(error) === 'ENOENT') throw new ToolError('not_found', `The path ${p.shown} does not exist. Please provide a valid path.`);
      throw error;
    }
    if (info.isDirectory()) throw new ToolError('is_directory', `The path ${p.shown} is a directory, not a file.`);
    if (!info.isFile()) throw new ToolError('not_a_file', `The path ${p.shown} is not a file.`);
    if (info.size > this.limits.maxFileBytes * 2) throw new ToolError('too_large', `${p.shown} is ${formatSize(info.size)}, too large for a memory file.`);
    return decode(await readFile(file), p.shown);
  }

  /** The folder's entries up to `levels` below `dirPath` (hidden names skipped), sorted, with sizes. */
  async entries(dirPath = MEMORY_ROOT, levels = 2): Promise<MemoryEntry[]> {
    const p = parseMemoryPath(dirPath);
    const root = await this.realRoot();
    if (!root) return [];
    const start = await this.locate(p, root);
    const out: MemoryEntry[] = [];
    const walk = async (dir: string, shown: string, depth: number): Promise<number> => {
      const listed = await readdir(dir, { withFileTypes: true }).catch(() => []);
      listed.sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
      let total = 0;
      for (const e of listed) {
        if (e.name.startsWith('.') || e.name === 'node_modules') continue;
        const abs = path.join(dir, e.name);
        const child = `${shown}/${e.name}`;
        if (e.isDirectory()) {
          const entry: MemoryEntry = { path: `${child}/`, size: 0, directory: true, depth };
          if (depth <= levels) out.push(entry);
          entry.size = depth < MEMORY_LIMITS.maxDepth ? await walk(abs, child, depth + 1) : 0;
          total += entry.size;
        } else if (e.isFile()) {
          const size = (await stat(abs).catch(() => undefined))?.size ?? 0;
          if (depth <= levels) out.push({ path: child, size, directory: false, depth });
          total += size;
        }
      }
      return total;
    };
    const info = await stat(start).catch(() => undefined);
    if (!info?.isDirectory()) return [];
    await walk(start, p.shown, 1);
    return out;
  }

  view(rawPath: string, range?: readonly [number, number]): Promise<string> {
    return this.serial(async () => {
      const p = parseMemoryPath(rawPath);
      const root = await this.realRoot();
      const file = root ? await this.locate(p, root) : undefined;
      const info = file ? await stat(file).catch(() => undefined) : undefined;
      if (p.segments.length === 0 || info?.isDirectory()) {
        if (range) throw new ToolError('invalid_input', 'The `view_range` parameter is not allowed when `path` points to a directory.');
        const entries = await this.entries(p.shown);
        const total = entries.filter((e) => e.depth === 1).reduce((sum, e) => sum + e.size, 0);
        const lines = [`${formatSize(total)}\t${p.shown}`, ...entries.map((e) => `${formatSize(e.size)}\t${e.path}`)];
        return `Here're the files and directories up to 2 levels deep in ${p.shown}, excluding hidden items and node_modules:\n${lines.join('\n')}`;
      }
      if (!file || !info) throw new ToolError('not_found', `The path ${p.shown} does not exist. Please provide a valid path.`);
      const lines = (await this.readText(file, p)).split('\n');
      let first = 1;
      let last = lines.length;
      if (range) {
        const [start, end] = range;
        if (start < 1 || start > lines.length) throw new ToolError('out_of_range', `Invalid \`view_range\`: ${JSON.stringify(range)}. Its first element ${start} should be within the range of lines of the file: [1, ${lines.length}].`);
        if (end !== -1 && (end < start || end > lines.length)) throw new ToolError('out_of_range', `Invalid \`view_range\`: ${JSON.stringify(range)}. Its second element ${end} should be -1 or within [${start}, ${lines.length}].`);
        first = start;
        last = end === -1 ? lines.length : end;
      }
      return `Here's the content of ${p.shown} with line numbers:\n${numbered(lines.slice(first - 1, last), first)}`;
    });
  }

  create(rawPath: string, text: string): Promise<string> {
    return this.serial(async () => {
      const p = parseMemoryPath(rawPath);
      if (p.segments.length === 0) throw new ToolError('is_directory', `${MEMORY_ROOT} is the memory directory itself; name a file inside it, e.g. ${MEMORY_ROOT}/notes.md.`);
      this.checkText(text, p.shown, 'text');
      const root = await this.ensureRoot();
      const file = await this.locate(p, root);
      if (await lstat(file).catch(() => undefined)) throw new ToolError('invalid_input', `File ${p.shown} already exists. Use str_replace or insert to change it, or delete it first.`);
      if ((await this.fileCount(root)) >= this.limits.maxFiles) {
        throw new ToolError('too_many', `Not written: the memory directory already holds ${this.limits.maxFiles} files, the most it may. Merge or delete notes that are no longer useful first.`);
      }
      await mkdir(path.dirname(file), { recursive: true, mode: 0o700 });
      // The folders just made are checked too: one of them could have been a link made meanwhile.
      await this.locate(p, root);
      await this.writeAtomic(file, text);
      return `File created successfully at: ${p.shown}`;
    });
  }

  /** An existing memory file's path and text, for the commands that change one (str_replace, insert). */
  private async existingText(rawPath: string): Promise<{ p: ReturnType<typeof parseMemoryPath>; file: string; text: string }> {
    const p = parseMemoryPath(rawPath);
    const root = await this.realRoot();
    if (!root) throw new ToolError('not_found', `The path ${p.shown} does not exist. Please provide a valid path.`);
    const file = await this.locate(p, root);
    return { p, file, text: await this.readText(file, p) };
  }

  strReplace(rawPath: string, oldStr: string, newStr: string): Promise<string> {
    return this.serial(async () => {
      const { p, file, text } = await this.existingText(rawPath);
      if (oldStr === '') throw new ToolError('invalid_input', 'old_str is empty; give the exact text to replace.');
      const at = text.indexOf(oldStr);
      if (at < 0) throw new ToolError('no_match', `No replacement was performed, old_str \`${oldStr}\` did not appear verbatim in ${p.shown}.`);
      if (text.indexOf(oldStr, at + 1) >= 0) {
        const lines: number[] = [];
        for (let i = text.indexOf(oldStr); i >= 0; i = text.indexOf(oldStr, i + 1)) lines.push(text.slice(0, i).split('\n').length);
        throw new ToolError('ambiguous', `No replacement was performed. Multiple occurrences of old_str \`${oldStr}\` in lines: ${[...new Set(lines)].join(', ')}. Please ensure it is unique`);
      }
      const after = text.slice(0, at) + newStr + text.slice(at + oldStr.length);
      this.checkText(after, p.shown, 'new text');
      await this.writeAtomic(file, after);
      const lines = after.split('\n');
      const changed = text.slice(0, at).split('\n').length - 1;
      const from = Math.max(0, changed - 2);
      const to = Math.min(lines.length, changed + newStr.split('\n').length + 2);
      return `The memory file has been edited. Here is the snippet showing the change (with line numbers):\n${numbered(lines.slice(from, to), from + 1)}`;
    });
  }

  insert(rawPath: string, line: number, insertText: string): Promise<string> {
    return this.serial(async () => {
      const { p, file, text } = await this.existingText(rawPath);
      const lines = text.split('\n');
      if (!Number.isInteger(line) || line < 0 || line > lines.length) {
        throw new ToolError('out_of_range', `Invalid \`insert_line\` parameter: ${line}. It should be within the range of lines of the file: [0, ${lines.length}]`);
      }
      lines.splice(line, 0, insertText.replace(/\n$/, ''));
      const after = lines.join('\n');
      this.checkText(after, p.shown, 'new text');
      await this.writeAtomic(file, after);
      return `The file ${p.shown} has been edited.`;
    });
  }

  delete(rawPath: string): Promise<string> {
    return this.serial(async () => {
      const p = parseMemoryPath(rawPath);
      if (p.segments.length === 0) throw new ToolError('invalid_input', `Cannot delete the ${MEMORY_ROOT} directory itself.`);
      const root = await this.realRoot();
      if (!root) throw new ToolError('not_found', `The path ${p.shown} does not exist.`);
      const target = path.join(root, ...p.segments);
      // A link is removed itself (never what it points to); anything else is checked like every other use.
      const link = await lstat(target).catch(() => undefined);
      if (!link) throw new ToolError('not_found', `The path ${p.shown} does not exist.`);
      if (!link.isSymbolicLink()) await this.locate(p, root);
      else await this.locate({ shown: p.shown, segments: p.segments.slice(0, -1) }, root);
      await rm(target, { recursive: true, force: false });
      return `Successfully deleted ${p.shown}`;
    });
  }

  rename(rawOld: string, rawNew: string): Promise<string> {
    return this.serial(async () => {
      const from = parseMemoryPath(rawOld);
      const to = parseMemoryPath(rawNew);
      if (from.segments.length === 0 || to.segments.length === 0) throw new ToolError('invalid_input', `Cannot rename the ${MEMORY_ROOT} directory itself.`);
      const root = await this.realRoot();
      if (!root) throw new ToolError('not_found', `The path ${from.shown} does not exist.`);
      const source = await this.locate(from, root);
      const target = await this.locate(to, root);
      if (!(await lstat(source).catch(() => undefined))) throw new ToolError('not_found', `The path ${from.shown} does not exist.`);
      if (await lstat(target).catch(() => undefined)) throw new ToolError('invalid_input', `The destination ${to.shown} already exists.`);
      if (isWithin(source, target)) throw new ToolError('invalid_input', `Cannot move ${from.shown} into itself (${to.shown}).`);
      await mkdir(path.dirname(target), { recursive: true, mode: 0o700 });
      await this.locate(to, root);
      await rename(source, target);
      return `Successfully renamed ${from.shown} to ${to.shown}`;
    });
  }
}
