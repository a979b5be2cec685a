// Plugins (contracts.md "Plugins", issue 46): a folder in Claude Code's layout, `.claude-plugin/plugin.json`
// (name, version, description) beside any of `commands/`, `agents/`, `skills/`, `hooks/hooks.json` and
// `.mcp.json`; Codex's `.codex-plugin/` and Cursor's `.cursor-plugin/` where they match. This reads one folder
// and says what it brings, in the shapes the workspace's own commands, agents, skills, hooks and MCP servers
// have, so each part joins its equivalents: commands are `/<plugin>:<command>`, skills and agents
// `<plugin>:<name>`. Whether any of it may run (trust, the user's consent at install) is the caller's: this
// only reads, and a file that cannot be used is a problem line, never a throw.
import { closeSync, constants as fsConstants, type Dirent, openSync, readdirSync, readFileSync, realpathSync, statSync } from 'node:fs';
import * as path from 'node:path';
import { definitionOf, type CustomAgentDefinition } from '../custom-agents';
import { type DefinitionRead, MAX_DEFINITION_CHARS, readDefinitionFile } from '../../runtime/context/definition-files';
import { secretBehind } from '../../runtime/context/instructions';
import { parseDefinitionText, textAttribute } from '../../runtime/context/front-matter';
import { nodeInstructionReader } from '../../runtime/context/instructions-node';
import { SKILL_FILE, type Skill } from '../../runtime/context/skills';
import { parseFrontMatter, type CustomSlashCommand } from '../../runtime/context/slash-commands';
import { type HookEventName, type HookSpec, type HooksConfig } from '../../runtime/policy/hooks';
import { type SensitiveMatcher } from '../../runtime/policy/sensitive-files';
import { cutHead } from '../../runtime/text-cut';

/** The manifest folders read, in this order: the first that holds a plugin.json names the plugin. */
export const PLUGIN_MANIFEST_DIRS = ['.claude-plugin', '.codex-plugin', '.cursor-plugin'] as const;
export const PLUGIN_MANIFEST_FILE = 'plugin.json';
/** What a plugin's own files may say for "this plugin's folder" (Claude Code's spelling; Turnstone's own too). */
export const PLUGIN_ROOT_VARIABLES = ['CLAUDE_PLUGIN_ROOT', 'TURNSTONE_PLUGIN_ROOT'] as const;
const PLUGIN_NAME = /^[A-Za-z0-9][A-Za-z0-9_.-]{0,63}$/;
const PART_NAME = /^[A-Za-z0-9][A-Za-z0-9_.-]{0,63}$/;
/** Entries of one plugin folder (commands/, agents/, skills/) looked at. */
const MAX_ENTRIES = 200;
const MAX_JSON_BYTES = 256 * 1024;
/** The hook events Turnstone runs (runtime/policy/hooks.ts); Claude Code's others are named as not run. */
const HOOK_EVENTS: readonly HookEventName[] = ['PreToolUse', 'PostToolUse', 'PostToolUseFailure', 'Stop', 'UserPromptSubmit'];
/** Claude Code's tool names in hook matchers, as Turnstone's tools are named. */
const CLAUDE_TOOL_NAMES: Record<string, string> = {
  Bash: 'bash',
  Read: 'read_file',
  Write: 'write_file',
  Edit: 'edit_file',
  MultiEdit: 'edit_file',
  Glob: 'glob_search',
  Grep: 'grep_search',
  WebFetch: 'web_fetch',
  Task: 'agent',
  TodoWrite: 'todo_write',
};

export interface PluginManifest {
  name: string;
  version: string;
  description: string;
}

/** One plugin as read: its parts in their equivalents' shapes, and what could not be used. */
export interface LoadedPlugin extends PluginManifest {
  /** The folder as given (absolute). */
  root: string;
  /** The folder after links: every file it brings must be inside it. */
  realRoot: string;
  /** `.claude-plugin/plugin.json` (or the Codex / Cursor one). */
  manifestFile: string;
  /** `/<plugin>:<command>`; `file` names the plugin and the file. */
  commands: CustomSlashCommand[];
  agents: CustomAgentDefinition[];
  skills: Skill[];
  /** hooks/hooks.json in Turnstone's shape, `${CLAUDE_PLUGIN_ROOT}` replaced by the plugin's folder. */
  hooks: HooksConfig;
  /** `.mcp.json` (or the manifest's `mcpServers`) as written, `${CLAUDE_PLUGIN_ROOT}` replaced: parsed where a workspace is known (plugin-mcp.ts). */
  mcpServers: Record<string, unknown>;
  /** Sentences naming the plugin and the file. */
  problems: string[];
}

export interface PluginReadOptions {
  /** Which files hold secrets: a file of the plugin that is, or leads to, one is not read. */
  sensitive?: SensitiveMatcher | undefined;
}

export type PluginRead = { plugin: LoadedPlugin; problems: string[] } | { plugin: undefined; problems: string[] };

/** The value, or undefined when it throws (a file that is not there). */
function tryIt<T>(f: () => T): T | undefined {
  try {
    return f();
  } catch {
    return undefined;
  }
}

const errorText = (error: unknown): string => ((error as NodeJS.ErrnoException).code ?? (error instanceof Error ? error.message : String(error)));

function isWithin(root: string, p: string): boolean {
  return nodeInstructionReader.isWithin(root, p);
}

/** `${CLAUDE_PLUGIN_ROOT}` (and `$CLAUDE_PLUGIN_ROOT`) in a string: the plugin's folder. */
export function expandPluginRoot(text: string, root: string): string {
  let out = text;
  for (const name of PLUGIN_ROOT_VARIABLES) out = out.split(`\${${name}}`).join(root).replace(new RegExp(`\\$${name}(?![A-Za-z0-9_])`, 'g'), () => root);
  return out;
}

function expandDeep(value: unknown, root: string): unknown {
  if (typeof value === 'string') return expandPluginRoot(value, root);
  if (Array.isArray(value)) return value.map((v) => expandDeep(v, root));
  if (typeof value === 'object' && value !== null) return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, expandDeep(v, root)]));
  return value;
}

/** A JSON file inside the plugin: undefined when absent; a problem when it leads out, is too big or is not JSON. */
async function readJson(realRoot: string, abs: string, label: string, problems: string[]): Promise<unknown> {
  let real: string;
  try {
    real = realpathSync(abs);
  } catch {
    return undefined;
  }
  if (!isWithin(realRoot, real)) {
    problems.push(`${label} was not read: it is a link to ${real}, outside the plugin's folder.`);
    return undefined;
  }
  try {
    const st = statSync(real);
    if (!st.isFile()) {
      problems.push(`${label} was not read: it is not a regular file.`);
      return undefined;
    }
    if (st.size > MAX_JSON_BYTES) {
      problems.push(`${label} was not read: it is larger than ${MAX_JSON_BYTES / 1024} KB.`);
      return undefined;
    }
    return JSON.parse(readFileSync(real, 'utf8')) as unknown;
  } catch (error) {
    problems.push(error instanceof SyntaxError ? `${label} is not valid JSON (${error.message}); it is not used.` : `${label} could not be read (${errorText(error)}).`);
    return undefined;
  }
}

/** The folders a part is read from: its default (`commands/`) and any the manifest names (`"commands": "./more"` or a list). */
function partFolders(root: string, defaultRel: string, declared: unknown, label: string, problems: string[]): Folder[] {
  const out = [{ abs: path.join(root, defaultRel), rel: defaultRel }];
  const extra = typeof declared === 'string' ? [declared] : Array.isArray(declared) ? declared : declared === undefined ? [] : null;
  if (extra === null) {
    problems.push(`${label}: \`${defaultRel}\` must be a path or a list of paths; only ${defaultRel}/ is read.`);
    return out;
  }
  for (const item of extra) {
    if (typeof item !== 'string' || item.trim() === '') continue;
    const abs = path.resolve(root, item);
    if (!isWithin(root, abs)) {
      problems.push(`${label}: \`${defaultRel}\` path ${item} is outside the plugin's folder and is not read.`);
      continue;
    }
    const rel = path.relative(root, abs).split(path.sep).join('/');
    if (!out.some((o) => o.abs === abs)) out.push({ abs, rel });
  }
  return out;
}

interface Folder {
  abs: string;
  rel: string;
}

/** A folder's entries (at most MAX_ENTRIES, by name) and its real path; none when it is missing or leads out of the plugin. */
async function entries(folder: Folder, realRoot: string, label: string, problems: string[]): Promise<{ real: string; list: Dirent[] }> {
  const real = tryIt(() => realpathSync(folder.abs));
  if (real === undefined) return { real: '', list: [] };
  if (!isWithin(realRoot, real)) {
    problems.push(`${label} ${folder.rel}/ was not read: it is a link to a place outside the plugin's folder.`);
    return { real, list: [] };
  }
  const list = (tryIt(() => readdirSync(real, { withFileTypes: true })) ?? []).sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
  if (list.length > MAX_ENTRIES) problems.push(`${label}: ${folder.rel}/ has ${list.length} entries; only the first ${MAX_ENTRIES} (by name) were read.`);
  return { real, list: list.slice(0, MAX_ENTRIES) };
}

// The files are read with synchronous calls: a plugin is a few dozen small files, and through the thread pool the
// reads of 20 plugins took a median of ~25 ms against ~14 ms this way on a loaded 2-core machine
// (bench/plugins.bench.ts), most of it queueing. What blocks is those milliseconds at a turn's start, once in
// the editor (it keeps what it read until a plugin is installed, enabled, disabled or removed).

/** Opening with O_NOFOLLOW refuses a link as the last part of the path: read as it is, or through the careful path. */
const NO_FOLLOW = process.platform === 'win32' ? undefined : fsConstants.O_NOFOLLOW;

/**
 * A definition file of the plugin. The common case, a plain file in a folder already known to be inside the
 * plugin, is one read (no realpath and stat per file: that was most of a turn start's cost with many plugins);
 * a link, or a platform without O_NOFOLLOW, goes through readDefinitionFile's checks.
 */
async function readPartFile(realFile: string, label: string, realRoot: string, sensitive: SensitiveMatcher | undefined): Promise<DefinitionRead> {
  if (NO_FOLLOW !== undefined) {
    const secret = sensitive ? secretBehind(sensitive, label, realFile, realRoot) : undefined;
    if (secret) return { kind: 'skipped', problem: secret };
    try {
      const fd = openSync(realFile, fsConstants.O_RDONLY | NO_FOLLOW);
      let bytes: Buffer;
      try {
        bytes = readFileSync(fd);
      } finally {
        closeSync(fd);
      }
      if (bytes.includes(0)) return { kind: 'skipped', problem: `${label} was not read: it is a binary file.` };
      const text = bytes.toString('utf8');
      if (text.length > MAX_DEFINITION_CHARS) return { kind: 'skipped', problem: `${label} is longer than ${MAX_DEFINITION_CHARS.toLocaleString('en-US')} characters and is not used.` };
      return { kind: 'read', text, realPath: realFile };
    } catch (error) {
      const code = (error as NodeJS.ErrnoException).code;
      if (code === 'ENOENT' || code === 'ENOTDIR') return { kind: 'absent' };
      if (code !== 'ELOOP' && code !== 'EISDIR') return { kind: 'skipped', problem: `${label} could not be read (${errorText(error)}).` };
    }
  }
  return readDefinitionFile(nodeInstructionReader, realFile, label, realRoot, sensitive);
}

async function readCommands(p: { name: string; root: string; realRoot: string; label: string }, folders: Folder[], sensitive: SensitiveMatcher | undefined, problems: string[]): Promise<CustomSlashCommand[]> {
  const found: CustomSlashCommand[] = [];
  for (const folder of folders) {
    const found0 = await entries(folder, p.realRoot, p.label, problems);
    const names = found0.list.map((d) => d.name).filter((n) => n.toLowerCase().endsWith('.md') && n.length > 3);
    const read = await Promise.all(
      names.map(async (fileName) => {
        const file = `${folder.rel}/${fileName}`;
        const label = `${p.label} ${file}`;
        const short = fileName.slice(0, -3);
        if (!PART_NAME.test(short)) return { problem: `${label}: /${p.name}:${short} is not a usable command name (letters, digits, '.', '_' and '-').` };
        const r = await readPartFile(path.join(found0.real, fileName), label, p.realRoot, sensitive);
        if (r.kind === 'absent') return {};
        if (r.kind === 'skipped') return { problem: r.problem };
        const { attributes, body } = parseFrontMatter(r.text);
        const firstLine = body.trim().split(/\r?\n/, 1)[0] ?? '';
        const name = `${p.name}:${short}`;
        const command: CustomSlashCommand = {
          name,
          file: `${p.name} plugin: ${file}`,
          template: expandPluginRoot(body, p.realRoot),
          description: cutHead(attributes['description'] || firstLine.replace(/^#+\s*/, ''), 200) || `Command of the ${p.name} plugin`,
        };
        return { command };
      }),
    );
    for (const r of read) {
      if (r.problem) problems.push(r.problem);
      if (r.command && !found.some((c) => c.name === r.command.name)) found.push(r.command);
    }
  }
  return found.sort((a, b) => a.name.localeCompare(b.name));
}

async function readAgents(p: { name: string; root: string; realRoot: string; label: string }, folders: Folder[], sensitive: SensitiveMatcher | undefined, problems: string[]): Promise<CustomAgentDefinition[]> {
  const found: CustomAgentDefinition[] = [];
  for (const folder of folders) {
    const found0 = await entries(folder, p.realRoot, p.label, problems);
    const names = found0.list.map((d) => d.name).filter((n) => n.toLowerCase().endsWith('.md') && n.length > 3);
    const read = await Promise.all(
      names.map(async (fileName) => {
        const label = `${p.label} ${folder.rel}/${fileName}`;
        const source = path.join(found0.real, fileName);
        const r = await readPartFile(source, label, p.realRoot, sensitive);
        if (r.kind === 'absent') return { problems: [] };
        if (r.kind === 'skipped') return { problems: [r.problem] };
        return { ...definitionOf(r.text, fileName, '.md', label), source };
      }),
    );
    for (const r of read) {
      problems.push(...r.problems);
      if (!('agent' in r) || !r.agent) continue;
      const agent: CustomAgentDefinition = { ...r.agent, name: `${p.name}:${r.agent.name}`, systemPrompt: expandPluginRoot(r.agent.systemPrompt, p.realRoot), source: r.source, scope: 'plugin' };
      if (!found.some((a) => a.name === agent.name)) found.push(agent);
    }
  }
  return found.sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
}

async function readSkills(p: { name: string; root: string; realRoot: string; label: string }, folders: Folder[], sensitive: SensitiveMatcher | undefined, problems: string[]): Promise<Skill[]> {
  const found: Skill[] = [];
  for (const folder of folders) {
    const found0 = await entries(folder, p.realRoot, p.label, problems);
    const read = await Promise.all(
      found0.list.map(async (d): Promise<{ skill?: Skill; problem?: string }> => {
        const child = d.name;
        const dir = path.join(found0.real, child);
        const label = `${p.label} ${folder.rel}/${child}`;
        // A plain folder is where it was found; a link is followed only to a folder inside the plugin.
        let realDir = dir;
        if (d.isSymbolicLink()) {
          const entry = await nodeInstructionReader.stat(dir).catch(() => undefined);
          if (entry?.type !== 'dir') return {};
          if (!isWithin(p.realRoot, entry.realPath)) return { problem: `${label}/ was not read: it is a link to a place outside the plugin's folder.` };
          realDir = entry.realPath;
        } else if (!d.isDirectory()) return {};
        const r = await readPartFile(path.join(realDir, SKILL_FILE), `${label}/${SKILL_FILE}`, realDir, sensitive);
        if (r.kind === 'absent') return {};
        if (r.kind === 'skipped') return { problem: r.problem };
        const parsed = parseDefinitionText(r.text);
        const short = textAttribute(parsed.attributes, 'name')?.trim() || child;
        const description = textAttribute(parsed.attributes, 'description')?.replace(/\s+/g, ' ').trim() ?? '';
        if (!PART_NAME.test(short)) return { problem: `${label}/${SKILL_FILE} is not used: '${cutHead(short, 80)}' is not a usable skill name.` };
        if (description === '') return { problem: `${label}/${SKILL_FILE} is not used: its front matter has no \`description\` (the model picks a skill by it).` };
        return { skill: { name: `${p.name}:${short}`, description: cutHead(description, 1024), dir, realDir, label: `${p.name} plugin: ${folder.rel}/${child}`, scope: 'plugin' } };
      }),
    );
    for (const r of read) {
      if (r.problem) problems.push(r.problem);
      if (r.skill && !found.some((s) => s.name === r.skill!.name)) found.push(r.skill);
    }
  }
  return found.sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
}

/** A Claude Code matcher (`Write|Edit`, `Bash`, `*`, `mcp__github__.*`) as a Turnstone one; undefined: every tool. */
export function hookMatcherOf(matcher: unknown, label: string, problems: string[]): { matcher: string | undefined } | undefined {
  if (matcher === undefined || matcher === null) return { matcher: undefined };
  if (typeof matcher !== 'string') {
    problems.push(`${label}: a matcher must be a string; the hook is not used.`);
    return undefined;
  }
  const m = matcher.trim();
  if (m === '' || m === '*' || m === '.*') return { matcher: undefined };
  const parts: string[] = [];
  for (const alt of m.split('|').map((a) => a.trim())) {
    const mcpAll = /^(mcp__[A-Za-z0-9_-]+)__(?:\.\*|\*)$/.exec(alt);
    if (CLAUDE_TOOL_NAMES[alt]) parts.push(CLAUDE_TOOL_NAMES[alt]);
    else if (mcpAll) parts.push(mcpAll[1]!);
    else if (/^[A-Za-z0-9_-]+$/.test(alt)) parts.push(alt);
    else problems.push(`${label}: the matcher part '${cutHead(alt, 60)}' is a pattern Turnstone does not read; it matches nothing.`);
  }
  if (parts.length === 0) {
    problems.push(`${label}: no part of the matcher '${cutHead(m, 80)}' names a tool; the hook is not used.`);
    return undefined;
  }
  return { matcher: [...new Set(parts)].join('|') };
}

/** Claude Code's hooks.json (`{"hooks": {"PreToolUse": [{"matcher", "hooks": [{"type": "command", "command", "timeout"}]}]}}`) in Turnstone's shape. */
export function hooksOf(json: unknown, realRoot: string, label: string, problems: string[]): HooksConfig {
  const out: HooksConfig = {};
  if (json === undefined) return out;
  const top = typeof json === 'object' && json !== null && !Array.isArray(json) ? (json as Record<string, unknown>) : undefined;
  const events = top && 'hooks' in top ? top.hooks : top;
  if (typeof events !== 'object' || events === null || Array.isArray(events)) {
    problems.push(`${label}: expected {"hooks": {"<event>": [...]}}; no hook of it is used.`);
    return out;
  }
  for (const [event, groups] of Object.entries(events as Record<string, unknown>)) {
    if (!(HOOK_EVENTS as readonly string[]).includes(event)) {
      problems.push(`${label}: ${event} hooks are not run by Turnstone (it runs ${HOOK_EVENTS.join(', ')}).`);
      continue;
    }
    if (!Array.isArray(groups)) {
      problems.push(`${label}: ${event} must be a list; its hooks are not used.`);
      continue;
    }
    const specs: HookSpec[] = [];
    for (const group of groups) {
      if (typeof group !== 'object' || group === null) continue;
      const g = group as { matcher?: unknown; hooks?: unknown; command?: unknown; type?: unknown; timeout?: unknown };
      const matcher = hookMatcherOf(g.matcher, `${label} ${event}`, problems);
      if (!matcher) continue;
      // Claude Code nests commands under "hooks"; a flat {command} is taken as one.
      const commands = Array.isArray(g.hooks) ? g.hooks : g.command !== undefined ? [g] : [];
      for (const raw of commands) {
        const h = (typeof raw === 'object' && raw !== null ? raw : {}) as { type?: unknown; command?: unknown; timeout?: unknown };
        if (h.type !== undefined && h.type !== 'command') {
          problems.push(`${label} ${event}: a hook of type '${String(h.type)}' is not run by Turnstone (only "command").`);
          continue;
        }
        if (typeof h.command !== 'string' || h.command.trim() === '') {
          problems.push(`${label} ${event}: a hook without a command is not used.`);
          continue;
        }
        const timeout = typeof h.timeout === 'number' && h.timeout > 0 ? { timeoutMs: Math.round(h.timeout * 1000) } : {};
        // The folder reaches the command as variables, as Claude Code gives it: the shell expands them, so a
        // quoted "${CLAUDE_PLUGIN_ROOT}/x.sh" works in a folder whose path has a space, and scripts can read them.
        specs.push({ ...(matcher.matcher !== undefined ? { matcher: matcher.matcher } : {}), command: h.command, env: Object.fromEntries(PLUGIN_ROOT_VARIABLES.map((name) => [name, realRoot])), ...timeout });
      }
    }
    if (specs.length > 0) out[event as HookEventName] = specs;
  }
  return out;
}

function manifestOf(json: unknown, fallbackName: string, label: string, problems: string[]): (PluginManifest & { raw: Record<string, unknown> }) | undefined {
  if (typeof json !== 'object' || json === null || Array.isArray(json)) {
    problems.push(`${label} must hold a JSON object ({"name": …}); the plugin is not used.`);
    return undefined;
  }
  const raw = json as Record<string, unknown>;
  const name = typeof raw.name === 'string' && raw.name.trim() !== '' ? raw.name.trim() : fallbackName;
  if (!PLUGIN_NAME.test(name)) {
    problems.push(`${label}: '${cutHead(name, 80)}' is not a usable plugin name (letters, digits, '.', '_' and '-'); the plugin is not used.`);
    return undefined;
  }
  return {
    name,
    version: typeof raw.version === 'string' ? cutHead(raw.version, 40) : '',
    description: typeof raw.description === 'string' ? cutHead(raw.description.replace(/\s+/g, ' ').trim(), 300) : '',
    raw,
  };
}

/** Finds the manifest folder: `.claude-plugin/plugin.json` first, then Codex's, then Cursor's. */
async function findManifest(root: string): Promise<string | undefined> {
  for (const dir of PLUGIN_MANIFEST_DIRS) {
    const file = path.join(root, dir, PLUGIN_MANIFEST_FILE);
    if (tryIt(() => statSync(file).isFile())) return `${dir}/${PLUGIN_MANIFEST_FILE}`;
  }
  return undefined;
}

/** Reads one plugin folder. Never throws: a folder that is no plugin, or a part that cannot be used, is a problem. */
export async function readPlugin(dir: string, options: PluginReadOptions = {}): Promise<PluginRead> {
  const problems: string[] = [];
  const root = path.resolve(dir);
  let realRoot: string;
  try {
    realRoot = realpathSync(root);
    if (!statSync(realRoot).isDirectory()) return { plugin: undefined, problems: [`plugin ${dir} is not a folder.`] };
  } catch (error) {
    return { plugin: undefined, problems: [`plugin ${dir} cannot be read (${errorText(error)}).`] };
  }
  const manifestRel = await findManifest(realRoot);
  if (!manifestRel) return { plugin: undefined, problems: [`${dir} is not a plugin: it has no ${PLUGIN_MANIFEST_DIRS.map((d) => `${d}/${PLUGIN_MANIFEST_FILE}`).join(', ')}.`] };
  const manifest = manifestOf(await readJson(realRoot, path.join(realRoot, manifestRel), `${dir}/${manifestRel}`, problems), path.basename(realRoot), `${dir}/${manifestRel}`, problems);
  if (!manifest) return { plugin: undefined, problems };
  const label = `plugin ${manifest.name}:`;
  const p = { name: manifest.name, root, realRoot, label };
  const sensitive = options.sensitive;
  const [commands, agents, skills] = await Promise.all([
    readCommands(p, partFolders(realRoot, 'commands', manifest.raw.commands, label, problems), sensitive, problems),
    readAgents(p, partFolders(realRoot, 'agents', manifest.raw.agents, label, problems), sensitive, problems),
    readSkills(p, partFolders(realRoot, 'skills', manifest.raw.skills, label, problems), sensitive, problems),
  ]);
  // Hooks: hooks/hooks.json, or the manifest's `hooks` (a path to another file, or the object itself).
  const hookSources: { json: unknown; label: string }[] = [];
  const declaredHooks = manifest.raw.hooks;
  const hooksFile = path.join(realRoot, 'hooks', 'hooks.json');
  hookSources.push({ json: await readJson(realRoot, hooksFile, `${label} hooks/hooks.json`, problems), label: `${label} hooks/hooks.json` });
  if (typeof declaredHooks === 'string' && path.resolve(realRoot, declaredHooks) !== hooksFile) {
    const abs = path.resolve(realRoot, declaredHooks);
    if (isWithin(realRoot, abs)) hookSources.push({ json: await readJson(realRoot, abs, `${label} ${declaredHooks}`, problems), label: `${label} ${declaredHooks}` });
    else problems.push(`${label} hooks path ${declaredHooks} is outside the plugin's folder and is not read.`);
  } else if (typeof declaredHooks === 'object' && declaredHooks !== null) hookSources.push({ json: declaredHooks, label: `${label} ${manifestRel} hooks` });
  let hooks: HooksConfig = {};
  for (const src of hookSources) hooks = mergeHooks(hooks, hooksOf(src.json, realRoot, src.label, problems));
  // MCP servers: .mcp.json, or the manifest's `mcpServers` (a path, or the map itself).
  let mcpServers: Record<string, unknown> = {};
  const addServers = (json: unknown, where: string) => {
    if (json === undefined) return;
    if (typeof json !== 'object' || json === null || Array.isArray(json)) {
      problems.push(`${label} ${where} must hold a JSON object of servers; none of it is used.`);
      return;
    }
    const obj = json as Record<string, unknown>;
    const map = 'mcpServers' in obj || 'servers' in obj ? { ...(obj.servers as object | undefined), ...(obj.mcpServers as object | undefined) } : obj;
    mcpServers = { ...mcpServers, ...(expandDeep(map, realRoot) as Record<string, unknown>) };
  };
  addServers(await readJson(realRoot, path.join(realRoot, '.mcp.json'), `${label} .mcp.json`, problems), '.mcp.json');
  const declaredMcp = manifest.raw.mcpServers;
  if (typeof declaredMcp === 'string') {
    const abs = path.resolve(realRoot, declaredMcp);
    if (abs === path.join(realRoot, '.mcp.json')) {
      // Already read.
    } else if (isWithin(realRoot, abs)) addServers(await readJson(realRoot, abs, `${label} ${declaredMcp}`, problems), declaredMcp);
    else problems.push(`${label} mcpServers path ${declaredMcp} is outside the plugin's folder and is not read.`);
  } else if (declaredMcp !== undefined) addServers(declaredMcp, `${manifestRel} mcpServers`);
  const plugin: LoadedPlugin = { name: manifest.name, version: manifest.version, description: manifest.description, root, realRoot, manifestFile: manifestRel, commands, agents, skills, hooks, mcpServers, problems };
  return { plugin, problems };
}

/** Two hook configurations as one: each event's hooks of `a`, then those of `b`. */
export function mergeHooks(a: HooksConfig, b: HooksConfig): HooksConfig {
  const out: HooksConfig = { ...a };
  for (const [event, specs] of Object.entries(b) as [HookEventName, HookSpec[]][]) {
    if (specs.length > 0) out[event] = [...(out[event] ?? []), ...specs];
  }
  return out;
}

export interface PluginSet {
  plugins: LoadedPlugin[];
  /** Every problem of every plugin, and folders that are no plugin. */
  problems: string[];
}

/** Reads several plugin folders; a second plugin of the same name is not used (the first one given wins). */
export async function loadPlugins(dirs: readonly string[], options: PluginReadOptions = {}): Promise<PluginSet> {
  const reads = await Promise.all(dirs.map((d) => readPlugin(d, options)));
  const plugins: LoadedPlugin[] = [];
  const problems: string[] = [];
  for (const [i, r] of reads.entries()) {
    problems.push(...r.problems);
    if (!r.plugin) continue;
    const first = plugins.find((p) => p.name === r.plugin.name);
    if (first) {
      problems.push(`plugin ${dirs[i]} is not used: a plugin named '${r.plugin.name}' was loaded from ${first.root}.`);
      continue;
    }
    plugins.push(r.plugin);
  }
  return { plugins, problems };
}

/** Every plugin's commands, agents, skills and hooks, as the workspace's own are given. */
export function pluginParts(set: PluginSet): { commands: CustomSlashCommand[]; agents: CustomAgentDefinition[]; skills: Skill[]; hooks: HooksConfig } {
  let hooks: HooksConfig = {};
  for (const p of set.plugins) hooks = mergeHooks(hooks, p.hooks);
  return { commands: set.plugins.flatMap((p) => p.commands), agents: set.plugins.flatMap((p) => p.agents), skills: set.plugins.flatMap((p) => p.skills), hooks };
}

/** What a plugin brings, by name, for a listing or the question before installing. */
export interface PluginSummary {
  commands: string[];
  agents: string[];
  skills: string[];
  /** The commands it will run: each hook's, and each MCP server's (or its URL). */
  runs: string[];
  mcpServers: string[];
}

export function summarizePlugin(plugin: LoadedPlugin): PluginSummary {
  const runs: string[] = [];
  for (const [event, specs] of Object.entries(plugin.hooks) as [HookEventName, HookSpec[]][]) for (const s of specs) runs.push(`hook ${event}${s.matcher ? ` (${s.matcher})` : ''}: ${expandPluginRoot(s.command, plugin.realRoot)}`);
  for (const [name, raw] of Object.entries(plugin.mcpServers)) {
    const s = (typeof raw === 'object' && raw !== null ? raw : {}) as { command?: unknown; args?: unknown; url?: unknown };
    if (typeof s.command === 'string') runs.push(`MCP server ${name}: ${[s.command, ...(Array.isArray(s.args) ? s.args.filter((a): a is string => typeof a === 'string') : [])].join(' ')}`);
    else if (typeof s.url === 'string') runs.push(`MCP server ${name}: connects to ${s.url.replace(/\?.*$/, '')}`);
  }
  return {
    commands: plugin.commands.map((c) => `/${c.name}`),
    agents: plugin.agents.map((a) => a.name),
    skills: plugin.skills.map((s) => s.name),
    runs,
    mcpServers: Object.keys(plugin.mcpServers),
  };
}

/** One line of what a plugin brings: "2 commands, 1 agent, 1 skill, 1 hook, 1 MCP server". */
export function pluginBrings(plugin: LoadedPlugin): string {
  const count = (n: number, one: string) => (n === 0 ? undefined : `${n} ${one}${n === 1 ? '' : 's'}`);
  const hooks = Object.values(plugin.hooks).reduce((n, specs) => n + (specs?.length ?? 0), 0);
  const parts = [count(plugin.commands.length, 'command'), count(plugin.agents.length, 'agent'), count(plugin.skills.length, 'skill'), count(hooks, 'hook'), count(Object.keys(plugin.mcpServers).length, 'MCP server')].filter(Boolean);
  return parts.length > 0 ? parts.join(', ') : 'nothing Turnstone uses';
}
