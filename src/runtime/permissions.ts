// P1–P3: the permission decision for one tool use, and the prompter port the
// host implements (a modal/diff in VS Code, a TTY question in the CLI, nothing
// in non-interactive runs, where "ask" becomes a denial with a reason).
import { matchesAnyPart, matchesEveryPart, parseRule, parseRules, ruleSubject, suggestRule, type PermissionRule, type RuleSubject } from './permission-rules';
import { type FileChange, type PermissionNeed, type ToolUseAssessment } from './types';

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
  private readonly allow: PermissionRule[];
  private readonly deny: PermissionRule[];
  private readonly ask: PermissionRule[];
  /** "Allow for this session" answers, kept apart so they never leak into settings. */
  private readonly remembered: PermissionRule[] = [];

  constructor(
    public mode: PermissionMode = 'ask',
    rules: PermissionRules = {},
    private readonly deniedTools: readonly string[] = [],
  ) {
    this.allow = parseRules(rules.allow);
    this.deny = parseRules(rules.deny);
    this.ask = parseRules(rules.ask);
  }

  remember(rule: string): void {
    this.remembered.push(parseRule(rule));
  }

  get sessionRules(): string[] {
    return this.remembered.map((r) => r.source);
  }

  decide({ toolName, readOnly, assessment, hookOverride, hookReason }: PolicyInput): PolicyOutcome {
    const { need, subject } = assessment;
    const s = ruleSubject(toolName, subject);

    if (this.deniedTools.includes(toolName)) return { kind: 'deny', reason: `the tool ${toolName} is disabled` };
    const denyRule = this.deny.length > 0 ? this.deny.find((r) => matchesAnyPart(r, s)) : undefined;
    if (denyRule) return { kind: 'deny', reason: `denied by rule ${denyRule.source}: ${shown(s)}` };
    // A deny rule cannot be checked against a command that hides what it runs (`$x args`, `… | sh`): refuse rather than guess.
    const hidden = s.analysis?.hidden[0];
    const shellDeny = hidden !== undefined ? this.deny.find((r) => r.tool === toolName) : undefined;
    if (shellDeny) return { kind: 'deny', reason: `${hidden}, so the deny rule ${shellDeny.source} cannot be checked: ${shown(s)}` };
    if (hookOverride === 'deny') return { kind: 'deny', reason: hookReason ?? `denied by PreToolUse hook: ${shown(s)}` };
    if (this.mode === 'bypassPermissions') return { kind: 'allow', reason: 'bypassPermissions mode' };
    if (this.mode === 'plan' && !(readOnly && need === 'read')) {
      return { kind: 'deny', reason: `plan mode is read-only: ${shown(s)} needs ${need} permission` };
    }
    if (this.remembered.length > 0 && matchesEveryPart(this.remembered, s)) return { kind: 'allow', reason: 'allowed for this session' };

    // Paths outside the workspace and sensitive files always ask: no rule or mode can pre-approve them.
    const outside = assessment.outsideWorkspace;
    if (outside && outside.length > 0) return ask(s, `outside the workspace: ${outside.join(', ')}`);
    if (assessment.sensitive) return ask(s, `sensitive path: ${assessment.sensitive}`);

    if (hookOverride === 'allow') return { kind: 'allow', reason: hookReason ?? 'allowed by PreToolUse hook' };
    if (hookOverride === 'ask') return ask(s, hookReason ?? 'a PreToolUse hook asks for confirmation');
    const askRule = this.ask.length > 0 ? this.ask.find((r) => matchesAnyPart(r, s)) : undefined;
    if (askRule) return ask(s, `rule ${askRule.source} asks for ${shown(s)}`);
    if (this.allow.length > 0 && matchesEveryPart(this.allow, s)) return { kind: 'allow', reason: 'allowed by rule' };

    if (need === 'read') return { kind: 'allow', reason: `${this.mode} mode allows reads in the workspace` };
    if (need === 'edit' && this.mode === 'acceptEdits') return { kind: 'allow', reason: 'acceptEdits mode allows edits in the workspace' };
    if (s.analysis && s.analysis.commands.length > 1 && this.allow.some((r) => r.tool === toolName)) {
      return ask(s, `${shown(s)} is a compound command and not every part matches an allow rule`);
    }
    if (s.analysis && s.analysis.writes.length > 0) return ask(s, `the command writes to ${s.analysis.writes.join(', ')}`);
    return ask(s, `${shown(s)} needs ${need} permission in ${this.mode} mode`);
  }
}

const shown = (s: RuleSubject) => (s.subject ? `${s.tool}(${s.subject})` : s.tool);

function ask(s: RuleSubject, reason: string): PolicyOutcome {
  return { kind: 'ask', reason, suggestedRule: suggestRule(s.tool, s.subject) };
}
