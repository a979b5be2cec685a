// One activation in a fresh Node process (bench/activation.bench.ts starts it
// with --expose-gc): loads `<extensionRoot>/dist/extension.js` with the vscode
// stand-in, calls activate() with a fresh ExtensionContext, waits until the
// work activation started (file reads, processes) has finished, and prints one
// JSON line with the times and the memory added.
// Usage: node --expose-gc child.cjs <extensionRoot> <workspaceFolder> <storageRoot>
'use strict';
const Module = require('node:module');
const { readFileSync } = require('node:fs');
const path = require('node:path');
const { createContext, createVscode, record } = require('./vscode-stand-in.cjs');

const [extensionRoot, workspaceFolder, storageRoot] = process.argv.slice(2);
if (!extensionRoot || !workspaceFolder || !storageRoot) throw new Error('usage: child.cjs <extensionRoot> <workspaceFolder> <storageRoot>');

// The host's part, prepared before the clock starts, as VS Code has it ready before it loads an extension.
const vscode = createVscode({ extensionRoot, workspaceFolder });
const context = createContext({ extensionRoot, storageRoot });
const resolve = Module._resolveFilename;
Module._resolveFilename = function (request, ...rest) {
  return request === 'vscode' ? 'vscode' : resolve.call(this, request, ...rest);
};
require.cache.vscode = { id: 'vscode', filename: 'vscode', loaded: true, exports: vscode };
const bundle = path.join(extensionRoot, 'dist', 'extension.js');
// Node's own modules that the bundle requires are loaded already in the extension host (VS Code uses
// fs, child_process, os… itself); in a fresh process they would be compiled on first require, a cost
// that is Node's, not the extension's. So they are loaded before the clock starts.
for (const m of new Set([...readFileSync(bundle, 'utf8').matchAll(/require\("([\w:/]+)"\)/g)].map((x) => x[1]))) {
  if (Module.isBuiltin(m)) require(m);
}
// Processes activation starts (a probe, a git call): recorded by name; none is expected.
const started = [];
const childProcess = require('node:child_process');
for (const name of ['spawn', 'execFile', 'exec', 'fork', 'spawnSync', 'execFileSync', 'execSync']) {
  const original = childProcess[name];
  childProcess[name] = function (file, ...rest) {
    started.push(path.basename(String(file)).split(' ')[0]);
    return original.call(this, file, ...rest);
  };
}
performance.now();

/** Work started by activation and still running: I/O and child processes (timers are left out: a debounce is not work). */
const BUSY = new Set(['FSReqCallback', 'FSReqPromise', 'FileHandleCloseReq', 'ProcessWrap', 'GetAddrInfoReqWrap', 'StatWatcher', 'FSEventWrap', 'TCPWrap', 'TCPConnectWrap', 'PipeConnectWrap']);
const busy = () => process.getActiveResourcesInfo().filter((r) => BUSY.has(r));
const turn = () => new Promise((r) => setImmediate(r));

async function main() {
  global.gc();
  const before = process.memoryUsage();
  const c0 = process.cpuUsage();
  const t0 = performance.now();
  const extension = require(bundle);
  const t1 = performance.now();
  const c1 = process.cpuUsage();
  const api = await extension.activate(context);
  const t2 = performance.now();
  const c2 = process.cpuUsage();
  const atActivate = process.memoryUsage();
  // Settled: a few event-loop turns in a row with no I/O or process of activation's still pending.
  let quiet = 0;
  while (quiet < 3) {
    await turn();
    quiet = busy().length === 0 ? quiet + 1 : 0;
  }
  const t3 = performance.now();
  const settled = process.memoryUsage();
  global.gc();
  const afterGc = process.memoryUsage();
  const mb = (bytes) => bytes / 2 ** 20;
  const cpuMs = (a, b) => (b.user - a.user + b.system - a.system) / 1000;
  process.stdout.write(
    `ACTIVATION ${JSON.stringify({
      loadMs: t1 - t0,
      activateMs: t2 - t1,
      settledMs: t3 - t0,
      // CPU time of the same two parts: what a loaded machine's scheduling does not inflate.
      loadCpuMs: cpuMs(c0, c1),
      activateCpuMs: cpuMs(c1, c2),
      ownActivateMs: typeof api?.activateMs === 'number' ? api.activateMs : null,
      rssAtActivateMB: mb(atActivate.rss - before.rss),
      rssSettledMB: mb(settled.rss - before.rss),
      heapSettledMB: mb(settled.heapUsed - before.heapUsed),
      heapAfterGcMB: mb(afterGc.heapUsed - before.heapUsed),
      commands: record.commands.length,
      providers: record.providers,
      subscriptions: context.subscriptions.length,
      misses: [...record.misses].sort(),
      processes: started,
      loadedFromDist: Object.keys(require.cache).filter((f) => f.startsWith(path.join(extensionRoot, 'dist'))).map((f) => path.relative(extensionRoot, f)),
    })}\n`,
  );
  // Timers activation left (debounces, the panel's batcher) must not keep the process.
  process.exit(0);
}

main().catch((error) => {
  process.stderr.write(`${error?.stack ?? error}\n`);
  process.exit(1);
});
