// Plugins' MCP servers as one layer of server definitions, below the workspace's and the user's own (a server of
// the same name defined there wins). Origin `plugin`: the manager starts them only where it would start the
// workspace's own servers (a trusted workspace; the CLI's folder counts as trusted).
import { readFileSync, statSync } from 'node:fs';
import * as path from 'node:path';
import { parseServerMap, type ExpandContext, type ServerLayer } from '../../runtime/mcp/config';
import { type LoadedPlugin, type PluginSet } from './plugin-reader';
import { INSTALL_STAMP } from './plugin-store';

export function pluginServerLayer(set: PluginSet, ctx: ExpandContext): ServerLayer {
  const layer: ServerLayer = { servers: [], problems: [] };
  for (const plugin of set.plugins) {
    if (Object.keys(plugin.mcpServers).length === 0) continue;
    const one = parseServerMap(plugin.mcpServers, 'plugin', `plugin ${plugin.name} (.mcp.json)`, ctx);
    // An update installs over the same folder: its servers would go on running the deleted copy's files.
    const revision = copyRevision(plugin);
    for (const s of one.servers) if (!layer.servers.some((o) => o.name === s.name)) layer.servers.push(revision ? { ...s, revision } : s);
    layer.problems.push(...one.problems);
  }
  return layer;
}

/**
 * The copy of the plugin on disk: the store's stamp of the install (an update lands in the same folder), else (a
 * --plugin-dir folder) its version and when its manifest was last written.
 */
function copyRevision(plugin: LoadedPlugin): string | undefined {
  try {
    return readFileSync(path.join(plugin.realRoot, INSTALL_STAMP), 'utf8').trim();
  } catch {
    // Not installed by the store.
  }
  try {
    return `${plugin.version}@${statSync(path.join(plugin.realRoot, plugin.manifestFile)).mtimeMs}`;
  } catch {
    return undefined;
  }
}
