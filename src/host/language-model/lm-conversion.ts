// Turnstone's conversation in VS Code's Language Model API shapes and back.
// No value import of `vscode`: the part classes come in as parameters, so the
// unit tests run this against plain classes without an editor.
import type * as vscode from 'vscode';
import { type AssistantEvent, type Message, ModelError, type ToolDefinition } from '../../runtime/types';

/** The API's classes this file builds and recognises (vscode's own in the editor). */
export interface LmParts {
  LanguageModelChatMessage: Pick<typeof vscode.LanguageModelChatMessage, 'User' | 'Assistant'>;
  LanguageModelTextPart: new (value: string) => vscode.LanguageModelTextPart;
  LanguageModelToolCallPart: new (callId: string, name: string, input: object) => vscode.LanguageModelToolCallPart;
  LanguageModelToolResultPart: new (callId: string, content: unknown[]) => vscode.LanguageModelToolResultPart;
}

/** The 1.100 API carries no images; the model is told one was there rather than seeing nothing. */
export const IMAGE_OMITTED = '[image omitted: the VS Code language model API does not carry images]';

/**
 * The API has no system role: the system prompt goes first as a user message
 * (what the editor's own chat does with a model that lacks one).
 */
export function toLmMessages(system: string, messages: readonly Message[], parts: LmParts): vscode.LanguageModelChatMessage[] {
  const { LanguageModelChatMessage: Msg, LanguageModelTextPart: Text } = parts;
  const out: vscode.LanguageModelChatMessage[] = system ? [Msg.User([new Text(system)])] : [];
  for (const m of messages) {
    if (m.role === 'assistant') {
      const content: (vscode.LanguageModelTextPart | vscode.LanguageModelToolCallPart)[] = [];
      for (const b of m.content) {
        if (b.type === 'text' && b.text) content.push(new Text(b.text));
        else if (b.type === 'tool_use') content.push(new parts.LanguageModelToolCallPart(b.id, b.name, b.input));
        // Thinking is a provider's own signed block: another vendor's model cannot use it.
      }
      if (content.length > 0) out.push(Msg.Assistant(content));
      continue;
    }
    // Tool results first: they answer the calls of the message before, and some vendors insist on that order.
    const results: vscode.LanguageModelToolResultPart[] = [];
    const rest: vscode.LanguageModelTextPart[] = [];
    for (const b of m.content) {
      if (b.type === 'tool_result') {
        const text = b.is_error ? `Error: ${b.content}` : b.content;
        const extra = b.images?.length ? [new Text(IMAGE_OMITTED)] : [];
        results.push(new parts.LanguageModelToolResultPart(b.tool_use_id, [new Text(text || '(no output)'), ...extra]));
      } else if (b.type === 'text') {
        if (b.text) rest.push(new Text(b.text));
      } else {
        rest.push(new Text(IMAGE_OMITTED));
      }
    }
    if (results.length + rest.length > 0) out.push(Msg.User([...results, ...rest]));
  }
  return out;
}

export function toLmTools(tools: readonly ToolDefinition[]): vscode.LanguageModelChatTool[] {
  return tools.map((t) => ({ name: t.name, description: t.description, inputSchema: t.input_schema }));
}

/** One part of `response.stream` as the loop's events; parts this version does not know are skipped. */
export function eventsOfPart(part: unknown, parts: Pick<LmParts, 'LanguageModelTextPart' | 'LanguageModelToolCallPart'>): AssistantEvent[] {
  if (part instanceof parts.LanguageModelTextPart) return part.value ? [{ type: 'text_delta', text: part.value }] : [];
  if (part instanceof parts.LanguageModelToolCallPart) {
    return [
      { type: 'tool_use_start', id: part.callId, name: part.name },
      { type: 'tool_use', id: part.callId, name: part.name, inputJson: JSON.stringify(part.input ?? {}) },
    ];
  }
  return [];
}

/** The codes of vscode.LanguageModelError that mean "not allowed" or "not there". */
const REFUSALS: Record<string, string> = {
  NoPermissions:
    'Turnstone may not use this language model: the permission VS Code asked for was declined. Allow it under Accounts > Manage Language Model Access (or send again and choose Allow), or set turnstone.provider to anthropic or openai-compatible.',
  Blocked:
    'VS Code blocked Turnstone from using this language model (declined too often, or blocked by its vendor). Allow it under Accounts > Manage Language Model Access, or set turnstone.provider to another provider.',
  NotFound: 'The language model is no longer available in this editor. Pick another with "Turnstone: Select Model", or set turnstone.provider to another provider.',
};

/** A failure of the Language Model API as a ModelError with what the user can do about it. */
export function lmFailure(err: unknown): ModelError {
  const code = typeof err === 'object' && err !== null ? (err as { code?: unknown }).code : undefined;
  const message = err instanceof Error ? err.message : String(err);
  const refusal = typeof code === 'string' ? REFUSALS[code] : undefined;
  if (refusal) return new ModelError('invalid_request', `vscode-lm: ${refusal}${message ? ` (${message})` : ''}`, { cause: err });
  if (/token limit|too long|context length|context window/i.test(message)) return new ModelError('context_overflow', `vscode-lm: ${message}`, { cause: err });
  return new ModelError('invalid_request', `vscode-lm: ${message || 'the language model failed'}`, { cause: err });
}
