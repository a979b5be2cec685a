// Slash commands in the editor: built-ins run Turnstone's own commands, custom
// ones (`.turnstone/commands/<name>.md`, `.claude/commands/<name>.md`) become
// the prompt that is sent. Parsing and expansion are the runtime's
// (src/runtime/context/slash-commands.ts), shared with the CLI.
import * as vscode from 'vscode';
import { hostSensitiveMatcher } from '../panel/load-panel-support';
import { BUILTIN_SLASH_COMMANDS, loadCustomSlashCommands, resolveSlash, type BuiltinSlashName, type SlashCommandSet } from '../../runtime/context/slash-commands';
import { type SlashCommandInfo } from '../../webview/protocol';
import { readerRootPath, workspaceInstructionReader } from '../session/instruction-reader';
import { skillsListing } from './skills';
import { openMemoryFolder } from './memory-folder';
import { hostPlugins } from './plugins';

/** Created by the MCP work; called by id so this works (with a clear message) when it is absent. */
export const MCP_SHOW_SERVERS = 'turnstone.mcp.showServers';
const MODEL_ID = /^[A-Za-z0-9][A-Za-z0-9._:@/+-]{0,199}$/;

/** The built-ins that run a VS Code command; `/skills` is answered in the panel itself, `/memory` opens a folder. */
const BUILTIN_COMMAND_IDS: Record<Exclude<BuiltinSlashName, 'skills' | 'memory'>, string> = {
  compact: 'turnstone.compact',
  new: 'turnstone.newSession',
  model: 'turnstone.selectModel',
  undo: 'turnstone.undoTurn',
  resume: 'turnstone.resumeSession',
  mcp: MCP_SHOW_SERVERS,
};

export async function loadWorkspaceSlashCommands(): Promise<SlashCommandSet> {
  const root = vscode.workspace.workspaceFolders?.[0]?.uri;
  // Enabled plugins' commands (`/<plugin>:<command>`) after the workspace's; none in an untrusted workspace.
  const fromPlugins = (await hostPlugins()).plugins.flatMap((p) => p.commands);
  if (!root) return { custom: fromPlugins, notes: [] };
  const set = await loadCustomSlashCommands(workspaceInstructionReader(root), readerRootPath(root), hostSensitiveMatcher());
  return fromPlugins.length === 0 ? set : { custom: [...set.custom, ...fromPlugins.filter((c) => !set.custom.some((w) => w.name === c.name))], notes: set.notes };
}

/** What the composer's `/` menu lists. */
export async function slashCommandList(log?: vscode.LogOutputChannel): Promise<SlashCommandInfo[]> {
  const set = await loadWorkspaceSlashCommands();
  for (const note of set.notes) log?.warn(`slash commands: ${note}`);
  return [
    ...BUILTIN_SLASH_COMMANDS.map((c): SlashCommandInfo => ({ name: c.name, description: c.description, source: 'builtin' })),
    ...set.custom.map((c): SlashCommandInfo => ({ name: c.name, description: c.description, source: 'custom', file: c.file })),
  ];
}

/** `typed`: a custom command as the user wrote it (`/review src/a.ts`), which the transcript shows instead of its expansion. */
export type SlashOutcome = { kind: 'ran' } | { kind: 'unavailable'; message: string } | { kind: 'notice'; message: string } | { kind: 'prompt'; text: string; typed?: string };

/**
 * Interprets an input. A built-in runs its command; a custom command returns
 * its expanded prompt; anything else (an unknown `/word`, a path) is the
 * prompt as typed.
 */
export async function runSlashInput(text: string, log?: vscode.LogOutputChannel): Promise<SlashOutcome> {
  if (!text.trimStart().startsWith('/')) return { kind: 'prompt', text };
  const set = await loadWorkspaceSlashCommands();
  const resolved = resolveSlash(text, set.custom);
  if (resolved.kind === 'text') return { kind: 'prompt', text };
  if (resolved.kind === 'custom') {
    log?.info(`slash command /${resolved.command.name} from ${resolved.command.file}`);
    return { kind: 'prompt', text: resolved.text, typed: text.trim() };
  }
  if (resolved.name === 'skills') return { kind: 'notice', message: await skillsListing(log) };
  if (resolved.name === 'memory') return openMemoryFolder();
  const id = BUILTIN_COMMAND_IDS[resolved.name];
  if (resolved.name === 'mcp' && !(await vscode.commands.getCommands(true)).includes(id)) {
    return { kind: 'unavailable', message: `/mcp: MCP servers are not available in this version of Turnstone (the command ${id} is not registered).` };
  }
  const args: unknown[] = [];
  if (resolved.name === 'model' && resolved.args) {
    if (!MODEL_ID.test(resolved.args)) return { kind: 'unavailable', message: `/model: '${resolved.args.slice(0, 80)}' is not a model id (e.g. /model claude-sonnet-5-5).` };
    args.push(resolved.args);
  }
  // Not awaited to the end for commands that open pickers: the panel stays responsive.
  await vscode.commands.executeCommand(id, ...args);
  return { kind: 'ran' };
}
