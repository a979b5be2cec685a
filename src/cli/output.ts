// How the CLI shows a turn: `text` streams the reply to stdout and one line per
// tool use to stderr; `json` prints the result object once; `stream-json`
// prints every runtime event as a JSON line as it happens, then the result.
import { type RuntimeEvent, type TurnSummary } from '../runtime/events';
import { planProgress } from '../runtime/plan';
import { describeToolUse } from '../runtime/tool-summary';
import { type OutputFormat } from './args';
import { changesOf, type CliChange } from './changes';

/** The contract's `--output-format json` object. */
export interface CliResult {
  result: string;
  is_error: boolean;
  /** Why the turn ended, for a script to branch on without reading `result`. */
  stop_reason: StopReason;
  iterations: number;
  usage: {
    input_tokens: number;
    output_tokens: number;
    cache_read_input_tokens: number;
    cache_creation_input_tokens: number;
  };
  /** The session's cost; null when a request's model had no price (local models without turnstone.modelPrices). */
  cost_usd: number | null;
  tool_results: { tool_use_id: string; name: string; is_error: boolean; content: string }[];
  session_file: string | null;
  /** How full the model's context window is after the turn (contracts.md "Context and spend"). */
  context: { tokens: number; window: number; percent: number };
  /** The session's plan (todo_write) at the end of the turn; empty when the model made none. */
  todos: { content: string; status: string; activeForm: string }[];
  /** Each subagent the turn ran (the `agent` tool): its usage and cost are included in `usage` and `cost_usd` above. */
  subagents: CliSubagent[];
  /** The git worktree the turn ran in (`--worktree`); null without it. */
  worktree: { path: string; branch: string } | null;
  /** Each file the turn's tools changed (edit_file, write_file…; not what a command changed), relative to the session's folder. */
  changes: CliChange[];
}

export interface CliSubagent {
  agent_id: string;
  agent: string;
  description: string;
  model: string;
  outcome: 'completed' | 'failed' | 'aborted';
  iterations: number;
  tool_uses: number;
  usage: CliResult['usage'];
  /** null when a request's model had no price. */
  cost_usd: number | null;
}

export type StopReason = 'end_turn' | 'max_iterations' | 'spend_cap' | 'loop' | 'interrupted' | 'error';

export function stopReasonOf(summary: TurnSummary): StopReason {
  if (summary.outcome === 'completed') return 'end_turn';
  if (summary.outcome === 'aborted') return 'interrupted';
  switch (summary.error?.kind) {
    case 'max_iterations':
      return 'max_iterations';
    case 'budget':
    case 'unpriced':
      return 'spend_cap';
    case 'loop':
      return 'loop';
    default:
      return 'error';
  }
}

const usageOf = (u: CliResult['usage']): CliResult['usage'] => ({
  input_tokens: u.input_tokens,
  output_tokens: u.output_tokens,
  cache_read_input_tokens: u.cache_read_input_tokens,
  cache_creation_input_tokens: u.cache_creation_input_tokens,
});

const roundUsd = (usd: number) => Math.round(usd * 1e6) / 1e6;

export interface CliResultContext {
  /** The session's folder: `changes` paths are relative to it. */
  cwd?: string;
  worktree?: { path: string; branch: string };
}

export function toCliResult(summary: TurnSummary, sessionFile: string | undefined, context: CliResultContext = {}): CliResult {
  const failed = summary.outcome !== 'completed';
  const error = summary.error;
  // The provider's request id is what a user quotes to support; keep it with the message.
  const errorText = error && (error.requestId && !error.message.includes(error.requestId) ? `${error.message} (request id ${error.requestId})` : error.message);
  return {
    result: failed && errorText ? errorText : summary.finalText,
    is_error: failed,
    stop_reason: stopReasonOf(summary),
    iterations: summary.iterations,
    usage: usageOf(summary.usage),
    cost_usd: summary.unpricedRequests > 0 ? null : roundUsd(summary.costUsd),
    tool_results: summary.toolResults.map((r) => ({ tool_use_id: r.toolUseId, name: r.name, is_error: r.isError, content: r.content })),
    session_file: sessionFile ?? null,
    context: { tokens: summary.context.tokens, window: summary.context.window, percent: summary.context.percent },
    todos: summary.todos.map((t) => ({ ...t })),
    subagents: summary.subagents.map(({ agentId, agent, description, model, report }) => ({
      agent_id: agentId,
      agent,
      description,
      model,
      outcome: report.outcome,
      iterations: report.iterations,
      tool_uses: report.toolUses,
      usage: usageOf(report.usage),
      cost_usd: report.unpricedRequests > 0 ? null : roundUsd(report.costUsd),
    })),
    worktree: context.worktree ? { path: context.worktree.path, branch: context.worktree.branch } : null,
    changes: changesOf(summary.fileChanges, context.cwd ?? process.cwd()),
  };
}

/** stream-json: a subagent's own events are printed as they are, each with the `agent_id` of its `agent` tool use. */
function streamJsonLine(event: RuntimeEvent): string {
  if (event.type === 'subagent_event') return JSON.stringify({ ...event.event, agent_id: event.agentId });
  if (event.type === 'subagent_started' || event.type === 'subagent_finished') {
    const { agentId, ...rest } = event;
    return JSON.stringify({ ...rest, agent_id: agentId });
  }
  return JSON.stringify(event);
}

export interface Sink {
  stdout(text: string): void;
  stderr(text: string): void;
  /** stdout is a terminal: a discarded step's text is erased in place instead of held back. */
  isTTY?: boolean;
  columns?: number;
}

export interface Renderer {
  onEvent(event: RuntimeEvent): void;
  finish(result: CliResult): void;
}

export function createRenderer(format: OutputFormat, sink: Sink): Renderer {
  switch (format) {
    case 'json':
      return {
        // stdout carries only the result object; a warning (e.g. the session file could not be written) still reaches the user.
        onEvent: (event) => {
          if (event.type === 'warning') sink.stderr(`warning: ${event.message}\n`);
        },
        // The contract: a failed turn's message goes to stderr too, not only into the result object.
        finish: (result) => {
          sink.stdout(`${JSON.stringify(result)}\n`);
          if (result.is_error) sink.stderr(`turnstone: ${result.result}\n`);
        },
      };
    case 'stream-json':
      return {
        onEvent: (event) => sink.stdout(`${streamJsonLine(event)}\n`),
        finish: (result) => sink.stdout(`${JSON.stringify({ type: 'result', ...result })}\n`),
      };
    case 'text':
      return textRenderer(sink);
  }
}


/**
 * A step's text until the step is kept (S6: a retried step never shows twice).
 * On a terminal it streams and is erased if the step is discarded; otherwise
 * (a pipe, a file) it is held until the step finishes, so stdout ends up
 * holding the final text exactly once.
 */
class StepText {
  private pending = '';
  /** What this step wrote to a terminal, for erasing. */
  private shown = '';

  constructor(
    private readonly sink: Sink,
    private readonly write: (text: string) => void,
  ) {}

  add(text: string): void {
    if (this.sink.isTTY) {
      this.shown += text;
      this.write(text);
    } else this.pending += text;
  }

  commit(): void {
    this.shown = '';
    const text = this.pending;
    this.pending = '';
    this.write(text);
  }

  discard(): void {
    this.pending = '';
    if (!this.shown) return;
    const columns = Math.max(1, this.sink.columns ?? 80);
    const rows = this.shown.split('\n').reduce((n, line) => n + Math.max(1, Math.ceil(line.length / columns)), 0);
    // Clear the current row, then each row above it the step wrote on.
    this.sink.stdout(`\r\x1b[2K${'\x1b[1A\x1b[2K'.repeat(rows - 1)}`);
    this.shown = '';
  }
}

function textRenderer(sink: Sink): Renderer {
  const inputs = new Map<string, Record<string, unknown>>();
  /** Each running subagent's "name: description", for its closing line. */
  const agents = new Map<string, string>();
  let atLineStart = true;
  const out = (text: string) => {
    if (!text) return;
    sink.stdout(text);
    atLineStart = text.endsWith('\n');
  };
  const step = new StepText(sink, out);
  return {
    onEvent(event) {
      switch (event.type) {
        case 'text_delta':
          step.add(event.text);
          break;
        case 'step_finished':
          step.commit();
          break;
        case 'tool_use_ready':
          inputs.set(event.id, event.input);
          break;
        case 'tool_finished': {
          if (!atLineStart) out('\n');
          const what = describeToolUse(event.name, inputs.get(event.id) ?? {});
          const firstLine = event.content.split('\n', 1)[0]?.slice(0, 120) ?? '';
          sink.stderr(event.isError ? `✗ ${what}: ${firstLine}\n` : `✓ ${what}\n`);
          break;
        }
        case 'retrying':
          sink.stderr(`… reconnecting ${event.attempt}/${event.maxAttempts} (${event.reason})\n`);
          break;
        case 'step_discarded':
          step.discard();
          atLineStart = true;
          sink.stderr('… the interrupted reply is being retried from the start\n');
          break;
        case 'compaction':
          if (event.droppedImages) sink.stderr(`… removed ${event.droppedImages} older image(s) to fit the context window\n`);
          if (event.removedMessageCount > 0 || !event.droppedImages) sink.stderr(`… compacted ${event.removedMessageCount} earlier messages into a summary\n`);
          break;
        case 'warning':
          sink.stderr(`warning: ${event.message}\n`);
          break;
        case 'subagent_started':
          if (!atLineStart) out('\n');
          agents.set(event.agentId, `${event.agent}: ${event.description}`);
          sink.stderr(`↳ ${event.agent}: ${event.description}\n`);
          break;
        case 'subagent_event':
          // A subagent's tool uses, one indented line each; its text is its report, which the main agent reads.
          if (event.event.type === 'tool_use_ready') inputs.set(`${event.agentId}/${event.event.id}`, event.event.input);
          else if (event.event.type === 'tool_finished') {
            const e = event.event;
            const what = describeToolUse(e.name, inputs.get(`${event.agentId}/${e.id}`) ?? {});
            sink.stderr(e.isError ? `  ✗ ${what}: ${e.content.split('\n', 1)[0]?.slice(0, 120) ?? ''}\n` : `  ✓ ${what}\n`);
          }
          break;
        case 'subagent_finished': {
          const r = event.report;
          const tokens = r.usage.input_tokens + r.usage.cache_read_input_tokens + r.usage.cache_creation_input_tokens + r.usage.output_tokens;
          sink.stderr(`${r.outcome === 'completed' ? '✓' : '✗'} ${agents.get(event.agentId) ?? event.agentId} (${r.outcome}, ${r.toolUses} tool use${r.toolUses === 1 ? '' : 's'}, ${tokens} tokens)\n`);
          break;
        }
        case 'plan_updated': {
          if (!atLineStart) out('\n');
          const { completed, total, active } = planProgress(event.todos);
          sink.stderr(`plan ${completed}/${total}${active ? `: ${active.activeForm}` : ''}\n`);
          break;
        }
        default:
          break;
      }
    },
    finish(result) {
      if (!atLineStart) out('\n');
      if (result.is_error) sink.stderr(`turnstone: ${result.result}\n`);
    },
  };
}
