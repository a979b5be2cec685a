// Custom agents (contracts.md "Subagents"): Markdown files whose front matter
// (`name`, `description`, `tools`, `model`) describes a subagent and whose body
// is its system prompt, in the folders Claude Code and Copilot users already
// keep them in. This only finds and reads them; the `agent` tool decides what
// they may do (their `tools` can only narrow the parent's).
import { definitionEntries, type DefinitionFolder, openDefinitionFolder, readDefinitionFile, workspaceLabel } from '../runtime/context/definition-files';
import { listAttribute, parseDefinitionText, textAttribute } from '../runtime/context/front-matter';
import { type InstructionReader } from '../runtime/context/instructions';
import { nodeInstructionReader } from '../runtime/context/instructions-node';
import { type SensitiveMatcher } from '../runtime/policy/sensitive-files';
import { cutHead } from '../runtime/text-cut';

export interface CustomAgentDefinition {
  name: string;
  description: string;
  /** Tool names the agent may use (narrowing the parent's); absent: the parent's. */
  tools?: string[];
  model?: string;
  systemPrompt: string;
  /** The file it came from (absolute). */
  source: string;
  scope: 'workspace' | 'user' | 'plugin';
}

/** The built-in agents' names: a file cannot take them over. */
export const RESERVED_AGENT_NAMES: readonly string[] = ['explore', 'general'];

/** Where definitions live, relative to a workspace folder, and the file name ending each uses. */
const WORKSPACE_AGENT_DIRS = [
  { rel: '.turnstone/agents', suffix: '.md' },
  { rel: '.claude/agents', suffix: '.md' },
  { rel: '.github/agents', suffix: '.agent.md' },
] as const;
const USER_AGENT_DIR = '.turnstone/agents';
const AGENT_NAME = /^[A-Za-z0-9][A-Za-z0-9_.-]{0,63}$/;
const MAX_DESCRIPTION_CHARS = 1024;

export interface CustomAgentSources {
  workspaceFolders: string[];
  home: string;
  /** Workspace definitions are read only in a trusted workspace. */
  trusted: boolean;
  /** Which files hold secrets: a definition that is a link to one is skipped. */
  sensitive?: SensitiveMatcher;
  /** How files are read (default: node:fs). */
  reader?: InstructionReader;
}

function lastSegment(p: string): string {
  const parts = p.split(/[\\/]/).filter((s) => s !== '');
  return parts[parts.length - 1] ?? p;
}

async function agentFolders(reader: InstructionReader, opts: CustomAgentSources): Promise<(DefinitionFolder & { suffix: string })[]> {
  const folders: (DefinitionFolder & { suffix: string })[] = [];
  if (opts.trusted) {
    for (const [index, root] of opts.workspaceFolders.entries()) {
      const rootEntry = await reader.stat(root).catch(() => undefined);
      if (!rootEntry) continue;
      for (const dir of WORKSPACE_AGENT_DIRS) {
        const label = workspaceLabel(lastSegment(root), index, dir.rel);
        folders.push({ path: reader.join(root, ...dir.rel.split('/')), label, scope: 'workspace', workspaceRealRoot: rootEntry.realPath, suffix: dir.suffix });
      }
    }
  }
  folders.push({ path: reader.join(opts.home, ...USER_AGENT_DIR.split('/')), label: `~/${USER_AGENT_DIR}`, scope: 'user', suffix: '.md' });
  return folders;
}

/** One file's definition, or why it cannot be used (plugins' agent files are read with it too). */
export function definitionOf(text: string, fileName: string, suffix: string, label: string): { agent?: Omit<CustomAgentDefinition, 'source' | 'scope'>; problems: string[] } {
  const parsed = parseDefinitionText(text);
  const problems = parsed.problems.map((p) => `${label}: ${p}.`);
  const name = textAttribute(parsed.attributes, 'name')?.trim() || fileName.slice(0, -suffix.length);
  const description = textAttribute(parsed.attributes, 'description')?.replace(/\s+/g, ' ').trim() ?? '';
  const systemPrompt = parsed.body.trim();
  if (!AGENT_NAME.test(name)) return { problems: [...problems, `${label} is not used: '${cutHead(name, 80)}' is not a usable agent name (letters, digits, '.', '_' and '-').`] };
  if (RESERVED_AGENT_NAMES.includes(name.toLowerCase())) return { problems: [...problems, `${label} is not used: '${name}' is the name of a built-in agent; give it another name.`] };
  if (description === '') return { problems: [...problems, `${label} is not used: its front matter has no \`description\` (the model picks an agent by it).`] };
  if (systemPrompt === '') return { problems: [...problems, `${label} is not used: it has no text after the front matter to be the agent's system prompt.`] };
  const tools = listAttribute(parsed.attributes, 'tools');
  const model = textAttribute(parsed.attributes, 'model')?.trim();
  return {
    problems,
    agent: {
      name,
      description: cutHead(description, MAX_DESCRIPTION_CHARS),
      ...(tools !== undefined ? { tools } : {}),
      // Claude Code writes `model: inherit` for "the parent's model".
      ...(model && model !== 'inherit' ? { model } : {}),
      systemPrompt,
    },
  };
}

/**
 * Finds the custom agents. Workspace definitions (a trusted workspace only)
 * come before the user's, so a project's agent wins over a user's of the same
 * name; within the workspace, `.turnstone/` before `.claude/` before `.github/`.
 * Never throws: a file that cannot be used is a problem line.
 */
export async function discoverCustomAgents(opts: CustomAgentSources): Promise<{ agents: CustomAgentDefinition[]; problems: string[] }> {
  const reader = opts.reader ?? nodeInstructionReader;
  const problems: string[] = [];
  const byName = new Map<string, CustomAgentDefinition & { label: string }>();
  for (const folder of await agentFolders(reader, opts)) {
    const entry = await openDefinitionFolder(reader, folder, problems);
    if (!entry) continue;
    for (const fileName of await definitionEntries(reader, folder, problems)) {
      if (!fileName.toLowerCase().endsWith(folder.suffix) || fileName.length === folder.suffix.length) continue;
      const label = `${folder.label}/${fileName}`;
      const source = reader.join(folder.path, fileName);
      const read = await readDefinitionFile(reader, source, label, entry.realPath, opts.sensitive);
      if (read.kind === 'absent') continue;
      if (read.kind === 'skipped') {
        problems.push(read.problem);
        continue;
      }
      const result = definitionOf(read.text, fileName, folder.suffix, label);
      problems.push(...result.problems);
      if (!result.agent) continue;
      const existing = byName.get(result.agent.name);
      if (existing) {
        problems.push(`${label} is not used: the agent '${result.agent.name}' from ${existing.label} comes first.`);
        continue;
      }
      byName.set(result.agent.name, { ...result.agent, source, scope: folder.scope, label });
    }
  }
  const agents = [...byName.values()]
    .map(({ label: _label, ...agent }) => agent)
    .sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
  return { agents, problems };
}
