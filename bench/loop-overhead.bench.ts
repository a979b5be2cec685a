// Loop overhead: 500 steps against an instant scripted model and a no-op tool,
// our ConversationRuntime (session persistence on, to a temp dir) against a
// bare loop doing the least any agent loop must: stream, build the message,
// have it on disk before the tool runs (C3), run the tool, push the result,
// append the messages to the same JSONL store.
// What is left is the cost of events, permissions, hooks and bookkeeping.
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { ConversationRuntime } from '../src/runtime/loop/conversation';
import { JsonlSessionStore } from '../src/runtime/session/session';
import { type AssistantEvent, type Message, type ModelClient, type ModelRequest, type ModelResponse, type ToolExecutor, type ToolResultBlock, type ToolUseBlock } from '../src/runtime/types';
import { type BenchResult, ratioResult, type Sampled } from './lib';

const STEPS = 500;
const usage = { input_tokens: 10, output_tokens: 5, cache_creation_input_tokens: 0, cache_read_input_tokens: 0 };

function toolStep(i: number): AssistantEvent[] {
  return [
    { type: 'text_delta', text: `step ${i}` },
    { type: 'tool_use_start', id: `t${i}`, name: 'noop' },
    { type: 'tool_use', id: `t${i}`, name: 'noop', inputJson: `{"path":"f${i}.ts"}` },
    { type: 'usage', usage },
    { type: 'message_stop', stopReason: 'tool_use' },
  ];
}
const finalStep: AssistantEvent[] = [{ type: 'text_delta', text: 'done' }, { type: 'usage', usage }, { type: 'message_stop', stopReason: 'end_turn' }];
const SCRIPT: AssistantEvent[][] = [...Array.from({ length: STEPS - 1 }, (_, i) => toolStep(i)), finalStep];

/** Replays SCRIPT from the start on each new turn; yields without any delay. */
class InstantModel implements ModelClient {
  private next = 0;
  reset(): void {
    this.next = 0;
  }
  async *stream(_request: ModelRequest): AsyncIterable<AssistantEvent> {
    yield* SCRIPT[this.next++]!;
  }
  async complete(): Promise<ModelResponse> {
    return { content: [{ type: 'text', text: 'summary' }], usage, stopReason: 'end_turn' };
  }
}

const noopTools: ToolExecutor = {
  definitions: () => [{ name: 'noop', description: 'does nothing', input_schema: { type: 'object' } }],
  isReadOnly: () => true,
  assess: async (_name, input) => ({ need: 'read', subject: String(input.path ?? '') }),
  execute: async () => ({ content: 'ok', isError: false }),
};

async function bareLoop(model: InstantModel, store: JsonlSessionStore): Promise<number> {
  const messages: Message[] = [{ role: 'user', content: [{ type: 'text', text: 'go' }] }];
  void store.append({ type: 'message', ts: Date.now(), message: messages[0]! });
  const signal = new AbortController().signal;
  let steps = 0;
  for (;;) {
    steps++;
    const request: ModelRequest = { model: 'claude-sonnet-5-5', system: 'bench', messages, tools: noopTools.definitions(), maxTokens: 1024, afterToolResults: steps > 1 };
    let text = '';
    const uses: ToolUseBlock[] = [];
    for await (const e of model.stream(request)) {
      if (e.type === 'text_delta') text += e.text;
      else if (e.type === 'tool_use') uses.push({ type: 'tool_use', id: e.id, name: e.name, input: JSON.parse(e.inputJson) as Record<string, unknown> });
    }
    const assistant: Message = { role: 'assistant', content: [{ type: 'text', text }, ...uses] };
    messages.push(assistant);
    void store.append({ type: 'message', ts: Date.now(), message: assistant });
    if (uses.length === 0) break;
    // C3, as the runtime must: the tool uses are on disk before a tool acts (one write round trip per step).
    await store.flush();
    const results: ToolResultBlock[] = [];
    for (const u of uses) {
      const out = await noopTools.execute(u.name, u.input, { signal });
      results.push({ type: 'tool_result', tool_use_id: u.id, content: out.content });
    }
    const user: Message = { role: 'user', content: results };
    messages.push(user);
    void store.append({ type: 'message', ts: Date.now(), message: user });
  }
  await store.flush();
  return steps;
}

async function ourLoop(model: InstantModel, store: JsonlSessionStore): Promise<number> {
  const runtime = new ConversationRuntime(
    { model, tools: noopTools, session: store },
    { model: 'claude-sonnet-5-5', systemPrompt: 'bench', maxIterations: STEPS + 10, maxTokens: 1024, env: {} },
  );
  const summary = await runtime.runTurn('go');
  if (summary.outcome !== 'completed') throw new Error(`bench turn ${summary.outcome}: ${summary.error?.message ?? ''}`);
  return summary.iterations;
}

// Many short runs: each pair takes ~10 ms, and medians of few runs swing on a loaded machine.
const RUNS = 61;
const WARMUP = 10;

type Prepared = () => Promise<() => Promise<void>>;

/**
 * Like lib's `sample`, but alternates the two sides run by run: on a shared
 * machine, load that comes and goes then hits both, instead of whichever side
 * happened to be running. `prepare` (a fresh session file) is not timed.
 */
async function interleaved(a: Prepared, b: Prepared): Promise<{ ours: Sampled; bare: Sampled }> {
  const ta: number[] = [];
  const tb: number[] = [];
  for (let i = 0; i < WARMUP + RUNS; i++) {
    const order: Array<[Prepared, number[]]> = i % 2 === 0 ? [[a, ta], [b, tb]] : [[b, tb], [a, ta]];
    for (const [prepare, out] of order) {
      const run = await prepare();
      const t0 = performance.now();
      await run();
      if (i >= WARMUP) out.push(performance.now() - t0);
    }
  }
  const stats = (t: number[]): Sampled => {
    t.sort((x, y) => x - y);
    return { median: t[Math.floor(t.length / 2)]!, min: t[0]!, max: t[t.length - 1]! };
  };
  return { ours: stats(ta), bare: stats(tb) };
}

async function loopOverheadBench(): Promise<BenchResult[]> {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'turnstone-bench-loop-'));
  const model = new InstantModel();
  let n = 0;
  const freshStore = () => JsonlSessionStore.create(dir, { id: `run-${++n}-${Math.random().toString(36).slice(2)}` });
  try {
    const prepare = (fn: typeof ourLoop) => async () => {
      const store = await freshStore();
      return async () => {
        model.reset();
        const steps = await fn(model, store);
        if (steps !== STEPS) throw new Error(`expected ${STEPS} steps, got ${steps}`);
      };
    };
    const { ours, bare } = await interleaved(prepare(ourLoop), prepare(bareLoop));
    return [
      ratioResult('loop-overhead', `one turn of ${STEPS} steps (instant model, no-op tool, JSONL session on): ConversationRuntime vs a bare loop`, ours, bare, 1.5, {
        steps: STEPS,
        perStepUsOurs: Math.round((ours.median / STEPS) * 1000),
        perStepUsBare: Math.round((bare.median / STEPS) * 1000),
        ratioOfMinimums: Math.round((ours.min / bare.min) * 1000) / 1000,
      }),
    ];
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
}

// The module's value is the bench function itself (with `.default` pointing to
// it): bench/run.ts reads `.default` through require, and a plain ESM
// `import('./bench/loop-overhead.bench.ts').then((m) => m.default())` gets
// module.exports as its default, so both ways find a callable.
module.exports = Object.assign(loopOverheadBench, { default: loopOverheadBench });
