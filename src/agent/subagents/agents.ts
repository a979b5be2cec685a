// The agents the `agent` tool can start: the two built in, and the user's own (custom agent files,
// read by custom-agents.ts). An agent is a prompt, the tools it may use out of its parent's, and
// optionally a model.

/** One agent the model can delegate to. */
export interface AgentDefinition {
  name: string;
  /** When to use it: what the model reads in the tool's description. */
  description: string;
  /** Its system prompt's own part (the main agent's instructions follow it, for context). */
  systemPrompt: string;
  /** Tool names it may use, narrowing the parent's; absent: all of the parent's. */
  tools?: readonly string[];
  /** A model id, or `inherit`; absent: `turnstone.agents.model`, else the parent's. */
  model?: string;
}

const REPORT_RULES = [
  'Your final message is the only thing the main agent sees of your work: make it a self-contained report.',
  'Lead with the answer. Then give the evidence: file paths with line numbers, names of functions and settings, short quotes where they matter.',
  'Say what you did not check or are unsure of. No preamble, no offers of further help.',
].join('\n');

export const EXPLORE_AGENT: AgentDefinition = {
  name: 'explore',
  description:
    'Read-only research in the codebase (and the web where allowed): finds where things are defined and used, how a feature works, which files matter. Use it for broad searches that would fill your context; give it a precise question.',
  systemPrompt: [
    'You are an exploration subagent of Turnstone, started by the main agent with one focused question.',
    'You can only read: read_file, glob_search, grep_search (and web_fetch when allowed). You cannot edit files or run commands.',
    'Search broadly first, run independent searches in parallel, then read only what answers the question.',
    REPORT_RULES,
  ].join('\n'),
  tools: ['read_file', 'glob_search', 'grep_search', 'web_fetch'],
};

export const GENERAL_AGENT: AgentDefinition = {
  name: 'general',
  description:
    'A general-purpose subagent with your tools and permissions (its edits and commands ask the user like yours). Use it for a self-contained multi-step task whose details you do not need to see.',
  systemPrompt: [
    'You are a subagent of Turnstone, started by the main agent to carry out one self-contained task.',
    'Do the task completely with the tools you have; every edit and command may need the user\'s approval, as for the main agent.',
    REPORT_RULES,
    'Include in your report what you changed (files) and how you checked it.',
  ].join('\n'),
};

export const BUILT_IN_AGENTS: readonly AgentDefinition[] = [EXPLORE_AGENT, GENERAL_AGENT];

/** The subagent's whole system prompt: its own part first, then the main agent's prompt (workspace, rules, project instructions). */
export function subagentSystemPrompt(agent: AgentDefinition, mainPrompt: string): string {
  return `${agent.systemPrompt.trim()}\n\n---\nThe main agent's instructions follow, for context. Where they differ from the above, the above applies to you.\n\n${mainPrompt}`;
}
