// T5, T11, P1, P4: runs the tool uses of one reply. Each goes through
// authorize() (input check → PreToolUse hook → permission policy and prompt)
// and then execute() (the tool → PostToolUse hook). Failures of any kind become is_error results; the turn
// goes on. Consecutive read-only uses run concurrently; everything else runs
// alone; results always come back in call order.
import { type ParsedToolUse } from './assistant-message';
import { isAbortedError, type TurnCancellation } from '../cancellation';
import { errorMessage } from '../errors';
import { type RuntimeEvent, type ToolResultRecord } from '../events';
import { ABORTED_RESULT } from '../session/history';
import { mergeHookFeedback, NO_HOOK_RESULT, type HookEventName, type HookPayload, type HookResult, type HookRunner } from '../policy/hooks';
import { isShellTool } from '../policy/permission-rules';
import { NON_INTERACTIVE_DENIAL, type PermissionDecision, type PermissionPolicy, type PermissionPrompter, type PermissionRequest } from '../policy/permissions';
import { loadShellParser } from '../policy/shell-parser';
import { type Plan } from '../plan';
import { presentFacts, ToolInputError, type FileChange, type SubagentReport, type SubagentSpec, type ToolExecutor, type ToolOutput, type ToolResultFacts, type ToolUseAssessment } from '../types';

export interface DispatchContext {
  tools: ToolExecutor;
  hooks: HookRunner;
  policy: PermissionPolicy;
  prompter: PermissionPrompter | undefined;
  /** The turn's prompt queue, shared with its subagents; a fresh one per call when absent. */
  prompts?: PromptQueue;
  emit: (event: RuntimeEvent) => void;
  onFileChange: (change: FileChange) => void;
  /** A tool (todo_write) handed back a new plan: the session keeps it. */
  onPlan?: (plan: Plan) => void;
  /** The turn's: each tool use runs under a child of it, and every wait on a port races that child (T8). */
  cancellation: TurnCancellation;
  /** Runs a subagent for the tool use `toolUseId` (the `agent` tool); absent in a subagent's own turn. */
  runSubagent?: (toolUseId: string, spec: SubagentSpec, signal: AbortSignal) => Promise<SubagentReport>;
}

/** Prompts are shown one at a time even when their tool uses run in parallel. */
export class PromptQueue {
  private tail: Promise<unknown> | undefined;
  run(fn: () => Promise<PermissionDecision>): Promise<PermissionDecision> {
    const next = this.tail ? this.tail.then(fn, fn) : fn();
    this.tail = next.catch(() => undefined);
    return next;
  }
}

export async function dispatchToolUses(uses: readonly ParsedToolUse[], ctx: DispatchContext): Promise<ToolResultRecord[]> {
  const prompts = ctx.prompts ?? new PromptQueue();
  const results: ToolResultRecord[] = [];
  let i = 0;
  while (i < uses.length) {
    let end = i + 1;
    if (ctx.tools.isReadOnly(uses[i]!.name) === true) {
      while (end < uses.length && ctx.tools.isReadOnly(uses[end]!.name) === true) end++;
    }
    if (end - i === 1) {
      results.push(await runToolUse(uses[i]!, ctx, prompts));
    } else results.push(...(await Promise.all(uses.slice(i, end).map((use) => runToolUse(use, ctx, prompts)))));
    i = end;
  }
  return results;
}

/** The result's facts (ToolResultFacts), and what only the UI is told: the file it changed, the command it started. */
type ResultFacts = ToolResultFacts & Pick<ToolOutput, 'fileChange' | 'background'>;

function finish(ctx: DispatchContext, use: ParsedToolUse, content: string, isError: boolean, more: ResultFacts = {}): ToolResultRecord {
  const { fileChange, background } = more;
  const facts = presentFacts(more);
  ctx.emit({ type: 'tool_finished', id: use.id, name: use.name, isError, content, ...(fileChange ? { fileChange } : {}), ...(background ? { background } : {}), ...facts });
  return { toolUseId: use.id, name: use.name, isError, content, ...facts };
}

function deny(ctx: DispatchContext, use: ParsedToolUse, pre: HookResult, reason: string): ToolResultRecord {
  return finish(ctx, use, mergeHookFeedback(pre.messages, `Permission denied: ${reason}`, true), true);
}

/** Assessment is bounded validation: not raced against the interrupt, which is checked right after it. */
function assessFailure(name: string, error: unknown): string {
  return error instanceof ToolInputError ? `invalid input for ${name}: ${error.message}` : `${name} failed: ${errorMessage(error)}`;
}

function hookConfigured(ctx: DispatchContext, event: HookEventName): boolean {
  return ctx.hooks.has?.(event) !== false;
}

function runHook(ctx: DispatchContext, cancel: TurnCancellation, event: HookEventName, payload: HookPayload): Promise<HookResult> {
  return cancel.race(ctx.hooks.run(event, payload, cancel.signal));
}

// Bound per tool use rather than a fresh closure: the hot path stays allocation-light.
function emitProgress(ctx: DispatchContext, id: string, chunk: string): void {
  ctx.emit({ type: 'tool_progress', id, chunk });
}

/** What an exception escaping the pipeline becomes: "aborted" after an interrupt, else a readable error. */
function failed(ctx: DispatchContext, use: ParsedToolUse, error: unknown, cancel: TurnCancellation): ToolResultRecord {
  if (isAbortedError(error) || cancel.cancelled) return finish(ctx, use, ABORTED_RESULT, true, { aborted: true });
  return finish(ctx, use, `internal error running ${use.name}: ${errorMessage(error)}`, true);
}

/** One tool use under its own child of the turn's cancellation; its result always comes back. */
async function runToolUse(use: ParsedToolUse, ctx: DispatchContext, prompts: PromptQueue): Promise<ToolResultRecord> {
  const cancel = ctx.cancellation.child();
  try {
    const auth = await authorize(use, ctx, prompts, cancel);
    return auth.kind === 'allow' ? await execute(use, auth, ctx, cancel) : auth.result;
  } catch (error) {
    return failed(ctx, use, error, cancel);
  } finally {
    cancel.dispose();
  }
}

/** What authorize() decided: run the tool with this input, or the finished (denied, invalid, aborted) result. */
export type Authorization =
  | {
      kind: 'allow';
      input: Record<string, unknown>;
      subject: string;
      /** The PreToolUse hook's result: its messages go with the tool's output. */
      pre: HookResult;
      /** What the user's decision adds for the model, e.g. how they changed the proposal (told with the result). */
      userNote?: string;
    }
  | { kind: 'finished'; result: ToolResultRecord };

/**
 * The one authorization step (ARCHITECTURE, claw-code's authorize_with_context):
 * validate and assess the input, run the PreToolUse hook, let the policy decide
 * (P1) and ask the user where it says so. Generic over every tool the registry
 * holds (built-in or MCP): nothing here knows a tool by name.
 */
export async function authorize(use: ParsedToolUse, ctx: DispatchContext, prompts: PromptQueue, cancel: TurnCancellation): Promise<Authorization> {
  const { name, id } = use;
  const done = (result: ToolResultRecord): Authorization => ({ kind: 'finished', result });
  if (cancel.cancelled) return done(finish(ctx, use, ABORTED_RESULT, true, { aborted: true }));
  if (use.inputError) return done(finish(ctx, use, use.inputError, true));
  const readOnly = ctx.tools.isReadOnly(name);
  if (readOnly === undefined) return done(finish(ctx, use, `unknown tool: ${name}`, true));

  let input = use.input;
  let assessment: ToolUseAssessment;
  try {
    assessment = await ctx.tools.assess(name, input);
  } catch (error) {
    return done(finish(ctx, use, assessFailure(name, error), true));
  }
  if (cancel.cancelled) return done(finish(ctx, use, ABORTED_RESULT, true, { aborted: true }));

  const pre = hookConfigured(ctx, 'PreToolUse') ? await runHook(ctx, cancel, 'PreToolUse', { tool_name: name, tool_input: input, subject: assessment.subject }) : NO_HOOK_RESULT;
  if (cancel.cancelled) return done(finish(ctx, use, ABORTED_RESULT, true, { aborted: true }));
  if (pre.outcome === 'cancelled') return done(deny(ctx, use, pre, 'the PreToolUse hook was cancelled'));
  if (pre.outcome === 'failed') return done(deny(ctx, use, pre, 'the PreToolUse hook failed'));
  if (pre.outcome === 'denied') return done(deny(ctx, use, pre, 'denied by a PreToolUse hook'));
  if (pre.updatedInput) {
    input = pre.updatedInput;
    try {
      assessment = await ctx.tools.assess(name, input);
    } catch (error) {
      return done(finish(ctx, use, mergeHookFeedback(pre.messages, assessFailure(name, error), true), true));
    }
  }

  // The policy judges commands on their syntax tree: the parser loads on the first command, not at activation.
  if (isShellTool(name) && !assessment.shell) await cancel.race(loadShellParser());
  const outcome = ctx.policy.decide({ toolName: name, readOnly, assessment, hookOverride: pre.decision });
  if (outcome.kind === 'allow') return { kind: 'allow', input, subject: assessment.subject, pre };
  if (outcome.kind === 'deny') {
    ctx.emit({ type: 'permission_decided', toolUseId: id, toolName: name, decision: 'deny', reason: outcome.reason });
    return done(deny(ctx, use, pre, outcome.reason));
  }
  if (!ctx.prompter) {
    const reason = `${outcome.reason}: ${NON_INTERACTIVE_DENIAL}`;
    ctx.emit({ type: 'permission_decided', toolUseId: id, toolName: name, decision: 'deny', reason });
    return done(deny(ctx, use, pre, reason));
  }
  const prompter = ctx.prompter;
  const preview = await cancel.race(ctx.tools.preview?.(name, input) ?? Promise.resolve(undefined)).catch((error: unknown) => {
    if (isAbortedError(error)) throw error;
    return undefined;
  });
  const request: PermissionRequest = {
    toolUseId: id,
    toolName: name,
    input,
    need: assessment.need,
    subject: assessment.subject,
    reason: outcome.reason,
    suggestedRule: outcome.suggestedRule,
    ...(preview ? { preview } : {}),
  };
  const decision = await prompts.run(() => {
    ctx.emit({ type: 'permission_requested', request });
    return cancel.race(prompter.request(request, cancel.signal));
  });
  if (decision.kind === 'deny') {
    const reason = `the user denied ${name}${decision.feedback ? `. User feedback: ${decision.feedback}` : ''}`;
    ctx.emit({ type: 'permission_decided', toolUseId: id, toolName: name, decision: 'deny', reason });
    return done(deny(ctx, use, pre, reason));
  }
  if (decision.scope === 'session') ctx.policy.remember(outcome.suggestedRule);
  ctx.emit({ type: 'permission_decided', toolUseId: id, toolName: name, decision: 'allow', reason: outcome.reason, scope: decision.scope });
  return { kind: 'allow', input: decision.updatedInput ?? input, subject: assessment.subject, pre, ...(decision.note ? { userNote: decision.note } : {}) };
}

/** Runs an authorized tool use and its PostToolUse hook; the result always comes back (errors become is_error results). */
export async function execute(use: ParsedToolUse, auth: Extract<Authorization, { kind: 'allow' }>, ctx: DispatchContext, cancel: TurnCancellation): Promise<ToolResultRecord> {
  const { name, id } = use;
  const { input, pre, userNote } = auth;
  let output: ToolOutput;
  try {
    const onProgress = emitProgress.bind(undefined, ctx, id);
    const runSubagent = ctx.runSubagent && ((spec: SubagentSpec, signal: AbortSignal) => ctx.runSubagent!(id, spec, signal));
    output = await cancel.race(ctx.tools.execute(name, input, { signal: cancel.signal, onProgress, ...(runSubagent ? { runSubagent } : {}) }));
  } catch (error) {
    if (isAbortedError(error) || cancel.cancelled) throw error;
    output = { content: error instanceof ToolInputError ? `invalid input for ${name}: ${error.message}` : `${name} failed: ${errorMessage(error)}`, isError: true };
  }
  const { fileChange, plan } = output;
  let { content, isError } = output;
  if (fileChange) ctx.onFileChange(fileChange);
  if (plan && !isError) ctx.onPlan?.(plan);
  if (userNote && !isError) content = `${content}\n\n${userNote}`;
  content = mergeHookFeedback(pre.messages, content, false);

  let post: HookResult;
  try {
    const event = isError ? 'PostToolUseFailure' : 'PostToolUse';
    post = hookConfigured(ctx, event) ? await runHook(ctx, cancel, event, { tool_name: name, tool_input: input, subject: auth.subject, tool_output: content, is_error: isError }) : NO_HOOK_RESULT;
  } catch (error) {
    // The tool already ran: an interrupt during its PostToolUse hook keeps the real result.
    if (!isAbortedError(error)) throw error;
    post = { outcome: 'cancelled', messages: ['PostToolUse hook cancelled'] };
  }
  if (post.outcome !== 'ok') isError = true;
  // The tool's facts travel as it gave them (the plan stays with the session, applied above).
  return finish(ctx, use, mergeHookFeedback(post.messages, content, isError), isError, output);
}
