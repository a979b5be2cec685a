// P1–P3: the permission decision for one tool use, and the prompter port the
// host implements (a modal/diff in VS Code, a TTY question in the CLI, nothing
// in non-interactive runs, where "ask" becomes a denial with a reason).
import { isMcpToolName } from '../mcp/names';
import { matchesAnyPart, matchesEveryPart, parseRule, parseRules, ruleSubject, suggestRule, type PermissionRule, type RuleSubject } from './permission-rules';
import { type FileChange, type PermissionNeed, type ToolUseAssessment } from '../types';

export type PermissionMode = 'plan' | 'ask' | 'acceptEdits' | 'bypassPermissions';

export const PERMISSION_MODES: readonly PermissionMode[] = ['plan', 'ask', 'acceptEdits', 'bypassPermissions'];

export interface PermissionRules {
  allow?: string[];
  deny?: string[];
  ask?: string[];
}

export interface PermissionRequest {
  toolUseId: string;
  toolName: string;
  input: Record<string, unknown>;
  need: PermissionNeed;
  subject: string;
  /** Why the policy asks, in words the user can act on, e.g. "outside the workspace: /etc/x". */
  reason: string;
  /** What "allow for this session" would remember. Precise: never a blanket prefix for a compound command. */
  suggestedRule: string;
  preview?: FileChange;
  /** Asked by a subagent: which one, so the user knows who wants it. */
  agent?: { id: string; name: string; description: string };
}

export type PermissionDecision =
  | {
      kind: 'allow';
      scope: 'once' | 'session';
      updatedInput?: Record<string, unknown>;
      /** Told to the model with the tool result, e.g. what the user changed in the proposal before allowing it. */
      note?: string;
    }
  | { kind: 'deny'; feedback?: string };

export interface PermissionPrompter {
  request(req: PermissionRequest, signal: AbortSignal): Promise<PermissionDecision>;
}

/** Hook influence on the policy (P1): PreToolUse may force allow, deny or ask. */
export type HookPermissionOverride = 'allow' | 'deny' | 'ask' | undefined;

export type PolicyOutcome =
  | { kind: 'allow'; reason: string }
  | { kind: 'deny'; reason: string }
  | { kind: 'ask'; reason: string; suggestedRule: string };

export const NON_INTERACTIVE_DENIAL = 'needs approval (run with --allow or --permission-mode)';

export interface PolicyInput {
  toolName: string;
  readOnly: boolean;
  assessment: ToolUseAssessment;
  hookOverride?: HookPermissionOverride;
  hookReason?: string;
}

export class PermissionPolicy {
  private allow: PermissionRule[] = [];
  private deny: PermissionRule[] = [];
  private ask: PermissionRule[] = [];
  private deniedTools: readonly string[] = [];
  /** "Allow for this session" answers, kept apart so they never leak into settings. */
  private readonly remembered: PermissionRule[] = [];

  constructor(
    public mode: PermissionMode = 'ask',
    rules: PermissionRules = {},
    deniedTools: readonly string[] = [],
  ) {
    this.configure(mode, rules, deniedTools);
  }

  /** A turn's mode and rules (its context): the session's "allow for this session" answers stay. */
  configure(mode: PermissionMode, rules: PermissionRules = {}, deniedTools: readonly string[] = []): void {
    this.mode = mode;
    this.allow = parseRules(rules.allow);
    this.deny = parseRules(rules.deny);
    this.ask = parseRules(rules.ask);
    this.deniedTools = deniedTools;
  }

  remember(rule: string): void {
    this.remembered.push(parseRule(rule));
  }

  get sessionRules(): string[] {
    return this.remembered.map((r) => r.source);
  }

  /**
   * P1, in claw-code's order: deny rules, then the hook's decision, then ask
   * rules, then the mode. Deny, a hook's ask and ask rules hold even in
   * bypassPermissions; allow rules and a hook's allow can only approve what
   * the checks before them let through.
   */
  decide({ toolName, readOnly, assessment, hookOverride, hookReason }: PolicyInput): PolicyOutcome {
    const { need, subject } = assessment;
    // A shell command is analysed by its tool's assess(); without that (tests, other hosts) it is analysed here (the parser must be loaded).
    const s: RuleSubject = { ...ruleSubject(toolName, subject, assessment.shell), need, ...(assessment.mcpServer !== undefined ? { mcpServer: assessment.mcpServer } : {}) };

    if (this.deniedTools.includes(toolName)) return { kind: 'deny', reason: `the tool ${toolName} is disabled` };
    const denied = this.denyRuleMatch(s);
    if (denied) return denied;
    if (hookOverride === 'deny') return { kind: 'deny', reason: hookReason ?? `denied by PreToolUse hook: ${shown(s)}` };
    if (hookOverride === 'ask') return ask(s, hookReason ?? 'a PreToolUse hook asks for confirmation');
    const askRule = this.ask.find((r) => matchesAnyPart(r, s));
    if (askRule) return ask(s, `rule ${askRule.source} asks for ${shown(s)}`);
    if (this.mode === 'bypassPermissions') return { kind: 'allow', reason: 'bypassPermissions mode' };
    // A fetch only reads, so plan mode may research the web: it asks like every other mode.
    if (this.mode === 'plan' && !(readOnly && (need === 'read' || need === 'fetch'))) {
      return { kind: 'deny', reason: `plan mode is read-only: ${shown(s)} needs ${need} permission` };
    }
    if (assessment.unsandboxed) return ask(s, `${shown(s)} asks to run outside the OS sandbox`);
    const remembered = this.remembered.length > 0 && matchesEveryPart(this.remembered, s);
    if (remembered && !s.shell) return { kind: 'allow', reason: 'allowed for this session' };

    // Paths outside the workspace and sensitive files always ask: no rule or mode can pre-approve them.
    const outside = assessment.outsideWorkspace;
    if (outside && outside.length > 0) return ask(s, `outside the workspace: ${outside.join(', ')}`);
    if (assessment.sensitive) return ask(s, `sensitive path: ${assessment.sensitive}`);
    if (remembered) return { kind: 'allow', reason: 'allowed for this session' };

    const unprovable = s.shell?.unprovable ?? [];
    if (hookOverride === 'allow') {
      if (unprovable.length === 0) return { kind: 'allow', reason: hookReason ?? 'allowed by PreToolUse hook' };
      return ask(s, `a PreToolUse hook allows it, but ${notProvable(unprovable)}`);
    }
    if (this.allow.length > 0 && matchesEveryPart(this.allow, s)) return { kind: 'allow', reason: 'allowed by rule' };

    if (need === 'read') return { kind: 'allow', reason: `${this.mode} mode allows reads in the workspace` };
    if (need === 'edit' && this.mode === 'acceptEdits') return { kind: 'allow', reason: 'acceptEdits mode allows edits in the workspace' };
    const hasAllowRule = this.allow.some((r) => r.tool === toolName) || this.remembered.some((r) => r.tool === toolName);
    if (s.shell && unprovable.length > 0 && hasAllowRule) return ask(s, `no allow rule can cover ${shown(s)}: ${notProvable(unprovable)}`);
    if (s.shell && s.shell.commands.length > 1 && hasAllowRule) {
      return ask(s, `${shown(s)} is a compound command and not every part matches an allow rule`);
    }
    if (s.shell && s.shell.writes.length > 0) return ask(s, `the command writes to ${s.shell.writes.join(', ')}`);
    // An MCP tool is not a command to the user: say what the mode does and what would skip the question.
    if (isMcpToolName(toolName)) return ask(s, `${this.mode} mode asks before every MCP tool call unless an allow rule covers it`);
    return ask(s, `${shown(s)} needs ${need} permission in ${this.mode} mode`);
  }

  /** A deny rule matching any part denies; a command hiding its names counts as matching (denied in bypass, asked otherwise). */
  private denyRuleMatch(s: RuleSubject): PolicyOutcome | undefined {
    const rule = this.deny.find((r) => matchesAnyPart(r, s));
    if (!rule) return undefined;
    const hidden = s.shell?.unresolved ?? [];
    // Matched by what the command visibly runs, or only because it hides what it runs?
    const visible = hidden.length === 0 || matchesAnyPart(rule, { ...s, shell: { ...s.shell!, unresolved: [] } });
    if (visible) return { kind: 'deny', reason: `denied by rule ${rule.source}: ${shown(s)}` };
    const reason = `${hidden.join('; ')}: the deny rule ${rule.source} cannot be checked against ${shown(s)}`;
    return this.mode === 'bypassPermissions' ? { kind: 'deny', reason } : ask(s, reason);
  }
}

const notProvable = (constructs: readonly string[]) => `it contains ${constructs.join(', ')}, so it is not provably a plain command`;

const shown = (s: RuleSubject) => (s.subject ? `${s.tool}(${s.subject})` : s.tool);

function ask(s: RuleSubject, reason: string): PolicyOutcome {
  return { kind: 'ask', reason, suggestedRule: suggestRule(s.tool, s.subject, s.shell, s.need) };
}
