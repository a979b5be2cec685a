// The CLI's MCP servers: the workspace's own files plus every `--mcp-config`
// file, in that order (a later file wins per server name). Running the CLI in a
// folder is the user's choice of that folder, so its files count as trusted;
// the tools still need --allow rules (or bypassPermissions) to run unasked.
import { mergeLayers, readServerFile, readWorkspaceServers, type ExpandContext } from '../runtime/mcp/config';
import { McpManager } from '../runtime/mcp/manager';

/** A --mcp-config file that cannot be read or parsed is a usage error (exit 2): the user named it. */
export class McpConfigError extends Error {
  override readonly name = 'McpConfigError';
}

export async function createCliMcp(cwd: string, files: readonly string[], version: string, warn: (message: string) => void): Promise<McpManager | undefined> {
  const ctx: ExpandContext = { workspaceFolder: cwd, env: process.env };
  const given = await Promise.all(files.map((f) => readServerFile(f, 'cli', ctx, true)));
  const unreadable = given.flatMap((l) => l.problems.filter((p) => p.server === undefined));
  if (unreadable.length > 0) throw new McpConfigError(unreadable.map((p) => `--mcp-config ${p.source}: ${p.message}`).join('; '));
  const merged = mergeLayers([...(await readWorkspaceServers(cwd, ctx)), ...given]);
  for (const p of merged.problems) warn(`MCP configuration ${p.source}${p.server ? ` (server ${p.server})` : ''}: ${p.message}`);
  if (merged.servers.length === 0) return undefined;
  const callTimeout = Number(process.env.TURNSTONE_MCP_CALL_TIMEOUT_MS);
  return new McpManager(
    { servers: merged.servers, problems: [] },
    {
      clientInfo: { name: 'turnstone-cli', version },
      workspaceTrusted: true,
      ...(Number.isFinite(callTimeout) && callTimeout > 0 ? { callTimeoutMs: callTimeout } : {}),
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
