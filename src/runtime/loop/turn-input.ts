// What the user (and their hooks) put into a turn: the typed and queued input,
// text steered in while it runs (T7), and a Stop hook sending the model back
// to work (T10). Every text passes the UserPromptSubmit hook on its own: a
// blocked one is left out with a warning, the others still go.
import { type TurnCancellation } from '../cancellation';
import { RuntimeError } from '../errors';
import { type RuntimeEvent } from '../events';
import { type HookRunner } from '../policy/hooks';
import { type QueuedInput, type SteeringQueue } from './steering';
import { type AssistantMessage, type ImageBlock, type UserContentBlock } from '../types';

export interface TurnInputPorts {
  hooks: HookRunner;
  steering: SteeringQueue;
  emit(event: RuntimeEvent): void;
  /** Appends to the history's last user message (or starts one). */
  appendUser(blocks: UserContentBlock[]): void;
}

interface PromptHookResult {
  outcome: 'denied' | 'ok';
  messages: string[];
  feedback: UserContentBlock[];
}

/**
 * The turn's input: inputs queued for it, then the typed text, then its images. A Stop while a hook runs
 * puts the queued inputs back in the queue. `lastRole`: an empty input is allowed only after a user message
 * (a retry runs the loop again on the history as it is).
 */
export async function submitInput(ports: TurnInputPorts, queued: readonly QueuedInput[], input: string, images: ImageBlock[], cancellation: TurnCancellation, lastRole: string | undefined): Promise<void> {
  const texts = [...queued.map((q) => q.text), input].filter((t) => t.trim() !== '');
  if (texts.length === 0 && images.length > 0) texts.push('(see the attached image' + (images.length > 1 ? 's)' : ')'));
  if (texts.length === 0) {
    if (lastRole !== 'user') throw new RuntimeError('invalid_request', 'nothing to send: the input is empty');
    return;
  }
  const blocks: UserContentBlock[] = [];
  const feedback: UserContentBlock[] = [];
  const blocked: string[] = [];
  try {
    for (const text of texts) {
      const hook = await promptHook(ports, text, cancellation);
      if (hook.outcome === 'denied') {
        blocked.push(hook.messages.join('\n'));
        continue;
      }
      blocks.push({ type: 'text', text });
      feedback.push(...hook.feedback);
    }
  } catch (error) {
    ports.steering.returnNext(queued);
    throw error;
  }
  const why = (messages: string) => (messages ? `: ${messages}` : '');
  if (blocks.length === 0) throw new RuntimeError('prompt_blocked', `a UserPromptSubmit hook blocked the prompt${why(blocked.join('\n'))}`);
  for (const messages of blocked) ports.emit({ type: 'warning', kind: 'prompt_blocked', message: `a UserPromptSubmit hook blocked one of the inputs of this turn; the others were sent${why(messages)}` });
  ports.appendUser([...blocks, ...images, ...feedback]);
}

/**
 * T10: whether a Stop hook sends the model back to work (its feedback appended), at most `maxBlocks` times
 * a turn (`blocksSoFar` counts the earlier ones).
 */
export async function stopHookSendsBack(ports: TurnInputPorts, message: AssistantMessage, cancellation: TurnCancellation, blocksSoFar: number, maxBlocks: number): Promise<boolean> {
  if (ports.hooks.has?.('Stop') === false) return false;
  const text = message.content.map((b) => (b.type === 'text' ? b.text : '')).join('');
  const result = await cancellation.race(ports.hooks.run('Stop', { last_assistant_message: text, stop_hook_active: blocksSoFar > 0 }, cancellation.signal));
  cancellation.throwIfCancelled();
  if (result.outcome === 'failed') ports.emit({ type: 'warning', kind: 'hook', message: result.messages.join('\n') });
  if (result.outcome !== 'denied') return false;
  if (blocksSoFar >= maxBlocks) {
    ports.emit({ type: 'warning', kind: 'stop_hook_cap', message: `a Stop hook blocked ${maxBlocks} times; ending the turn anyway` });
    return false;
  }
  ports.appendUser([{ type: 'text', text: `Stop hook feedback:\n${result.messages.join('\n') || 'Continue working.'}` }]);
  return true;
}

/**
 * T7: steered text joins the pending tool results (never splitting a tool_use/tool_result pair). True when
 * any text was applied.
 */
export async function applyInterjections(ports: TurnInputPorts, cancellation: TurnCancellation): Promise<boolean> {
  const applied: string[] = [];
  const extra: UserContentBlock[] = [];
  while (ports.steering.hasCurrent) {
    const texts = ports.steering.takeCurrent();
    for (let i = 0; i < texts.length; i++) {
      const text = texts[i]!;
      let hook: PromptHookResult;
      try {
        hook = await promptHook(ports, text, cancellation);
      } catch (error) {
        // Stopped while a hook judged it: this text and those after it were never sent; the next turn gets them.
        ports.steering.returnCurrent(texts.slice(i));
        throw error;
      }
      if (hook.outcome === 'denied') {
        ports.emit({ type: 'warning', kind: 'prompt_blocked', message: `a UserPromptSubmit hook blocked the steered text${hook.messages.length ? `: ${hook.messages.join('\n')}` : ''}` });
        continue;
      }
      applied.push(text);
      extra.push({ type: 'text', text }, ...hook.feedback);
    }
  }
  // Joins the pending tool results (already in the history) in the same user message.
  ports.appendUser(extra);
  for (const text of applied) ports.emit({ type: 'interjection_applied', text });
  return applied.length > 0;
}

/** UserPromptSubmit for typed, queued and steered text alike. */
async function promptHook(ports: TurnInputPorts, prompt: string, cancellation: TurnCancellation): Promise<PromptHookResult> {
  if (ports.hooks.has?.('UserPromptSubmit') === false) return { outcome: 'ok', messages: [], feedback: [] };
  const hook = await cancellation.race(ports.hooks.run('UserPromptSubmit', { prompt }, cancellation.signal));
  cancellation.throwIfCancelled();
  if (hook.outcome === 'denied') return { outcome: 'denied', messages: hook.messages, feedback: [] };
  if (hook.outcome === 'failed') {
    ports.emit({ type: 'warning', kind: 'hook', message: hook.messages.join('\n') });
    return { outcome: 'ok', messages: hook.messages, feedback: [] };
  }
  return { outcome: 'ok', messages: hook.messages, feedback: hook.messages.length > 0 ? [{ type: 'text', text: `Hook feedback:\n${hook.messages.join('\n')}` }] : [] };
}
