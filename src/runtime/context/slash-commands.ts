// Slash commands (contracts.md "Slash commands"): the built-ins the editor runs
// itself, and the workspace's own commands from `.turnstone/commands/<name>.md`
// (and, for people coming from Claude Code, `.claude/commands/<name>.md`, and
// from Copilot, `.github/prompts/<name>.prompt.md`), whose text replaces the
// input with `$ARGUMENTS` (Copilot: `${input:…}`) filled in. Parsing and
// expansion live here so the editor and the CLI (-p) agree on them.
import { type InstructionReader, secretBehind } from './instructions';
import { type SensitiveMatcher } from '../policy/sensitive-files';
import { cutHead } from '../text-cut';

export const BUILTIN_SLASH_COMMANDS = [
  { name: 'compact', description: 'Summarise older messages now to free context' },
  { name: 'new', description: 'Start a new session' },
  { name: 'model', description: 'Pick a model (or /model <id>)' },
  { name: 'undo', description: "Revert the files the last turn changed" },
  { name: 'resume', description: 'Resume a saved session' },
  { name: 'mcp', description: 'Show MCP servers: status, tools, restart' },
  { name: 'skills', description: 'List the Agent Skills found and where they are from' },
  { name: 'memory', description: "Open the memory folder: the notes the agent keeps for this workspace" },
] as const;

export type BuiltinSlashName = (typeof BUILTIN_SLASH_COMMANDS)[number]['name'];

export interface CustomSlashCommand {
  name: string;
  description: string;
  /** Workspace-relative, e.g. `.turnstone/commands/review.md`. */
  file: string;
  /** The body after any front-matter. */
  template: string;
}

export interface SlashCommandSet {
  custom: CustomSlashCommand[];
  /** Files that could not be used, one sentence each. */
  notes: string[];
}

/** Where custom commands live; the first folder wins when two define a name. */
const COMMAND_DIRS: { dir: string; suffix: string; copilot?: true }[] = [
  { dir: '.turnstone/commands', suffix: '.md' },
  { dir: '.claude/commands', suffix: '.md' },
  { dir: '.github/prompts', suffix: '.prompt.md', copilot: true },
];
/** Front-matter keys of Copilot prompt files that choose how the prompt runs; Turnstone runs it with the session's own. */
const COPILOT_RUN_KEYS = ['mode', 'agent', 'tools', 'model'];

/**
 * A Copilot prompt file's body in Turnstone's terms: every `${input:name}` or `${input:name:placeholder}` becomes
 * `$ARGUMENTS` (the text after the command), `${workspaceFolder}` the workspace's path. Other variables
 * (`${selection}`, `${file}`) stay as written: a prompt run from chat has no editor selection to give.
 */
export function copilotPromptTemplate(body: string, workspaceRoot: string): string {
  return body
    .replace(/\$\{input:[^}]*\}/g, '$ARGUMENTS')
    .replace(/\$\{workspaceFolderBasename\}/g, workspaceRoot.split(/[\\/]/).filter(Boolean).pop() ?? '')
    .replace(/\$\{workspaceFolder\}/g, workspaceRoot);
}
const MAX_COMMAND_CHARS = 64_000;
const MAX_COMMANDS = 500;
const NAME = /^[A-Za-z0-9][A-Za-z0-9_.-]{0,63}$/;

export interface SlashInvocation {
  name: string;
  /** The text after the name, trimmed. */
  args: string;
}

/** `/name rest…` → its parts; anything else (a path like `/etc/hosts is…` included) is undefined only when it cannot be a name. */
export function parseSlash(input: string): SlashInvocation | undefined {
  const m = /^\/([A-Za-z0-9][A-Za-z0-9_.:-]{0,63})(?:\s+([\s\S]*))?$/.exec(input.trim());
  if (!m) return undefined;
  return { name: m[1]!, args: (m[2] ?? '').trim() };
}

export function isBuiltinSlash(name: string): name is BuiltinSlashName {
  return BUILTIN_SLASH_COMMANDS.some((c) => c.name === name);
}

/** Splits optional `---` front-matter (simple `key: value` lines) from the body. */
export function parseFrontMatter(text: string): { attributes: Record<string, string>; body: string } {
  const src = text.replace(/^\ufeff/, '');
  const m = /^---\r?\n([\s\S]*?)\r?\n---[ \t]*(?:\r?\n|$)/.exec(src);
  if (!m) return { attributes: {}, body: src };
  const attributes: Record<string, string> = {};
  for (const line of m[1]!.split(/\r?\n/)) {
    const kv = /^([A-Za-z][\w-]*)\s*:\s*(.*)$/.exec(line);
    if (kv) attributes[kv[1]!.toLowerCase()] = kv[2]!.trim().replace(/^(['"])(.*)\1$/, '$2');
  }
  return { attributes, body: src.slice(m[0].length) };
}

/** The prompt a custom command sends: `$ARGUMENTS` replaced; with no placeholder, arguments go after the text. */
export function expandTemplate(template: string, args: string): string {
  const body = template.trim();
  if (body.includes('$ARGUMENTS')) return body.split('$ARGUMENTS').join(args);
  return args ? `${body}\n\n${args}` : body;
}

/**
 * Reads the workspace's custom commands. Files are `.md`; a link leading out
 * of the workspace is refused (like instruction files); a built-in's name
 * cannot be taken over.
 */
export async function loadCustomSlashCommands(reader: InstructionReader, workspaceRoot: string, sensitive: SensitiveMatcher): Promise<SlashCommandSet> {
  const notes: string[] = [];
  const byName = new Map<string, CustomSlashCommand>();
  const rootEntry = await reader.stat(workspaceRoot).catch(() => undefined);
  if (!rootEntry) return { custom: [], notes };
  for (const { dir, suffix, copilot } of COMMAND_DIRS) {
    const abs = reader.join(workspaceRoot, ...dir.split('/'));
    const entry = await reader.stat(abs).catch(() => undefined);
    if (!entry || entry.type !== 'dir') continue;
    if (!reader.isWithin(rootEntry.realPath, entry.realPath)) {
      notes.push(`${dir}/ was not read: it is a link to a place outside the workspace.`);
      continue;
    }
    const names = (await reader.readDir(abs).catch(() => [])).filter((n) => n.toLowerCase().endsWith(suffix) && n.length > suffix.length).sort();
    for (const fileName of names) {
      if (byName.size >= MAX_COMMANDS) break;
      const name = fileName.slice(0, -suffix.length);
      const file = `${dir}/${fileName}`;
      if (!NAME.test(name)) {
        notes.push(`${file}: /${name} is not a usable command name (letters, digits, '.', '_' and '-').`);
        continue;
      }
      if (isBuiltinSlash(name)) {
        notes.push(`${file} is not used: /${name} is built in.`);
        continue;
      }
      if (byName.has(name)) continue;
      const childAbs = reader.join(abs, fileName);
      const child = await reader.stat(childAbs).catch(() => undefined);
      if (!child || child.type !== 'file') continue;
      if (!reader.isWithin(rootEntry.realPath, child.realPath)) {
        notes.push(`${file} was not read: it is a link to a place outside the workspace.`);
        continue;
      }
      const secret = secretBehind(sensitive, file, child.realPath, rootEntry.realPath);
      if (secret) {
        notes.push(secret);
        continue;
      }
      let text: string;
      try {
        const bytes = await reader.readFile(childAbs);
        if (bytes.includes(0)) throw new Error('it is a binary file');
        text = new TextDecoder('utf-8').decode(bytes);
      } catch (error) {
        notes.push(`${file} could not be read (${error instanceof Error ? error.message : String(error)}).`);
        continue;
      }
      if (text.length > MAX_COMMAND_CHARS) {
        notes.push(`${file} is longer than ${MAX_COMMAND_CHARS.toLocaleString('en-US')} characters and is not used.`);
        continue;
      }
      const { attributes, body } = parseFrontMatter(text);
      const firstLine = body.trim().split(/\r?\n/, 1)[0] ?? '';
      const ignored = copilot ? COPILOT_RUN_KEYS.filter((k) => attributes[k] !== undefined) : [];
      if (ignored.length > 0) notes.push(`${file}: ${ignored.map((k) => `\`${k}\``).join(', ')} ${ignored.length === 1 ? 'is' : 'are'} not applied; /${name} runs with the session's own mode, model and tools.`);
      byName.set(name, { name, file, template: copilot ? copilotPromptTemplate(body, workspaceRoot) : body, description: cutHead(attributes['description'] || firstLine.replace(/^#+\s*/, ''), 200) || `Custom command from ${file}` });
    }
  }
  return { custom: [...byName.values()].sort((a, b) => a.name.localeCompare(b.name)), notes };
}

export type SlashResolution =
  | { kind: 'text'; text: string }
  | { kind: 'builtin'; name: BuiltinSlashName; args: string }
  | { kind: 'custom'; command: CustomSlashCommand; text: string };

/** What an input means: a built-in to run, a custom command's expanded prompt, or plain text (an unknown `/word` included). */
export function resolveSlash(input: string, commands: readonly CustomSlashCommand[]): SlashResolution {
  const inv = parseSlash(input);
  if (!inv) return { kind: 'text', text: input };
  if (isBuiltinSlash(inv.name)) return { kind: 'builtin', name: inv.name, args: inv.args };
  const command = commands.find((c) => c.name === inv.name);
  if (command) return { kind: 'custom', command, text: expandTemplate(command.template, inv.args) };
  return { kind: 'text', text: input };
}
