// P5: hooks are shell commands run on agent events with the event as JSON on
// stdin. Exit 0 = ok (stdout may be a JSON object with a decision, an updated
// input or a message), exit 2 = deny, anything else = failure. They run as
// real child processes in their own process group so a timeout or an
// interrupt kills everything they started.
import { spawn } from 'node:child_process';
import { z } from 'zod';
import { errorMessage } from '../errors';
import { cutHead } from '../text-cut';
import { isShellTool, matchesAnyPart, matchesEveryPart, parseRule, ruleSubject, type PermissionRule } from './permission-rules';
import { analyseShell } from './shell-analysis';
import { type CommandAnalysis } from './shell-command';

export type HookEventName = 'PreToolUse' | 'PostToolUse' | 'PostToolUseFailure' | 'Stop' | 'UserPromptSubmit';

export interface HookPayload {
  tool_name?: string;
  tool_input?: Record<string, unknown>;
  /** The value permission rules match (command, path, pattern): lets a matcher like `bash(git:*)` work. */
  subject?: string;
  tool_output?: string;
  is_error?: boolean;
  prompt?: string;
  last_assistant_message?: string;
  stop_hook_active?: boolean;
  session_id?: string;
  cwd?: string;
}

export interface HookResult {
  /** ok: ran (or nothing to run); denied: exit 2 or decision deny/block; failed: crashed, timed out or bad output; cancelled: aborted. */
  outcome: 'ok' | 'denied' | 'failed' | 'cancelled';
  /** A PreToolUse permission override (P1). */
  decision?: 'allow' | 'deny' | 'ask';
  updatedInput?: Record<string, unknown>;
  /** Feedback to merge into the tool output (or, for Stop, the reason to keep going). */
  messages: string[];
}

export interface HookRunner {
  run(event: HookEventName, payload: HookPayload, signal: AbortSignal): Promise<HookResult>;
  /** False when nothing is configured for `event`: lets the loop skip the call entirely. Absent means "maybe". */
  has?(event: HookEventName): boolean;
}

export const noHooks: HookRunner = { run: async () => ({ outcome: 'ok', messages: [] }), has: () => false };

export const NO_HOOK_RESULT: Readonly<HookResult> = Object.freeze({ outcome: 'ok', messages: [] as string[] });

export interface HookSpec {
  matcher?: string;
  command: string;
  timeoutMs?: number;
  /** Variables the command gets on top of the runner's environment (a plugin's hook: its folder). */
  env?: Readonly<Record<string, string>>;
}

export type HooksConfig = Partial<Record<HookEventName, HookSpec[]>>;

const HookOutput = z
  .object({
    decision: z.enum(['allow', 'deny', 'ask', 'block', 'approve']).optional(),
    updatedInput: z.record(z.string(), z.unknown()).optional(),
    message: z.string().optional(),
    reason: z.string().optional(),
  })
  .loose();

export const DEFAULT_HOOK_TIMEOUT_MS = 60_000;

/** Merges hook messages into a tool output under the labels the model is told about (P5). */
export function mergeHookFeedback(messages: readonly string[], output: string, isError: boolean): string {
  if (messages.length === 0) return output;
  const sections = output.trim() ? [output] : [];
  sections.push(`${isError ? 'Hook feedback (error)' : 'Hook feedback'}:\n${messages.join('\n')}`);
  return sections.join('\n\n');
}

/**
 * How a hook's matcher relates to a tool use: `any` when it matches some part
 * (a deny or ask from the hook applies), `every` when it covers every part (an
 * allow from the hook applies). For bash, parts are the simple commands of the
 * syntax tree, as for permission rules; a command hiding what it runs is
 * matched by every matcher of the tool but covered by none.
 */
export interface HookMatch {
  any: boolean;
  every: boolean;
}

export function hookMatch(matcher: string | undefined, payload: HookPayload, shell?: CommandAnalysis): HookMatch {
  const m = matcher?.trim();
  if (!m || m === '*' || !payload.tool_name) return { any: true, every: true };
  const rules: PermissionRule[] = [];
  for (const alt of m.split('|')) {
    try {
      const rule = parseRule(alt);
      if (rule.tool === payload.tool_name) rules.push(rule);
    } catch {
      // An alternative that is not a rule matches nothing.
    }
  }
  if (rules.length === 0) return { any: false, every: false };
  const subject = ruleSubject(payload.tool_name, payload.subject ?? '', shell);
  return { any: rules.some((r) => matchesAnyPart(r, subject)), every: matchesEveryPart(rules, subject) };
}

/** Whether the hook runs at all for this payload: when its matcher matches some part. */
export function hookMatches(matcher: string | undefined, payload: HookPayload, shell?: CommandAnalysis): boolean {
  return hookMatch(matcher, payload, shell).any;
}

export class ShellHookRunner implements HookRunner {
  constructor(
    private readonly config: HooksConfig,
    private readonly options: { cwd: string; env?: NodeJS.ProcessEnv } = { cwd: process.cwd() },
  ) {}

  has(event: HookEventName): boolean {
    return (this.config[event]?.length ?? 0) > 0;
  }

  async run(event: HookEventName, payload: HookPayload, signal: AbortSignal): Promise<HookResult> {
    const configured = this.config[event] ?? [];
    if (configured.length === 0) return { outcome: 'ok', messages: [] };
    const shell = payload.tool_name && isShellTool(payload.tool_name) ? await analyseShell(payload.subject ?? '') : undefined;
    const specs = configured.map((spec) => ({ spec, match: hookMatch(spec.matcher, payload, shell) })).filter((s) => s.match.any);
    const result: HookResult = { outcome: 'ok', messages: [] };
    let current = payload;
    for (const { spec, match } of specs) {
      const one = await this.runOne(spec, event, current, signal);
      result.messages.push(...one.messages);
      if (one.updatedInput) {
        result.updatedInput = one.updatedInput;
        current = { ...current, tool_input: one.updatedInput };
      }
      // A hook's allow covers the command only if its matcher covers every part (`git status && rm x` is not `git status`).
      if (one.decision === 'allow' && !match.every) result.messages.push(`hook "${spec.command}" allowed only part of the command; the rest is decided by the rules`);
      else if (one.decision) result.decision = one.decision;
      if (one.outcome !== 'ok') {
        result.outcome = one.outcome;
        return result;
      }
    }
    return result;
  }

  private runOne(spec: HookSpec, event: HookEventName, payload: HookPayload, signal: AbortSignal): Promise<HookResult> {
    const timeoutMs = spec.timeoutMs ?? DEFAULT_HOOK_TIMEOUT_MS;
    const label = `hook "${spec.command}"`;
    if (signal.aborted) return Promise.resolve({ outcome: 'cancelled', messages: [`${label} cancelled`] });
    return new Promise<HookResult>((resolve) => {
      const child = spawn('sh', ['-c', spec.command], {
        cwd: this.options.cwd,
        env: { ...(this.options.env ?? process.env), ...spec.env, TURNSTONE_HOOK_EVENT: event },
        stdio: ['pipe', 'pipe', 'pipe'],
        detached: true,
      });
      let stdout = '';
      let stderr = '';
      let settled = false;
      const finish = (r: HookResult) => {
        if (settled) return;
        settled = true;
        clearTimeout(timer);
        signal.removeEventListener('abort', onAbort);
        resolve(r);
      };
      const killTree = () => {
        try {
          if (child.pid !== undefined) process.kill(-child.pid, 'SIGKILL');
        } catch {
          child.kill('SIGKILL');
        }
      };
      const onAbort = () => {
        killTree();
        finish({ outcome: 'cancelled', messages: [`${label} cancelled`] });
      };
      const timer = setTimeout(() => {
        killTree();
        finish({ outcome: 'failed', messages: [`${label} timed out after ${timeoutMs} ms`] });
      }, timeoutMs);
      signal.addEventListener('abort', onAbort, { once: true });

      child.stdout.setEncoding('utf8').on('data', (d: string) => (stdout += d));
      child.stderr.setEncoding('utf8').on('data', (d: string) => (stderr += d));
      // A hook that never reads stdin must not crash us with EPIPE.
      child.stdin.on('error', () => undefined);
      child.stdin.end(JSON.stringify({ hook_event_name: event, ...payload }));
      child.on('error', (error) => finish({ outcome: 'failed', messages: [`${label} could not start: ${error.message}`] }));
      child.on('close', (code, sig) => {
        if (code === 0) finish(interpretSuccess(label, stdout));
        else if (code === 2) finish({ outcome: 'denied', messages: [stderr.trim() || stdout.trim() || `${label} denied`] });
        else finish({ outcome: 'failed', messages: [`${label} failed with ${code === null ? `signal ${sig}` : `exit code ${code}`}${stderr.trim() ? `: ${stderr.trim()}` : ''}`] });
      });
    });
  }
}

/** Plain text on stdout is feedback; text that starts like JSON must be a valid hook object. */
function interpretSuccess(label: string, stdout: string): HookResult {
  const text = stdout.trim();
  if (!text) return { outcome: 'ok', messages: [] };
  if (!text.startsWith('{') && !text.startsWith('[')) return { outcome: 'ok', messages: [text] };
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch (error) {
    return { outcome: 'failed', messages: [`${label} printed invalid JSON (${errorMessage(error)}): ${snippet(text)}`] };
  }
  const parsed = HookOutput.safeParse(json);
  if (!parsed.success) {
    return { outcome: 'failed', messages: [`${label} printed JSON that is not a hook result (${parsed.error.issues[0]?.message ?? 'bad shape'}): ${snippet(text)}`] };
  }
  const { decision, updatedInput, message, reason } = parsed.data;
  const messages = [message, reason].filter((m): m is string => !!m);
  if (decision === 'deny' || decision === 'block') return { outcome: 'denied', decision: 'deny', messages, ...(updatedInput ? { updatedInput } : {}) };
  const mapped = decision === 'approve' ? 'allow' : decision;
  return { outcome: 'ok', messages, ...(mapped ? { decision: mapped } : {}), ...(updatedInput ? { updatedInput } : {}) };
}

const snippet = (s: string) => (s.length > 200 ? `${cutHead(s, 200)}…` : s);
