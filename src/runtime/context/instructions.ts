// Project instructions (contracts.md "Project instructions"): the files users
// of other agents already keep in their repositories, read at the start of
// every turn and put into the cached system prefix after Turnstone's own
// prompt. Reading goes through a small port so the editor reads through
// vscode.workspace.fs and the CLI through node:fs; what is read, in which
// order, how it is capped and how a symlink is judged is decided once, here.
import { type SensitiveMatcher } from '../policy/sensitive-files';

import { cutHead } from '../text-cut';

/** What a reader can say about a path (absolute, in the reader's own path syntax). */
export interface InstructionEntry {
  type: 'file' | 'dir' | 'other';
  /** The path after following symlinks; used to refuse links leading out of the workspace. */
  realPath: string;
}

export interface InstructionReader {
  /** undefined when nothing is there. */
  stat(path: string): Promise<InstructionEntry | undefined>;
  readFile(path: string): Promise<Uint8Array>;
  /** Entry names of a folder. */
  readDir(path: string): Promise<string[]>;
  join(...parts: string[]): string;
  /** True when `path` is `root` or inside it (both real paths). */
  isWithin(root: string, path: string): boolean;
}

export interface InstructionSources {
  workspaceRoot: string;
  /** The user's home folder; its `.turnstone/AGENTS.md` applies to every project. Absent: skipped. */
  homeDir?: string;
  /** Which files hold secrets (the built-in list plus the user's globs): a file that is, or leads to, one is never read. */
  sensitive: SensitiveMatcher;
}

/**
 * Why a file found under `label` must not be read into the prompt: its real path names a secret file (an
 * `AGENTS.md` that is a link to `.env` would otherwise put the secret into every request, in plan mode too).
 */
export function secretBehind(sensitive: SensitiveMatcher, label: string, realPath: string, realRoot?: string): string | undefined {
  const within = realRoot !== undefined && realPath.startsWith(realRoot) ? realPath.slice(realRoot.length).replace(/^[\\/]+/, '') : undefined;
  const pattern = sensitive(label) ?? (within !== undefined ? sensitive(within) : undefined) ?? sensitive(realPath);
  return pattern && `${label} was not read: it leads to ${within ?? realPath}, a file that may hold secrets (matches ${pattern}).`;
}

export interface InstructionLimits {
  /** Characters kept of one file. */
  perFile: number;
  /** Characters kept over all files. */
  total: number;
}

export const DEFAULT_INSTRUCTION_LIMITS: InstructionLimits = { perFile: 32_000, total: 64_000 };

/** Files of a folder source (`.clinerules/`, `.roo/rules/`) beyond this are left out. */
const MAX_FOLDER_FILES = 50;

export interface InstructionFile {
  /** How the prompt and the panel name it: workspace-relative (`AGENTS.md`, `.clinerules/style.md`) or `~/.turnstone/AGENTS.md`. */
  label: string;
  /** Absolute path, for opening it. */
  path: string;
  /** Characters in the file. */
  chars: number;
  /** Characters that went into the prompt (less than `chars` when cut). */
  included: number;
  scope: 'workspace' | 'user';
}

export interface ProjectInstructions {
  files: InstructionFile[];
  /** What was cut or skipped, one sentence each, for the panel and the log. */
  notes: string[];
  /** The block for the system prompt (`extra`); empty when no file was found. */
  text: string;
}

type Candidate = { rel: string; kind: 'file' } | { rel: string; kind: 'file-or-dir' } | { rel: string; kind: 'dir' };

/** In this order; a later file never pushes an earlier one out of the total cap. */
const WORKSPACE_SOURCES: Candidate[] = [
  { rel: 'AGENTS.md', kind: 'file' },
  { rel: 'CLAUDE.md', kind: 'file' },
  { rel: '.github/copilot-instructions.md', kind: 'file' },
  { rel: '.clinerules', kind: 'file-or-dir' },
  // Roo Code (stopped in 2026): its users' rules keep working as they are.
  { rel: '.roorules', kind: 'file' },
  { rel: '.roo/rules', kind: 'dir' },
];

const USER_FILE = ['.turnstone', 'AGENTS.md'];
const USER_LABEL = '~/.turnstone/AGENTS.md';

const isRuleFile = (name: string) => /\.(md|mdc|txt)$/i.test(name);

/**
 * Finds and reads the instruction files. Never throws for a missing or
 * unreadable file: it is skipped (and named in `notes` when it exists but
 * cannot be used). Deterministic for unchanged files, so the system prefix,
 * and with it the prompt cache, stays the same from turn to turn.
 */
export async function loadProjectInstructions(
  reader: InstructionReader,
  sources: InstructionSources,
  limits: InstructionLimits = DEFAULT_INSTRUCTION_LIMITS,
): Promise<ProjectInstructions> {
  const notes: string[] = [];
  const found: { label: string; path: string; scope: InstructionFile['scope'] }[] = [];
  const rootEntry = await reader.stat(sources.workspaceRoot).catch(() => undefined);
  const realRoot = rootEntry?.realPath ?? sources.workspaceRoot;
  const { sensitive } = sources;

  /** A workspace path is used only if, after symlinks, it is still inside the workspace and no secret file. */
  const inside = async (abs: string, label: string): Promise<InstructionEntry | undefined> => {
    const entry = await reader.stat(abs).catch(() => undefined);
    if (!entry) return undefined;
    if (!reader.isWithin(realRoot, entry.realPath)) {
      notes.push(`${label} was not read: it is a link to a place outside the workspace.`);
      return undefined;
    }
    const secret = entry.type === 'file' ? secretBehind(sensitive, label, entry.realPath, realRoot) : undefined;
    if (secret) {
      notes.push(secret);
      return undefined;
    }
    return entry;
  };

  if (rootEntry) {
    for (const source of WORKSPACE_SOURCES) {
      const abs = reader.join(sources.workspaceRoot, ...source.rel.split('/'));
      const entry = await inside(abs, source.rel);
      if (!entry) continue;
      if (entry.type === 'file' && source.kind !== 'dir') {
        found.push({ label: source.rel, path: abs, scope: 'workspace' });
      } else if (entry.type === 'dir' && source.kind !== 'file') {
        const names = (await reader.readDir(abs).catch(() => [])).filter(isRuleFile).sort();
        if (names.length > MAX_FOLDER_FILES) notes.push(`${source.rel}/ has ${names.length} rule files; only the first ${MAX_FOLDER_FILES} (by name) were read.`);
        for (const name of names.slice(0, MAX_FOLDER_FILES)) {
          const label = `${source.rel}/${name}`;
          const child = reader.join(abs, name);
          const childEntry = await inside(child, label);
          if (childEntry?.type === 'file') found.push({ label, path: child, scope: 'workspace' });
        }
      }
    }
  }
  if (sources.homeDir) {
    const abs = reader.join(sources.homeDir, ...USER_FILE);
    // The user's own file: a link there is the user's choice, so it is followed.
    const entry = await reader.stat(abs).catch(() => undefined);
    const secret = entry?.type === 'file' ? secretBehind(sensitive, USER_LABEL, entry.realPath) : undefined;
    if (secret) notes.push(secret);
    else if (entry?.type === 'file') found.push({ label: USER_LABEL, path: abs, scope: 'user' });
  }

  const files: InstructionFile[] = [];
  const sections: string[] = [];
  let budget = limits.total;
  for (const f of found) {
    let content: string;
    try {
      content = decodeInstructionText(await reader.readFile(f.path));
    } catch (error) {
      notes.push(`${f.label} could not be read (${error instanceof Error ? error.message : String(error)}).`);
      continue;
    }
    content = content.trim();
    if (content === '') continue;
    if (budget <= 0) {
      notes.push(`${f.label} was left out: the instruction files already fill the ${limits.total.toLocaleString('en-US')}-character total.`);
      continue;
    }
    const room = Math.min(limits.perFile, budget);
    let body = cutHead(content, room);
    const keep = body.length;
    if (keep < content.length) {
      const why = room === limits.perFile ? `the ${limits.perFile.toLocaleString('en-US')}-character cap per file` : `the ${limits.total.toLocaleString('en-US')}-character total for all instruction files`;
      const note = `${f.label} was cut to its first ${keep.toLocaleString('en-US')} of ${content.length.toLocaleString('en-US')} characters (${why}).`;
      notes.push(note);
      body += `\n[Turnstone: ${note}]`;
    }
    budget -= keep;
    files.push({ label: f.label, path: f.path, chars: content.length, included: keep, scope: f.scope });
    sections.push(`Instructions from ${f.label}:\n${body}`);
  }
  const text =
    sections.length === 0
      ? ''
      : [
          "Project instructions. The user keeps these files to tell coding agents how to work on this project; follow them unless they conflict with the user's request or with what is allowed.",
          ...sections,
        ].join('\n\n');
  return { files, notes, text };
}

/** UTF-8 (a BOM dropped); a file with NUL bytes is binary and refused. */
function decodeInstructionText(bytes: Uint8Array): string {
  if (bytes.includes(0)) throw new Error('it is a binary file');
  const text = new TextDecoder('utf-8').decode(bytes);
  return text.charCodeAt(0) === 0xfeff ? text.slice(1) : text;
}
