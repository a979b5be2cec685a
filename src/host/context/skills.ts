// Agent Skills in the editor: found again before each turn (with the system
// prompt), kept for the turn's tools (the skill tool, read_file's reach into a
// skill's folder) and listed by `/skills`. Discovery is the runtime's
// (src/runtime/context/skills.ts), reached through the core bundle; what it
// found is kept in skill-state.ts.
import * as os from 'node:os';
import * as vscode from 'vscode';
import { type SkillSet } from '../../runtime/context/skills';
import { type CustomAgentDefinition } from '../../agent/custom-agents';
import { hostSensitiveMatcher } from '../panel/load-panel-support';
import { loadCore } from '../session/load-core';
import { hostPlugins } from './plugins';

let loggedKey = '';

/** Finds the skills now (workspace ones only in a trusted workspace) and logs what changed since the last look. */
export async function refreshHostSkills(log?: vscode.LogOutputChannel): Promise<SkillSet> {
  const core = loadCore();
  // Skills are read from the disk the extension host runs on; a virtual folder has none.
  const folders = (vscode.workspace.workspaceFolders ?? []).filter((f) => f.uri.scheme === 'file').map((f) => f.uri.fsPath);
  const found = await core.discoverSkills(core.nodeInstructionReader, { workspaceFolders: folders, home: os.homedir(), trusted: vscode.workspace.isTrusted, sensitive: hostSensitiveMatcher() });
  // Enabled plugins' skills (`<plugin>:<skill>`) beside the others; none in an untrusted workspace.
  const fromPlugins = (await hostPlugins(log)).plugins.flatMap((p) => p.skills).filter((k) => !found.skills.some((s) => s.name === k.name));
  const set: SkillSet = fromPlugins.length === 0 ? found : { skills: [...found.skills, ...fromPlugins].sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0)), problems: found.problems };
  // Kept in the core bundle's copy of skill-state.ts, where the tools read it.
  core.setHostSkills(set.skills);
  const cut = core.skillCutNote(core.skillPromptSection(set.skills).cut);
  const key = JSON.stringify([set.skills.map((s) => s.label), set.problems, cut]);
  if (key !== loggedKey) {
    loggedKey = key;
    for (const problem of [...set.problems, ...(cut ? [cut] : [])]) log?.warn(`skills: ${problem}`);
    if (set.skills.length > 0) log?.info(`skills: ${set.skills.map((s) => s.label).join(', ')}`);
  }
  return set;
}

let loggedAgents = '';

/** The custom agents the `agent` tool offers now (workspace ones only in a trusted workspace); problems are logged once. */
export async function hostCustomAgents(log?: vscode.LogOutputChannel): Promise<CustomAgentDefinition[]> {
  const core = loadCore();
  const folders = (vscode.workspace.workspaceFolders ?? []).filter((f) => f.uri.scheme === 'file').map((f) => f.uri.fsPath);
  const discovered = await core.discoverCustomAgents({ workspaceFolders: folders, home: os.homedir(), trusted: vscode.workspace.isTrusted, sensitive: hostSensitiveMatcher() });
  // Enabled plugins' agents (`<plugin>:<agent>`) after the others; none in an untrusted workspace.
  const fromPlugins = (await hostPlugins(log)).plugins.flatMap((p) => p.agents).filter((a) => !discovered.agents.some((d) => d.name === a.name));
  const found = { agents: [...discovered.agents, ...fromPlugins], problems: discovered.problems };
  const key = JSON.stringify([found.agents.map((a) => a.source), found.problems]);
  if (key !== loggedAgents) {
    loggedAgents = key;
    for (const problem of found.problems) log?.warn(`agents: ${problem}`);
    if (found.agents.length > 0) log?.info(`custom agents: ${found.agents.map((a) => a.name).join(', ')}`);
  }
  return found.agents;
}

/** `/skills`: the list as the panel shows it. */
export async function skillsListing(log?: vscode.LogOutputChannel): Promise<string> {
  const set = await refreshHostSkills(log);
  const listing = loadCore().skillListing(set);
  return vscode.workspace.isTrusted ? listing : `${listing}\n\n${vscode.l10n.t('The workspace is not trusted: its own skills are not loaded.')}`;
}
