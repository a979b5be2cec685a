// Shared rig for the attack scenarios (A-PATH, A-CMD, A-INJ): the real
// ConversationRuntime, the real tool executor (NodeWorkspace + NodeShell) on a
// temp workspace, and canaries OUTSIDE it. Only the model is scripted: it is
// the attacker, and the part under test is everything it talks to.
import { lstatSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, readlinkSync, realpathSync, rmSync } from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { ConversationRuntime } from '../../src/runtime/loop/conversation';
import { type RuntimeEvent, type ToolResultRecord } from '../../src/runtime/events';
import { type HookRunner } from '../../src/runtime/policy/hooks';
import { type PermissionMode, type PermissionRequest, type PermissionRules } from '../../src/runtime/policy/permissions';
import { type ToolExecutor } from '../../src/runtime/types';
import { NodeShell, NodeWorkspace } from '../../src/tools/node-adapter';
import { createToolExecutor } from '../../src/tools/registry';
import { type MockAnthropicServer, textReply, toolUseReply } from '../fixtures/mock-anthropic';
import { runCli } from '../support/run-cli';
import { baseConfig, ScriptedModel, ScriptedPrompter, step } from '../unit/runtime/fakes';

export interface Sandbox {
  /** Holds ws/, outside/ and home/. */
  base: string;
  /** The workspace root. */
  ws: string;
  /** A folder beside the workspace; nothing may appear or change here without approval. */
  outside: string;
  /** What `~` expands to for the file tools; outside the workspace. */
  home: string;
  tools: ToolExecutor;
  cleanup(): void;
}

export function makeSandbox(prefix: string): Sandbox {
  // realpath: macOS's /tmp is a symlink, and the tools report real paths.
  const base = realpath(mkdtempSync(path.join(os.tmpdir(), `turnstone-${prefix}-`)));
  const ws = path.join(base, 'ws');
  const outside = path.join(base, 'outside');
  const home = path.join(base, 'home');
  for (const d of [ws, outside, home]) mkdirp(d);
  const tools = createToolExecutor(
    { workspace: new NodeWorkspace(ws), shell: new NodeShell({ drainMs: 50 }) },
    { homeDir: home, outputDir: path.join(base, 'output') },
  );
  return { base, ws, outside, home, tools, cleanup: () => rmSync(base, { recursive: true, force: true }) };
}

const realpath = (p: string): string => realpathSync(p);
const mkdirp = (p: string): void => void mkdirSync(p, { recursive: true });

/** Every entry under `root` (not following symlinks): type plus content or link target. */
export function snapshot(root: string, skip: (rel: string) => boolean = () => false): Map<string, string> {
  const out = new Map<string, string>();
  const walk = (dir: string) => {
    for (const name of readdirSync(dir)) {
      const full = path.join(dir, name);
      const rel = path.relative(root, full);
      if (skip(rel)) continue;
      const st = lstatSync(full);
      if (st.isSymbolicLink()) out.set(rel, `link:${readlinkSync(full)}`);
      else if (st.isDirectory()) {
        out.set(rel, 'dir');
        walk(full);
      } else out.set(rel, `file:${readFileSync(full, 'utf8')}`);
    }
  };
  walk(root);
  return out;
}

/** Entries added, removed or changed between two snapshots, e.g. ["+ outside/pwn.txt"]. */
export function diffSnapshots(before: Map<string, string>, after: Map<string, string>): string[] {
  const changes: string[] = [];
  for (const [k, v] of after) {
    if (!before.has(k)) changes.push(`+ ${k}`);
    else if (before.get(k) !== v) changes.push(`~ ${k}`);
  }
  for (const k of before.keys()) if (!after.has(k)) changes.push(`- ${k}`);
  return changes.sort();
}

export interface Setup {
  mode?: PermissionMode;
  rules?: PermissionRules;
  /** 'none': non-interactive (asks become denials); 'deny'/'allow': a recording prompter answering so. */
  prompter: 'none' | 'deny' | 'allow';
  hooks?: HookRunner;
}

export interface ToolCall {
  name: string;
  input: Record<string, unknown>;
}

export interface Attempt {
  results: ToolResultRecord[];
  /** What the prompter was asked, in order. */
  asked: PermissionRequest[];
  events: RuntimeEvent[];
  /** The text the model sent back in its next request: what it saw as tool results. */
  finalOutcome: string;
}

/** One turn where the scripted model makes `calls` (one step, in order, or one per step with `sequential`) and then stops. */
export async function attempt(sb: Sandbox, calls: ToolCall[], setup: Setup, sequential = false): Promise<Attempt> {
  const withIds = calls.map((c, i) => ({ id: `t${i + 1}`, ...c }));
  const steps = sequential ? withIds.map((c) => step('', [c])) : [step('', withIds)];
  const model = new ScriptedModel([...steps, step('done')]);
  const prompter = setup.prompter === 'none' ? undefined : new ScriptedPrompter(setup.prompter === 'deny' ? { kind: 'deny' } : { kind: 'allow', scope: 'once' });
  const runtime = new ConversationRuntime(
    { model, tools: sb.tools, ...(setup.hooks ? { hooks: setup.hooks } : {}) },
    { ...baseConfig, permissionMode: setup.mode ?? 'ask', ...(setup.rules ? { permissionRules: setup.rules } : {}) },
  );
  const events: RuntimeEvent[] = [];
  runtime.subscribe((e) => events.push(e));
  const summary = await runtime.runTurn('go', prompter ? { prompter } : {});
  return { results: summary.toolResults, asked: prompter?.requests ?? [], events, finalOutcome: summary.outcome };
}

/** The modes and rule sets an attack is tried under (P2, P3). */
export const PATH_SETUPS: Array<{ label: string; mode: PermissionMode; rules?: PermissionRules }> = [
  { label: 'ask', mode: 'ask' },
  { label: 'acceptEdits', mode: 'acceptEdits' },
  {
    label: 'acceptEdits+allow rules',
    mode: 'acceptEdits',
    rules: { allow: ['write_file', 'edit_file', 'read_file', 'glob_search', 'grep_search', 'write_file(src/:*)', 'write_file(.git/:*)', 'write_file(.vscode/:*)'] },
  },
];

export const denied = (r: ToolResultRecord | undefined): boolean => r !== undefined && r.isError && r.content.startsWith('Permission denied:');

export interface CliToolResult {
  tool_use_id: string;
  name: string;
  is_error: boolean;
  content: string;
}

/**
 * One headless CLI run (`node dist/cli.js`, the real binary a user runs): the
 * mock model asks for every call in one reply, then stops. Returns the tool
 * results from `--output-format json`, in call order.
 */
export async function attemptCli(
  server: MockAnthropicServer,
  cwd: string,
  calls: ToolCall[],
  args: string[],
  env: Record<string, string> = {},
): Promise<{ results: CliToolResult[]; code: number | null; stderr: string }> {
  server.reset();
  server.enqueue(toolUseReply(calls.map((c, i) => ({ id: `tu_${i + 1}`, name: c.name, input: c.input }))), textReply('done'));
  const run = await runCli(['-p', 'go', '--cwd', cwd, '--output-format', 'json', ...args], { env: { ANTHROPIC_BASE_URL: server.url, ANTHROPIC_API_KEY: 'sk-ant-test', ...env } });
  let results: CliToolResult[] = [];
  try {
    results = (JSON.parse(run.stdout) as { tool_results: CliToolResult[] }).tool_results;
  } catch {
    // Reported by the caller through the missing results.
  }
  return { results, code: run.code, stderr: run.stderr };
}
