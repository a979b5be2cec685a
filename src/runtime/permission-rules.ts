// P3: permission rules. `tool` or `tool(content)`; content `*` matches any
// subject, `prefix:*` a prefix, anything else exactly. For bash the subject is a
// shell command and is split first (shell-split.ts): an allow rule must match
// every part, a deny rule matching any part denies.
import { RuntimeError } from './errors';
import { analyseCommand, type CommandAnalysis, type CommandNode } from './shell-split';

export interface PermissionRule {
  tool: string;
  /** Undefined: the rule covers every use of the tool. */
  content?: string;
  /** The rule as written, for messages and session memory. */
  source: string;
}

const RULE = /^([A-Za-z0-9_.:-]+\*?)(?:\((.*)\))?$/s;

export function parseRule(source: string): PermissionRule {
  const trimmed = source.trim();
  const m = RULE.exec(trimmed);
  if (!m) throw new RuntimeError('invalid_rule', `invalid permission rule "${source}": expected tool or tool(content)`);
  if (m[1]!.endsWith('*') && !/^mcp__[A-Za-z0-9_-]+__\*$/.test(m[1]!)) {
    throw new RuntimeError('invalid_rule', `invalid permission rule "${source}": only MCP rules may end in * (mcp__server__*)`);
  }
  const content = m[2];
  if (content !== undefined && content.trim() === '') {
    throw new RuntimeError('invalid_rule', `invalid permission rule "${source}": empty content, write "${m[1]}" or "${m[1]}(*)"`);
  }
  return content === undefined || content === '*' ? { tool: m[1]!, source: trimmed } : { tool: m[1]!, content, source: trimmed };
}

export function parseRules(sources: readonly string[] = []): PermissionRule[] {
  return sources.map(parseRule);
}

export const isShellTool = (tool: string) => tool === 'bash';

/**
 * Whether a rule's tool part names a tool. Exact, plus MCP's server-wide forms
 * (contracts.md): `mcp__srv__*` and `mcp__srv` cover every tool of server srv.
 */
export function ruleNamesTool(ruleTool: string, tool: string): boolean {
  if (ruleTool === tool) return true;
  if (!ruleTool.startsWith('mcp__') || !tool.startsWith('mcp__')) return false;
  const server = ruleTool.endsWith('__*') ? ruleTool.slice(0, -1) : `${ruleTool}__`;
  const name = server.slice('mcp__'.length, -2);
  return name.length > 0 && !name.includes('__') && tool.startsWith(server);
}

/** Matches one rule's content against one plain subject (no shell splitting). */
export function matchContent(content: string | undefined, subject: string, shell: boolean): boolean {
  if (content === undefined) return true;
  const s = shell ? collapse(subject) : subject;
  if (content.endsWith(':*')) {
    const prefix = shell ? collapse(content.slice(0, -2)) : content.slice(0, -2);
    if (!shell) return s.startsWith(prefix);
    // Word boundary: `git status:*` must not match `git statusx`.
    return s === prefix || s.startsWith(prefix + ' ');
  }
  return s === (shell ? collapse(content) : content);
}

const collapse = (s: string) => s.trim().replace(/\s+/g, ' ');

export interface RuleSubject {
  tool: string;
  subject: string;
  /** Present for shell tools: the split command. */
  analysis?: CommandAnalysis;
}

export function ruleSubject(tool: string, subject: string): RuleSubject {
  return isShellTool(tool) ? { tool, subject, analysis: analyseCommand(subject) } : { tool, subject };
}

/** Deny semantics: the rule matches if it matches the whole command or ANY part of it, at any depth. */
export function matchesAnyPart(rule: PermissionRule, s: RuleSubject): boolean {
  if (!ruleNamesTool(rule.tool, s.tool)) return false;
  if (rule.content === undefined) return true;
  if (!s.analysis) return matchContent(rule.content, s.subject, false);
  if (matchContent(rule.content, s.subject, true)) return true;
  // The unquoted form too: `"rm" x`, `\rm x` and `/bin/rm x` are all `rm x` to a deny rule.
  const anyNode = (node: CommandNode): boolean =>
    matchContent(rule.content, node.text, true) || (node.plain !== undefined && matchContent(rule.content, node.plain, true)) || (node.inner ?? []).some(anyNode);
  return s.analysis.commands.some(anyNode);
}

/**
 * Allow semantics: some rule must cover every part of a shell command; a part
 * that wraps another command (`env X=1 cmd`, `sh -c '…'`) is covered by a rule
 * for the wrapper itself or by rules covering everything it runs. Redirections
 * that write and constructs we cannot read never match.
 */
export function matchesEveryPart(rules: readonly PermissionRule[], s: RuleSubject): boolean {
  const mine = rules.filter((r) => ruleNamesTool(r.tool, s.tool));
  if (mine.length === 0) return false;
  if (!s.analysis) return mine.some((r) => matchContent(r.content, s.subject, false));
  if (mine.some((r) => r.content === undefined)) return true;
  const { commands, writes, opaque } = s.analysis;
  if (writes.length > 0 || opaque.length > 0 || commands.length === 0) return false;
  const covered = (node: CommandNode): boolean =>
    mine.some((r) => matchContent(r.content, node.text, true)) || (!node.wrapperMatters && node.inner !== undefined && node.inner.length > 0 && node.inner.every(covered));
  return commands.every(covered);
}

/**
 * The rule a "remember" choice would store: precise. A lone simple command gets
 * a `cmd sub:*` prefix; anything compound, redirected or wrapped gets the exact
 * command, never a blanket prefix that would also allow what follows `;`.
 */
export function suggestRule(tool: string, subject: string): string {
  if (!isShellTool(tool)) return subject ? `${tool}(${subject})` : tool;
  const a = analyseCommand(subject);
  const only = a.commands[0];
  if (a.commands.length !== 1 || a.writes.length > 0 || a.opaque.length > 0 || a.hidden.length > 0 || !only || only.inner || /[$`*?[\]{}~]/.test(only.text)) {
    return `${tool}(${collapse(subject)})`;
  }
  const words = only.text.split(' ');
  const head = words.length > 1 && /^[a-z][\w-]*$/.test(words[1]!) ? words.slice(0, 2) : words.slice(0, 1);
  return `${tool}(${head.join(' ')}:*)`;
}
