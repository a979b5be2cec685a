import assert from 'node:assert/strict';
import { AnthropicModelClient } from '../../../src/runtime/providers/anthropic';
import { toAnthropicParams } from '../../../src/runtime/providers/anthropic-params';
import { type AssistantMessage, type Message, type UserContentBlock } from '../../../src/runtime/types';
import { MockAnthropicServer, streamReply, textReply } from '../../fixtures/mock-anthropic';
import { assemble, collect, FAST, request, signal, TOOLS, userText } from './helpers';
import { cacheCoverage, prefixOf, strip } from '../../support/cache-coverage';

describe('providers/anthropic: prompt caching (S7)', () => {
  let mock: MockAnthropicServer;

  before(async () => {
    mock = await MockAnthropicServer.start();
  });
  after(() => mock.close());
  beforeEach(() => mock.reset());

  it('S7: a 10-step turn: ≤ 4 breakpoints per request and ≥ 90% of each later request’s shared prefix read from cache', async () => {
    const client = new AnthropicModelClient({ ...FAST, baseURL: mock.url });
    const system = 'You are Turnstone, a coding agent. '.repeat(40);
    const history: Message[] = [userText('Refactor the parser and run the tests.')];
    for (let step = 1; step <= 10; step++) {
      if (step < 10) {
        // Some steps call tools in parallel and think first, like real turns do.
        const calls = step % 3 === 0 ? 3 : 1;
        mock.enqueue(
          streamReply([
            ...(step % 2 === 0 ? [{ type: 'thinking' as const, thinking: `Step ${step}: what next?`, signature: `sig${step}` }] : []),
            { type: 'text', text: `Step ${step}: looking at things.` },
            ...Array.from({ length: calls }, (_, k) => ({ type: 'tool_use' as const, id: `toolu_${step}_${k}`, name: 'read_file', input: { path: `src/file${step}_${k}.ts` } })),
          ]),
        );
      } else {
        mock.enqueue(textReply('All done.'));
      }
      const events = await collect(client.stream(request({ system, messages: history, afterToolResults: step > 1, thinkingBudgetTokens: 0 }), signal()));
      const assistant: AssistantMessage = { role: 'assistant', content: assemble(events).content };
      history.push(assistant);
      const results: UserContentBlock[] = assistant.content.flatMap((b) =>
        b.type === 'tool_use' ? [{ type: 'tool_result' as const, tool_use_id: b.id, content: `// ${b.id}\n` + 'const x = 1;\n'.repeat(20 + step * 15) }] : [],
      );
      if (results.length > 0) history.push({ role: 'user', content: results });
    }

    const bodies = mock.bodies;
    assert.equal(bodies.length, 10);
    for (const [i, body] of bodies.entries()) {
      const bps = prefixOf(body).breakpoints.length;
      assert.ok(bps >= 2 && bps <= 4, `request ${i + 1} has ${bps} breakpoints`);
    }
    const coverage = cacheCoverage(bodies);
    assert.equal(coverage.length, 9);
    for (const [i, c] of coverage.entries()) {
      assert.ok(c.shared > 0);
      assert.ok(c.hit >= 0.9 * c.shared, `request ${i + 2}: ${c.hit} of ${c.shared} shared prefix tokens from cache`);
      assert.ok(c.hit <= c.total);
    }
  });

  it('S7: the checker itself sees a miss when breakpoints are missing (no false passes)', () => {
    const history: Message[] = [userText('a'.repeat(400))];
    const first = toAnthropicParams(request({ messages: history })) as unknown as Record<string, unknown>;
    const next = toAnthropicParams(
      request({
        messages: [...history, { role: 'assistant', content: [{ type: 'text', text: 'b'.repeat(400) }] }, userText('c')],
      }),
    ) as unknown as Record<string, unknown>;
    // Drop the breakpoints on messages: only tools + system would be read from cache.
    const bare = (b: Record<string, unknown>) => ({
      ...b,
      messages: (b['messages'] as Array<{ role: string; content: Array<Record<string, unknown>> }>).map((m) => ({ ...m, content: m.content.map((x) => JSON.parse(strip(x)) as unknown) })),
    });
    const [c] = cacheCoverage([bare(first), bare(next)]);
    assert.ok(c!.hit < 0.9 * c!.shared, `without message breakpoints coverage is low (${c!.hit}/${c!.shared})`);
    const [good] = cacheCoverage([first, next]);
    assert.ok(good!.hit >= 0.9 * good!.shared);
  });

  it('S7: breakpoints sit on the system prompt, the newest message and the previous user message', () => {
    const params = toAnthropicParams(
      request({
        messages: [
          userText('one'),
          { role: 'assistant', content: [{ type: 'tool_use', id: 't1', name: 'bash', input: {} }] },
          { role: 'user', content: [{ type: 'tool_result', tool_use_id: 't1', content: 'out' }] },
          { role: 'assistant', content: [{ type: 'text', text: 'more' }, { type: 'tool_use', id: 't2', name: 'bash', input: {} }] },
          { role: 'user', content: [{ type: 'tool_result', tool_use_id: 't2', content: 'out2' }, { type: 'text', text: 'and steer' }] },
        ],
      }),
    );
    const marked = JSON.stringify(params)
      .split('"cache_control"')
      .slice(0, -1)
      .map((s) => s.slice(-40));
    assert.equal(marked.length, 3, marked.join(' | '));
    assert.deepEqual(params.system, [{ type: 'text', text: 'You are a test.', cache_control: { type: 'ephemeral' } }]);
    const messages = params.messages as unknown as Array<{ content: Array<Record<string, unknown>> }>;
    assert.deepEqual(messages[4]!.content[1], { type: 'text', text: 'and steer', cache_control: { type: 'ephemeral' } });
    assert.deepEqual(messages[2]!.content[0], { type: 'tool_result', tool_use_id: 't1', content: 'out', cache_control: { type: 'ephemeral' } });
    assert.ok(!('cache_control' in messages[0]!.content[0]!));
    assert.ok(!JSON.stringify(params.tools).includes('cache_control'), 'the system breakpoint already covers the tools before it');
  });

  it('S7: without a system prompt the breakpoint goes on the last tool; the caller’s history is never mutated', () => {
    const history: Message[] = [userText('hi')];
    const snapshot = JSON.stringify(history);
    const params = toAnthropicParams(request({ system: '', messages: history }));
    assert.equal(params.system, undefined);
    assert.deepEqual((params.tools as unknown as Array<Record<string, unknown>>).at(-1)!['cache_control'], { type: 'ephemeral' });
    assert.equal((params.tools as unknown as Array<Record<string, unknown>>)[0]!['cache_control'], undefined);
    assert.equal(JSON.stringify(history), snapshot);
    assert.equal(TOOLS.some((t) => 'cache_control' in t), false);
  });

  it('S7: thinking budget: at least 1024, and max_tokens always above it', () => {
    assert.deepEqual(toAnthropicParams(request({ thinkingBudgetTokens: 500, maxTokens: 8000 })).thinking, { type: 'enabled', budget_tokens: 1024 });
    const tight = toAnthropicParams(request({ thinkingBudgetTokens: 16_000, maxTokens: 8000 }));
    assert.ok(tight.max_tokens > 16_000);
    assert.equal(toAnthropicParams(request({ thinkingBudgetTokens: 0 })).thinking, undefined);
  });
});
