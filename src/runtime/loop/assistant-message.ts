// T3: one step's AssistantEvents become one assistant message. Text deltas
// accumulate into a text block that is flushed when a thinking or tool-use
// block arrives and at the end, so streamed block order is kept. A provider's
// step_reset (S6 retry) discards everything the step produced so far.
import { type TurnCancellation } from '../cancellation';
import { type RuntimeEvent } from '../events';
import { type ToolUseIds } from './tool-use-ids';
import { addUsage } from '../spend/usage';
import { ModelError, type AssistantContentBlock, type AssistantEvent, type AssistantMessage, type StopReason, type Usage } from '../types';

export interface ParsedToolUse {
  id: string;
  name: string;
  input: Record<string, unknown>;
  /** Set when the model's input JSON did not parse to an object (T5). */
  inputError?: string;
}

export interface StepResult {
  message: AssistantMessage;
  toolUses: ParsedToolUse[];
  /** Everything the step was billed for, discarded attempts of a retried step included (C4). */
  usage: Usage | undefined;
  /** The usage of the attempt that produced the message, when earlier attempts were billed too. */
  attemptUsage?: Usage;
  promptCache: Array<{ cacheReadInputTokens: number; cacheCreationInputTokens: number }>;
  stopReason: StopReason | null;
}

export function parseToolInput(inputJson: string): { input: Record<string, unknown>; error?: string } {
  let value: unknown;
  try {
    value = JSON.parse(inputJson);
  } catch (error) {
    // '' (or only whitespace) is how providers say "no arguments".
    if (inputJson.trim() === '') return { input: {} };
    return { input: {}, error: `invalid tool input JSON: ${(error as Error).message}` };
  }
  if (value !== null && typeof value === 'object' && !Array.isArray(value)) return { input: value as Record<string, unknown> };
  return { input: {}, error: `tool input must be a JSON object, got ${Array.isArray(value) ? 'an array' : value === null ? 'null' : typeof value}` };
}

/** A reply that hit the output limit inside a tool call's input: say so, rather than only "invalid JSON". */
function cutInput(use: ParsedToolUse): ParsedToolUse {
  if (!use.inputError) return use;
  return {
    ...use,
    inputError: `the reply reached the output token limit (max_tokens) inside this tool call's input, so the input is incomplete and the tool was not run (${use.inputError}). Make the call again with a smaller input, e.g. write a large file in several parts.`,
  };
}

export class AssistantMessageBuilder {
  private blocks: AssistantContentBlock[] = [];
  private text = '';
  private toolUses: ParsedToolUse[] = [];
  private usage: Usage | undefined;
  /** Usage of attempts a retry discarded: they were billed all the same. */
  private discarded: Usage | undefined;
  private promptCache: StepResult['promptCache'] = [];
  private stopped = false;
  private stopReason: StopReason | null = null;
  private thinkingStartedAt: number | undefined;

  constructor(
    private readonly emit: (event: RuntimeEvent) => void,
    private readonly now: () => number,
    private readonly step: number,
    /** Keeps tool use ids unique in the session (T9); absent, ids are kept as the provider sent them. */
    private readonly ids?: ToolUseIds,
  ) {}

  push(event: AssistantEvent): void {
    switch (event.type) {
      case 'text_delta':
        this.text += event.text;
        this.emit({ type: 'text_delta', text: event.text });
        return;
      case 'thinking_delta':
        this.thinkingStartedAt ??= this.now();
        this.emit({ type: 'thinking_delta', thinking: event.thinking });
        return;
      case 'thinking':
        this.flushText();
        this.blocks.push({ type: 'thinking', thinking: event.thinking, signature: event.signature, ...(event.reasoning ? { reasoning: event.reasoning } : {}) });
        this.emit({ type: 'thinking_done', chars: event.thinking.length, ms: this.thinkingStartedAt === undefined ? 0 : this.now() - this.thinkingStartedAt });
        this.thinkingStartedAt = undefined;
        return;
      case 'redacted_thinking':
        this.flushText();
        this.blocks.push({ type: 'redacted_thinking', data: event.data });
        return;
      case 'tool_use_start':
        this.emit({ type: 'tool_use_started', id: this.idOf(event.id), name: event.name });
        return;
      case 'tool_use': {
        this.flushText();
        const id = this.idOf(event.id);
        const { input, error } = parseToolInput(event.inputJson);
        this.blocks.push({ type: 'tool_use', id, name: event.name, input, ...(error ? { unparsedInput: event.inputJson } : {}) });
        this.toolUses.push({ id, name: event.name, input, ...(error ? { inputError: error } : {}) });
        this.emit({ type: 'tool_use_ready', id, name: event.name, input });
        return;
      }
      case 'usage':
        this.usage = event.usage;
        return;
      case 'prompt_cache':
        this.promptCache.push({ cacheReadInputTokens: event.cacheReadInputTokens, cacheCreationInputTokens: event.cacheCreationInputTokens });
        this.emit({ type: 'prompt_cache', cacheReadInputTokens: event.cacheReadInputTokens, cacheCreationInputTokens: event.cacheCreationInputTokens });
        return;
      case 'retrying':
        this.emit({ type: 'retrying', attempt: event.attempt, maxAttempts: event.maxAttempts, delayMs: event.delayMs, reason: event.reason, ...(event.detail !== undefined ? { detail: event.detail } : {}) });
        return;
      case 'resending':
        return;
      case 'step_reset':
        if (this.usage) this.discarded = this.discarded ? addUsage(this.discarded, this.usage) : this.usage;
        this.blocks = [];
        this.text = '';
        this.toolUses = [];
        this.usage = undefined;
        this.promptCache = [];
        this.thinkingStartedAt = undefined;
        this.ids?.discardStep();
        this.emit({ type: 'step_discarded', step: this.step });
        return;
      case 'message_stop':
        this.stopped = true;
        this.stopReason = event.stopReason;
        return;
    }
  }

  finish(): StepResult {
    this.flushText();
    if (!this.stopped) throw new ModelError('protocol', 'assistant stream ended without a message stop event');
    if (this.blocks.length === 0) throw new ModelError('protocol', 'assistant stream produced no content');
    this.ids?.commitStep();
    return {
      message: { role: 'assistant', content: this.blocks },
      toolUses: this.stopReason === 'max_tokens' ? this.toolUses.map(cutInput) : this.toolUses,
      usage: this.billedUsage(),
      ...(this.discarded && this.usage ? { attemptUsage: this.usage } : {}),
      promptCache: this.promptCache,
      stopReason: this.stopReason,
    };
  }

  /** What the step has been billed for so far, also when it fails. */
  billedUsage(): Usage | undefined {
    if (!this.discarded) return this.usage;
    return this.usage ? addUsage(this.discarded, this.usage) : this.discarded;
  }

  private idOf(id: string): string {
    return this.ids ? this.ids.idFor(id) : id;
  }

  private flushText(): void {
    if (this.text) {
      this.blocks.push({ type: 'text', text: this.text });
      this.text = '';
    }
  }
}

/**
 * Reads one step's stream. The read loop itself is raced against the request's
 * cancellation, so an interrupt returns at once even from a provider that has
 * gone silent; the loop stops feeding the builder as soon as it is cancelled.
 */
export function consumeStep(stream: AsyncIterable<AssistantEvent>, builder: AssistantMessageBuilder, request: TurnCancellation): Promise<StepResult> {
  return request.race(readStep(stream, builder, request));
}

async function readStep(stream: AsyncIterable<AssistantEvent>, builder: AssistantMessageBuilder, request: TurnCancellation): Promise<StepResult> {
  for await (const event of stream) {
    if (request.cancelled) break;
    builder.push(event);
  }
  request.throwIfCancelled();
  return builder.finish();
}
