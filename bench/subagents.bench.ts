// Subagents (issue 29): (1) the loop overhead of a step run inside a subagent against the same step in a
// main turn: one turn whose single `agent` call runs STEPS steps in its subagent, against a main turn of
// STEPS steps (the subagent's turn also pays for the parent's two steps, 0.4 %); target ≤ 1.1×.
// (2) what one subagent adds to the main context: its report, capped, against the cap (a 200 000-
// character report is given back); target ≤ 1.0× of MAX_REPORT_CHARS plus the cut's note.
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { MAX_REPORT_CHARS, withSubagents } from '../src/agent/subagents/agent-tool';
import { ConversationRuntime } from '../src/runtime/loop/conversation';
import { JsonlSessionStore } from '../src/runtime/session/session';
import { type AssistantEvent, type ModelClient, type ModelRequest, type ModelResponse, type ToolExecutor } from '../src/runtime/types';
import { type BenchResult, ratioResult, type Sampled } from './lib';

const STEPS = 300;
const usage = { input_tokens: 10, output_tokens: 5, cache_creation_input_tokens: 0, cache_read_input_tokens: 0 };
const SUBAGENT = 'worker';

const toolStep = (i: number): AssistantEvent[] => [
  { type: 'text_delta', text: `step ${i}` },
  { type: 'tool_use_start', id: `t${i}`, name: 'noop' },
  { type: 'tool_use', id: `t${i}`, name: 'noop', inputJson: `{"path":"f${i}.ts"}` },
  { type: 'usage', usage },
  { type: 'message_stop', stopReason: 'tool_use' },
];
const final = (text: string): AssistantEvent[] => [{ type: 'text_delta', text }, { type: 'usage', usage }, { type: 'message_stop', stopReason: 'end_turn' }];
const agentCall: AssistantEvent[] = [
  { type: 'tool_use_start', id: 'a1', name: 'agent' },
  { type: 'tool_use', id: 'a1', name: 'agent', inputJson: JSON.stringify({ description: 'do the work', prompt: 'work', agent: SUBAGENT }) },
  { type: 'usage', usage },
  { type: 'message_stop', stopReason: 'tool_use' },
];

/** Each conversation (told apart by its system prompt) replays its own script from the start. */
class InstantModel implements ModelClient {
  private main = 0;
  private sub = 0;
  constructor(
    private readonly mainScript: AssistantEvent[][],
    private readonly subScript: AssistantEvent[][],
  ) {}
  reset(): void {
    this.main = 0;
    this.sub = 0;
  }
  async *stream(request: ModelRequest): AsyncIterable<AssistantEvent> {
    yield* request.system.startsWith('You run the work.') ? this.subScript[this.sub++]! : this.mainScript[this.main++]!;
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
const withWorker = withSubagents(noopTools, {
  maxParallel: 4,
  provider: 'anthropic',
  model: 'claude-sonnet-5-5',
  systemPrompt: 'bench',
  custom: [{ name: SUBAGENT, description: 'works', systemPrompt: 'You run the work.', tools: ['noop'] }],
});
const config = { model: 'claude-sonnet-5-5', systemPrompt: 'bench', maxIterations: STEPS + 10, maxTokens: 1024, env: {} };
const steps = Array.from({ length: STEPS - 1 }, (_, i) => toolStep(i));

async function turn(model: InstantModel, tools: ToolExecutor, store: JsonlSessionStore): Promise<ConversationRuntime> {
  const runtime = new ConversationRuntime({ model, tools, session: store }, config);
  const summary = await runtime.runTurn('go');
  if (summary.outcome !== 'completed') throw new Error(`bench turn ${summary.outcome}: ${summary.error?.message ?? ''}`);
  return runtime;
}

const RUNS = 31;
const WARMUP = 6;
const stats = (t: number[]): Sampled => {
  t.sort((x, y) => x - y);
  return { median: t[Math.floor(t.length / 2)]!, min: t[0]!, max: t[t.length - 1]! };
};

async function subagentsBench(): Promise<BenchResult[]> {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'turnstone-bench-subagents-'));
  let n = 0;
  const freshStore = () => JsonlSessionStore.create(dir, { id: `run-${++n}` });
  const mainModel = new InstantModel([...steps, final('done')], []);
  const subModel = new InstantModel([agentCall, final('done')], [...steps, final('done')]);
  try {
    const main: number[] = [];
    const sub: number[] = [];
    // Alternated run by run, so load that comes and goes hits both sides.
    for (let i = 0; i < WARMUP + RUNS; i++) {
      for (const [model, tools, out] of (i % 2 ? [[mainModel, noopTools, main], [subModel, withWorker, sub]] : [[subModel, withWorker, sub], [mainModel, noopTools, main]]) as Array<[InstantModel, ToolExecutor, number[]]>) {
        const store = await freshStore();
        model.reset();
        const t0 = performance.now();
        await turn(model, tools, store);
        if (i >= WARMUP) out.push(performance.now() - t0);
      }
    }
    const ours = stats(sub);
    const base = stats(main);

    // The main context's growth for one subagent whose report is far over the cap.
    const big = new InstantModel([agentCall, final('done')], [final('r'.repeat(200_000))]);
    const rt = await turn(big, withWorker, await freshStore());
    const result = rt.messages.flatMap((m) => (m.role === 'user' ? m.content : [])).find((b) => b.type === 'tool_result');
    const grew = result && 'content' in result ? result.content.length : 0;
    const grewSample: Sampled = { median: grew, min: grew, max: grew };
    const capSample: Sampled = { median: MAX_REPORT_CHARS, min: MAX_REPORT_CHARS, max: MAX_REPORT_CHARS };
    return [
      ratioResult('subagent loop overhead', `a turn whose one agent call runs ${STEPS} steps in its subagent vs a main turn of ${STEPS} steps (instant model, no-op tool, JSONL session on)`, ours, base, 1.1, {
        perStepUsSubagent: Math.round((ours.median / STEPS) * 1000),
        perStepUsMain: Math.round((base.median / STEPS) * 1000),
      }),
      {
        ...ratioResult('subagent context growth', 'characters one subagent adds to the main context (its report, 200 000 characters, cut) vs the report cap', grewSample, capSample, 1.01),
        unit: 'chars',
      },
    ];
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
}

module.exports = Object.assign(subagentsBench, { default: subagentsBench });
