// T1: every step's request is rebuilt from the current system prompt, the
// whole history and the tool definitions (tools may change between steps).
import { type Message, type ModelRequest, type ToolDefinition } from './types';

export interface RequestSettings {
  model: string;
  systemPrompt: string;
  maxTokens: number;
  thinkingBudgetTokens?: number;
}

export function buildRequest(settings: RequestSettings, messages: readonly Message[], tools: ToolDefinition[]): ModelRequest {
  const last = messages[messages.length - 1];
  return {
    model: settings.model,
    system: settings.systemPrompt,
    // A copy: the loop keeps appending to its history while a provider may still hold the request.
    messages: messages.slice(),
    tools,
    maxTokens: settings.maxTokens,
    ...(settings.thinkingBudgetTokens ? { thinkingBudgetTokens: settings.thinkingBudgetTokens } : {}),
    afterToolResults: last?.role === 'user' && last.content.some((b) => b.type === 'tool_result'),
  };
}
