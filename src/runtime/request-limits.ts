// The token limits of a model request as the API gets them: what the loop sends, what each provider puts in
// its parameters and what a spend cap reserves for the reply. Beside the request's type, below the loop.
import { type ModelRequest } from './types';

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
