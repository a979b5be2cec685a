// `turnstone.plugins.add` (Add Plugin Marketplace…) and `turnstone.plugins.manage` (issue 46): a marketplace from
// a folder or a git repository, and a quick pick of every marketplace's plugins to install, enable, disable or
// remove, each row saying what the plugin brings. Installing asks first and names what the plugin will run (its
// hooks' and MCP servers' commands), read from a private staged copy, which is what gets installed. The store,
// reader and git are the core's (agent/plugins/), loaded when a command runs. Scripts and tests may pass the
// choice as an argument (`{ folder }` / `{ git }`; `{ action, id | marketplace + plugin }`; installing asks all the same).
import * as vscode from 'vscode';
import { type LoadedPlugin } from '../../agent/plugins/plugin-reader';
import { type InstalledRecord, type Marketplace, type MarketplaceEntry, type MarketplaceRecord } from '../../agent/plugins/plugin-store';
import { loadCore } from '../session/load-core';
import { enabledPluginIds, marketplaceCredentials, pluginBase, pluginsChanged } from './plugins';

type Store = InstanceType<ReturnType<typeof loadCore>['PluginStore']>;

function store(): Store {
  const base = pluginBase();
  if (base === undefined) throw new Error('the extension is not set up yet');
  return new (loadCore().PluginStore)(base, marketplaceCredentials());
}

async function setEnabled(id: string, on: boolean): Promise<void> {
  const now = enabledPluginIds().filter((x) => x !== id);
  await vscode.workspace.getConfiguration('turnstone').update('plugins.enabled', on ? [...now, id] : now, vscode.ConfigurationTarget.Global);
  pluginsChanged();
}

export interface AddMarketplaceArgs {
  folder?: string;
  git?: string;
}

/** Adds a marketplace; returns its name, or undefined when nothing was added. */
export async function addPluginMarketplace(arg: unknown, log: vscode.LogOutputChannel): Promise<string | undefined> {
  const given = (typeof arg === 'object' && arg !== null ? arg : {}) as AddMarketplaceArgs;
  let source: { kind: 'folder'; path: string } | { kind: 'git'; url: string } | undefined;
  if (typeof given.folder === 'string') source = { kind: 'folder', path: given.folder };
  else if (typeof given.git === 'string') source = { kind: 'git', url: given.git };
  else {
    const folderItem = { label: vscode.l10n.t('$(folder) A folder'), detail: vscode.l10n.t('A folder with .claude-plugin/marketplace.json, read where it is'), source: 'folder' as const };
    const gitItem = { label: vscode.l10n.t('$(repo) A git repository'), detail: vscode.l10n.t('A URL or a local repository path, cloned into Turnstone\'s storage (no hooks of it run)'), source: 'git' as const };
    // Each pick of these flows stays open when focus moves (a panel finishing loading, a toast): only Escape or a
    // choice ends a step the user started on purpose.
    const picked = await vscode.window.showQuickPick([folderItem, gitItem], { title: vscode.l10n.t('Add Plugin Marketplace'), ignoreFocusOut: true });
    if (!picked) return undefined;
    if (picked.source === 'folder') {
      const uri = await vscode.window.showOpenDialog({ canSelectFolders: true, canSelectFiles: false, canSelectMany: false, openLabel: vscode.l10n.t('Add Marketplace') });
      if (!uri?.[0]) return undefined;
      source = { kind: 'folder', path: uri[0].fsPath };
    } else {
      const url = await vscode.window.showInputBox({ title: vscode.l10n.t('Add Plugin Marketplace'), prompt: vscode.l10n.t('The git repository of the marketplace (a URL or a local path)'), ignoreFocusOut: true });
      if (!url?.trim()) return undefined;
      source = { kind: 'git', url: url.trim() };
    }
  }
  const added = await vscode.window.withProgress({ location: vscode.ProgressLocation.Notification, title: vscode.l10n.t('Turnstone: adding the plugin marketplace…') }, () => store().addMarketplace(source));
  log.info(`plugins: marketplace ${added.record.name} added from ${added.record.source} (${added.record.kind})`);
  for (const problem of added.marketplace.problems) log.warn(`plugins: ${added.record.name}: ${problem}`);
  if (typeof given.folder !== 'string' && typeof given.git !== 'string') {
    const manage = vscode.l10n.t('Manage Plugins');
    const choice = await vscode.window.showInformationMessage(vscode.l10n.t('Turnstone: marketplace "{0}" added ({1} plugins).', added.record.name, added.marketplace.plugins.length), manage);
    if (choice === manage) await managePlugins(undefined, log);
  }
  return added.record.name;
}

/** The question before installing: what the plugin brings and, by name, every command it will run. */
async function confirmInstall(plugin: LoadedPlugin, runs: readonly string[], brings: string, enable: boolean): Promise<boolean> {
  const install = enable ? vscode.l10n.t('Install and Enable') : vscode.l10n.t('Install (Stays Disabled)');
  const detail = [
    vscode.l10n.t('It brings: {0}.', brings),
    runs.length > 0 ? vscode.l10n.t('A plugin is code. It will run these commands on your computer:') : vscode.l10n.t('It runs no command of its own (no hooks, no MCP servers).'),
    ...runs.map((r) => `• ${r}`),
    vscode.workspace.isTrusted ? '' : vscode.l10n.t('This workspace is not trusted: nothing of the plugin runs here until you trust it.'),
  ]
    .filter(Boolean)
    .join('\n');
  const choice = await vscode.window.showWarningMessage(vscode.l10n.t('Install the plugin "{0}"?', plugin.name), { modal: true, detail }, install);
  return choice === install;
}

export interface ManagePluginsArgs {
  action: 'install' | 'update' | 'enable' | 'disable' | 'remove' | 'removeMarketplace' | 'updateMarketplace';
  /** `<plugin>@<marketplace>`. */
  id?: string;
  marketplace?: string;
  plugin?: string;
}

/**
 * `enable`: on after installing (an update keeps the plugin as it was: pass its state). Always asks, scripted or
 * not: the command is callable by any extension, and a plugin is code the user must agree to.
 */
async function install(marketplace: string, plugin: string, log: vscode.LogOutputChannel, enable = true): Promise<InstalledRecord | undefined> {
  const core = loadCore();
  const s = store();
  // The plugin is copied into a private staging folder first and the question names what that copy runs;
  // Yes moves the same copy into place, No (or a failure) deletes it.
  const plan = await s.planInstall(marketplace, plugin);
  let record: InstalledRecord;
  try {
    if (!(await confirmInstall(plan.plugin, plan.summary.runs, core.pluginBrings(plan.plugin), enable))) return undefined;
    record = await s.install(plan);
  } finally {
    await s.discardInstall(plan);
  }
  await setEnabled(record.id, enable);
  log.info(`plugins: installed ${record.id} in ${record.dir}; it runs: ${record.runs.length > 0 ? record.runs.join('; ') : 'nothing'}`);
  // Said once the setting is in effect: a message sent after this toast gets the plugin's commands, hooks and tools.
  void vscode.window.showInformationMessage(
    enable ? vscode.l10n.t('Turnstone: plugin "{0}" installed and enabled.', record.name) : vscode.l10n.t('Turnstone: plugin "{0}" installed (disabled).', record.name),
  );
  return record;
}

async function remove(id: string, log: vscode.LogOutputChannel): Promise<boolean> {
  const removed = await store().uninstall(id);
  // At once, not after the setting is written: a turn starting meanwhile would run the plugin from the set read
  // before (its commands are held in memory), though its copy is gone.
  pluginsChanged();
  await setEnabled(id, false);
  if (removed) log.info(`plugins: removed ${id}`);
  return removed;
}

/** A git marketplace cloned afresh (a folder one is read where it is): what it lists now. Installed copies stay as they are. */
async function updateMarketplace(name: string, log: vscode.LogOutputChannel): Promise<Marketplace> {
  const updated = await vscode.window.withProgress({ location: vscode.ProgressLocation.Notification, title: vscode.l10n.t('Turnstone: updating the plugin marketplace "{0}"…', name) }, () => store().refreshMarketplace(name));
  log.info(`plugins: marketplace ${name} updated: ${updated.plugins.map((p) => `${p.name} ${p.version}`.trim()).join(', ')}`);
  for (const problem of updated.problems) log.warn(`plugins: ${name}: ${problem}`);
  return updated;
}

async function removeMarketplace(name: string, log: vscode.LogOutputChannel): Promise<string[]> {
  const ids = await store().removeMarketplace(name);
  pluginsChanged();
  const left = enabledPluginIds().filter((x) => !ids.includes(x) && !x.endsWith(`@${name}`));
  await vscode.workspace.getConfiguration('turnstone').update('plugins.enabled', left, vscode.ConfigurationTarget.Global);
  pluginsChanged();
  log.info(`plugins: marketplace ${name} removed${ids.length > 0 ? ` with ${ids.join(', ')}` : ''}`);
  return ids;
}

/** What a scripted call does; the result says what happened. */
async function runAction(args: ManagePluginsArgs, log: vscode.LogOutputChannel): Promise<unknown> {
  const id = args.id ?? (args.plugin && args.marketplace ? `${args.plugin}@${args.marketplace}` : undefined);
  switch (args.action) {
    // Update is an install over the older copy: the question names what the marketplace's copy runs now.
    case 'install':
    case 'update': {
      const [plugin, marketplace] = (id ?? '').split('@');
      if (!plugin || !marketplace) throw new Error(`${args.action} needs \`id\` (<plugin>@<marketplace>)`);
      return install(marketplace, plugin, log, args.action === 'install' || enabledPluginIds().includes(`${plugin}@${marketplace}`));
    }
    case 'updateMarketplace':
      if (!args.marketplace) throw new Error('updateMarketplace needs `marketplace`');
      return (await updateMarketplace(args.marketplace, log)).plugins.map((p) => ({ name: p.name, version: p.version }));
    case 'enable':
    case 'disable':
      if (!id) throw new Error(`${args.action} needs \`id\``);
      await setEnabled(id, args.action === 'enable');
      return enabledPluginIds();
    case 'remove':
      if (!id) throw new Error('remove needs `id`');
      return remove(id, log);
    case 'removeMarketplace':
      if (!args.marketplace) throw new Error('removeMarketplace needs `marketplace`');
      return removeMarketplace(args.marketplace, log);
  }
}

type Row = vscode.QuickPickItem & { run?: () => Promise<void> };

async function rows(log: vscode.LogOutputChannel): Promise<Row[]> {
  const core = loadCore();
  const s = store();
  const enabled = enabledPluginIds();
  const installed = await s.installed();
  const marketplaces = await s.marketplaces();
  const items: Row[] = [];
  const describe = async (dir: string): Promise<string> => {
    const read = await core.readPlugin(dir);
    return read.plugin ? core.pluginBrings(read.plugin) : read.problems[0] ?? '';
  };
  for (const m of marketplaces) {
    let listed: MarketplaceEntry[] = [];
    let problem: string | undefined;
    try {
      listed = (await s.marketplace(m.name)).marketplace.plugins;
    } catch (error) {
      problem = error instanceof Error ? error.message : String(error);
    }
    items.push({ label: m.name, kind: vscode.QuickPickItemKind.Separator });
    for (const record of installed.filter((i) => i.marketplace === m.name)) {
      const on = enabled.includes(record.id);
      const newer = listed.find((e) => e.name === record.name && !e.unavailable && e.version !== '' && e.version !== record.version);
      items.push({
        label: `${on ? '$(check)' : '$(circle-slash)'} ${record.name}`,
        description: [record.version, on ? vscode.l10n.t('enabled') : vscode.l10n.t('disabled'), newer ? vscode.l10n.t('{0} in the marketplace', newer.version) : ''].filter(Boolean).join(' · '),
        detail: await describe(record.dir),
        run: () => pluginActions(record, on, log),
      });
    }
    for (const entry of listed.filter((e) => !installed.some((i) => i.marketplace === m.name && i.name === e.name))) {
      items.push({
        label: `$(cloud-download) ${entry.name}`,
        description: entry.unavailable ? vscode.l10n.t('cannot be installed') : vscode.l10n.t('not installed'),
        detail: entry.unavailable ?? [entry.description, entry.dir ? await describe(entry.dir) : (entry.from ?? '')].filter(Boolean).join(' — '),
        ...(entry.unavailable ? {} : { run: async () => void (await install(m.name, entry.name, log)) }),
      });
    }
    if (m.kind === 'git') {
      items.push({
        label: vscode.l10n.t('$(sync) Update the marketplace "{0}"', m.name),
        description: marketplaceSource(m),
        run: async () => {
          const updated = await updateMarketplace(m.name, log);
          const manage = vscode.l10n.t('Manage Plugins');
          const choice = await vscode.window.showInformationMessage(vscode.l10n.t('Turnstone: marketplace "{0}" updated ({1} plugins). Installed plugins stay as they are until you update them.', m.name, updated.plugins.length), manage);
          if (choice === manage) await managePlugins(undefined, log);
        },
      });
    }
    items.push({ label: vscode.l10n.t('$(trash) Remove the marketplace "{0}"', m.name), description: problem ?? marketplaceSource(m), run: () => confirmRemoveMarketplace(m, log) });
  }
  items.push({ label: '', kind: vscode.QuickPickItemKind.Separator }, { label: vscode.l10n.t('$(add) Add Plugin Marketplace…'), run: async () => void (await addPluginMarketplace(undefined, log)) });
  return items;
}

const marketplaceSource = (m: MarketplaceRecord): string => (m.kind === 'git' ? `git: ${m.source}` : m.source);

async function confirmRemoveMarketplace(m: MarketplaceRecord, log: vscode.LogOutputChannel): Promise<void> {
  const ok = vscode.l10n.t('Remove Marketplace');
  const choice = await vscode.window.showWarningMessage(vscode.l10n.t('Remove the marketplace "{0}" and every plugin installed from it?', m.name), { modal: true }, ok);
  if (choice === ok) await removeMarketplace(m.name, log);
}

async function pluginActions(record: InstalledRecord, on: boolean, log: vscode.LogOutputChannel): Promise<void> {
  const toggle = { label: on ? vscode.l10n.t('$(circle-slash) Disable') : vscode.l10n.t('$(check) Enable'), act: 'toggle' as const };
  const removeItem = { label: vscode.l10n.t('$(trash) Remove'), detail: vscode.l10n.t('Deletes its copy: its commands, agents, skills, hooks and MCP servers are gone'), act: 'remove' as const };
  const runsItem = { label: vscode.l10n.t('$(terminal) What it runs'), detail: record.runs.length > 0 ? record.runs.join(' · ') : vscode.l10n.t('nothing (no hooks, no MCP servers)'), act: 'runs' as const };
  const updateItem = { label: vscode.l10n.t('$(sync) Update from the marketplace'), detail: vscode.l10n.t('Installs the marketplace’s copy over this one, after naming what it runs'), act: 'update' as const };
  const picked = await vscode.window.showQuickPick([toggle, updateItem, removeItem, runsItem], { title: record.id, ignoreFocusOut: true });
  if (!picked) return;
  if (picked.act === 'toggle') await setEnabled(record.id, !on);
  else if (picked.act === 'update') await install(record.marketplace, record.name, log, on);
  else if (picked.act === 'remove') await remove(record.id, log);
  else log.show(true);
}

/** `turnstone.plugins.manage`: the quick pick, or one scripted action. */
export async function managePlugins(arg: unknown, log: vscode.LogOutputChannel): Promise<unknown> {
  if (typeof arg === 'object' && arg !== null && typeof (arg as ManagePluginsArgs).action === 'string') return runAction(arg as ManagePluginsArgs, log);
  const items = await rows(log);
  const picked = await vscode.window.showQuickPick(items, {
    title: vscode.l10n.t('Turnstone Plugins'),
    placeHolder: vscode.workspace.isTrusted ? vscode.l10n.t('Install, enable, disable or remove a plugin') : vscode.l10n.t('This workspace is not trusted: no plugin runs here'),
    matchOnDetail: true,
    ignoreFocusOut: true,
  });
  await picked?.run?.();
  return undefined;
}
