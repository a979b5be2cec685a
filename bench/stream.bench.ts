// Streaming one model step: a recorded 20 000-event reply served by the local mock,
// read through our provider (retry loop, watchdog, S1/S2 normalisation into
// AssistantEvents, the lazy createModelClient wrapper) against iterating the SDK's
// raw event stream alone, in the same run and over the same bytes.
import Anthropic from '@anthropic-ai/sdk';
import { createModelClient } from '../src/runtime/providers';
import { toAnthropicParams } from '../src/runtime/providers/anthropic-params';
import { type ModelRequest } from '../src/runtime/types';
import { blockFrames, encodeSse, messageStartFrame, MockAnthropicServer, type SseFrame } from '../test/fixtures/mock-anthropic';
import { type BenchResult, ratioResult, type Sampled } from './lib';

const EVENTS = 20_000;
const RUNS = 21;
const WARMUP = 2;

/** message_start, one text block of deltas, a tool use, message_delta, message_stop: EVENTS frames in all. */
function recordedReply(): { bytes: Buffer; frames: number } {
  const tool = blockFrames({ type: 'tool_use', id: 'toolu_bench', name: 'read_file', input: { path: 'src/extension.ts' }, chunks: 3 }, 1);
  const fixed = 1 + 2 + tool.length + 2; // message_start, text start/stop, tool frames, message_delta/stop
  const deltas = EVENTS - fixed;
  const frames: SseFrame[] = [messageStartFrame(), { event: 'content_block_start', data: { type: 'content_block_start', index: 0, content_block: { type: 'text', text: '' } } }];
  for (let i = 0; i < deltas; i++) {
    frames.push({ event: 'content_block_delta', data: { type: 'content_block_delta', index: 0, delta: { type: 'text_delta', text: `token ${i} ` } } });
  }
  frames.push({ event: 'content_block_stop', data: { type: 'content_block_stop', index: 0 } }, ...tool);
  frames.push(
    { event: 'message_delta', data: { type: 'message_delta', delta: { stop_reason: 'tool_use', stop_sequence: null }, usage: { output_tokens: deltas } } },
    { event: 'message_stop', data: { type: 'message_stop' } },
  );
  return { bytes: encodeSse(frames), frames: frames.length };
}

function summarise(times: number[]): Sampled {
  const sorted = [...times].sort((a, b) => a - b);
  return { median: sorted[Math.floor(sorted.length / 2)]!, min: sorted[0]!, max: sorted[sorted.length - 1]! };
}

export default async function (): Promise<BenchResult[]> {
  const mock = await MockAnthropicServer.start({ fallback: { kind: 'sse', bytes: recordedReply().bytes } });
  const { frames } = recordedReply();
  try {
    const request: ModelRequest = {
      model: 'claude-sonnet-5-5',
      system: 'bench',
      messages: [{ role: 'user', content: [{ type: 'text', text: 'go' }] }],
      tools: [],
      maxTokens: 32_000,
      afterToolResults: true, // arms the stall watchdog too, as in most steps of a real turn
    };
    const ours = createModelClient({ provider: 'anthropic', apiKey: 'bench', baseURL: mock.url });
    const sdk = new Anthropic({ apiKey: 'bench', baseURL: mock.url, maxRetries: 0 });
    const params = toAnthropicParams(request);

    let oursEvents = 0;
    const runOurs = async () => {
      let n = 0;
      for await (const event of ours.stream(request, new AbortController().signal)) {
        if (event.type === 'retrying') throw new Error('bench stream was retried');
        n++;
      }
      oursEvents = n;
    };
    let sdkEvents = 0;
    const runSdk = async () => {
      let n = 0;
      const stream = await sdk.messages.create({ ...params, stream: true });
      for await (const event of stream) {
        void event;
        n++;
      }
      sdkEvents = n;
    };

    // Alternate the two so load from other processes on a shared machine hits both alike.
    // CPU time of this process (client and mock server alike) is the figure compared: on a
    // shared 2-core machine wall time mostly measures the neighbours. Wall time is reported too.
    const oursCpu: number[] = [];
    const sdkCpu: number[] = [];
    const oursWall: number[] = [];
    const sdkWall: number[] = [];
    for (let i = 0; i < WARMUP + RUNS; i++) {
      const first = i % 2 === 0 ? runOurs : runSdk;
      const second = i % 2 === 0 ? runSdk : runOurs;
      for (const run of [first, second]) {
        const c0 = process.cpuUsage();
        const t0 = performance.now();
        await run();
        const wall = performance.now() - t0;
        const c = process.cpuUsage(c0);
        if (i < WARMUP) continue;
        (run === runOurs ? oursCpu : sdkCpu).push((c.user + c.system) / 1000);
        (run === runOurs ? oursWall : sdkWall).push(wall);
      }
    }
    if (sdkEvents !== frames) throw new Error(`SDK saw ${sdkEvents} events, expected ${frames}`);
    const oursS = summarise(oursCpu);
    const sdkS = summarise(sdkCpu);
    const oursW = summarise(oursWall);
    const sdkW = summarise(sdkWall);
    return [
      ratioResult(
        'stream: 20 000-event reply, provider vs raw SDK',
        `CPU ms to read a recorded ${frames}-event SSE reply from the local mock: createModelClient().stream() with normalisation vs iterating the SDK's raw event stream`,
        oursS,
        sdkS,
        1.15,
        {
          events: frames,
          assistantEvents: oursEvents,
          oursEventsPerSec: Math.round(frames / (oursW.median / 1000)),
          sdkEventsPerSec: Math.round(frames / (sdkW.median / 1000)),
          oursWallMs: Math.round(oursW.median),
          sdkWallMs: Math.round(sdkW.median),
          wallRatio: Math.round((oursW.median / sdkW.median) * 1000) / 1000,
          bytes: recordedReply().bytes.length,
        },
      ),
    ];
  } finally {
    await mock.close();
  }
}
