// MCP: (1) per-call overhead of our path (schema check, call through the
// manager's SDK client, result conversion, redaction, truncation) against the
// SDK's Client calling the same tool of the same server directly; (2) the tool
// list a step is given, with 10 live servers × 50 tools, rebuilt after a
// change; (3) the SDK stays out of dist/extension.js (activation untouched).
import { existsSync, readFileSync, statSync } from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { parseServerMap } from '../src/runtime/mcp/config';
import { McpManager } from '../src/runtime/mcp/manager';
import { withMcpTools } from '../src/tools/mcp-tools';
import { NodeWorkspace } from '../src/tools/node-adapter';
import { createToolExecutor } from '../src/tools/registry';
import { DYNAMIC_BIN, EVERYTHING_BIN } from '../test/fixtures/mcp-servers';
import { type BenchResult, ratioResult, round, type Sampled } from './lib';

const CALLS = 200;
const RUNS = 7;

const stats = (t: number[]): Sampled => {
  const s = [...t].sort((x, y) => x - y);
  return { median: s[Math.floor(s.length / 2)]!, min: s[0]!, max: s[s.length - 1]! };
};

async function perCallOverhead(): Promise<BenchResult> {
  const server = { command: process.execPath, args: [EVERYTHING_BIN, 'stdio'] };
  const manager = new McpManager(parseServerMap({ everything: server }, 'user', 'bench', { workspaceFolder: undefined, env: {} }), { startTimeoutMs: 30_000 });
  const tools = withMcpTools(createToolExecutor({ workspace: new NodeWorkspace(os.tmpdir()) }), manager);
  const direct = new Client({ name: 'bench-direct', version: '1.0.0' }, { capabilities: {} });
  try {
    await tools.prepareStep!(new AbortController().signal);
    await direct.connect(new StdioClientTransport({ ...server, stderr: 'pipe' }));
    await direct.listTools();
    // A turn's signal, as the loop passes it: a new one every 25 calls (a busy turn).
    let signal = new AbortController().signal;
    const ours = async (i: number) => {
      if (i % 25 === 0) signal = new AbortController().signal;
      const input = { message: `m${i}` };
      await tools.assess('mcp__everything__echo', input);
      const r = await tools.execute('mcp__everything__echo', input, { signal });
      if (r.isError) throw new Error(r.content);
    };
    const sdk = async (i: number) => {
      const r = await direct.callTool({ name: 'echo', arguments: { message: `m${i}` } });
      if (r.isError) throw new Error('direct call failed');
    };
    for (let i = 0; i < 50; i++) {
      await ours(i);
      await sdk(i);
    }
    // Call by call, alternating which goes first, so the shared machine's noise lands on both
    // alike; several trials, and the median of their ratios (one busy moment cannot decide it).
    const ratios: number[] = [];
    const a: number[] = [];
    const b: number[] = [];
    for (let trial = 0; trial < RUNS; trial++) {
      const ta: number[] = [];
      const tb: number[] = [];
      for (let i = 0; i < CALLS; i++) {
        for (const which of i % 2 === 0 ? [0, 1] : [1, 0]) {
          const t = performance.now();
          if (which === 0) await ours(i);
          else await sdk(i);
          (which === 0 ? ta : tb).push(performance.now() - t);
        }
      }
      ratios.push(stats(ta).median / stats(tb).median);
      a.push(...ta);
      b.push(...tb);
    }
    const o = stats(a);
    const d = stats(b);
    const trialRatio = stats(ratios).median;
    return {
      ...ratioResult('mcp per-call overhead', `${RUNS} trials of ${CALLS} interleaved echo calls to the everything server (stdio): our tool source (validate, call, convert) vs the SDK Client directly; ratio = median of the trials' median ratios`, o, d, 1.2, {
        perCallUsOurs: Math.round(o.median * 1000),
        perCallUsSdk: Math.round(d.median * 1000),
        ratioOfPooledMedians: round(o.median / d.median),
      }),
      ratio: round(trialRatio),
      pass: trialRatio <= 1.2,
    };
  } finally {
    await direct.close().catch(() => undefined);
    await manager.dispose();
  }
}

async function toolListAssembly(): Promise<BenchResult> {
  const servers = Object.fromEntries(Array.from({ length: 10 }, (_, i) => [`srv${i}`, { command: process.execPath, args: [DYNAMIC_BIN], env: { EXTRA_TOOLS: '48' } }]));
  const layer = parseServerMap(servers, 'user', 'bench', { workspaceFolder: undefined, env: {} });
  const manager = new McpManager(layer, { startTimeoutMs: 60_000 });
  const tools = withMcpTools(createToolExecutor({ workspace: new NodeWorkspace(os.tmpdir()) }), manager);
  const signal = new AbortController().signal;
  try {
    await tools.prepareStep!(signal);
    const count = tools.definitions().filter((d) => d.name.startsWith('mcp__')).length;
    if (count !== 500) throw new Error(`expected 500 MCP tools, got ${count}`);
    const rebuilt: number[] = [];
    const steady: number[] = [];
    for (let i = 0; i < 200; i++) {
      // configure() with the same servers keeps them running but drops the cached list: the worst case of a step.
      manager.configure(layer);
      let t = performance.now();
      await tools.prepareStep!(signal);
      if (tools.definitions().length < 500) throw new Error('tools missing');
      rebuilt.push(performance.now() - t);
      t = performance.now();
      await tools.prepareStep!(signal);
      tools.definitions();
      steady.push(performance.now() - t);
    }
    const r = stats(rebuilt);
    const s = stats(steady);
    return {
      name: 'mcp tool list (10 servers × 50 tools)',
      measured: 'prepareStep + definitions() for one step with 500 MCP tools from 10 live stdio servers, after the list was invalidated (steady state in extra)',
      unit: 'ms',
      ours: round(r.median),
      baseline: null,
      ratio: null,
      target: '< 2 ms',
      pass: r.median < 2,
      min: round(r.min),
      max: round(r.max),
      extra: { steadyMedianMs: round(s.median), steadyMaxMs: round(s.max), tools: 500 },
    };
  } finally {
    await manager.dispose();
  }
}

function sdkOutOfActivation(): BenchResult {
  const file = path.resolve(__dirname, '..', 'dist', 'extension.js');
  if (!existsSync(file)) throw new Error('dist/extension.js is missing: build first (node esbuild.mjs)');
  const text = readFileSync(file, 'utf8');
  const leaked = /@modelcontextprotocol|StdioClientTransport|StreamableHTTPClientTransport|\bajv\b/.test(text);
  return {
    name: 'mcp: SDK not in dist/extension.js',
    measured: 'the MCP SDK, ajv and the manager are bundled in dist/core.js / dist/cli.js only (loaded on the first turn), never compiled at activation',
    unit: 'kB',
    ours: round(statSync(file).size / 1024),
    baseline: null,
    ratio: null,
    target: 'no MCP SDK code in the activation bundle',
    pass: !leaked,
  };
}

async function mcpBench(): Promise<BenchResult[]> {
  return [await perCallOverhead(), await toolListAssembly(), sdkOutOfActivation()];
}

module.exports = Object.assign(mcpBench, { default: mcpBench });
