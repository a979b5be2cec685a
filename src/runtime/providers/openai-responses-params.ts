// Our request → Responses API params. Nothing is stored server-side (`store:
// false`): every step sends the whole history, with the encrypted reasoning items
// this provider issued put back where they were, so a reasoning model keeps its
// chain of thought across tool calls. Type-only SDK imports (index.ts loads the SDK lazily).
import type {
  EasyInputMessage,
  ResponseCreateParamsBase,
  ResponseInputContent,
  ResponseInputItem,
  ResponseReasoningItem,
  FunctionTool,
} from 'openai/resources/responses/responses';
import { maxTokensOf, thinkingBudgetOf } from '../request-limits';
import { type ImageBlock, type Message, type ModelRequest, type ThinkingBlock } from '../types';

export type ResponsesParams = Omit<ResponseCreateParamsBase, 'stream'>;

/**
 * Models that reason (o-series, gpt-5 and its codex variants). Only these accept
 * `reasoning`; others refuse the parameter, so it is sent to these alone.
 */
export function isReasoningModel(model: string): boolean {
  return /^(?:openai\/)?(?:o\d|gpt-5|codex)/i.test(model);
}

/** turnstone.thinkingBudgetTokens as an effort: none set leaves the model's default. */
export function effortOf(request: Pick<ModelRequest, 'thinkingBudgetTokens'>): 'low' | 'medium' | 'high' | undefined {
  const budget = thinkingBudgetOf(request);
  if (budget === 0) return undefined;
  if (budget <= 4096) return 'low';
  if (budget <= 16_384) return 'medium';
  return 'high';
}

function imagePart(image: ImageBlock): ResponseInputContent {
  return { type: 'input_image', image_url: `data:${image.mediaType};base64,${image.data}`, detail: 'auto' };
}

/**
 * Sent back without its id: the item was never stored, and an id tells the
 * server to look it up. Only this provider's items go back, and only to the
 * model that wrote them; thinking from Anthropic or an OpenAI-compatible server
 * cannot be read here and is left out.
 */
function reasoningItem(block: ThinkingBlock, model: string): ResponseInputItem | undefined {
  const r = block.reasoning;
  if (r?.provider !== 'openai' || (r.model !== undefined && r.model !== model)) return undefined;
  const item: Omit<ResponseReasoningItem, 'id'> = {
    type: 'reasoning',
    summary: r.summary.map((text) => ({ type: 'summary_text', text })),
    encrypted_content: r.encryptedContent,
  };
  return item as ResponseReasoningItem;
}

/** Our Anthropic-shaped history → Responses input items, in block order. */
export function toResponsesInput(messages: readonly Message[], model: string): ResponseInputItem[] {
  const out: ResponseInputItem[] = [];
  for (const m of messages) {
    if (m.role === 'assistant') {
      let text = '';
      const flush = () => {
        if (text !== '') out.push({ role: 'assistant', content: text } satisfies EasyInputMessage);
        text = '';
      };
      for (const b of m.content) {
        if (b.type === 'text') text += b.text;
        else if (b.type === 'thinking') {
          const item = reasoningItem(b, model);
          if (item) {
            flush();
            out.push(item);
          }
        } else if (b.type === 'tool_use') {
          flush();
          // The model's own text when it did not parse: `{}` would tell it that it called with no arguments.
          out.push({ type: 'function_call', call_id: b.id, name: b.name, arguments: b.unparsedInput ?? JSON.stringify(b.input) });
        }
        // redacted_thinking is Anthropic's alone.
      }
      flush();
      continue;
    }
    const parts: ResponseInputContent[] = [];
    // A function_call_output carries text; a result's images follow the results in one user message naming the call.
    const resultImages: ResponseInputContent[] = [];
    for (const b of m.content) {
      if (b.type === 'tool_result') {
        out.push({ type: 'function_call_output', call_id: b.tool_use_id, output: b.is_error ? `Error: ${b.content}` : b.content });
        if (b.images?.length) {
          resultImages.push({ type: 'input_text', text: `Image${b.images.length > 1 ? 's' : ''} returned by tool call ${b.tool_use_id}:` });
          resultImages.push(...b.images.map(imagePart));
        }
      } else if (b.type === 'text') {
        if (b.text !== '') parts.push({ type: 'input_text', text: b.text });
      } else parts.push(imagePart(b));
    }
    const content = [...resultImages, ...parts];
    if (content.length > 0) out.push({ role: 'user', content });
  }
  return out;
}

/** `summaries: false` when the organisation may not have reasoning summaries (see OpenAIResponsesModelClient). */
export function toResponsesParams(request: ModelRequest, options: { summaries?: boolean } = {}): ResponsesParams {
  const tools: FunctionTool[] = request.tools.map((t) => ({
    type: 'function',
    name: t.name,
    description: t.description,
    parameters: t.input_schema,
    // Our schemas are not written for strict mode (optional properties, open objects).
    strict: false,
  }));
  const params: ResponsesParams = {
    model: request.model,
    input: toResponsesInput(request.messages, request.model),
    max_output_tokens: maxTokensOf(request),
    store: false,
  };
  if (request.system) params.instructions = request.system;
  if (tools.length > 0) {
    params.tools = tools;
    params.parallel_tool_calls = true;
  }
  if (isReasoningModel(request.model)) {
    const effort = effortOf(request);
    params.reasoning = { ...(options.summaries === false ? {} : { summary: 'auto' as const }), ...(effort ? { effort } : {}) };
    params.include = ['reasoning.encrypted_content'];
  }
  return params;
}
