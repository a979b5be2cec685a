// A subagent's tools: a subset of its parent's, never more. An agent file may name tools the way
// Claude Code (`Read`, `Grep`, `Bash`) or Copilot (`codebase`, `editFiles`, `runCommands`) files
// do; those names are mapped to ours, and a name that maps to nothing the parent has grants nothing.
import { type ToolDefinition, type ToolExecutor, ToolInputError } from '../../runtime/types';

const ALIASES: Readonly<Record<string, readonly string[]>> = {
  read: ['read_file'],
  write: ['write_file'],
  edit: ['edit_file'],
  multiedit: ['edit_file'],
  bash: ['bash', 'bash_output', 'kill_shell'],
  glob: ['glob_search'],
  grep: ['grep_search'],
  ls: ['glob_search'],
  webfetch: ['web_fetch'],
  fetch: ['web_fetch'],
  todowrite: ['todo_write'],
  // Copilot's custom agents.
  codebase: ['read_file', 'glob_search', 'grep_search'],
  search: ['glob_search', 'grep_search'],
  readfile: ['read_file'],
  editfiles: ['edit_file', 'write_file'],
  runcommands: ['bash', 'bash_output', 'kill_shell'],
  terminal: ['bash', 'bash_output', 'kill_shell'],
  usages: ['lsp'],
  problems: ['lsp'],
};

/**
 * Whether a tool named `name` is granted by the `listed` names: an exact name, an alias above, or an MCP
 * pattern (`mcp__server__*`, or a bare `mcp__server` for all of a server's tools).
 */
export function toolGrant(listed: readonly string[]): (name: string) => boolean {
  const exact = new Set<string>();
  const prefixes: string[] = [];
  for (const raw of listed) {
    const entry = raw.trim();
    if (!entry) continue;
    exact.add(entry);
    for (const alias of ALIASES[entry.toLowerCase().replace(/[\s_-]/g, '')] ?? []) exact.add(alias);
    if (entry.startsWith('mcp__')) prefixes.push(entry.endsWith('*') ? entry.slice(0, -1) : `${entry}__`);
  }
  return (name) => exact.has(name) || prefixes.some((p) => name.startsWith(p));
}

/** `inner` with only the tools `allowed` grants: the others are unknown to the subagent (T5 "unknown tool"). */
export function narrowTools(inner: ToolExecutor, allowed: (name: string) => boolean): ToolExecutor {
  let seen: ToolDefinition[] | undefined;
  let kept: ToolDefinition[] = [];
  const check = (name: string) => {
    if (!allowed(name)) throw new ToolInputError(`unknown tool: ${name}`);
  };
  return {
    definitions() {
      // Filtered again only when the parent's list changed: requests keep a stable tool list (S7).
      const all = inner.definitions();
      if (all !== seen) {
        seen = all;
        kept = all.filter((d) => allowed(d.name));
      }
      return kept;
    },
    isReadOnly: (name) => (allowed(name) ? inner.isReadOnly(name) : undefined),
    async assess(name, input) {
      check(name);
      return inner.assess(name, input);
    },
    ...(inner.preview
      ? {
          async preview(name: string, input: Record<string, unknown>) {
            check(name);
            return inner.preview!(name, input);
          },
        }
      : {}),
    async execute(name, input, ctx) {
      check(name);
      return inner.execute(name, input, ctx);
    },
    ...(inner.prepareStep ? { prepareStep: (signal: AbortSignal) => inner.prepareStep!(signal) } : {}),
  };
}
