// Agent Skills (contracts.md "Skills"): folders holding a SKILL.md whose front
// matter names the skill and says when to use it. Only the names and
// descriptions go into the cached system prefix; the body is read when the
// model calls the `skill` tool, and the folder's other files may then be read
// with read_file (see src/tools/skill/). Workspace skills only in a trusted
// workspace; a workspace skill wins over the user's own of the same name.
import { definitionEntries, type DefinitionFolder, openDefinitionFolder, readDefinitionFile, workspaceLabel } from './definition-files';
import { parseDefinitionText, textAttribute } from './front-matter';
import { type InstructionReader } from './instructions';
import { type SensitiveMatcher } from '../policy/sensitive-files';
import { cutHead } from '../text-cut';

export const SKILL_FILE = 'SKILL.md';
export const WORKSPACE_SKILL_DIRS = ['.turnstone/skills', '.claude/skills', '.github/skills'] as const;
export const USER_SKILL_DIR = '.turnstone/skills';
const SKILL_NAME = /^[A-Za-z0-9][A-Za-z0-9_.:-]{0,63}$/;
const MAX_DESCRIPTION_CHARS = 1024;

export interface Skill {
  name: string;
  description: string;
  /** The skill's folder as found (absolute). */
  dir: string;
  /** The folder after links: what read_file may read under, and nothing outside it. */
  realDir: string;
  /** `.claude/skills/pdf` or `~/.turnstone/skills/pdf`. */
  label: string;
  scope: 'workspace' | 'user' | 'plugin';
}

export interface SkillSet {
  /** Sorted by name. */
  skills: Skill[];
  /** Skipped folders and files, one sentence each. */
  problems: string[];
}

export interface SkillSources {
  workspaceFolders: readonly string[];
  /** The user's home folder; absent: no user skills. */
  home?: string | undefined;
  /** Workspace skills are read only in a trusted workspace. */
  trusted: boolean;
  sensitive?: SensitiveMatcher | undefined;
}

function baseName(reader: InstructionReader, p: string): string {
  const parts = reader.join(p).split(/[\\/]/).filter((s) => s !== '');
  return parts[parts.length - 1] ?? p;
}

/** The folders searched, in precedence order: each workspace folder's three, then the user's. */
async function skillFolders(reader: InstructionReader, sources: SkillSources): Promise<DefinitionFolder[]> {
  const folders: DefinitionFolder[] = [];
  if (sources.trusted) {
    for (const [index, root] of sources.workspaceFolders.entries()) {
      const rootEntry = await reader.stat(root).catch(() => undefined);
      if (!rootEntry) continue;
      for (const rel of WORKSPACE_SKILL_DIRS) {
        folders.push({ path: reader.join(root, ...rel.split('/')), label: workspaceLabel(baseName(reader, root), index, rel), scope: 'workspace', workspaceRealRoot: rootEntry.realPath });
      }
    }
  }
  if (sources.home) folders.push({ path: reader.join(sources.home, ...USER_SKILL_DIR.split('/')), label: `~/${USER_SKILL_DIR}`, scope: 'user' });
  return folders;
}

/** Finds the skills. Never throws: what cannot be used is a problem line. */
export async function discoverSkills(reader: InstructionReader, sources: SkillSources): Promise<SkillSet> {
  const problems: string[] = [];
  const byName = new Map<string, Skill>();
  for (const folder of await skillFolders(reader, sources)) {
    const entry = await openDefinitionFolder(reader, folder, problems);
    if (!entry) continue;
    for (const child of await definitionEntries(reader, folder, problems)) {
      const label = `${folder.label}/${child}`;
      const dir = reader.join(folder.path, child);
      const dirEntry = await reader.stat(dir).catch(() => undefined);
      if (dirEntry?.type !== 'dir') continue;
      // A skill folder that leads elsewhere is only the user's choice in the user's own folder.
      if (folder.workspaceRealRoot !== undefined && !reader.isWithin(folder.workspaceRealRoot, dirEntry.realPath)) {
        problems.push(`${label}/ was not read: it is a link to a place outside the workspace.`);
        continue;
      }
      const read = await readDefinitionFile(reader, reader.join(dir, SKILL_FILE), `${label}/${SKILL_FILE}`, dirEntry.realPath, sources.sensitive);
      if (read.kind === 'absent') continue;
      if (read.kind === 'skipped') {
        problems.push(read.problem);
        continue;
      }
      const parsed = parseDefinitionText(read.text);
      for (const p of parsed.problems) problems.push(`${label}/${SKILL_FILE}: ${p}.`);
      const name = textAttribute(parsed.attributes, 'name')?.trim() || child;
      const description = textAttribute(parsed.attributes, 'description')?.replace(/\s+/g, ' ').trim() ?? '';
      if (!SKILL_NAME.test(name)) {
        problems.push(`${label}/${SKILL_FILE} is not used: '${cutHead(name, 80)}' is not a usable skill name (letters, digits, '.', '_', ':' and '-').`);
        continue;
      }
      if (description === '') {
        problems.push(`${label}/${SKILL_FILE} is not used: its front matter has no \`description\` (the model picks a skill by it).`);
        continue;
      }
      const existing = byName.get(name);
      if (existing) {
        problems.push(`${label} is not used: the skill '${name}' from ${existing.label} comes first.`);
        continue;
      }
      byName.set(name, { name, description: cutHead(description, MAX_DESCRIPTION_CHARS), dir, realDir: dirEntry.realPath, label, scope: folder.scope });
    }
  }
  return { skills: [...byName.values()].sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0)), problems };
}

export interface SkillPromptLimits {
  /** Skills listed at most. */
  maxSkills: number;
  /** Characters of the whole section at most. */
  maxChars: number;
  /** Characters of one description at most. */
  maxDescriptionChars: number;
}

export const DEFAULT_SKILL_PROMPT_LIMITS: SkillPromptLimits = { maxSkills: 50, maxChars: 8_000, maxDescriptionChars: 300 };

export interface SkillPromptSection {
  /** Empty when there are no skills. */
  text: string;
  /** Names of the skills that did not fit, in order. */
  cut: string[];
}

/**
 * The system prompt's skills section: one line per skill, by name, so the
 * cached prefix is the same from request to request while the skills are.
 * Only names and descriptions: a body costs tokens only when it is used.
 */
export function skillPromptSection(skills: readonly Pick<Skill, 'name' | 'description'>[], limits: SkillPromptLimits = DEFAULT_SKILL_PROMPT_LIMITS): SkillPromptSection {
  if (skills.length === 0) return { text: '', cut: [] };
  const sorted = [...skills].sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
  const head = 'Skills: folders of instructions (and files) for particular tasks. When a task matches a skill\'s description, call the skill tool with its name before you start; it returns the instructions and lists the files you may then read with read_file.';
  const lines: string[] = [];
  const cut: string[] = [];
  let chars = head.length;
  for (const skill of sorted) {
    const description = skill.description.length > limits.maxDescriptionChars ? `${cutHead(skill.description, limits.maxDescriptionChars - 1)}…` : skill.description;
    const line = `- ${skill.name}: ${description}`;
    if (lines.length >= limits.maxSkills || chars + line.length + 1 > limits.maxChars) {
      cut.push(skill.name);
      continue;
    }
    lines.push(line);
    chars += line.length + 1;
  }
  if (cut.length > 0) {
    const named = cut.slice(0, 20).join(', ') + (cut.length > 20 ? ', …' : '');
    lines.push(`(${cut.length} more not listed here, to keep this short: ${named}. The skill tool loads them by name too.)`);
  }
  return { text: [head, ...lines].join('\n'), cut };
}

/** The problem line for skills the prompt section left out. */
export function skillCutNote(cut: readonly string[], limits: SkillPromptLimits = DEFAULT_SKILL_PROMPT_LIMITS): string | undefined {
  if (cut.length === 0) return undefined;
  return `${cut.length} skill${cut.length === 1 ? ' was' : 's were'} left out of the system prompt (at most ${limits.maxSkills} skills and ${limits.maxChars.toLocaleString('en-US')} characters): ${cut.join(', ')}. The skill tool still loads them by name.`;
}

/** What `/skills` shows, in the panel and the CLI: each skill's name, description and where it is from. */
export function skillListing(set: SkillSet): string {
  const lines =
    set.skills.length === 0
      ? ['No skills found. A skill is a folder holding a SKILL.md (front matter `name`, `description`) in .turnstone/skills/, .claude/skills/ or .github/skills/ of the workspace (trusted only), or in ~/.turnstone/skills/.']
      : [`${set.skills.length} skill${set.skills.length === 1 ? '' : 's'}:`, ...set.skills.map((s) => `- ${s.name}: ${s.description} (${s.label})`)];
  if (set.problems.length > 0) lines.push('', 'Not used:', ...set.problems.map((p) => `- ${p}`));
  return lines.join('\n');
}
