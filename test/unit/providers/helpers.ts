// Shared bits of the provider tests: requests, collecting a stream, and rebuilding
// the assistant message the way a consumer must (T3, S6 step_reset).
import assert from 'node:assert/strict';
import { type AssistantContentBlock, type AssistantEvent, type Message, ModelError, type ModelRequest, type ToolDefinition } from '../../../src/runtime/types';

export const MODEL = 'claude-sonnet-5-5';

export const TOOLS: ToolDefinition[] = [
  { name: 'read_file', description: 'Read a file', input_schema: { type: 'object', properties: { path: { type: 'string' } }, required: ['path'] } },
  { name: 'bash', description: 'Run a command', input_schema: { type: 'object', properties: { command: { type: 'string' } }, required: ['command'] } },
];

export function request(overrides: Partial<ModelRequest> = {}): ModelRequest {
  return {
    model: MODEL,
    system: 'You are a test.',
    messages: [{ role: 'user', content: [{ type: 'text', text: 'hello' }] }],
    tools: TOOLS,
    maxTokens: 1024,
    afterToolResults: false,
    ...overrides,
  };
}

export const userText = (text: string): Message => ({ role: 'user', content: [{ type: 'text', text }] });

export async function collect(stream: AsyncIterable<AssistantEvent>): Promise<AssistantEvent[]> {
  const events: AssistantEvent[] = [];
  for await (const e of stream) events.push(e);
  return events;
}

/** Collects until the stream throws; returns the events seen and the error. */
export async function collectError(stream: AsyncIterable<AssistantEvent>): Promise<{ events: AssistantEvent[]; error: ModelError }> {
  const events: AssistantEvent[] = [];
  try {
    for await (const e of stream) events.push(e);
  } catch (err) {
    assert.ok(err instanceof ModelError, `expected a ModelError, got ${String(err)}`);
    return { events, error: err };
  }
  assert.fail(`expected the stream to fail; it gave ${JSON.stringify(events)}`);
}

export interface Assembled {
  content: AssistantContentBlock[];
  stopReason: string | null | undefined;
  stops: number;
}

/**
 * The assistant message a consumer builds: text deltas merge into one text block
 * until another block arrives; step_reset throws away everything of the step so far.
 */
export function assemble(events: AssistantEvent[]): Assembled {
  let content: AssistantContentBlock[] = [];
  let text = '';
  let stopReason: string | null | undefined;
  let stops = 0;
  const flush = () => {
    if (text !== '') content.push({ type: 'text', text });
    text = '';
  };
  for (const e of events) {
    switch (e.type) {
      case 'step_reset':
        content = [];
        text = '';
        stops = 0;
        break;
      case 'text_delta':
        text += e.text;
        break;
      case 'thinking':
        flush();
        content.push({ type: 'thinking', thinking: e.thinking, signature: e.signature, ...(e.reasoning ? { reasoning: e.reasoning } : {}) });
        break;
      case 'redacted_thinking':
        flush();
        content.push({ type: 'redacted_thinking', data: e.data });
        break;
      case 'tool_use':
        flush();
        content.push({ type: 'tool_use', id: e.id, name: e.name, input: e.inputJson === '' ? {} : (JSON.parse(e.inputJson) as Record<string, unknown>) });
        break;
      case 'message_stop':
        flush();
        stopReason = e.stopReason;
        stops++;
        break;
      default:
        break;
    }
  }
  flush();
  return { content, stopReason, stops };
}

export const types = (events: AssistantEvent[]) => events.map((e) => e.type);

export const signal = () => new AbortController().signal;

/** Client options that keep fault tests fast: no backoff waits. */
export const FAST = { apiKey: 'test-key', retry: { baseDelayMs: 0 } } as const;
