// T5, T11, P1, P4: runs the tool uses of one reply. Each goes through input
// check → PreToolUse hook → permission policy (and prompt) → execute →
// PostToolUse hook. Failures of any kind become is_error results; the turn
// goes on. Consecutive read-only uses run concurrently; everything else runs
// alone; results always come back in call order.
import { type ParsedToolUse } from './assistant-message';
import { abortable, errorMessage, isAborted } from './errors';
import { type RuntimeEvent, type ToolResultRecord } from './events';
import { ABORTED_RESULT } from './history';
import { mergeHookFeedback, type HookRunner } from './hooks';
import { NON_INTERACTIVE_DENIAL, type PermissionPolicy, type PermissionPrompter, type PermissionRequest } from './permissions';
import { ToolInputError, type FileChange, type ToolExecutor, type ToolUseAssessment } from './types';

export interface DispatchContext {
  tools: ToolExecutor;
  hooks: HookRunner;
  policy: PermissionPolicy;
  prompter: PermissionPrompter | undefined;
  emit: (event: RuntimeEvent) => void;
  onFileChange: (change: FileChange) => void;
  signal: AbortSignal;
}

export async function dispatchToolUses(uses: readonly ParsedToolUse[], ctx: DispatchContext): Promise<ToolResultRecord[]> {
  const results: ToolResultRecord[] = new Array(uses.length);
  // Prompts are shown one at a time even when their tool uses run in parallel.
  let promptChain: Promise<unknown> = Promise.resolve();
  const serialPrompt = <T>(fn: () => Promise<T>): Promise<T> => {
    const run = promptChain.then(fn, fn);
    promptChain = run.catch(() => undefined);
    return run;
  };
  const runAt = async (i: number) => {
    results[i] = await runToolUse(uses[i]!, ctx, serialPrompt);
  };

  let i = 0;
  while (i < uses.length) {
    if (ctx.tools.isReadOnly(uses[i]!.name) === true) {
      const batch: number[] = [];
      while (i < uses.length && ctx.tools.isReadOnly(uses[i]!.name) === true) batch.push(i++);
      await Promise.all(batch.map(runAt));
    } else {
      await runAt(i++);
    }
  }
  return results;
}

type SerialPrompt = <T>(fn: () => Promise<T>) => Promise<T>;

async function runToolUse(use: ParsedToolUse, ctx: DispatchContext, serialPrompt: SerialPrompt): Promise<ToolResultRecord> {
  const finish = (content: string, isError: boolean, fileChange?: FileChange): ToolResultRecord => {
    ctx.emit({ type: 'tool_finished', id: use.id, name: use.name, isError, content, ...(fileChange ? { fileChange } : {}) });
    return { toolUseId: use.id, name: use.name, isError, content };
  };
  try {
    if (ctx.signal.aborted) return finish(ABORTED_RESULT, true);
    return await runChecked(use, ctx, serialPrompt, finish);
  } catch (error) {
    if (isAborted(error) || ctx.signal.aborted) return finish(ABORTED_RESULT, true);
    return finish(`internal error running ${use.name}: ${errorMessage(error)}`, true);
  }
}

async function assess(ctx: DispatchContext, name: string, input: Record<string, unknown>): Promise<ToolUseAssessment | string> {
  try {
    return await abortable(ctx.tools.assess(name, input), ctx.signal);
  } catch (error) {
    if (isAborted(error)) throw error;
    return error instanceof ToolInputError ? `invalid input for ${name}: ${error.message}` : `${name} failed: ${errorMessage(error)}`;
  }
}

async function runChecked(
  use: ParsedToolUse,
  ctx: DispatchContext,
  serialPrompt: SerialPrompt,
  finish: (content: string, isError: boolean, fileChange?: FileChange) => ToolResultRecord,
): Promise<ToolResultRecord> {
  const { name, id } = use;
  if (use.inputError) return finish(use.inputError, true);
  const readOnly = ctx.tools.isReadOnly(name);
  if (readOnly === undefined) return finish(`unknown tool: ${name}`, true);

  let input = use.input;
  let userNote: string | undefined;
  let assessment = await assess(ctx, name, input);
  if (typeof assessment === 'string') return finish(assessment, true);

  const pre = await ctx.hooks.run('PreToolUse', { tool_name: name, tool_input: input, subject: assessment.subject }, ctx.signal);
  if (ctx.signal.aborted) return finish(ABORTED_RESULT, true);
  const deny = (reason: string) => finish(mergeHookFeedback(pre.messages, `Permission denied: ${reason}`, true), true);
  if (pre.outcome === 'cancelled') return deny('the PreToolUse hook was cancelled');
  if (pre.outcome === 'failed') return deny('the PreToolUse hook failed');
  if (pre.outcome === 'denied') return deny('denied by a PreToolUse hook');
  if (pre.updatedInput) {
    input = pre.updatedInput;
    assessment = await assess(ctx, name, input);
    if (typeof assessment === 'string') return finish(mergeHookFeedback(pre.messages, assessment, true), true);
  }

  const outcome = ctx.policy.decide({ toolName: name, readOnly, assessment, hookOverride: pre.decision });
  if (outcome.kind === 'deny') {
    ctx.emit({ type: 'permission_decided', toolUseId: id, toolName: name, decision: 'deny', reason: outcome.reason });
    return deny(outcome.reason);
  }
  if (outcome.kind === 'ask') {
    if (!ctx.prompter) {
      const reason = `${outcome.reason}: ${NON_INTERACTIVE_DENIAL}`;
      ctx.emit({ type: 'permission_decided', toolUseId: id, toolName: name, decision: 'deny', reason });
      return deny(reason);
    }
    const prompter = ctx.prompter;
    const preview = await ctx.tools.preview?.(name, input).catch(() => undefined);
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
    const decision = await serialPrompt(() => {
      ctx.emit({ type: 'permission_requested', request });
      return abortable(prompter.request(request, ctx.signal), ctx.signal);
    });
    if (decision.kind === 'deny') {
      const reason = `the user denied ${name}${decision.feedback ? `. User feedback: ${decision.feedback}` : ''}`;
      ctx.emit({ type: 'permission_decided', toolUseId: id, toolName: name, decision: 'deny', reason });
      return deny(reason);
    }
    if (decision.scope === 'session') ctx.policy.remember(outcome.suggestedRule);
    if (decision.updatedInput) input = decision.updatedInput;
    if (decision.note) userNote = decision.note;
    ctx.emit({ type: 'permission_decided', toolUseId: id, toolName: name, decision: 'allow', reason: outcome.reason, scope: decision.scope });
  }

  let content: string;
  let isError: boolean;
  let fileChange: FileChange | undefined;
  try {
    const output = await abortable(
      ctx.tools.execute(name, input, { signal: ctx.signal, onProgress: (chunk) => ctx.emit({ type: 'tool_progress', id, chunk }) }),
      ctx.signal,
    );
    ({ content, isError, fileChange } = output);
  } catch (error) {
    if (isAborted(error) || ctx.signal.aborted) throw error;
    content = error instanceof ToolInputError ? `invalid input for ${name}: ${error.message}` : `${name} failed: ${errorMessage(error)}`;
    isError = true;
  }
  if (fileChange) ctx.onFileChange(fileChange);
  if (userNote && !isError) content = `${content}\n\n${userNote}`;
  content = mergeHookFeedback(pre.messages, content, false);

  const post = await ctx.hooks.run(isError ? 'PostToolUseFailure' : 'PostToolUse', { tool_name: name, tool_input: input, subject: assessment.subject, tool_output: content, is_error: isError }, ctx.signal);
  if (post.outcome !== 'ok') isError = true;
  return finish(mergeHookFeedback(post.messages, content, isError), isError, fileChange);
}
