// Runs inside the real VS Code extension host (loaded as extensionTestsPath by
// bench/extension-host.bench.ts): measures Turnstone's activation and the
// host's memory over a scripted 200-step session against the local mock API.
import * as vscode from 'vscode';
import type { TurnstoneApi } from '../../src/extension';
import { MockAnthropicServer, textReply, toolUseReply } from '../../test/fixtures/mock-anthropic';

const STEPS = Number(process.env.TURNSTONE_BENCH_STEPS ?? 200);

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

  const server = await MockAnthropicServer.start();
  const config = vscode.workspace.getConfiguration('turnstone');
  await config.update('baseUrl', server.url, vscode.ConfigurationTarget.Global);
  await config.update('permissionMode', 'bypassPermissions', vscode.ConfigurationTarget.Global);
  await config.update('maxIterations', STEPS + 10, vscode.ConfigurationTarget.Global);
  // Warm-up turn: loads the core bundle, the SDK and the tools, so the growth measured below is the session's, not code loading.
  server.enqueue(toolUseReply([{ id: 'tu_warm', name: 'glob_search', input: { pattern: '**/*.warm' } }]), textReply('Warm.'));
  await api.sendPrompt('warm up');
  for (let i = 0; i < STEPS - 1; i++) server.enqueue(toolUseReply([{ id: `tu_${i}`, name: 'glob_search', input: { pattern: `**/*.nothing${i}` } }], { text: `Step ${i}: looking around. `.repeat(5) }));
  server.enqueue(textReply('Done.'));

  global.gc?.();
  const before = process.memoryUsage();
  const t1 = performance.now();
  const summary = await api.sendPrompt('walk around 200 times');
  const turnMs = performance.now() - t1;
  global.gc?.();
  await new Promise((r) => setTimeout(r, 200));
  const after = process.memoryUsage();

  // Issue 43: what a second session adds (opened beside the first, one turn run in it), after a GC.
  await vscode.commands.executeCommand('turnstone.newSession');
  server.enqueue(textReply('Second session here.'));
  await api.sendPrompt('warm the second session');
  global.gc?.();
  await new Promise((r) => setTimeout(r, 200));
  const beforeSecond = process.memoryUsage();
  await vscode.commands.executeCommand('turnstone.newSession');
  server.enqueue(textReply('Third session here.'));
  await api.sendPrompt('one turn in another session');
  global.gc?.();
  await new Promise((r) => setTimeout(r, 200));
  const afterSecond = process.memoryUsage();

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
  api.decide(askId, { kind: 'deny' });
  await waiting;
  api.setDialogsEnabled(true);

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
      waitingCpuMsPerS,
    })}`,
  );
}
