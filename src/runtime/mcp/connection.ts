// One MCP server: its transport and SDK client, its prepared tool list, and
// what went wrong last. The protocol is the SDK's (@modelcontextprotocol/sdk);
// this module only decides when to start, what counts as a crash, and what a
// person or the model is told about it.
import { setMaxListeners } from 'node:events';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { SSEClientTransport } from '@modelcontextprotocol/sdk/client/sse.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { type Transport } from '@modelcontextprotocol/sdk/shared/transport.js';
import { type CallToolResult, ErrorCode, McpError, type Tool, ToolListChangedNotificationSchema } from '@modelcontextprotocol/sdk/types.js';
import { AjvJsonSchemaValidator } from '@modelcontextprotocol/sdk/validation/ajv';
import { cutTail } from '../text-cut';
import { type ToolDefinition } from '../types';
import { type McpServerConfig, redact, secretsOf } from './config';
import { MAX_TOOL_NAME, mcpToolName } from './names';

export type ServerStatus = 'idle' | 'starting' | 'running' | 'failed' | 'crashed' | 'skipped' | 'stopped';

export interface PreparedTool {
  /** The name the model sees: mcp__<server>__<tool>. */
  name: string;
  server: string;
  /** The server's own name for it. */
  tool: string;
  description: string;
  readOnlyHint: boolean;
  definition: ToolDefinition;
  /** Undefined when the input fits the tool's schema, else why not. */
  check(input: unknown): string | undefined;
}

export interface ConnectionOptions {
  clientInfo: { name: string; version: string };
  startTimeoutMs: number;
  log: (level: 'info' | 'warn' | 'error', message: string) => void;
  onChange: () => void;
}

export interface CallOptions {
  signal: AbortSignal;
  timeoutMs: number;
  onProgress?: (chunk: string) => void;
}

const STDERR_TAIL_CHARS = 2000;
/** Up this long, a server counts as started cleanly: its restart count starts over. */
export const STABLE_MS = 60_000;
/** Shared: compiled validators are per schema object, and ajv instances are not small. */
const validator = new AjvJsonSchemaValidator();

export class McpCallError extends Error {
  override readonly name = 'McpCallError';
}

export class ServerConnection {
  status: ServerStatus = 'idle';
  tools: PreparedTool[] = [];
  lastError: string | undefined;
  /**
   * Restarts since the server last proved healthy (the backoff grows with it, and the manager gives up at
   * its limit). A start is clean once the server answers a call or stays up STABLE_MS: a long session's
   * occasional crashes must not use up the restarts for good, while a server that dies right after every
   * start still runs out of them.
   */
  restarts = 0;
  private runningSince = 0;
  /** When a crashed server may be started again. */
  nextStartAt = 0;
  private client: Client | undefined;
  private stderrTail = '';
  private closing = false;
  private refreshing: Promise<void> | undefined;
  private starting: Promise<void> | undefined;
  private readonly secrets: string[];

  constructor(
    readonly config: McpServerConfig,
    private readonly options: ConnectionOptions,
  ) {
    this.secrets = secretsOf(config);
  }

  get name(): string {
    return this.config.name;
  }

  /** The child's pid for stdio servers (tests and the "no orphans" check use it). */
  pid: number | undefined;

  /** Starts (or restarts) the server; never throws: failure is a status with a reason. */
  start(): Promise<void> {
    this.starting ??= this.doStart().finally(() => (this.starting = undefined));
    return this.starting;
  }

  private async doStart(): Promise<void> {
    await this.closeClient();
    this.status = 'starting';
    this.closing = false;
    this.stderrTail = '';
    this.options.onChange();
    const client = new Client(this.options.clientInfo, { capabilities: {} });
    this.client = client;
    let transport: Transport;
    try {
      transport = this.createTransport();
    } catch (error) {
      this.fail(`could not be started: ${message(error)}`);
      return;
    }
    client.setNotificationHandler(ToolListChangedNotificationSchema, () => {
      // Kept as a promise so the next step waits for the new list instead of racing it.
      this.refreshing = this.refresh(client).catch((error: unknown) => this.options.log('warn', `MCP server ${this.name}: could not refresh its tools: ${this.clean(message(error))}`));
    });
    client.onclose = () => this.onClosed(client);
    let timer: NodeJS.Timeout | undefined;
    const timeout = new Promise<never>((_, reject) => {
      timer = setTimeout(() => reject(new McpCallError(`did not start within ${this.options.startTimeoutMs} ms`)), this.options.startTimeoutMs);
    });
    const connecting = (async () => {
      await client.connect(transport);
      await this.refresh(client);
    })();
    connecting.catch(() => undefined);
    try {
      await Promise.race([connecting, timeout]);
      this.status = 'running';
      this.runningSince = Date.now();
      this.lastError = undefined;
      this.options.log('info', `MCP server ${this.name} started: ${this.tools.length} tool(s)`);
      this.options.onChange();
    } catch (error) {
      const prefix = error instanceof McpCallError ? error.message : `could not be started: ${message(error)}`;
      await this.closeClient();
      this.fail(prefix);
    } finally {
      clearTimeout(timer);
    }
  }

  private createTransport(): Transport {
    const c = this.config;
    if (c.transport === 'stdio') {
      // The SDK adds its safe default environment (PATH, HOME…) under these variables.
      const t = new StdioClientTransport({ command: c.command, args: c.args, env: c.env, ...(c.cwd ? { cwd: c.cwd } : {}), stderr: 'pipe' });
      t.stderr?.on('data', (chunk: Buffer) => {
        this.stderrTail = cutTail(this.stderrTail + chunk.toString('utf8'), STDERR_TAIL_CHARS);
      });
      const start = t.start.bind(t);
      t.start = async () => {
        await start();
        this.pid = t.pid ?? undefined;
      };
      return t;
    }
    const requestInit: RequestInit = { headers: c.headers };
    if (c.transport === 'sse') return new SSEClientTransport(new URL(c.url), { requestInit });
    return new StreamableHTTPClientTransport(new URL(c.url), { requestInit });
  }

  /** Waits for a tools/list_changed refresh in flight, so the step sees the list the server announced. */
  async settled(): Promise<void> {
    await this.refreshing;
  }

  private async refresh(client: Client): Promise<void> {
    const listed: Tool[] = [];
    let cursor: string | undefined;
    do {
      const page = await client.listTools(cursor ? { cursor } : undefined, { timeout: this.options.startTimeoutMs });
      listed.push(...page.tools);
      cursor = page.nextCursor;
    } while (cursor);
    if (client !== this.client) return;
    this.tools = this.prepare(listed);
    this.options.onChange();
  }

  private prepare(listed: Tool[]): PreparedTool[] {
    const out: PreparedTool[] = [];
    const seen = new Set<string>();
    for (const t of listed) {
      const name = mcpToolName(this.name, t.name);
      if (name.length > MAX_TOOL_NAME) {
        this.options.log('warn', `MCP server ${this.name}: tool ${t.name} skipped: its name ${name} is longer than ${MAX_TOOL_NAME} characters`);
        continue;
      }
      if (seen.has(name)) {
        this.options.log('warn', `MCP server ${this.name}: tool ${t.name} skipped: another tool already has the name ${name}`);
        continue;
      }
      let validate;
      try {
        validate = validator.getValidator(t.inputSchema as Parameters<typeof validator.getValidator>[0]);
      } catch (error) {
        this.options.log('warn', `MCP server ${this.name}: tool ${t.name} skipped: its input schema is invalid (${message(error)})`);
        continue;
      }
      seen.add(name);
      const description = t.description ?? t.title ?? t.annotations?.title ?? '';
      out.push({
        name,
        server: this.name,
        tool: t.name,
        description,
        readOnlyHint: t.annotations?.readOnlyHint === true,
        // The schema goes to the model exactly as the server wrote it.
        definition: { name, description, input_schema: t.inputSchema as Record<string, unknown> },
        check: (input) => {
          const r = validate(input);
          return r.valid ? undefined : r.errorMessage;
        },
      });
    }
    return out;
  }

  async call(tool: PreparedTool, input: Record<string, unknown>, options: CallOptions): Promise<CallToolResult> {
    const client = this.client;
    if (!client || this.status !== 'running') throw new McpCallError(`MCP server ${this.name} is not running${this.lastError ? `: ${this.lastError}` : ''}`);
    try {
      const result = await client.callTool({ name: tool.tool, arguments: input }, undefined, {
        signal: callSignal(options.signal),
        timeout: options.timeoutMs,
        ...(options.onProgress
          ? { onprogress: (p: { progress: number; total?: number; message?: string }) => options.onProgress?.(`${p.message ?? 'progress'} ${p.progress}${p.total !== undefined ? `/${p.total}` : ''}\n`) }
          : {}),
      });
      this.restarts = 0;
      return result as CallToolResult;
    } catch (error) {
      if (options.signal.aborted) throw error;
      if (error instanceof McpError && error.code === ErrorCode.RequestTimeout) {
        throw new McpCallError(`MCP server ${this.name}: ${tool.tool} timed out after ${options.timeoutMs} ms (the request was cancelled)`);
      }
      if ((this.status as ServerStatus) === 'crashed' || (error instanceof McpError && error.code === ErrorCode.ConnectionClosed)) {
        throw new McpCallError(`MCP server ${this.name} stopped during the call to ${tool.tool}${this.stderrTail ? `; its last output:\n${this.clean(this.stderrTail.trim())}` : ''}`);
      }
      throw new McpCallError(`MCP server ${this.name}: ${tool.tool} failed: ${this.clean(message(error))}`);
    }
  }

  /** Secrets in the server's env or headers are replaced before anything is shown or saved. */
  clean(text: string): string {
    return redact(text, this.secrets);
  }

  private onClosed(client: Client): void {
    if (client !== this.client || this.closing) return;
    this.client = undefined;
    this.tools = [];
    this.status = 'crashed';
    if (Date.now() - this.runningSince >= STABLE_MS) this.restarts = 0;
    this.lastError = this.clean(`stopped unexpectedly${this.stderrTail ? `; its last output:\n${this.stderrTail.trim()}` : ''}`);
    this.nextStartAt = Date.now() + backoffMs(this.restarts);
    this.options.log('error', `MCP server ${this.name} ${this.lastError}`);
    this.options.onChange();
  }

  private fail(reason: string): void {
    this.tools = [];
    this.status = 'failed';
    this.lastError = this.clean(`${reason}${this.stderrTail ? `; its last output:\n${this.stderrTail.trim()}` : ''}`);
    this.nextStartAt = Date.now() + backoffMs(this.restarts);
    this.options.log('error', `MCP server ${this.name} ${this.lastError}`);
    this.options.onChange();
  }

  private async closeClient(): Promise<void> {
    const client = this.client;
    if (!client) return;
    this.closing = true;
    this.client = undefined;
    await client.close().catch(() => undefined);
  }

  async stop(): Promise<void> {
    await this.closeClient();
    this.tools = [];
    if (this.status !== 'skipped') this.status = 'stopped';
  }
}

/** Signals calls were made under: undefined after the first call, the derived signal from the second on. */
const derived = new WeakMap<AbortSignal, AbortSignal | undefined>();

/**
 * The signal handed to the SDK for calls made under `signal`. The SDK adds an
 * abort listener per request and never removes it. The loop gives each tool use
 * its own signal (a child of the turn's), so the first call under a signal gets
 * it as is: deriving one costs ~25 µs in Node 20, a fifth of a local call. A
 * caller making many calls under one signal gets a derived one from the second
 * call on, so the SDK's listeners collect there (Node warns past ten on one
 * signal) and go away with it.
 */
function callSignal(signal: AbortSignal): AbortSignal {
  if (!derived.has(signal)) {
    derived.set(signal, undefined);
    return signal;
  }
  let d = derived.get(signal);
  if (!d) {
    const controller = new AbortController();
    setMaxListeners(0, controller.signal);
    if (signal.aborted) controller.abort(signal.reason);
    else signal.addEventListener('abort', () => controller.abort(signal.reason), { once: true });
    d = controller.signal;
    derived.set(signal, d);
  }
  return d;
}

/** 1 s, 2 s, 4 s … capped at a minute. */
export const backoffMs = (restarts: number): number => Math.min(60_000, 1000 * 2 ** restarts);

function message(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}
