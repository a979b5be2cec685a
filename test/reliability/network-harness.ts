// Shared wiring for the network-fault scenarios (F-NET-*): the real
// AnthropicModelClient against the local mock API, the real ConversationRuntime
// with the real Node tools on a temporary workspace, a JSONL session file, and
// the real CLI process. Nothing here stands in for the part under test.
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { ConversationRuntime, type ConversationPorts } from '../../src/runtime/loop/conversation';
import { type RuntimeEvent } from '../../src/runtime/events';
import { historyProblem } from '../../src/runtime/session/history';
import { AnthropicModelClient } from '../../src/runtime/providers/anthropic';
import { type AnthropicClientOptions } from '../../src/runtime/providers/options';
import { JsonlSessionStore, loadSession } from '../../src/runtime/session/session';
import { type Message } from '../../src/runtime/types';
import { NodeShell, NodeWorkspace } from '../../src/tools/node-adapter';
import { createToolExecutor } from '../../src/tools/registry';
import { type MockAnthropicServer } from '../fixtures/mock-anthropic';

/** A temporary workspace with a session folder; `dispose()` removes both. */
export class TempWorkspace {
  readonly root = mkdtempSync(path.join(os.tmpdir(), 'turnstone-net-'));
  readonly ws = path.join(this.root, 'ws');
  readonly sessions = path.join(this.root, 'sessions');
  private counter = 0;

  constructor() {
    mkdirSync(this.ws);
    mkdirSync(this.sessions);
  }

  /** A fresh session file path (not created). */
  sessionPath(): string {
    return path.join(this.sessions, `s${++this.counter}.jsonl`);
  }

  file(name: string): string {
    return path.join(this.ws, name);
  }

  /** Lines of a workspace file (empty when it does not exist): how tool side effects are counted. */
  lines(name: string): string[] {
    const p = this.file(name);
    if (!existsSync(p)) return [];
    return readFileSync(p, 'utf8').split('\n').filter((l) => l !== '');
  }

  reset(name: string): void {
    writeFileSync(this.file(name), '');
  }

  dispose(): void {
    rmSync(this.root, { recursive: true, force: true });
  }
}

export interface RuntimeRig {
  runtime: ConversationRuntime;
  client: AnthropicModelClient;
  store: JsonlSessionStore;
  sessionFile: string;
  events: RuntimeEvent[];
}

/** The real client (retries without waiting unless told), runtime, Node tools and a JSONL session, as src/cli.ts wires them. */
export function makeRig(
  mock: Pick<MockAnthropicServer, 'url'>,
  tmp: TempWorkspace,
  opts: { client?: AnthropicClientOptions; sessionFile?: string; resume?: Message[]; ports?: Partial<ConversationPorts>; apiKey?: string } = {},
): RuntimeRig {
  const client = new AnthropicModelClient({
    baseURL: mock.url,
    apiKey: opts.apiKey ?? 'sk-test-reliability',
    ...opts.client,
    retry: { baseDelayMs: 0, ...opts.client?.retry },
  });
  const tools = createToolExecutor({ workspace: new NodeWorkspace(tmp.ws), shell: new NodeShell({ drainMs: 20 }) }, { outputDir: path.join(tmp.root, 'out') });
  const sessionFile = opts.sessionFile ?? tmp.sessionPath();
  const store = JsonlSessionStore.open(sessionFile);
  const runtime = new ConversationRuntime(
    { model: client, tools, session: store, ...opts.ports },
    { model: 'claude-sonnet-5-5', systemPrompt: 'You are a test.', permissionMode: 'bypassPermissions' },
    { messages: opts.resume ?? [] },
  );
  const events: RuntimeEvent[] = [];
  runtime.subscribe((e) => events.push(e));
  return { runtime, client, store, sessionFile, events };
}

/**
 * What a UI showed per step: text deltas since the step started, withdrawn on
 * step_discarded. Returns the text left standing for each step, in order.
 */
export function shownTextPerStep(events: readonly RuntimeEvent[]): string[] {
  const steps: string[] = [];
  for (const e of events) {
    if (e.type === 'step_started') steps.push('');
    else if (e.type === 'text_delta' && steps.length > 0) steps[steps.length - 1] += e.text;
    else if (e.type === 'step_discarded' && steps.length > 0) steps[steps.length - 1] = '';
  }
  return steps;
}

export const textOf = (m: Message): string => m.content.map((b) => (b.type === 'text' ? b.text : '')).join('');

/** Problems with the history in memory and as reloaded from the session file; empty when both are valid and equal. */
export async function sessionProblems(rig: RuntimeRig): Promise<string[]> {
  await rig.store.flush();
  const problems: string[] = [];
  const live = historyProblem(rig.runtime.messages);
  if (live) problems.push(`live history: ${live}`);
  const loaded = await loadSession(rig.sessionFile);
  const reloaded = historyProblem(loaded.messages);
  if (reloaded) problems.push(`reloaded history: ${reloaded}`);
  if (JSON.stringify(loaded.messages) !== JSON.stringify(rig.runtime.messages)) problems.push('the session file reloads to a different history');
  if (loaded.warnings.length > 0) problems.push(`session warnings: ${loaded.warnings.join('; ')}`);
  return problems;
}

