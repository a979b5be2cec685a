// The shared vocabulary of the agent core: conversation messages, the events a
// model stream is normalised into (S1), and the ports the turn loop depends on.
// Declared once here; providers, tools, hosts and the CLI all speak these types.
// No `vscode` import may ever appear under src/runtime or src/tools.
import { type Plan } from './plan';
import { type CommandAnalysis } from './policy/shell-command';

// ---------------------------------------------------------------------------
// Messages (the Anthropic content-block shape is the lingua franca; the
// OpenAI-compatible provider converts to and from it).

export interface TextBlock {
  type: 'text';
  text: string;
}

/** Kept byte-exact and sent back: the API rejects altered thinking when tools are used. */
export interface ThinkingBlock {
  type: 'thinking';
  thinking: string;
  /** Anthropic's signature; '' for reasoning from any other provider (Anthropic's request leaves such blocks out). */
  signature: string;
  /** An OpenAI Responses reasoning item, sent back only to that provider (see EncryptedReasoning). */
  reasoning?: EncryptedReasoning;
}

/**
 * The Responses API's reasoning between steps without server-side storage
 * (`store: false`): the item's encrypted content goes back on the next request
 * so the model keeps its chain of thought across tool calls. Opaque and bound
 * to the provider that issued it: no other provider is ever sent it.
 */
export interface EncryptedReasoning {
  provider: 'openai';
  /** The model that reasoned: another model (after /model) is not sent it. Absent: any. */
  model?: string;
  /** The item id as received (kept for the log; not sent back, the item is not stored server-side). */
  id: string;
  encryptedContent: string;
  /** The summary parts as received (`thinking` is them joined), sent back unchanged. */
  summary: string[];
}

export interface RedactedThinkingBlock {
  type: 'redacted_thinking';
  data: string;
}

export interface ToolUseBlock {
  type: 'tool_use';
  id: string;
  name: string;
  /** Parsed input. When the model sent malformed JSON the loop records `{}` here and answers with an is_error result (T5). */
  input: Record<string, unknown>;
  /** The model's own input text when it did not parse: a provider that takes a call's arguments as text (OpenAI's Responses API) sends it back, so the model sees what it wrote rather than `{}`. */
  unparsedInput?: string;
}

/** The image formats both providers accept (and the only ones Turnstone sends). */
export const IMAGE_MEDIA_TYPES = ['image/png', 'image/jpeg', 'image/gif', 'image/webp'] as const;
export type ImageMediaType = (typeof IMAGE_MEDIA_TYPES)[number];

/**
 * An image in a user message or a tool result. `data` is base64; width/height
 * are the pixel size, kept so context estimates and the panel need not decode it.
 */
export interface ImageBlock {
  type: 'image';
  mediaType: ImageMediaType;
  data: string;
  width: number;
  height: number;
}

/**
 * What travels beside a tool result's text, declared once: the tool's output, the loop's record, the result
 * block saved in the session and the UI's event all carry these, and nothing reads them back out of the text.
 */
export interface ToolResultFacts {
  /** Images the tool returned beside its text (read_file on a PNG, an MCP screenshot): sent after `content`. */
  images?: ImageBlock[];
  /**
   * The tool use was interrupted (its `content` is then "aborted"). Saved in the session file so a resumed
   * session's card says so without reading the text; never sent to a model: each provider builds its
   * request from the fields it names.
   */
  aborted?: true;
  /** A command's exit, saved (like `aborted`) so a resumed card shows it without parsing the text; never sent. */
  exit?: CommandExit;
  /** What a read or a search found (lines shown, matches), saved for the same reason; never sent. */
  counts?: ToolCounts;
}

/** The facts that are there (an empty list of images is none), for spreading into a result, a block or an event. */
export function presentFacts(facts: ToolResultFacts): ToolResultFacts {
  const { images, aborted, exit, counts } = facts;
  return { ...(images && images.length > 0 ? { images } : {}), ...(aborted ? { aborted: true } : {}), ...(exit ? { exit } : {}), ...(counts ? { counts } : {}) };
}

export interface ToolResultBlock extends ToolResultFacts {
  type: 'tool_result';
  tool_use_id: string;
  content: string;
  is_error?: boolean;
}

export type AssistantContentBlock = TextBlock | ThinkingBlock | RedactedThinkingBlock | ToolUseBlock;
export type UserContentBlock = TextBlock | ImageBlock | ToolResultBlock;
export type ContentBlock = AssistantContentBlock | UserContentBlock;

export interface UserMessage {
  role: 'user';
  content: UserContentBlock[];
}

export interface AssistantMessage {
  role: 'assistant';
  content: AssistantContentBlock[];
}

export type Message = UserMessage | AssistantMessage;

export interface Usage {
  input_tokens: number;
  output_tokens: number;
  cache_creation_input_tokens: number;
  cache_read_input_tokens: number;
}

export const emptyUsage = (): Usage => ({
  input_tokens: 0,
  output_tokens: 0,
  cache_creation_input_tokens: 0,
  cache_read_input_tokens: 0,
});

export type StopReason = 'end_turn' | 'tool_use' | 'max_tokens' | 'stop_sequence' | 'pause_turn' | 'refusal' | (string & {});

// ---------------------------------------------------------------------------
// S1: what one model step's stream is normalised into. Providers yield these;
// the loop builds the assistant message from them (T3) and forwards the
// UI-relevant ones as runtime events (T12).

export type AssistantEvent =
  | { type: 'text_delta'; text: string }
  /** Live thinking text for the panel's summary line (S3); the full block follows as `thinking`. */
  | { type: 'thinking_delta'; thinking: string }
  | { type: 'thinking'; thinking: string; signature: string; reasoning?: EncryptedReasoning }
  | { type: 'redacted_thinking'; data: string }
  /** A tool use block opened: lets the UI show the card before its input is complete. */
  | { type: 'tool_use_start'; id: string; name: string }
  /** Complete tool use; `inputJson` is the raw accumulated JSON text ('' means `{}`), parsed by the loop (T5). */
  | { type: 'tool_use'; id: string; name: string; inputJson: string }
  | { type: 'usage'; usage: Usage }
  | { type: 'prompt_cache'; cacheReadInputTokens: number; cacheCreationInputTokens: number }
  /** S6: the provider is about to retry; the UI shows "Reconnecting… attempt/max". */
  | { type: 'retrying'; attempt: number; maxAttempts: number; delayMs: number; reason: string; detail?: string }
  /** S6: a retried step restarts from scratch; everything this step emitted so far must be discarded. */
  | { type: 'step_reset' }
  /** S5: the stream gave nothing usable; the same request is about to go again, whole and not streamed (a new charge). */
  | { type: 'resending' }
  | { type: 'message_stop'; stopReason: StopReason | null };

// ---------------------------------------------------------------------------
// Errors are values with a kind (ARCHITECTURE: never strings parsed later).

export type ModelErrorKind =
  | 'retryable' // connection reset, 408/409/429/5xx/529, mid-stream error event (S6)
  | 'auth' // 401/403: ask the host for a key and resubmit once (T6)
  | 'context_overflow' // prompt too long: compact and resubmit (T6)
  | 'invalid_request' // other 400/404/413/422: not retried
  | 'config' // a cloud provider's region, project or credentials are missing or wrong: the message names what to set; not retried
  | 'stalled' // S4: no event after tool results, even after one resend
  | 'protocol'; // the stream broke its own rules and no fallback worked (an abort is AbortedError, never a ModelError)

export class ModelError extends Error {
  override readonly name = 'ModelError';
  constructor(
    readonly kind: ModelErrorKind,
    message: string,
    readonly details: { status?: number; requestId?: string; retryAfterMs?: number; cause?: unknown } = {},
  ) {
    super(message);
  }
}

// ---------------------------------------------------------------------------
// Port: the model client (providers implement it, tests script it).

export interface ToolDefinition {
  name: string;
  description: string;
  /** JSON Schema generated from the tool's zod schema. */
  input_schema: Record<string, unknown>;
}

export interface ModelRequest {
  model: string;
  system: string;
  messages: Message[];
  tools: ToolDefinition[];
  maxTokens: number;
  /** 0 or undefined: thinking off. */
  thinkingBudgetTokens?: number;
  /** True when the last user message carries tool results: arms the post-tool stall timer (S4). */
  afterToolResults: boolean;
}

export interface ModelResponse {
  content: AssistantContentBlock[];
  usage: Usage;
  stopReason: StopReason | null;
}

export interface CompleteOptions {
  /** Called before each retry of the request; throwing stops it (spend caps). */
  beforeRetry?: () => void;
}

export interface ModelClient {
  /** Streams one step. Throws ModelError for failures it could not recover from itself. */
  stream(request: ModelRequest, signal: AbortSignal): AsyncIterable<AssistantEvent>;
  /** One non-streaming request (S5 fallback, compaction summaries). */
  complete(request: ModelRequest, signal: AbortSignal, options?: CompleteOptions): Promise<ModelResponse>;
}

// ---------------------------------------------------------------------------
// Port: tools (src/tools implements it against a Workspace/Shell adapter).

/** What a tool use needs from the permission policy (P2). */
export type PermissionNeed = 'read' | 'edit' | 'command' | 'fetch' | 'browser';

/** What the permission policy must know about one concrete tool use. */
export interface ToolUseAssessment {
  need: PermissionNeed;
  /** The value rules match against (P3): command for bash, path for file tools, pattern for searches. */
  subject: string;
  /** Resolved path(s) outside every workspace folder (symlinks resolved). Such uses always ask unless bypassPermissions. */
  outsideWorkspace?: string[];
  /** Why a path is sensitive (a write into .git/, .vscode/*.json, hook files; a read of a secret such as .env or a private key): asks in every mode but bypassPermissions. */
  sensitive?: string;
  /** The tool use asks to run outside the OS sandbox (bash `sandbox: false`): asks in every mode but bypassPermissions. */
  unsandboxed?: boolean;
  /** For a shell command: what it runs, analysed once by the tool so the policy and the path checks read the same tree. */
  shell?: CommandAnalysis;
  /** For an MCP tool: its server, named as in tool names (`mcp__<server>__…`), for server-wide rules. */
  mcpServer?: string;
}

/** The before/after of one file a tool use changed (C5 turn diff). `null` means the file did not exist. */
export interface FileChange {
  path: string;
  before: string | null;
  after: string | null;
}

/**
 * How a command ended, for UIs: the model reads the same facts in the result's
 * text, a card shows them as a structured line instead of parsing that text.
 */
export interface CommandExit {
  /** null: killed (timed out or interrupted) before it exited. */
  code: number | null;
  /** What else a user should know, said once: timed out, interrupted, what the sandbox blocked. */
  note?: string;
}

/** A tool's own result: never `aborted` (the loop says that of a tool use it stopped). */
export interface ToolOutput extends Omit<ToolResultFacts, 'aborted'> {
  content: string;
  isError: boolean;
  fileChange?: FileChange;
  /** bash run_in_background: the id of the command it started (the panel's card follows it). */
  background?: { id: string };
  /** todo_write: the checked new plan, which the session keeps (the loop applies it). */
  plan?: Plan;
}

export interface ToolCounts {
  lines?: number;
  matches?: number;
}

export interface ToolContext {
  signal: AbortSignal;
  /** Streams partial output (bash) to the UI. */
  onProgress?: (chunk: string) => void;
  /** Runs a subagent for this tool use (the `agent` tool); absent inside a subagent (depth 1). */
  runSubagent?: RunSubagent;
}

/** What a subagent runs with: the same turn loop, its own history, prompt, model and tools. */
export interface SubagentSpec {
  /** The agent's name (`explore`, `general`, a custom agent's). */
  agent: string;
  /** 3-6 words the user sees. */
  description: string;
  prompt: string;
  systemPrompt: string;
  model: string;
  /** Its tools: never more than its parent's, never `agent` itself. */
  tools: ToolExecutor;
}

/** What a subagent did; `finalText` is its report (uncapped: the tool caps what the parent's model sees). */
export interface SubagentReport {
  outcome: 'completed' | 'failed' | 'aborted';
  finalText: string;
  /** The subagent's own usage and cost (they are charged to the parent's turn and session as they happen). */
  usage: Usage;
  costUsd: number;
  unpricedRequests: number;
  iterations: number;
  toolUses: number;
  error?: { kind: string; message: string };
}

export type RunSubagent = (spec: SubagentSpec, signal: AbortSignal) => Promise<SubagentReport>;

export interface ToolExecutor {
  definitions(): ToolDefinition[];
  /** Undefined for an unknown tool (T5: "unknown tool: NAME"). */
  isReadOnly(name: string): boolean | undefined;
  /** Validates the input (throws ToolInputError on bad input) and describes what it needs. */
  assess(name: string, input: Record<string, unknown>): Promise<ToolUseAssessment>;
  /** For edits: the file as it is and as the tool use would leave it, for the diff-based permission dialog. */
  preview?(name: string, input: Record<string, unknown>): Promise<FileChange | undefined>;
  execute(name: string, input: Record<string, unknown>, ctx: ToolContext): Promise<ToolOutput>;
  /**
   * Before each step's request: tool sources that come and go (MCP servers)
   * start, restart or refresh here, so definitions() is the live list.
   */
  prepareStep?(signal: AbortSignal): Promise<void>;
}

export class ToolInputError extends Error {
  override readonly name = 'ToolInputError';
}
