// Issue 30, provider vscode-lm: the conversation in the Language Model API's
// shapes (system first, tool calls and results paired by id, images named not
// lost), stream parts back as the loop's events, refusals as actionable errors,
// and the `vendor/id` the setting holds. Plain classes stand in for VS Code's
// part classes: the conversion takes them as parameters.
import assert from 'node:assert/strict';
import { eventsOfPart, IMAGE_OMITTED, lmFailure, toLmMessages, toLmTools, type LmParts } from '../../../src/host/language-model/lm-conversion';
import { lmModelId, selectorsFor } from '../../../src/host/language-model/lm-ids';
import { includedPrices } from '../../../src/host/language-model/lm-cost';
import { ModelError, type Message } from '../../../src/runtime/types';
import { UsageTracker } from '../../../src/runtime/spend/usage';

class TextPart {
  constructor(public value: string) {}
}
class ToolCallPart {
  constructor(
    public callId: string,
    public name: string,
    public input: object,
  ) {}
}
class ToolResultPart {
  constructor(
    public callId: string,
    public content: unknown[],
  ) {}
}
class ChatMessage {
  constructor(
    public role: 'user' | 'assistant',
    public content: unknown[],
  ) {}
  static User(content: unknown[]) {
    return new ChatMessage('user', content);
  }
  static Assistant(content: unknown[]) {
    return new ChatMessage('assistant', content);
  }
}
const parts = { LanguageModelChatMessage: ChatMessage, LanguageModelTextPart: TextPart, LanguageModelToolCallPart: ToolCallPart, LanguageModelToolResultPart: ToolResultPart } as unknown as LmParts;

describe('vscode-lm conversion (issue 30)', () => {
  it('puts the system prompt first, pairs tool calls with their results and drops thinking', () => {
    const messages: Message[] = [
      { role: 'user', content: [{ type: 'text', text: 'read a.txt' }] },
      {
        role: 'assistant',
        content: [
          { type: 'thinking', thinking: 'hmm', signature: 'sig' },
          { type: 'text', text: 'Reading it.' },
          { type: 'tool_use', id: 'call_1', name: 'read_file', input: { path: 'a.txt' } },
        ],
      },
      {
        role: 'user',
        content: [
          { type: 'text', text: 'and be quick' },
          { type: 'tool_result', tool_use_id: 'call_1', content: 'hello' },
        ],
      },
    ];
    const out = toLmMessages('You are Turnstone.', messages, parts) as unknown as ChatMessage[];
    assert.deepEqual(
      out.map((m) => m.role),
      ['user', 'user', 'assistant', 'user'],
    );
    assert.deepEqual(out[0]?.content, [new TextPart('You are Turnstone.')]);
    assert.deepEqual(out[2]?.content, [new TextPart('Reading it.'), new ToolCallPart('call_1', 'read_file', { path: 'a.txt' })]);
    // The result comes before the user's words: it answers the call of the message before.
    assert.deepEqual(out[3]?.content, [new ToolResultPart('call_1', [new TextPart('hello')]), new TextPart('and be quick')]);
  });

  it('marks errors, fills an empty result and says where an image was', () => {
    const out = toLmMessages(
      '',
      [
        {
          role: 'user',
          content: [
            { type: 'tool_result', tool_use_id: 'a', content: 'no such file', is_error: true },
            { type: 'tool_result', tool_use_id: 'b', content: '', images: [{ type: 'image', mediaType: 'image/png', data: 'AA==', width: 1, height: 1 }] },
            { type: 'image', mediaType: 'image/png', data: 'AA==', width: 1, height: 1 },
          ],
        },
      ],
      parts,
    ) as unknown as ChatMessage[];
    assert.equal(out.length, 1, 'no system message when the prompt is empty');
    assert.deepEqual(out[0]?.content, [
      new ToolResultPart('a', [new TextPart('Error: no such file')]),
      new ToolResultPart('b', [new TextPart('(no output)'), new TextPart(IMAGE_OMITTED)]),
      new TextPart(IMAGE_OMITTED),
    ]);
  });

  it('skips an assistant message left with nothing the API can carry', () => {
    const out = toLmMessages('', [{ role: 'assistant', content: [{ type: 'redacted_thinking', data: 'x' }] }], parts);
    assert.equal(out.length, 0);
  });

  it('gives the tools their JSON schema', () => {
    const schema = { type: 'object', properties: { path: { type: 'string' } }, required: ['path'] };
    assert.deepEqual(toLmTools([{ name: 'read_file', description: 'Reads a file', input_schema: schema }]), [{ name: 'read_file', description: 'Reads a file', inputSchema: schema }]);
  });

  it('turns stream parts into text deltas and complete tool uses, and ignores unknown parts', () => {
    assert.deepEqual(eventsOfPart(new TextPart('Hi'), parts), [{ type: 'text_delta', text: 'Hi' }]);
    assert.deepEqual(eventsOfPart(new TextPart(''), parts), []);
    assert.deepEqual(eventsOfPart(new ToolCallPart('c1', 'read_file', { path: 'a.txt' }), parts), [
      { type: 'tool_use_start', id: 'c1', name: 'read_file' },
      { type: 'tool_use', id: 'c1', name: 'read_file', inputJson: '{"path":"a.txt"}' },
    ]);
    assert.deepEqual(eventsOfPart({ kind: 'thinking' }, parts), []);
  });

  it('explains a declined consent, a block and a vanished model, naming what to do', () => {
    const err = (code: string) => Object.assign(new Error(`Language model 'x' cannot be used`), { code });
    const declined = lmFailure(err('NoPermissions'));
    assert.ok(declined instanceof ModelError);
    assert.equal(declined.kind, 'invalid_request', 'not auth: there is no key to ask for');
    assert.match(declined.message, /Manage Language Model Access/);
    assert.match(declined.message, /turnstone\.provider/);
    assert.match(lmFailure(err('Blocked')).message, /blocked/i);
    assert.match(lmFailure(err('NotFound')).message, /Turnstone: Select Model/);
    assert.equal(lmFailure(new Error('Message exceeds token limit.')).kind, 'context_overflow');
    assert.equal(lmFailure(new Error('boom')).message, 'vscode-lm: boom');
  });

  it('names a model vendor/id and finds it by id, then by family', () => {
    assert.equal(lmModelId({ vendor: 'copilot', id: 'gpt-4o' }), 'copilot/gpt-4o');
    assert.deepEqual(selectorsFor('copilot/gpt-4o'), [
      { vendor: 'copilot', id: 'gpt-4o' },
      { vendor: 'copilot', family: 'gpt-4o' },
    ]);
    assert.deepEqual(selectorsFor('gpt-4o'), [{ id: 'gpt-4o' }, { family: 'gpt-4o' }]);
  });

  it('prices the editor models at zero, so their cost is known (included) and not unknown', () => {
    // A Copilot model named like an Anthropic family must not be charged at Anthropic's price.
    const tracker = new UsageTracker('copilot/claude-sonnet-4', includedPrices('copilot/claude-sonnet-4'));
    const r = tracker.record({ input_tokens: 1000, output_tokens: 100, cache_creation_input_tokens: 0, cache_read_input_tokens: 0 });
    assert.equal(r.stepCostUsd, 0);
    assert.equal(r.unpricedRequests, 0);
  });
});
