// Scripted fakes of the runtime's ports. No live service, no timers: tests
// control ordering with deferred promises instead of sleeps.
import { type RuntimeEvent } from '../../../src/runtime/events';
import { type HookEventName, type HookPayload, type HookResult, type HookRunner } from '../../../src/runtime/policy/hooks';
import { type PermissionDecision, type PermissionPrompter, type PermissionRequest } from '../../../src/runtime/policy/permissions';
import {
  type AssistantEvent,
  type ModelClient,
  type ModelRequest,
  type ModelResponse,
  type PermissionNeed,
  type ToolContext,
  type ToolDefinition,
  type ToolExecutor,
  type ToolOutput,
  type ToolUseAssessment,
  type Usage,
} from '../../../src/runtime/types';

export interface Deferred<T> {
  promise: Promise<T>;
  resolve: (value: T) => void;
  reject: (error: unknown) => void;
}

export function deferred<T = void>(): Deferred<T> {
  let resolve!: (value: T) => void;
  let reject!: (error: unknown) => void;
  const promise = new Promise<T>((res, rej) => {
    resolve = res;
    reject = rej;
  });
  return { promise, resolve, reject };
}

export const usage = (input: number, output = 10, cacheRead = 0, cacheWrite = 0): Usage => ({
  input_tokens: input,
  output_tokens: output,
  cache_read_input_tokens: cacheRead,
  cache_creation_input_tokens: cacheWrite,
});

/** One step's events: optional text, then tool uses, usage, message_stop. */
export function step(text: string, tools: Array<{ id: string; name: string; input?: Record<string, unknown>; json?: string }> = [], u: Usage = usage(100)): AssistantEvent[] {
  const events: AssistantEvent[] = [];
  if (text) events.push({ type: 'text_delta', text });
  for (const t of tools) {
    events.push({ type: 'tool_use_start', id: t.id, name: t.name });
    events.push({ type: 'tool_use', id: t.id, name: t.name, inputJson: t.json ?? JSON.stringify(t.input ?? {}) });
  }
  events.push({ type: 'usage', usage: u });
  events.push({ type: 'message_stop', stopReason: tools.length ? 'tool_use' : 'end_turn' });
  return events;
}

export type StepScript = AssistantEvent[] | Error | ((request: ModelRequest, signal: AbortSignal) => AsyncIterable<AssistantEvent>);

export class ScriptedModel implements ModelClient {
  readonly requests: ModelRequest[] = [];
  readonly completeRequests: ModelRequest[] = [];
  completeResult: ModelResponse | Error = { content: [{ type: 'text', text: 'MODEL SUMMARY' }], usage: usage(10), stopReason: 'end_turn' };

  constructor(private readonly script: StepScript[]) {}

  /** Steps still unused: lets a test assert the loop made exactly the requests it should. */
  get remaining(): number {
    return this.script.length;
  }

  push(...steps: StepScript[]): void {
    this.script.push(...steps);
  }

  stream(request: ModelRequest, signal: AbortSignal): AsyncIterable<AssistantEvent> {
    this.requests.push(structuredClone(request));
    const next = this.script.shift();
    if (next === undefined) throw new Error(`ScriptedModel: no step scripted for request ${this.requests.length}`);
    if (next instanceof Error) throw next;
    if (typeof next === 'function') return next(request, signal);
    return (async function* () {
      for (const e of next) yield e;
    })();
  }

  async complete(request: ModelRequest): Promise<ModelResponse> {
    this.completeRequests.push(structuredClone(request));
    if (this.completeResult instanceof Error) throw this.completeResult;
    return this.completeResult;
  }
}

export interface FakeTool {
  readOnly: boolean;
  need?: PermissionNeed;
  subjectKey?: string;
  assess?: (input: Record<string, unknown>) => Partial<ToolUseAssessment>;
  run?: (input: Record<string, unknown>, ctx: ToolContext) => Promise<ToolOutput> | ToolOutput;
}

export class FakeTools implements ToolExecutor {
  readonly calls: Array<{ name: string; input: Record<string, unknown> }> = [];
  readonly log: string[] = [];

  constructor(readonly tools: Record<string, FakeTool>) {}

  definitions(): ToolDefinition[] {
    return Object.keys(this.tools).map((name) => ({ name, description: name, input_schema: { type: 'object' } }));
  }

  isReadOnly(name: string): boolean | undefined {
    return this.tools[name]?.readOnly;
  }

  async assess(name: string, input: Record<string, unknown>): Promise<ToolUseAssessment> {
    const tool = this.tools[name]!;
    const key = tool.subjectKey ?? 'path';
    return { need: tool.need ?? (tool.readOnly ? 'read' : 'edit'), subject: String(input[key] ?? ''), ...(tool.assess?.(input) ?? {}) };
  }

  async execute(name: string, input: Record<string, unknown>, ctx: ToolContext): Promise<ToolOutput> {
    this.calls.push({ name, input });
    this.log.push(`start ${name}`);
    try {
      const run = this.tools[name]!.run;
      return run ? await run(input, ctx) : { content: `${name} ok`, isError: false };
    } finally {
      this.log.push(`end ${name}`);
    }
  }
}

/** A file-system-like tool set over an in-memory map: read_file, edit_file, write_file, bash, glob_search. */
export function memoryTools(files: Record<string, string> = {}): FakeTools {
  const fs = new Map(Object.entries(files));
  return new FakeTools({
    read_file: {
      readOnly: true,
      run: (input) => {
        const text = fs.get(String(input.path));
        return text === undefined ? { content: `no such file: ${String(input.path)}`, isError: true } : { content: text, isError: false };
      },
    },
    edit_file: {
      readOnly: false,
      need: 'edit',
      run: (input) => {
        const path = String(input.path);
        const before = fs.get(path) ?? null;
        if (before === null || !before.includes(String(input.old_string))) return { content: 'old_string not found', isError: true };
        const after = before.replace(String(input.old_string), String(input.new_string));
        fs.set(path, after);
        return { content: `edited ${path}`, isError: false, fileChange: { path, before, after } };
      },
    },
    write_file: {
      readOnly: false,
      need: 'edit',
      run: (input) => {
        const path = String(input.path);
        const before = fs.get(path) ?? null;
        fs.set(path, String(input.content));
        return { content: `wrote ${path}`, isError: false, fileChange: { path, before, after: String(input.content) } };
      },
    },
    bash: { readOnly: false, need: 'command', subjectKey: 'command', run: (input) => ({ content: `ran ${String(input.command)}`, isError: false }) },
    glob_search: { readOnly: true, subjectKey: 'pattern', run: () => ({ content: 'No files found', isError: false }) },
  });
}

export class ScriptedHooks implements HookRunner {
  readonly calls: Array<{ event: HookEventName; payload: HookPayload }> = [];
  constructor(private readonly handlers: Partial<Record<HookEventName, (payload: HookPayload, signal: AbortSignal) => Promise<HookResult> | HookResult>> = {}) {}

  async run(event: HookEventName, payload: HookPayload, signal: AbortSignal): Promise<HookResult> {
    this.calls.push({ event, payload });
    const handler = this.handlers[event];
    return handler ? handler(payload, signal) : { outcome: 'ok', messages: [] };
  }
}

export class ScriptedPrompter implements PermissionPrompter {
  readonly requests: PermissionRequest[] = [];
  constructor(private readonly answer: PermissionDecision | ((req: PermissionRequest, signal: AbortSignal) => Promise<PermissionDecision>)) {}

  async request(req: PermissionRequest, signal: AbortSignal): Promise<PermissionDecision> {
    this.requests.push(req);
    return typeof this.answer === 'function' ? this.answer(req, signal) : this.answer;
  }
}

export function recordEvents(runtime: { subscribe(l: (e: RuntimeEvent) => void): () => void }): RuntimeEvent[] {
  const events: RuntimeEvent[] = [];
  runtime.subscribe((e) => events.push(e));
  return events;
}

export const fixedClock = () => {
  let t = 1_000;
  return { now: () => (t += 5) };
};

/**
 * A prompt of about 3 000 tokens: compaction summarises only what is larger than a summary can be
 * (issue 26), so tests of summaries need turns of a real size.
 */
export const long = (tag: string): string => `${tag} ${'lorem ipsum dolor '.repeat(670)}`;

export const baseConfig = { model: 'claude-sonnet-5-5', systemPrompt: 'You are a test agent.', env: {} as Record<string, string | undefined> };
