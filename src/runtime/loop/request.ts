// T1: every step's request is rebuilt from the current system prompt, the
// whole history and the tool definitions (tools may change between steps).
import { type Message, type ModelRequest, type ToolDefinition } from '../types';

/** Smallest thinking budget the API accepts. */
export const MIN_THINKING_BUDGET = 1024;

/** The thinking budget as sent: at least the API's minimum. 0 when thinking is off. */
export function thinkingBudgetOf(request: Pick<ModelRequest, 'thinkingBudgetTokens'>): number {
  const budget = request.thinkingBudgetTokens ?? 0;
  return budget > 0 ? Math.max(MIN_THINKING_BUDGET, Math.floor(budget)) : 0;
}

/**
 * max_tokens as sent: with thinking the API requires it above the thinking
 * budget, so the budget is added on top of the caller's room for the answer.
 * What a spend cap reserves for the reply.
 */
export function maxTokensOf(request: Pick<ModelRequest, 'maxTokens' | 'thinkingBudgetTokens'>): number {
  const budget = thinkingBudgetOf(request);
  return budget > 0 && request.maxTokens <= budget ? budget + request.maxTokens : request.maxTokens;
}

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
