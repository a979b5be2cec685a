// Provider `vscode-lm`: the models the editor itself offers (Copilot's, or any
// extension's that registers one) through VS Code's Language Model API. Loaded
// with the core on the first turn, never at activation; `vscode.lm` is touched
// only when a request is made.
import * as vscode from 'vscode';
import { AbortedError } from '../../runtime/cancellation';
import { REQUEST_ABORTED } from '../../runtime/providers/retry';
import {
  type AssistantContentBlock,
  type AssistantEvent,
  type ModelClient,
  ModelError,
  type ModelRequest,
  type ModelResponse,
  emptyUsage,
  type Usage,
} from '../../runtime/types';
import { eventsOfPart, lmFailure, toLmMessages, toLmTools, type LmParts } from './lm-conversion';
import { lmModelId, selectorsFor } from './lm-ids';

const JUSTIFICATION = 'Turnstone sends your conversation with its agent to this model, with the tools it may call.';

const parts = (): LmParts => vscode;

/** Finds the model `turnstone.model` names; a clear error when the editor has none. */
export async function resolveLanguageModel(model: string): Promise<vscode.LanguageModelChat> {
  if (!vscode.lm) throw new ModelError('invalid_request', 'vscode-lm: this editor has no Language Model API. Set turnstone.provider to anthropic or openai-compatible.');
  for (const selector of selectorsFor(model)) {
    const [found] = await vscode.lm.selectChatModels(selector);
    if (found) return found;
  }
  const any = await vscode.lm.selectChatModels();
  throw new ModelError(
    'invalid_request',
    any.length === 0
      ? 'vscode-lm: this editor has no language model provider (such as GitHub Copilot Chat). Install and sign in to one, or set turnstone.provider to anthropic or openai-compatible.'
      : `vscode-lm: no language model in this editor matches turnstone.model "${model}". Pick one with "Turnstone: Select Model" (ids are vendor/id, e.g. ${any[0] ? lmModelId(any[0]) : 'copilot/gpt-4o'}).`,
  );
}

/** Rejects when the signal fires: a vendor may be slow to end its stream after a cancel, the turn must not wait for it. */
function abortRace(signal: AbortSignal): { race<T>(work: Thenable<T>): Promise<T>; dispose(): void } {
  let onAbort: (() => void) | undefined;
  const promise = new Promise<never>((_, reject) => {
    onAbort = () => reject(new AbortedError(REQUEST_ABORTED));
    if (signal.aborted) onAbort();
    else signal.addEventListener('abort', onAbort, { once: true });
  });
  promise.catch(() => undefined);
  return {
    /** `work`, unless the signal fires first; what `work` does after that (a late CancellationError) is left unheard. */
    race: <T>(work: Thenable<T>): Promise<T> => {
      const settled = Promise.resolve(work);
      settled.catch(() => undefined);
      return Promise.race([settled, promise]);
    },
    dispose: () => onAbort && signal.removeEventListener('abort', onAbort),
  };
}

async function countOrEstimate(model: vscode.LanguageModelChat, what: string | vscode.LanguageModelChatMessage, token: vscode.CancellationToken): Promise<number> {
  try {
    return await model.countTokens(what, token);
  } catch {
    // A vendor without a tokenizer: about four characters a token, so the footer still moves.
    const text = typeof what === 'string' ? what : JSON.stringify(what.content);
    return Math.ceil(text.length / 4);
  }
}

/** Tokens in and out as the model counts them; the API reports no usage of its own. */
async function countUsage(model: vscode.LanguageModelChat, input: { messages: vscode.LanguageModelChatMessage[]; tools: string }, output: string, token: vscode.CancellationToken): Promise<Usage> {
  const counts = await Promise.all([...input.messages.map((m) => countOrEstimate(model, m, token)), input.tools ? countOrEstimate(model, input.tools, token) : 0]);
  const outputTokens = output ? await countOrEstimate(model, output, token) : 0;
  return { ...emptyUsage(), input_tokens: counts.reduce((a, b) => a + b, 0), output_tokens: outputTokens };
}

export class VsCodeLmModelClient implements ModelClient {
  async *stream(request: ModelRequest, signal: AbortSignal): AsyncGenerator<AssistantEvent> {
    if (signal.aborted) throw new AbortedError(REQUEST_ABORTED);
    const cts = new vscode.CancellationTokenSource();
    const cancel = () => cts.cancel();
    signal.addEventListener('abort', cancel, { once: true });
    const aborted = abortRace(signal);
    try {
      const model = await aborted.race(
        resolveLanguageModel(request.model).catch((err: unknown) => {
          throw err instanceof ModelError ? err : lmFailure(err);
        }),
      );
      const messages = toLmMessages(request.system, request.messages, parts());
      const tools = toLmTools(request.tools);
      const response = await aborted.race(
        model.sendRequest(messages, { justification: JUSTIFICATION, ...(tools.length > 0 ? { tools } : {}) }, cts.token).then(
          (r) => r,
          (err: unknown) => {
            throw signal.aborted ? new AbortedError(REQUEST_ABORTED) : lmFailure(err);
          },
        ),
      );
      let output = '';
      let toolCalls = 0;
      const it = response.stream[Symbol.asyncIterator]();
      try {
        for (;;) {
          const next = await aborted.race(it.next());
          if (next.done) break;
          for (const event of eventsOfPart(next.value, parts())) {
            if (event.type === 'text_delta') output += event.text;
            if (event.type === 'tool_use') {
              toolCalls++;
              output += event.inputJson;
            }
            yield event;
          }
        }
      } catch (err) {
        if (signal.aborted || err instanceof AbortedError) throw new AbortedError(REQUEST_ABORTED);
        throw lmFailure(err);
      } finally {
        // Ends the vendor's stream early (a stop); its own error then, if any, is no news.
        Promise.resolve(it.return?.()).catch(() => undefined);
      }
      const usage = await aborted.race(countUsage(model, { messages, tools: tools.length > 0 ? JSON.stringify(tools) : '' }, output, cts.token));
      yield { type: 'usage', usage };
      yield { type: 'message_stop', stopReason: toolCalls > 0 ? 'tool_use' : 'end_turn' };
    } finally {
      signal.removeEventListener('abort', cancel);
      aborted.dispose();
      cts.dispose();
    }
  }

  /** The API only streams: a "whole" reply is the stream gathered. */
  async complete(request: ModelRequest, signal: AbortSignal): Promise<ModelResponse> {
    const content: AssistantContentBlock[] = [];
    let usage = emptyUsage();
    let stopReason: ModelResponse['stopReason'] = null;
    for await (const e of this.stream(request, signal)) {
      if (e.type === 'text_delta') {
        const last = content[content.length - 1];
        if (last?.type === 'text') last.text += e.text;
        else content.push({ type: 'text', text: e.text });
      } else if (e.type === 'tool_use') content.push({ type: 'tool_use', id: e.id, name: e.name, input: JSON.parse(e.inputJson || '{}') as Record<string, unknown> });
      else if (e.type === 'usage') usage = e.usage;
      else if (e.type === 'message_stop') stopReason = e.stopReason;
    }
    return { content, usage, stopReason };
  }
}
