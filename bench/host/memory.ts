// Runs inside the real VS Code extension host (see bench/host/run-in-host.ts):
// a 1 000-step session (TURNS turns of STEPS_PER_TURN scripted tool steps
// against the local mock API) with auto-compaction set low enough to run every
// COMPACT_EVERY steps; the host's memory after each turn, after a GC.
import * as v8 from 'node:v8';
import * as vm from 'node:vm';
import * as vscode from 'vscode';
import type { TurnstoneApi } from '../../src/extension';
import { jsonMessageReply, MockAnthropicServer, textReply, toolUseReply } from '../../test/fixtures/mock-anthropic';

const TURNS = Number(process.env.TURNSTONE_BENCH_TURNS ?? 10);
const STEPS_PER_TURN = 100;
/**
 * The mock reports each request's input as its size (chars / 4), as the API would: compaction measures how
 * full the context is, so the figure must grow with the history. Each step adds ~1.5 kB (reply text, tool use
 * and result); with THRESHOLD the context compacts about every 25 steps.
 */
const THRESHOLD = 11_000;
const inputTokensOf = (body: Record<string, unknown>) => Math.ceil(JSON.stringify([body.system, body.tools, body.messages]).length / 4);
/** The baseline run turns compaction off (a threshold the session never reaches). */
const COMPACT = process.env.TURNSTONE_BENCH_COMPACT !== 'off';

interface Sample {
  steps: number;
  rssMB: number;
  heapMB: number;
  externalMB: number;
}

export async function run(): Promise<void> {
  try {
    const ext = vscode.extensions.getExtension<TurnstoneApi>('turnstone.turnstone')!;
    const api = await ext.activate();
    let steps = 0;
    let summaries = 0;
    let inTurn = 0;
    // Replies are chosen by what is asked: a summary request (compaction) gets a summary, a step gets a tool use until the turn's last step.
    const server: MockAnthropicServer = await MockAnthropicServer.start({
      fallback: () => {
        // The mock runs in this process and records every request: forget them, or the bench measures its own log.
        const body = (server.requests.at(-1)?.body ?? {}) as Record<string, unknown>;
        server.requests.length = 0;
        if (JSON.stringify(body.system ?? '').includes('You compress')) {
          summaries++;
          const text = `The user asked for a long walk through the workspace; ${steps} glob searches so far found nothing new. Continue walking.`;
          return body.stream === false ? jsonMessageReply([{ type: 'text', text }]) : textReply(text);
        }
        steps++;
        inTurn++;
        const usage = { input_tokens: inputTokensOf(body) };
        if (inTurn >= STEPS_PER_TURN) return textReply('Done walking.', { usage });
        return toolUseReply([{ id: `tu_${steps}`, name: 'glob_search', input: { pattern: `**/*.nothing${steps}` } }], {
          text: `Step ${steps}: looking around the workspace for the files the user asked about. `.repeat(16),
          usage,
        });
      },
    });
    const config = vscode.workspace.getConfiguration('turnstone');
    await config.update('baseUrl', server.url, vscode.ConfigurationTarget.Global);
    await config.update('permissionMode', 'bypassPermissions', vscode.ConfigurationTarget.Global);
    await config.update('maxIterations', STEPS_PER_TURN + 10, vscode.ConfigurationTarget.Global);
    await config.update('autoCompactInputTokens', COMPACT ? THRESHOLD : 1_000_000_000, vscode.ConfigurationTarget.Global);

    // The extension host runs without --expose-gc; the flag can still be set at run time and `gc` taken from a fresh context.
    let gc = (globalThis as { gc?: () => void }).gc;
    if (!gc) {
      v8.setFlagsFromString('--expose-gc');
      gc = vm.runInNewContext('gc') as (() => void) | undefined;
    }
    const measure = async (): Promise<Sample> => {
      gc?.();
      await new Promise((r) => setTimeout(r, 200));
      gc?.();
      const m = process.memoryUsage();
      return { steps, rssMB: m.rss / 2 ** 20, heapMB: m.heapUsed / 2 ** 20, externalMB: (m.external + m.arrayBuffers) / 2 ** 20 };
    };

    // Warm-up turn (loads the core bundle, SDK and tools), not counted as steps.
    inTurn = STEPS_PER_TURN - 2;
    await api.sendPrompt('warm up');
    steps = 0;
    summaries = 0;
    const samples: Sample[] = [await measure()];
    const turns: { outcome: string; iterations: number; ms: number }[] = [];
    for (let t = 0; t < TURNS; t++) {
      inTurn = 0;
      const t0 = performance.now();
      const summary = await api.sendPrompt(`walk around ${STEPS_PER_TURN} times (turn ${t + 1})`);
      turns.push({ outcome: summary.outcome, iterations: summary.iterations, ms: performance.now() - t0 });
      if (summary.outcome !== 'completed') throw new Error(`turn ${t + 1} ended ${summary.outcome}`);
      samples.push(await measure());
    }
    await server.close();
    for (const key of ['baseUrl', 'permissionMode', 'maxIterations', 'autoCompactInputTokens']) await config.update(key, undefined, vscode.ConfigurationTarget.Global);
    console.log(`TURNSTONE_BENCH ${JSON.stringify({ compaction: COMPACT, gcExposed: gc !== undefined, summaries, samples, turns, sessionFile: api.sessionFile() ?? null })}`);
  } catch (error) {
    console.log(`TURNSTONE_BENCH_FAILED ${error instanceof Error ? (error.stack ?? error.message) : String(error)}`);
  }
}
