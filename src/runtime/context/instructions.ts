// Project instructions (contracts.md "Project instructions"): the files users
// of other agents already keep in their repositories, read at the start of
// every turn and put into the cached system prefix after Turnstone's own
// prompt. Rule folders with front matter (Cursor's `.cursor/rules/*.mdc`,
// Copilot's `.github/instructions/*.instructions.md`) say when a rule applies:
// always (into the prompt), for some paths (path-scoped.ts sends it with a
// matching file's tool result) or when relevant (listed by description, for
// the model to read). Reading goes through a small port so the editor reads through
// vscode.workspace.fs and the CLI through node:fs; what is read, in which
// order, how it is capped and how a symlink is judged is decided once, here.
import { type SensitiveMatcher } from '../policy/sensitive-files';

import { cutHead } from '../text-cut';
import { type FrontMatterValue, parseDefinitionText, textAttribute } from './front-matter';

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
  /**
   * How a rule file with front matter (`.cursor/rules/*.mdc`, `.github/instructions/*.instructions.md`) applies:
   * `path` ones reach the model with a tool result for a matching file, `listed` ones are named (with their
   * description) for the model to read when relevant. Absent: in the system prompt, like every other file.
   */
  applies?: 'path' | 'listed';
}

/** A rule that applies only to some files: sent once per session beside the result of reading or editing a matching one. */
export interface PathScopedRule {
  /** As in InstructionFile. */
  label: string;
  /** Workspace-relative globs (picomatch; one without `/` matches a file's name in any folder). */
  globs: string[];
  /** The rule's body, capped like an instruction file. */
  text: string;
}

export interface ProjectInstructions {
  files: InstructionFile[];
  /** What was cut or skipped, one sentence each, for the panel and the log. */
  notes: string[];
  /** The block for the system prompt (`extra`); empty when no file was found. */
  text: string;
  /** Path-scoped rules (see PathScopedInstructions); absent when there are none. */
  pathScoped?: PathScopedRule[];
}

/** Rule folders whose files say in front matter when they apply: Cursor's rules, Copilot's path instructions. */
type RuleFormat = 'cursor' | 'copilot';

type Candidate =
  | { rel: string; kind: 'file' }
  | { rel: string; kind: 'file-or-dir' }
  | { rel: string; kind: 'dir' }
  | { rel: string; kind: 'rules'; format: RuleFormat };

/** In this order; a later file never pushes an earlier one out of the total cap. */
const WORKSPACE_SOURCES: Candidate[] = [
  { rel: 'AGENTS.md', kind: 'file' },
  { rel: 'CLAUDE.md', kind: 'file' },
  { rel: 'GEMINI.md', kind: 'file' },
  { rel: '.github/copilot-instructions.md', kind: 'file' },
  { rel: '.github/instructions', kind: 'rules', format: 'copilot' },
  { rel: '.clinerules', kind: 'file-or-dir' },
  // Roo Code (stopped in 2026): its users' rules keep working as they are.
  { rel: '.roorules', kind: 'file' },
  { rel: '.roo/rules', kind: 'dir' },
  // Cursor: the old single file, and the rules folder.
  { rel: '.cursorrules', kind: 'file' },
  { rel: '.cursor/rules', kind: 'rules', format: 'cursor' },
];

const USER_FILE = ['.turnstone', 'AGENTS.md'];
const USER_LABEL = '~/.turnstone/AGENTS.md';

const isRuleFile = (name: string) => /\.(md|mdc|txt)$/i.test(name);
const RULE_FILE_NAMES: Record<RuleFormat, RegExp> = { cursor: /\.mdc?$/i, copilot: /\.instructions\.md$/i };

/** Globs that mean "every file": such a rule is simply always on. */
const EVERY_FILE = new Set(['**', '**/*', '*']);

/**
 * `a, b` or a YAML list of them → the globs; a comma inside braces (`*.{ts,tsx}`) belongs to its glob.
 * A leading `./` or `/` is dropped: the globs are relative to the workspace root.
 */
export function splitGlobs(value: FrontMatterValue | undefined): string[] {
  const globs: string[] = [];
  for (const item of value === undefined ? [] : Array.isArray(value) ? value : [value]) {
    let depth = 0;
    let current = '';
    for (const ch of item) {
      if (ch === '{') depth++;
      else if (ch === '}') depth = Math.max(0, depth - 1);
      if (ch === ',' && depth === 0) {
        globs.push(current);
        current = '';
      } else current += ch;
    }
    globs.push(current);
  }
  return globs.map((g) => g.trim().replace(/^(['"])(.*)\1$/, '$2').replace(/^\.?\//, '')).filter((g) => g !== '');
}

export interface RuleFileMeaning {
  applies: 'always' | 'path' | 'listed';
  /** For `path`: where it applies. */
  globs: string[];
  /** For `listed`: what the model is told about it (may be empty). */
  description: string;
  body: string;
  /** Front-matter problems, one phrase each (the caller names the file). */
  problems: string[];
}

/**
 * When a rule file applies. Cursor (`.mdc`): `alwaysApply: true` → always; `globs` → for matching files;
 * otherwise listed by its `description` ("agent requested"; a rule with neither is one the user names).
 * Copilot (`.instructions.md`): `applyTo` globs, `**` meaning always; without `applyTo` it is listed.
 */
export function ruleFileMeaning(format: RuleFormat, text: string): RuleFileMeaning {
  const parsed = parseDefinitionText(text);
  const a = parsed.attributes;
  const description = (textAttribute(a, 'description') ?? '').replace(/\s+/g, ' ').trim();
  const always = format === 'cursor' && /^(true|yes)$/i.test(textAttribute(a, 'alwaysapply') ?? '');
  const globs = splitGlobs(format === 'cursor' ? a['globs'] : a['applyto']);
  const applies = always || globs.some((g) => EVERY_FILE.has(g)) ? 'always' : globs.length > 0 ? 'path' : 'listed';
  return { applies, globs: applies === 'path' ? globs : [], description, body: parsed.body, problems: parsed.problems };
}

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
  const found: { label: string; path: string; scope: InstructionFile['scope']; format?: RuleFormat }[] = [];
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
      const format = source.kind === 'rules' ? source.format : undefined;
      if (entry.type === 'file' && (source.kind === 'file' || source.kind === 'file-or-dir')) {
        found.push({ label: source.rel, path: abs, scope: 'workspace' });
      } else if (entry.type === 'dir' && source.kind !== 'file') {
        const names = (await reader.readDir(abs).catch(() => [])).filter(format ? (n) => RULE_FILE_NAMES[format].test(n) : isRuleFile).sort();
        if (names.length > MAX_FOLDER_FILES) notes.push(`${source.rel}/ has ${names.length} rule files; only the first ${MAX_FOLDER_FILES} (by name) were read.`);
        for (const name of names.slice(0, MAX_FOLDER_FILES)) {
          const label = `${source.rel}/${name}`;
          const child = reader.join(abs, name);
          const childEntry = await inside(child, label);
          if (childEntry?.type === 'file') found.push({ label, path: child, scope: 'workspace', ...(format ? { format } : {}) });
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
  const listed: string[] = [];
  const pathScoped: PathScopedRule[] = [];
  let budget = limits.total;
  // Path-scoped rules are not in the prompt: they have a total of their own, the same size.
  let scopedBudget = limits.total;
  for (const f of found) {
    let content: string;
    try {
      content = decodeInstructionText(await reader.readFile(f.path));
    } catch (error) {
      notes.push(`${f.label} could not be read (${error instanceof Error ? error.message : String(error)}).`);
      continue;
    }
    if (f.format) {
      const meaning = ruleFileMeaning(f.format, content);
      for (const problem of meaning.problems) notes.push(`${f.label}: ${problem}.`);
      content = meaning.body.trim();
      if (content === '') continue;
      if (meaning.applies === 'listed') {
        // Its line counts against the prompt's total like a file would.
        const line = `- ${f.label}: ${cutHead(meaning.description, 200) || 'no description (a rule the user names when they want it)'}`;
        if (line.length > budget) {
          notes.push(`${f.label} was left out of the list of rules: the instruction files already fill the ${limits.total.toLocaleString('en-US')}-character total.`);
          continue;
        }
        budget -= line.length;
        listed.push(line);
        files.push({ label: f.label, path: f.path, chars: content.length, included: content.length, scope: f.scope, applies: 'listed' });
        continue;
      }
      if (meaning.applies === 'path') {
        if (scopedBudget <= 0) {
          notes.push(`${f.label} was left out: the path-scoped rules already fill the ${limits.total.toLocaleString('en-US')}-character total.`);
          continue;
        }
        const room = Math.min(limits.perFile, scopedBudget);
        let body = cutHead(content, room);
        const keep = body.length;
        if (keep < content.length) {
          const note = `${f.label} was cut to its first ${keep.toLocaleString('en-US')} of ${content.length.toLocaleString('en-US')} characters (${room === limits.perFile ? `the ${limits.perFile.toLocaleString('en-US')}-character cap per file` : `the ${limits.total.toLocaleString('en-US')}-character total for path-scoped rules`}).`;
          notes.push(note);
          body += `\n[Turnstone: ${note}]`;
        }
        scopedBudget -= keep;
        pathScoped.push({ label: f.label, globs: meaning.globs, text: body });
        files.push({ label: f.label, path: f.path, chars: content.length, included: keep, scope: f.scope, applies: 'path' });
        continue;
      }
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
  if (listed.length > 0) sections.push(`Rules kept in files of their own: read one with read_file when the task matches its description.\n${listed.join('\n')}`);
  if (pathScoped.length > 0)
    sections.push(
      `Rules for some files only: each comes with the result of read_file, edit_file or write_file the first time a matching file is used.\n${pathScoped.map((r) => `- ${r.label}: ${r.globs.join(', ')}`).join('\n')}`,
    );
  const text =
    sections.length === 0
      ? ''
      : [
          "Project instructions. The user keeps these files to tell coding agents how to work on this project; follow them unless they conflict with the user's request or with what is allowed.",
          ...sections,
        ].join('\n\n');
  return { files, notes, text, ...(pathScoped.length > 0 ? { pathScoped } : {}) };
}

/** UTF-8 (a BOM dropped); a file with NUL bytes is binary and refused. */
function decodeInstructionText(bytes: Uint8Array): string {
  if (bytes.includes(0)) throw new Error('it is a binary file');
  const text = new TextDecoder('utf-8').decode(bytes);
  return text.charCodeAt(0) === 0xfeff ? text.slice(1) : text;
}
