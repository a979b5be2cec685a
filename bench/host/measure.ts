// Runs inside the real VS Code extension host (loaded as extensionTestsPath by
// bench/extension-host.bench.ts): measures Turnstone's activation and the
// host's memory over a scripted 200-step session against the local mock API
// (after a warm-up turn, each figure the median of 3 samples after a forced GC).
import * as path from 'node:path';
import { fileURLToPath } from 'node:url';
import * as v8 from 'node:v8';
import * as vm from 'node:vm';
import * as vscode from 'vscode';
import type { TurnstoneApi } from '../../src/extension';
import { type MockReply, MockAnthropicServer, textReply, toolUseReply } from '../../test/fixtures/mock-anthropic';

const STEPS = Number(process.env.TURNSTONE_BENCH_STEPS ?? 200);
/** Memory samples taken before and after the session; the figure compares their medians. */
const SAMPLES = 3;

/**
 * A full GC. The extension host runs without --expose-gc, so `global.gc` is undefined there (a `global.gc?.()`
 * collects nothing, and garbage counted as growth); the flag can still be set at run time and `gc` taken from
 * a fresh context.
 */
function fullGc(): () => void {
  const exposed = (globalThis as { gc?: () => void }).gc;
  if (exposed) return exposed;
  v8.setFlagsFromString('--expose-gc');
  const gc = vm.runInNewContext('gc') as (() => void) | undefined;
  if (!gc) throw new Error('the extension host gave no gc() even with --expose-gc set at run time');
  return gc;
}

/** The parts of a V8 CPU profile this needs. */
interface CpuProfile {
  nodes: { id: number; callFrame: { url: string }; children?: number[] }[];
  samples: number[];
  timeDeltas: number[];
}

/**
 * Turnstone's own CPU in the extension host for `ms`, per second: the profiler's samples with one of its bundles
 * (dist/extension.js, core.js, …) on the stack. The host's whole CPU (process.cpuUsage) swings by tens of ms/s
 * with VS Code's own work (its file reads, child processes, garbage collection), which no subtraction of two
 * idle samples removes; the samples name whose code ran.
 */
async function ownCpuMsPerS(ms: number, extensionPath: string): Promise<number> {
  const dist = path.join(extensionPath, 'dist') + path.sep;
  const { Session } = await import('node:inspector');
  const session = new Session();
  session.connect();
  const post = <T>(method: string, params: object = {}) =>
    new Promise<T>((resolve, reject) => session.post(method, params, (error, result) => (error ? reject(error) : resolve(result as T))));
  try {
    await post('Profiler.enable');
    await post('Profiler.start');
    const t = performance.now();
    await new Promise((r) => setTimeout(r, ms));
    const { profile } = await post<{ profile: CpuProfile }>('Profiler.stop');
    const elapsed = (performance.now() - t) / 1000;
    const parent = new Map<number, number>();
    for (const n of profile.nodes) for (const c of n.children ?? []) parent.set(c, n.id);
    const url = new Map(profile.nodes.map((n) => [n.id, n.callFrame.url]));
    const ours = (id: number): boolean => {
      for (let at: number | undefined = id; at !== undefined; at = parent.get(at)) {
        const u = url.get(at) ?? '';
        if ((u.startsWith('file://') ? fileURLToPath(u) : u).startsWith(dist)) return true;
      }
      return false;
    };
    let us = 0;
    profile.samples.forEach((id, i) => {
      if (ours(id)) us += profile.timeDeltas[i] ?? 0;
    });
    return us / 1000 / elapsed;
  } finally {
    session.disconnect();
  }
}

/** The host's memory after a GC: the median of `SAMPLES` samples, each after a GC and a pause for finalizers. */
async function settledMemory(gc: () => void): Promise<{ rss: number; heapUsed: number }> {
  const samples: Array<{ rss: number; heapUsed: number }> = [];
  for (let i = 0; i < SAMPLES; i++) {
    gc();
    await new Promise((r) => setTimeout(r, 200));
    gc();
    const m = process.memoryUsage();
    samples.push({ rss: m.rss, heapUsed: m.heapUsed });
  }
  const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;
  return { rss: median(samples.map((s) => s.rss)), heapUsed: median(samples.map((s) => s.heapUsed)) };
}

export async function run(): Promise<void> {
  const ext = vscode.extensions.getExtension<TurnstoneApi>('turnstone.turnstone')!;
  const wasActive = ext.isActive;
  // Split the cost: compiling and evaluating the bundle, then VS Code's activation including our activate().
  const t0 = performance.now();
  // eslint-disable-next-line @typescript-eslint/no-require-imports -- the same module instance the host activates next
  require(ext.extensionPath + '/dist/extension.js');
  const loadMs = performance.now() - t0;
  const api = await ext.activate();
  const activationMs = performance.now() - t0;

  const gc = fullGc();
  // The mock runs in this process and records every request it serves (each one the whole conversation so far, raw
  // and parsed): over 200 steps that log held about 43 MB of the host's heap after a GC, the bench measuring itself. The session's
  // steps are served by `script` through the fallback, which forgets each request once answered.
  const script: MockReply[] = [];
  const server: MockAnthropicServer = await MockAnthropicServer.start({
    fallback: () => {
      server.requests.length = 0;
      return script.shift() ?? textReply('mock-anthropic: no scripted reply left');
    },
  });
  const config = vscode.workspace.getConfiguration('turnstone');
  await config.update('baseUrl', server.url, vscode.ConfigurationTarget.Global);
  await config.update('permissionMode', 'bypassPermissions', vscode.ConfigurationTarget.Global);
  await config.update('maxIterations', STEPS + 10, vscode.ConfigurationTarget.Global);
  // Warm-up turn: loads the core bundle, the SDK and the tools, so the growth measured below is the session's, not code loading.
  server.enqueue(toolUseReply([{ id: 'tu_warm', name: 'glob_search', input: { pattern: '**/*.warm' } }]), textReply('Warm.'));
  await api.sendPrompt('warm up');
  for (let i = 0; i < STEPS - 1; i++) script.push(toolUseReply([{ id: `tu_${i}`, name: 'glob_search', input: { pattern: `**/*.nothing${i}` } }], { text: `Step ${i}: looking around. `.repeat(5) }));
  script.push(textReply('Done.'));
  server.requests.length = 0;

  const before = await settledMemory(gc);
  const t1 = performance.now();
  const summary = await api.sendPrompt('walk around 200 times');
  const turnMs = performance.now() - t1;
  const after = await settledMemory(gc);

  // Issue 43: what a second session adds (opened beside the first, one turn run in it), after a GC.
  await vscode.commands.executeCommand('turnstone.newSession');
  server.enqueue(textReply('Second session here.'));
  await api.sendPrompt('warm the second session');
  server.requests.length = 0;
  const beforeSecond = await settledMemory(gc);
  await vscode.commands.executeCommand('turnstone.newSession');
  server.enqueue(textReply('Third session here.'));
  await api.sendPrompt('one turn in another session');
  server.requests.length = 0;
  const afterSecond = await settledMemory(gc);

  // Issue 43: the host's CPU while a session waits for an answer, against the same window with nothing waiting.
  const cpuPerSecond = async (ms: number) => {
    const c0 = process.cpuUsage();
    const t = performance.now();
    await new Promise((r) => setTimeout(r, ms));
    const c = process.cpuUsage(c0);
    return (c.user + c.system) / 1000 / ((performance.now() - t) / 1000);
  };
  const idleCpuMsPerS = await cpuPerSecond(5_000);
  await config.update('permissionMode', 'ask', vscode.ConfigurationTarget.Global);
  api.setDialogsEnabled(false);
  await vscode.commands.executeCommand('turnstone.newSession');
  server.enqueue(toolUseReply([{ id: 'tu_wait', name: 'bash', input: { command: 'touch waiting-bench.txt' } }]), textReply('Stopped waiting.'));
  const asked = new Promise<string>((resolve) => {
    const sub = api.onDidRequestPermission((id) => {
      sub.dispose();
      resolve(id);
    });
  });
  const waiting = api.sendPrompt('wait for me');
  const askId = await asked;
  await new Promise((r) => setTimeout(r, 500));
  const waitingCpuMsPerS = await cpuPerSecond(5_000);
  const waitingOwnCpuMsPerS = await ownCpuMsPerS(5_000, vscode.extensions.getExtension('turnstone.turnstone')!.extensionPath);
  api.decide(askId, { kind: 'deny' });
  await waiting;
  api.setDialogsEnabled(true);
  // Idle again after it: the waiting sample is compared with both sides, so what the host was still settling
  // before it (or started after) does not read as the waiting session's cost.
  await new Promise((r) => setTimeout(r, 500));
  const idleAfterCpuMsPerS = await cpuPerSecond(5_000);

  await server.close();
  await config.update('baseUrl', undefined, vscode.ConfigurationTarget.Global);
  await config.update('permissionMode', undefined, vscode.ConfigurationTarget.Global);
  await config.update('maxIterations', undefined, vscode.ConfigurationTarget.Global);
  console.log(
    `TURNSTONE_BENCH ${JSON.stringify({
      wasActive,
      activationMs,
      loadMs,
      ourActivateMs: api.activateMs,
      steps: summary.iterations,
      outcome: summary.outcome,
      turnMs,
      rssGrowthMB: (after.rss - before.rss) / 2 ** 20,
      heapGrowthMB: (after.heapUsed - before.heapUsed) / 2 ** 20,
      secondSessionRssMB: (afterSecond.rss - beforeSecond.rss) / 2 ** 20,
      secondSessionHeapMB: (afterSecond.heapUsed - beforeSecond.heapUsed) / 2 ** 20,
      idleCpuMsPerS,
      idleAfterCpuMsPerS,
      waitingCpuMsPerS,
      waitingOwnCpuMsPerS,
    })}`,
  );
}
