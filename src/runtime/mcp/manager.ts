// The MCP servers of one window or CLI run. Owns every ServerConnection:
// starts them on the first step of the first turn (never earlier), in
// parallel, each within a start timeout; restarts a crashed one on a later step
// after a backoff; and hands the loop the tool list of the servers that are
// alive right now. Knows nothing of VS Code.
import { TurnCancellation } from '../cancellation';
import { type ToolDefinition } from '../types';
import { describeServer, type ConfigProblem, type McpServerConfig, type ServerLayer } from './config';
import { McpCallError, type CallOptions, type PreparedTool, ServerConnection, type ServerStatus } from './connection';
import { type CallToolResult } from '@modelcontextprotocol/sdk/types.js';

export interface McpManagerOptions {
  clientInfo?: { name: string; version: string };
  /** Per server, from spawn to its tool list. Default 30000. */
  startTimeoutMs?: number;
  /** Per tool call. Default 60000 (`turnstone.mcp.callTimeoutMs`). */
  callTimeoutMs?: number;
  /** Workspace-defined servers start only when true. Default false. */
  workspaceTrusted?: boolean;
  /** Restarts of a crashing server before it is left failed. Default 5. */
  maxRestarts?: number;
  log?: (level: 'info' | 'warn' | 'error', message: string) => void;
}

export interface ServerInfo {
  name: string;
  status: ServerStatus;
  origin: McpServerConfig['origin'];
  source: string;
  /** Transport and command or URL, never env or headers. */
  summary: string;
  tools: { name: string; tool: string; description: string }[];
  lastError: string | undefined;
}

export const SKIPPED_UNTRUSTED = 'defined by the workspace, which is not trusted (Restricted Mode): trust the folder to start it';

export class McpManager {
  private readonly servers = new Map<string, ServerConnection>();
  private problems: ConfigProblem[] = [];
  private started = false;
  private cache: { definitions: ToolDefinition[]; byName: Map<string, { tool: PreparedTool; server: ServerConnection }> } | undefined;
  private readonly listeners = new Set<() => void>();
  private readonly opts: Required<Omit<McpManagerOptions, 'log'>> & Pick<McpManagerOptions, 'log'>;
  private disposed = false;
  private readonly reported = new Set<string>();

  constructor(layer: ServerLayer = { servers: [], problems: [] }, options: McpManagerOptions = {}) {
    this.opts = {
      clientInfo: options.clientInfo ?? { name: 'turnstone', version: '0.1.0' },
      startTimeoutMs: options.startTimeoutMs ?? 30_000,
      callTimeoutMs: options.callTimeoutMs ?? 60_000,
      workspaceTrusted: options.workspaceTrusted ?? false,
      maxRestarts: options.maxRestarts ?? 5,
      log: options.log,
    };
    this.configure(layer);
  }

  get callTimeoutMs(): number {
    return this.opts.callTimeoutMs;
  }

  set callTimeoutMs(ms: number) {
    this.opts.callTimeoutMs = ms;
  }

  /**
   * Applies a (re-read) configuration: unchanged servers keep running, changed
   * or removed ones stop, new ones start with the next step once the manager
   * has started. Trust may change with it (Restricted Mode → trusted).
   */
  configure(layer: ServerLayer, workspaceTrusted = this.opts.workspaceTrusted): void {
    this.opts.workspaceTrusted = workspaceTrusted;
    this.problems = layer.problems;
    // The host re-reads the configuration every turn: say each problem once, not once per turn.
    for (const p of layer.problems) {
      const line = `MCP configuration ${p.source}${p.server ? ` (server ${p.server})` : ''}: ${p.message}`;
      if (this.reported.has(line)) continue;
      this.reported.add(line);
      this.log('warn', line);
    }
    const wanted = new Map(layer.servers.map((s) => [s.name, s]));
    for (const [name, conn] of this.servers) {
      const next = wanted.get(name);
      if (!next || JSON.stringify(next) !== JSON.stringify(conn.config) || (conn.status === 'skipped') !== this.skips(next)) {
        void conn.stop();
        this.servers.delete(name);
      }
    }
    for (const config of layer.servers) {
      if (this.servers.has(config.name)) continue;
      const conn = new ServerConnection(config, {
        clientInfo: this.opts.clientInfo,
        startTimeoutMs: this.opts.startTimeoutMs,
        log: (level, message) => this.log(level, message),
        onChange: () => this.changed(),
      });
      if (this.skips(config)) {
        conn.status = 'skipped';
        conn.lastError = SKIPPED_UNTRUSTED;
      }
      this.servers.set(config.name, conn);
    }
    this.changed();
  }

  private skips(config: McpServerConfig): boolean {
    return (config.origin === 'workspace' || config.origin === 'plugin') && !this.opts.workspaceTrusted;
  }

  /**
   * Called before every step: the first call starts every server in parallel;
   * later calls restart crashed servers whose backoff has passed and wait for
   * tool-list refreshes a server announced. Bounded by the start timeout.
   */
  async prepareStep(signal?: AbortSignal): Promise<void> {
    if (this.disposed) return;
    const now = Date.now();
    const starts: Promise<void>[] = [];
    for (const conn of this.servers.values()) {
      if (conn.status === 'idle' || conn.status === 'stopped') starts.push(conn.start());
      // A server that never started is not retried on its own (each try could cost the start timeout): restart it by command.
      else if (conn.status === 'crashed' && conn.nextStartAt <= now && conn.restarts < this.opts.maxRestarts) {
        conn.restarts++;
        starts.push(conn.start());
      } else if (conn.status === 'running') starts.push(conn.settled());
    }
    this.started = true;
    if (starts.length === 0) return;
    const cancellation = new TurnCancellation(signal);
    try {
      await cancellation.race(Promise.all(starts));
    } catch (error) {
      // A Stop does not wait for servers still starting: they go on, and the loop gives way to the Stop.
      if (!cancellation.cancelled) throw error instanceof Error ? error : new Error(String(error));
    } finally {
      cancellation.dispose();
    }
  }

  /** The tools of live servers, as the model sees them. Cached between changes: this runs on every step. */
  definitions(): ToolDefinition[] {
    return this.index().definitions;
  }

  lookup(name: string): PreparedTool | undefined {
    return this.index().byName.get(name)?.tool;
  }

  async call(name: string, input: Record<string, unknown>, options: Omit<CallOptions, 'timeoutMs'> & { timeoutMs?: number }): Promise<{ result: CallToolResult; server: ServerConnection }> {
    const entry = this.index().byName.get(name);
    if (!entry) throw new McpCallError(`${name} is no longer available: its MCP server stopped or no longer lists it`);
    const result = await entry.server.call(entry.tool, input, { ...options, timeoutMs: options.timeoutMs ?? this.opts.callTimeoutMs });
    return { result, server: entry.server };
  }

  /** For the command showing servers, and for panel notices. */
  status(): ServerInfo[] {
    return [...this.servers.values()].map((c) => ({
      name: c.name,
      status: c.status,
      origin: c.config.origin,
      source: c.config.source,
      summary: describeServer(c.config),
      tools: c.tools.map((t) => ({ name: t.name, tool: t.tool, description: t.description })),
      lastError: c.lastError,
    }));
  }

  get configProblems(): readonly ConfigProblem[] {
    return this.problems;
  }

  /** A person asked for it: start again now, with a fresh backoff. */
  async restart(name: string): Promise<void> {
    const conn = this.servers.get(name);
    if (!conn || conn.status === 'skipped') return;
    conn.restarts = 0;
    await conn.start();
  }

  /** The child pids of running stdio servers (for the CLI's no-orphans check and tests). */
  pids(): number[] {
    return [...this.servers.values()].map((c) => c.pid).filter((p): p is number => p !== undefined);
  }

  pidOf(name: string): number | undefined {
    return this.servers.get(name)?.pid;
  }

  onDidChange(listener: () => void): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  /** Stops every server (stdio children are closed, then signalled by the SDK). */
  async dispose(): Promise<void> {
    this.disposed = true;
    await Promise.all([...this.servers.values()].map((c) => c.stop()));
    this.listeners.clear();
  }

  private index() {
    if (this.cache) return this.cache;
    const definitions: ToolDefinition[] = [];
    const byName = new Map<string, { tool: PreparedTool; server: ServerConnection }>();
    for (const server of this.servers.values()) {
      if (server.status !== 'running') continue;
      for (const tool of server.tools) {
        // Two servers whose names sanitise alike: the first keeps the name.
        if (byName.has(tool.name)) continue;
        byName.set(tool.name, { tool, server });
        definitions.push(tool.definition);
      }
    }
    this.cache = { definitions, byName };
    return this.cache;
  }

  private changed(): void {
    this.cache = undefined;
    for (const l of this.listeners) l();
  }

  private log(level: 'info' | 'warn' | 'error', message: string): void {
    this.opts.log?.(level, message);
  }
}
