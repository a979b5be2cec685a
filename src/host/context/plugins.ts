// Plugins in the editor (issue 46): the installed plugins `turnstone.plugins.enabled` turns on, read through the
// core bundle (agent/plugins/) and shared by every place their parts join: the skills and agents
// (context/skills.ts), the slash commands (context/slash.ts), the hooks (session/turn-setup.ts) and the MCP
// servers (mcp.ts). A plugin is code: in an untrusted workspace none of it is read or run; with none enabled
// nothing is read and the core is not loaded for it.
import * as vscode from 'vscode';
import { type PluginSet } from '../../agent/plugins/plugin-reader';
import { type MarketplaceCredentials } from '../../agent/plugins/plugin-store';
import { hostSensitiveMatcher } from '../panel/load-panel-support';
import { loadCore } from '../session/load-core';

let base: string | undefined;

/** The extension's global storage, set at activation (commands.ts): plugins live under `<it>/plugins`. */
export function setPluginBase(dir: string): void {
  base = dir;
}

export function pluginBase(): string | undefined {
  return base;
}

let secrets: vscode.SecretStorage | undefined;

/** The editor's secret storage, set at activation: a git marketplace's URL with a token is kept there. */
export function setPluginSecrets(storage: vscode.SecretStorage): void {
  secrets = storage;
}

const secretKey = (marketplace: string) => `turnstone.plugins.marketplace.${marketplace}`;

/** A marketplace URL's token in the secret storage (none before activation set it: nothing is kept). */
export function marketplaceCredentials(): MarketplaceCredentials | undefined {
  const storage = secrets;
  if (!storage) return undefined;
  return {
    get: async (name) => storage.get(secretKey(name)),
    store: async (name, url) => storage.store(secretKey(name), url),
    forget: async (name) => storage.delete(secretKey(name)),
  };
}

const EMPTY: PluginSet = { plugins: [], problems: [] };
let cached: { key: string; set: Promise<PluginSet> } | undefined;
let generation = 0;
let logged = '';

/** `turnstone.plugins.enabled` (user settings only: the manifest scopes it to the application). */
export function enabledPluginIds(): string[] {
  const v = vscode.workspace.getConfiguration('turnstone').get<unknown>('plugins.enabled');
  return Array.isArray(v) ? v.filter((x): x is string => typeof x === 'string' && x.trim() !== '') : [];
}

/** After an install, enable, disable or removal: the next look reads the plugins again. */
export function pluginsChanged(): void {
  generation++;
  cached = undefined;
}

/** The enabled plugins as they are now; none in an untrusted workspace. Problems are logged once. */
export async function hostPlugins(log?: vscode.LogOutputChannel): Promise<PluginSet> {
  const enabled = enabledPluginIds();
  const dir = base;
  if (!vscode.workspace.isTrusted || enabled.length === 0 || dir === undefined) return EMPTY;
  const key = JSON.stringify([enabled, generation]);
  if (cached?.key !== key) {
    const core = loadCore();
    const sensitive = hostSensitiveMatcher();
    cached = { key, set: new core.PluginStore(dir).enabledDirs(enabled).then((dirs) => core.loadPlugins(dirs, { sensitive })) };
  }
  const set = await cached.set;
  const logKey = JSON.stringify([key, set.problems]);
  if (logKey !== logged) {
    logged = logKey;
    for (const problem of set.problems) log?.warn(`plugins: ${problem}`);
    if (set.plugins.length > 0) log?.info(`plugins: ${set.plugins.map((p) => `${p.name}${p.version ? ` ${p.version}` : ''}`).join(', ')}`);
  }
  return set;
}
