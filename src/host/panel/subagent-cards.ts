// A subagent's block in the panel is the card of the `agent` tool use that started it: what the
// subagent does (its tool uses, tokens, time) updates that card; its text stays out of the panel
// until it is its report. Its approvals render inside the card and name it. Pure: no vscode.
import { type RuntimeEvent } from '../../runtime/events';
import { type HostEvent, SUBAGENT_STEPS_SHOWN, type ToolView } from '../../webview/protocol';
import { toolViewFromInput } from '../../webview/tool-view';
import { describeToolUse } from '../../runtime/tool-summary';

type AgentView = Extract<ToolView, { kind: 'agent' }>;
type Step = NonNullable<AgentView['steps']>[number];

interface Running {
  view: AgentView;
  startedAt: number;
  inputs: Map<string, Record<string, unknown>>;
}

export class SubagentCards {
  private readonly running = new Map<string, Running>();

  constructor(private readonly now: () => number = Date.now) {}

  /** The subagent `agentId` (its `agent` tool use), if it is running: who asks, for an approval's wording. */
  agentOf(agentId: string): { name: string; description: string } | undefined {
    const r = this.running.get(agentId);
    return r && { name: r.view.agent, description: r.view.description };
  }

  started(event: Extract<RuntimeEvent, { type: 'subagent_started' }>): HostEvent {
    const view: AgentView = { kind: 'agent', agent: event.agent, description: event.description, steps: [], toolUses: 0, tokens: 0, elapsedMs: 0 };
    this.running.set(event.agentId, { view, startedAt: this.now(), inputs: new Map() });
    return { type: 'tool_update', id: event.agentId, view };
  }

  /** What one of the subagent's own events changes on its card; undefined when nothing the card shows. */
  event(agentId: string, event: RuntimeEvent): HostEvent | undefined {
    const r = this.running.get(agentId);
    if (!r) return undefined;
    const steps = r.view.steps ?? [];
    switch (event.type) {
      case 'tool_use_ready':
        r.inputs.set(event.id, event.input);
        return this.update(agentId, r, { steps: [...steps, { id: event.id, summary: describeToolUse(event.name, event.input), status: 'running' as const }].slice(-SUBAGENT_STEPS_SHOWN) });
      case 'tool_finished': {
        const status: Step['status'] = event.aborted ? 'aborted' : event.isError ? 'error' : 'done';
        return this.update(agentId, r, { steps: steps.map((s) => (s.id === event.id ? { ...s, status } : s)), toolUses: (r.view.toolUses ?? 0) + 1 });
      }
      case 'permission_decided':
        if (event.decision !== 'deny') return undefined;
        return this.update(agentId, r, { steps: steps.map((s) => (s.id === event.toolUseId ? { ...s, status: 'denied' as const } : s)) });
      case 'usage': {
        const u = event.step;
        return this.update(agentId, r, { tokens: (r.view.tokens ?? 0) + u.input_tokens + u.cache_read_input_tokens + u.cache_creation_input_tokens + u.output_tokens });
      }
      default:
        return undefined;
    }
  }

  finished(agentId: string): void {
    this.running.delete(agentId);
  }

  /** The `agent` card when its tool use ends: the last figures, and the report the main agent got. */
  finalView(agentId: string, input: Record<string, unknown>, report: string): AgentView {
    const r = this.running.get(agentId);
    this.running.delete(agentId);
    const base = r ? { ...r.view, elapsedMs: Math.max(0, this.now() - r.startedAt) } : (toolViewFromInput('agent', input) as AgentView);
    return { ...base, ...(report ? { report: report.slice(0, 100_000) } : {}) };
  }

  private update(agentId: string, r: Running, change: Partial<AgentView>): HostEvent {
    r.view = { ...r.view, ...change, elapsedMs: Math.max(0, this.now() - r.startedAt) };
    return { type: 'tool_update', id: agentId, view: r.view };
  }
}
