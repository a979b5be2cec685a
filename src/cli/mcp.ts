// The CLI's MCP servers: the workspace's own files plus every `--mcp-config`
// file, in that order (a later file wins per server name). Running the CLI in a
// folder is the user's choice of that folder, so its files count as trusted;
// the tools still need --allow rules (or bypassPermissions) to run unasked.
import { mergeLayers, parseServerMap, readServerFile, readWorkspaceServers, type ExpandContext, type ServerLayer } from '../runtime/mcp/config';
import { McpManager } from '../runtime/mcp/manager';

/** A --mcp-config file that cannot be read or parsed is a usage error (exit 2): the user named it. */
export class McpConfigError extends Error {
  override readonly name = 'McpConfigError';
}

/** `turnstone.mcpServers` and the MCP timeouts of a `--settings` file. */
export interface CliMcpSettings {
  servers: unknown;
  source: string;
  callTimeoutMs: number;
  startTimeoutMs: number;
}

/** `plugins`: the --plugin-dir plugins' servers (agent/plugins/plugin-mcp.ts), below every other layer. */
export async function createCliMcp(cwd: string, files: readonly string[], version: string, warn: (message: string) => void, settings?: CliMcpSettings, plugins?: (ctx: ExpandContext) => ServerLayer): Promise<McpManager | undefined> {
  const ctx: ExpandContext = { workspaceFolder: cwd, env: process.env };
  const given = await Promise.all(files.map((f) => readServerFile(f, 'cli', ctx, true)));
  const fromSettings = settings?.servers !== undefined ? [parseServerMap(settings.servers, 'cli', settings.source, ctx)] : [];
  const unreadable = [...fromSettings, ...given].flatMap((l) => l.problems.filter((p) => p.server === undefined));
  if (unreadable.length > 0) throw new McpConfigError(unreadable.map((p) => `${p.source.startsWith('--settings') ? '' : '--mcp-config '}${p.source}: ${p.message}`).join('; '));
  // Later layers win per server name: the plugins', the workspace's files, then --settings, then each --mcp-config.
  const merged = mergeLayers([...(plugins ? [plugins(ctx)] : []), ...(await readWorkspaceServers(cwd, ctx)), ...fromSettings, ...given]);
  for (const p of merged.problems) warn(`MCP configuration ${p.source}${p.server ? ` (server ${p.server})` : ''}: ${p.message}`);
  if (merged.servers.length === 0) return undefined;
  const envCallTimeout = Number(process.env.TURNSTONE_MCP_CALL_TIMEOUT_MS);
  const callTimeout = Number.isFinite(envCallTimeout) && envCallTimeout > 0 ? envCallTimeout : settings?.callTimeoutMs;
  return new McpManager(
    { servers: merged.servers, problems: [] },
    {
      clientInfo: { name: 'turnstone-cli', version },
      workspaceTrusted: true,
      ...(callTimeout !== undefined ? { callTimeoutMs: callTimeout } : {}),
      ...(settings ? { startTimeoutMs: settings.startTimeoutMs } : {}),
      log: (level, message) => {
        if (level !== 'info') warn(message);
      },
    },
  );
}

/** Last resort on a second Ctrl+C: the process exits now, so its servers are signalled synchronously. */
export function killServers(manager: McpManager | undefined): void {
  for (const pid of manager?.pids() ?? []) {
    try {
      process.kill(pid, 'SIGTERM');
    } catch {
      // Already gone.
    }
  }
}
