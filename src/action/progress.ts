// The turn in the job log: the model's text as it is kept, one line when a tool
// starts (a long command shows it is running), and each finished tool use as a
// collapsed group holding its input and output. Tool uses can run side by side,
// so a group is printed whole when its tool finishes, never left open.
import { type WorkflowLog } from './workflow';

/** A tool's output in the log is cut to this: the session file (an artifact) keeps all of it. */
const MAX_TOOL_CHARS = 20_000;

/** One line about a tool use: its name and main argument, shortened (as the CLI's text output does). */
export function describeToolUse(name: string, input: Record<string, unknown>): string {
  const main = input['command'] ?? input['path'] ?? input['pattern'] ?? input['url'] ?? input['description'];
  const text = typeof main === 'string' ? main.replace(/\s+/g, ' ') : '';
  return text ? `${name} ${text.length > 100 ? `${text.slice(0, 99)}…` : text}` : name;
}

const str = (v: unknown) => (typeof v === 'string' ? v : '');

export class ProgressLog {
  private text = '';
  private readonly inputs = new Map<string, { name: string; input: Record<string, unknown> }>();

  constructor(private readonly log: WorkflowLog) {}

  onEvent(event: Record<string, unknown>): void {
    switch (event.type) {
      case 'text_delta':
        this.text += str(event.text);
        break;
      case 'step_finished':
        this.flushText();
        break;
      case 'step_discarded':
        this.text = '';
        this.log.line('… the interrupted reply is being retried from the start');
        break;
      case 'tool_use_ready': {
        const input = (event.input ?? {}) as Record<string, unknown>;
        this.inputs.set(str(event.id), { name: str(event.name), input });
        this.flushText();
        // Commands stay stopped around it: a tool's argument came from the model.
        this.log.untrusted(`▸ ${describeToolUse(str(event.name), input)}`);
        break;
      }
      case 'tool_finished':
        this.toolGroup(event);
        break;
      case 'permission_decided':
        if (event.decision === 'deny') this.log.untrusted(`✗ ${str(event.toolName)} denied: ${str(event.reason)}`);
        break;
      case 'retrying':
        this.log.untrusted(`… reconnecting ${String(event.attempt)}/${String(event.maxAttempts)} (${str(event.reason)})`);
        break;
      case 'compaction':
        this.log.line(`… compacted ${String(event.removedMessageCount ?? 0)} earlier messages into a summary`);
        break;
      case 'plan_updated': {
        const todos = Array.isArray(event.todos) ? (event.todos as Array<{ status?: string; activeForm?: string }>) : [];
        const active = todos.find((t) => t.status === 'in_progress');
        this.log.untrusted(`plan ${todos.filter((t) => t.status === 'completed').length}/${todos.length}${active?.activeForm ? `: ${active.activeForm}` : ''}`);
        break;
      }
      case 'warning':
        this.log.untrusted(`warning: ${str(event.message)}`);
        break;
      default:
        break;
    }
  }

  /** What the model wrote in a step that did not end the turn with it still unprinted. */
  finish(): void {
    this.flushText();
    this.log.resume();
  }

  private flushText(): void {
    if (this.text.trim() !== '') this.log.untrusted(this.text);
    this.text = '';
  }

  private toolGroup(event: Record<string, unknown>): void {
    const id = str(event.id);
    const use = this.inputs.get(id) ?? { name: str(event.name), input: {} };
    this.inputs.delete(id);
    const failed = event.isError === true;
    // A group's title is command data: escaped by the log, and a title is never acted on.
    this.log.group(`${failed ? '✗' : '✓'} ${describeToolUse(use.name, use.input)}`, () => {
      this.log.untrusted(`input: ${JSON.stringify(use.input, null, 2)}`);
      const content = str(event.content);
      this.log.untrusted(content.length > MAX_TOOL_CHARS ? `${content.slice(0, MAX_TOOL_CHARS)}\n… ${content.length - MAX_TOOL_CHARS} more characters in the session file` : content || '(no output)');
    });
  }
}
