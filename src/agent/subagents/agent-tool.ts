// The `agent` tool (contracts.md "Subagents"): the main agent hands a focused job to a subagent with a
// fresh context and gets back its report. The tool sits on top of the turn's tools, so a subagent's
// tools are the parent's (with their checkpoints, MCP servers and sandbox), narrowed to what its
// agent may use, and never `agent` itself (depth 1). The loop runs the subagent (ToolContext.runSubagent):
// its requests pass the parent's spend cap and are charged there, its approvals name it.
import { z } from 'zod';
import { resolveModelAlias } from '../../runtime/providers/model-families';
import { cutHeadWith } from '../../runtime/text-cut';
import { type ToolContext, type ToolDefinition, type ToolExecutor, ToolInputError, type ToolOutput, type ToolUseAssessment } from '../../runtime/types';
import { BUILT_IN_AGENTS, subagentSystemPrompt, type AgentDefinition } from './agents';
import { narrowTools, toolGrant } from './narrow-tools';

export const AGENT_TOOL = 'agent';

/** What the main context grows by per subagent at most: its report, cut beyond this (about 5 000 tokens). */
export const MAX_REPORT_CHARS = 20_000;

export interface SubagentOptions {
  /** Custom agents (agent files); a name of a built-in one is ignored there. */
  custom?: readonly AgentDefinition[];
  /** How many subagents run at once (`turnstone.agents.maxParallel`); more wait for a free place. */
  maxParallel: number;
  /** The parent's model, and `turnstone.agents.model` (empty: the parent's). */
  model: string;
  /** The turn's provider: a family alias (`haiku`) names a model only where it serves Claude. */
  provider: string;
  agentModel?: string;
  /** The main agent's system prompt, which follows each subagent's own. */
  systemPrompt: string;
}

const AgentInput = z.strictObject({
  description: z.string().min(1).describe('What the subagent will do, in 3-6 words (shown to the user).'),
  prompt: z.string().min(1).describe('The task: everything the subagent needs to know, since it sees nothing of this conversation. Say what to report back.'),
  agent: z.string().optional().describe('Which agent to run (default explore).'),
});
type AgentInput = z.infer<typeof AgentInput>;

function inputSchema(): Record<string, unknown> {
  const schema = z.toJSONSchema(AgentInput, { io: 'input' }) as Record<string, unknown>;
  delete schema.$schema;
  return schema;
}

function toolDescription(agents: readonly AgentDefinition[]): string {
  return [
    'Start a subagent: a fresh conversation with its own context that works on one task and returns a report (only the report enters your context).',
    'Use it for broad searches or research that would fill your context, and for independent jobs; several agent calls in one reply run at the same time.',
    'The subagent sees nothing of this conversation: put everything it needs into `prompt`, and say what it should report.',
    'Do not use it for a single known file or a quick search: call read_file, glob_search or grep_search yourself.',
    '',
    'Agents:',
    ...agents.map((a) => `- ${a.name}: ${a.description.replace(/\s+/g, ' ').trim()}`),
  ].join('\n');
}

/** Places for running subagents; a waiter leaves the line when its tool use is stopped. */
class Places {
  private free: number;
  private readonly waiting: Array<() => void> = [];
  constructor(size: number) {
    this.free = Math.max(1, Math.floor(size));
  }
  async take(signal: AbortSignal): Promise<() => void> {
    if (this.free === 0) {
      await new Promise<void>((resolve, reject) => {
        const wake = () => {
          signal.removeEventListener('abort', stop);
          resolve();
        };
        const stop = () => {
          const at = this.waiting.indexOf(wake);
          if (at >= 0) this.waiting.splice(at, 1);
          reject(signal.reason instanceof Error ? signal.reason : new Error('aborted'));
        };
        if (signal.aborted) return stop();
        signal.addEventListener('abort', stop, { once: true });
        this.waiting.push(wake);
      });
    } else this.free--;
    let given = false;
    return () => {
      if (given) return;
      given = true;
      const next = this.waiting.shift();
      if (next) next();
      else this.free++;
    };
  }
}

/** The turn's tools plus `agent`. */
export function withSubagents(parent: ToolExecutor, options: SubagentOptions): ToolExecutor {
  const byName = new Map<string, AgentDefinition>();
  for (const agent of [...BUILT_IN_AGENTS, ...(options.custom ?? [])]) if (!byName.has(agent.name)) byName.set(agent.name, agent);
  const definition: ToolDefinition = { name: AGENT_TOOL, description: toolDescription([...byName.values()]), input_schema: inputSchema() };
  const places = new Places(options.maxParallel);
  let seen: ToolDefinition[] | undefined;
  let merged: ToolDefinition[] = [];

  const parse = (raw: Record<string, unknown>): AgentInput & { definition: AgentDefinition } => {
    const result = AgentInput.safeParse(raw);
    if (!result.success) throw new ToolInputError(`Invalid input for ${AGENT_TOOL}:\n${z.prettifyError(result.error)}`);
    const name = result.data.agent?.trim() || 'explore';
    const found = byName.get(name);
    if (!found) throw new ToolInputError(`no agent named "${name}": use one of ${[...byName.keys()].join(', ')}`);
    return { ...result.data, definition: found };
  };

  // Claude Code's agent files say `model: haiku` (or sonnet, opus, inherit): a family, not an id.
  const modelOf = (agent: AgentDefinition): string => {
    const fallback = options.agentModel?.trim() ? resolveModelAlias(options.agentModel, options.provider, options.model) : options.model;
    const own = agent.model?.trim();
    return own ? resolveModelAlias(own, options.provider, fallback) : fallback;
  };

  const run = async (input: AgentInput & { definition: AgentDefinition }, ctx: ToolContext): Promise<ToolOutput> => {
    if (!ctx.runSubagent) return { content: 'A subagent cannot start subagents: do this part yourself.', isError: true };
    const agent = input.definition;
    const release = await places.take(ctx.signal);
    try {
      const report = await ctx.runSubagent(
        {
          agent: agent.name,
          description: input.description,
          prompt: input.prompt,
          systemPrompt: subagentSystemPrompt(agent, options.systemPrompt),
          model: modelOf(agent),
          tools: narrowTools(parent, agent.tools ? toolGrant(agent.tools) : () => true),
        },
        ctx.signal,
      );
      const text = cutHeadWith(report.finalText.trim(), MAX_REPORT_CHARS, (omitted) => `\n[report cut: ${omitted} more characters]`);
      if (report.outcome === 'completed') return { content: text || `The ${agent.name} subagent finished without a report.`, isError: false };
      const why = report.error ? `${report.error.message}` : report.outcome;
      return { content: `The ${agent.name} subagent did not finish (${why}).${text ? `\nWhat it had said:\n${text}` : ''}`, isError: true };
    } finally {
      release();
    }
  };

  return {
    definitions() {
      const all = parent.definitions();
      if (all !== seen) {
        seen = all;
        merged = [...all, definition];
      }
      return merged;
    },
    // A read for the dispatcher: consecutive agent calls run at once. Its subagent's own tool uses are
    // judged one by one by the same policy, so this grants nothing the subagent's tools would not.
    isReadOnly: (name) => (name === AGENT_TOOL ? true : parent.isReadOnly(name)),
    async assess(name, input): Promise<ToolUseAssessment> {
      if (name !== AGENT_TOOL) return parent.assess(name, input);
      const parsed = parse(input);
      return { need: 'read', subject: parsed.definition.name };
    },
    ...(parent.preview ? { preview: (name: string, input: Record<string, unknown>) => (name === AGENT_TOOL ? Promise.resolve(undefined) : parent.preview!(name, input)) } : {}),
    async execute(name, input, ctx) {
      if (name !== AGENT_TOOL) return parent.execute(name, input, ctx);
      return run(parse(input), ctx);
    },
    ...(parent.prepareStep ? { prepareStep: (signal: AbortSignal) => parent.prepareStep!(signal) } : {}),
  };
}
