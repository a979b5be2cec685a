// A non-streaming reply (the S5 fallback, compaction summaries) of a provider
// whose replies are first turned into the stream's AssistantEvents: those
// events folded into the ModelResponse the loop expects.
import { type AssistantContentBlock, type AssistantEvent, emptyUsage, type ModelResponse, type StopReason } from '../types';

export function eventsToResponse(events: Iterable<AssistantEvent>): ModelResponse {
  const content: AssistantContentBlock[] = [];
  let usage = emptyUsage();
  let stopReason: StopReason | null = null;
  for (const e of events) {
    if (e.type === 'thinking') content.push({ type: 'thinking', thinking: e.thinking, signature: '', ...(e.reasoning ? { reasoning: e.reasoning } : {}) });
    else if (e.type === 'text_delta') {
      const last = content[content.length - 1];
      if (last?.type === 'text') last.text += e.text;
      else content.push({ type: 'text', text: e.text });
    } else if (e.type === 'tool_use') {
      let input: Record<string, unknown> = {};
      try {
        input = e.inputJson ? (JSON.parse(e.inputJson) as Record<string, unknown>) : {};
      } catch {
        // Malformed arguments: the loop answers such a tool use with an error result (T5).
      }
      content.push({ type: 'tool_use', id: e.id, name: e.name, input });
    } else if (e.type === 'usage') usage = e.usage;
    else if (e.type === 'message_stop') stopReason = e.stopReason;
  }
  return { content, usage, stopReason };
}
