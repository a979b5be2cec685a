// Our request → Messages API params, including the S7 prompt-cache breakpoints.
// Type-only SDK imports: this module must not load the SDK (index.ts loads it lazily).
import type { ContentBlockParam, ImageBlockParam, MessageCreateParamsBase, MessageParam, Tool, ToolResultBlockParam } from '@anthropic-ai/sdk/resources/messages/messages';
import { maxTokensOf, thinkingBudgetOf } from '../request-limits';
import { type ContentBlock, type ImageBlock, type Message, type ModelRequest } from '../types';

export { MIN_THINKING_BUDGET } from '../request-limits';

export type AnthropicParams = Omit<MessageCreateParamsBase, 'stream'>;
type Params = AnthropicParams;
type BlockParam = ContentBlockParam;

const EPHEMERAL = { type: 'ephemeral' } as const;

/** The API allows at most 4 cache_control breakpoints per request. */
export const MAX_CACHE_BREAKPOINTS = 4;

// Explicit field lists: history blocks may carry runtime-only fields, and thinking
// must go back exactly as received (the API checks its signature).
function toBlockParam(block: ContentBlock): BlockParam | undefined {
  switch (block.type) {
    case 'text':
      // The API rejects empty text blocks.
      return block.text === '' ? undefined : { type: 'text', text: block.text };
    case 'thinking':
      // Reasoning from an OpenAI-compatible server has no signature; the API refuses an unsigned thinking
      // block, so a session resumed here from such a server leaves it out.
      return block.signature === '' ? undefined : { type: 'thinking', thinking: block.thinking, signature: block.signature };
    case 'redacted_thinking':
      return { type: 'redacted_thinking', data: block.data };
    case 'tool_use':
      return { type: 'tool_use', id: block.id, name: block.name, input: block.input };
    case 'image':
      return imageParam(block);
    case 'tool_result': {
      // Images go inside the result, after its text (the API takes text and image blocks there).
      const content: ToolResultBlockParam['content'] = block.images?.length
        ? [...(block.content === '' ? [] : [{ type: 'text' as const, text: block.content }]), ...block.images.map(imageParam)]
        : block.content;
      return block.is_error === undefined
        ? { type: 'tool_result', tool_use_id: block.tool_use_id, content }
        : { type: 'tool_result', tool_use_id: block.tool_use_id, content, is_error: block.is_error };
    }
  }
}

function imageParam(block: ImageBlock): ImageBlockParam {
  return { type: 'image', source: { type: 'base64', media_type: block.mediaType, data: block.data } };
}

const cacheable = (b: BlockParam) => b.type === 'text' || b.type === 'tool_use' || b.type === 'tool_result';

/** Marks the last block that can carry a breakpoint; false when the message has none. */
function markLastCacheable(content: BlockParam[]): boolean {
  for (let i = content.length - 1; i >= 0; i--) {
    const block = content[i]!;
    if (cacheable(block)) {
      content[i] = { ...block, cache_control: EPHEMERAL } as BlockParam;
      return true;
    }
  }
  return false;
}

/**
 * S7 breakpoints (≤ 3 of the 4 allowed):
 * 1. the end of the stable prefix: the system prompt (tools come before it, so both
 *    are covered), or the last tool when there is no system prompt;
 * 2. the newest message: writes the whole conversation so far for the next step;
 * 3. the previous user message: the exact position where the previous step wrote
 *    its breakpoint 2, so this step reads it even when more than the API's lookback
 *    window of blocks (20) was appended since.
 */
export function toAnthropicParams(request: ModelRequest): Params {
  const messages = request.messages.map((m: Message): MessageParam => {
    const content: BlockParam[] = [];
    for (const block of m.content) {
      const param = toBlockParam(block);
      if (param) content.push(param);
    }
    // A reply that held only unsigned reasoning would be empty, which the API refuses.
    if (content.length === 0 && m.role === 'assistant') content.push({ type: 'text', text: '(no reply text)' });
    return { role: m.role, content };
  });

  const last = messages.length - 1;
  if (last >= 0) markLastCacheable(messages[last]!.content as BlockParam[]);
  for (let i = last - 1; i >= 0; i--) {
    if (messages[i]!.role === 'user' && markLastCacheable(messages[i]!.content as BlockParam[])) break;
  }

  const tools: Tool[] = request.tools.map((t) => ({
    name: t.name,
    description: t.description,
    input_schema: t.input_schema as Tool.InputSchema,
  }));
  const params: Params = { model: request.model, max_tokens: maxTokensOf(request), messages };
  if (request.system) params.system = [{ type: 'text', text: request.system, cache_control: EPHEMERAL }];
  else if (tools.length > 0) tools[tools.length - 1] = { ...tools[tools.length - 1]!, cache_control: EPHEMERAL };
  if (tools.length > 0) params.tools = tools;

  const budgetTokens = thinkingBudgetOf(request);
  if (budgetTokens > 0) params.thinking = { type: 'enabled', budget_tokens: budgetTokens };
  return params;
}
