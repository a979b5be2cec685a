// How the model and permission rules name an MCP tool (contracts.md):
// `mcp__<server>__<tool>`, every character outside [A-Za-z0-9_-] becoming `_`.
export const MCP_PREFIX = 'mcp__';

/** The providers' limit for a tool name; longer names are dropped with a log line rather than cut into collisions. */
export const MAX_TOOL_NAME = 64;

export const sanitizeName = (s: string): string => s.replace(/[^A-Za-z0-9_-]/g, '_');

export const mcpToolName = (server: string, tool: string): string => `${MCP_PREFIX}${sanitizeName(server)}__${sanitizeName(tool)}`;

export const isMcpToolName = (name: string): boolean => name.startsWith(MCP_PREFIX);
