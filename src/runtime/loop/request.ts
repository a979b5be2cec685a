// T1: every step's request is rebuilt from the current system prompt, the
// whole history and the tool definitions (tools may change between steps).
import { type Message, type ModelRequest, type ToolDefinition } from '../types';

// The token limits as sent live with the request's type (request-limits.ts): providers and the spend gate read
// them without reaching into the loop.
export { MIN_THINKING_BUDGET, maxTokensOf, thinkingBudgetOf } from '../request-limits';

export interface RequestSettings {
  model: string;
  systemPrompt: string;
  /** Default 8192. */
  maxTokens?: number;
  thinkingBudgetTokens?: number;
}

export function buildRequest(settings: RequestSettings, messages: readonly Message[], tools: ToolDefinition[]): ModelRequest {
  const last = messages[messages.length - 1];
  const request: ModelRequest = {
    model: settings.model,
    system: settings.systemPrompt,
    // The live history, not a copy (copying every step is quadratic over a turn):
    // providers read it during stream() and must not keep or modify it.
    messages: messages as Message[],
    tools,
    maxTokens: settings.maxTokens ?? 8192,
    afterToolResults: last !== undefined && last.role === 'user' && last.content.some((b) => b.type === 'tool_result'),
  };
  if (settings.thinkingBudgetTokens) request.thinkingBudgetTokens = settings.thinkingBudgetTokens;
  return request;
}
