// MCP server definitions (contracts.md "MCP servers"): the user setting
// `turnstone.mcpServers`, `.vscode/mcp.json` ({"servers"}), `.mcp.json`
// ({"mcpServers"}) and the CLI's `--mcp-config` files, later layers winning per
// server name. Each entry is parsed alone so one bad server never hides the others.
import { readFile } from 'node:fs/promises';
import * as path from 'node:path';
import { z } from 'zod';

const StringMap = z.record(z.string(), z.string());

const StdioEntry = z.object({
  type: z.literal('stdio').optional(),
  command: z.string().min(1, 'command must not be empty'),
  args: z.array(z.string()).optional(),
  env: StringMap.optional(),
  cwd: z.string().optional(),
});

const RemoteEntry = z.object({
  // VS Code writes "http"; some clients write "streamable-http"/"streamableHttp". No type plus a url means http.
  type: z.enum(['http', 'streamable-http', 'streamableHttp', 'sse']).optional(),
  url: z.string().url('url must be an absolute URL'),
  headers: StringMap.optional(),
});

/** `plugin`: an installed (or --plugin-dir) plugin's `.mcp.json`; it starts only where the workspace's own servers would. */
export type ServerOrigin = 'user' | 'workspace' | 'cli' | 'plugin';

interface ServerBase {
  name: string;
  origin: ServerOrigin;
  /** Where it was defined (a file path or a setting name), for messages. */
  source: string;
  /**
   * Which copy of its definition this is, when the file can be replaced where it is (an updated plugin's folder
   * keeps its path): a server whose revision changed is restarted like one whose settings did.
   */
  revision?: string;
}

export type McpServerConfig =
  | (ServerBase & { transport: 'stdio'; command: string; args: string[]; env: Record<string, string>; cwd: string | undefined })
  | (ServerBase & { transport: 'http' | 'sse'; url: string; headers: Record<string, string> });

export interface ConfigProblem {
  source: string;
  server?: string;
  message: string;
}

export interface ServerLayer {
  servers: McpServerConfig[];
  problems: ConfigProblem[];
}

export interface ExpandContext {
  workspaceFolder: string | undefined;
  env: Record<string, string | undefined>;
}

/**
 * `${workspaceFolder}`, `${env:NAME}` (VS Code's spelling) and `${NAME}` /
 * `${NAME:-default}` (Claude Code's, so a copied `.mcp.json` works as it is).
 * Anything else (e.g. VS Code's `${input:…}`) is left as written.
 */
export function expandValue(value: string, ctx: ExpandContext): string {
  return value.replace(/\$\{([^}]+)\}/g, (whole, inner: string) => {
    if (inner === 'workspaceFolder') return ctx.workspaceFolder ?? whole;
    if (inner === 'userHome') return ctx.env.HOME ?? ctx.env.USERPROFILE ?? whole;
    const env = /^env:([A-Za-z_][A-Za-z0-9_]*)$/.exec(inner);
    if (env) return ctx.env[env[1]!] ?? '';
    const plain = /^([A-Za-z_][A-Za-z0-9_]*)(?::-(.*))?$/s.exec(inner);
    if (plain) return ctx.env[plain[1]!] ?? plain[2] ?? '';
    return whole;
  });
}

const expandMap = (m: Record<string, string> | undefined, ctx: ExpandContext) =>
  Object.fromEntries(Object.entries(m ?? {}).map(([k, v]) => [k, expandValue(v, ctx)]));

function parseEntry(name: string, raw: unknown, origin: ServerOrigin, source: string, ctx: ExpandContext): McpServerConfig | ConfigProblem {
  const base = { name, origin, source };
  const hasUrl = typeof raw === 'object' && raw !== null && 'url' in raw;
  if (!hasUrl) {
    const r = StdioEntry.safeParse(raw);
    if (!r.success) return { source, server: name, message: z.prettifyError(r.error).replace(/\n/g, ' ') };
    const cwd = r.data.cwd === undefined ? ctx.workspaceFolder : expandValue(r.data.cwd, ctx);
    return {
      ...base,
      transport: 'stdio',
      command: expandValue(r.data.command, ctx),
      args: (r.data.args ?? []).map((a) => expandValue(a, ctx)),
      env: expandMap(r.data.env, ctx),
      cwd: cwd && ctx.workspaceFolder ? path.resolve(ctx.workspaceFolder, cwd) : cwd,
    };
  }
  const expanded = typeof raw === 'object' && raw !== null && typeof (raw as { url?: unknown }).url === 'string' ? { ...raw, url: expandValue((raw as { url: string }).url, ctx) } : raw;
  const r = RemoteEntry.safeParse(expanded);
  if (!r.success) return { source, server: name, message: z.prettifyError(r.error).replace(/\n/g, ' ') };
  return { ...base, transport: r.data.type === 'sse' ? 'sse' : 'http', url: r.data.url, headers: expandMap(r.data.headers, ctx) };
}

/** One file's or setting's servers. Accepts `{"servers": …}`, `{"mcpServers": …}` or a bare map (the setting). */
export function parseServerMap(raw: unknown, origin: ServerOrigin, source: string, ctx: ExpandContext): ServerLayer {
  const layer: ServerLayer = { servers: [], problems: [] };
  if (raw === undefined || raw === null) return layer;
  if (typeof raw !== 'object' || Array.isArray(raw)) {
    layer.problems.push({ source, message: 'expected a JSON object of servers' });
    return layer;
  }
  const obj = raw as Record<string, unknown>;
  const map = 'servers' in obj || 'mcpServers' in obj ? { ...(obj.servers as object | undefined), ...(obj.mcpServers as object | undefined) } : obj;
  if (typeof map !== 'object' || map === null) return layer;
  for (const [name, entry] of Object.entries(map)) {
    if (typeof entry === 'object' && entry !== null && (entry as { disabled?: unknown }).disabled === true) continue;
    const parsed = parseEntry(name, entry, origin, source, ctx);
    if ('transport' in parsed) layer.servers.push(parsed);
    else layer.problems.push(parsed);
  }
  return layer;
}

/** Reads one JSON file of servers; a missing file is no servers, a broken one is a problem to report. */
export async function readServerFile(file: string, origin: ServerOrigin, ctx: ExpandContext, required = false): Promise<ServerLayer> {
  let text: string;
  try {
    text = await readFile(file, 'utf8');
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (!required && (code === 'ENOENT' || code === 'ENOTDIR')) return { servers: [], problems: [] };
    return { servers: [], problems: [{ source: file, message: `cannot read the file (${code ?? String(error)})` }] };
  }
  let json: unknown;
  try {
    json = JSON.parse(stripJsonComments(text));
  } catch (error) {
    return { servers: [], problems: [{ source: file, message: `not valid JSON: ${error instanceof Error ? error.message : String(error)}` }] };
  }
  return parseServerMap(json, origin, file, ctx);
}

/** VS Code's mcp.json is JSONC: drop comments and trailing commas outside strings. */
export function stripJsonComments(text: string): string {
  let out = '';
  for (let i = 0; i < text.length; i++) {
    const c = text[i]!;
    if (c === '"') {
      let j = i + 1;
      while (j < text.length && text[j] !== '"') j += text[j] === '\\' ? 2 : 1;
      out += text.slice(i, j + 1);
      i = j;
    } else if (c === '/' && text[i + 1] === '/') {
      while (i < text.length && text[i] !== '\n') i++;
      out += '\n';
    } else if (c === '/' && text[i + 1] === '*') {
      const end = text.indexOf('*/', i + 2);
      i = end < 0 ? text.length : end + 1;
    } else out += c;
  }
  return out.replace(/,(\s*[}\]])/g, '$1');
}

/** The workspace's own files, in contract order (`.vscode/mcp.json`, then `.mcp.json`). */
export async function readWorkspaceServers(root: string, ctx: ExpandContext): Promise<ServerLayer[]> {
  return Promise.all([readServerFile(path.join(root, '.vscode', 'mcp.json'), 'workspace', ctx), readServerFile(path.join(root, '.mcp.json'), 'workspace', ctx)]);
}

/** Later layers win per server name. */
export function mergeLayers(layers: readonly ServerLayer[]): ServerLayer {
  const byName = new Map<string, McpServerConfig>();
  const problems: ConfigProblem[] = [];
  for (const layer of layers) {
    for (const s of layer.servers) byName.set(s.name, s);
    problems.push(...layer.problems);
  }
  return { servers: [...byName.values()], problems };
}

const SECRET_NAME = /token|key|secret|passw|auth|credential|cookie|session|pat$/i;

/**
 * Values that must never be shown: every header value, and env values whose
 * name looks like a credential (redacting `NODE_ENV=production` everywhere
 * would garble honest output). Very short values are left: they match too much.
 */
export function secretsOf(config: McpServerConfig): string[] {
  const values = config.transport === 'stdio' ? Object.entries(config.env).filter(([k]) => SECRET_NAME.test(k)).map(([, v]) => v) : Object.values(config.headers).map((v) => v.replace(/^(Bearer|Basic|Token)\s+/i, ''));
  return values.filter((v) => v.length >= 4);
}

export function redact(text: string, secrets: readonly string[]): string {
  let out = text;
  for (const s of secrets) if (out.includes(s)) out = out.split(s).join('***');
  return out;
}

/** How a server is shown to people (never its env or headers; a URL without its query, which may hold a token). */
export function describeServer(config: McpServerConfig): string {
  if (config.transport === 'stdio') return `stdio: ${path.basename(config.command)}`;
  try {
    const u = new URL(config.url);
    return `${config.transport}: ${u.origin}${u.pathname}`;
  } catch {
    return config.transport;
  }
}
