// C1: replace older history with one summary message, keep the most recent
// messages, never split a tool_use/tool_result pair, and never nest summaries:
// a re-compaction folds the earlier summary into the new one. The model writes
// the summary when it can; a deterministic local summary is the fallback.
import { errorMessage, RuntimeError } from '../errors';
import { estimateTextTokens, historyChars } from './context-window';
import { toolUsesOf } from '../session/history';
import { cutHead } from '../text-cut';
import { type Message, type ModelClient, type Usage, type UserContentBlock } from '../types';

export const DEFAULT_KEEP_RECENT = 4;
export const COMPACT_ENV = 'TURNSTONE_AUTO_COMPACT_INPUT_TOKENS';

const OPEN = '<conversation_summary>';
const CLOSE = '</conversation_summary>';
/** The plan restated after a summary: the todo_write calls that held it may be summarised away. */
const PLAN_OPEN = '<current_plan>';
const PLAN_CLOSE = '</current_plan>';

/**
 * The absolute C1 threshold, when one is set: the environment wins over the
 * setting (contracts.md). Undefined means the share of the window applies
 * (autoCompactPercent, context-window.ts).
 */
export function autoCompactThreshold(setting: number | undefined, env: Record<string, string | undefined> = process.env): number | undefined {
  const raw = env[COMPACT_ENV];
  if (raw !== undefined && /^\d+$/.test(raw.trim()) && Number(raw) > 0) return Number(raw);
  if (setting !== undefined && Number.isFinite(setting) && setting > 0) return setting;
  return undefined;
}

export interface CompactionPlan {
  /** Messages to summarise (the earlier summary already taken out). */
  removed: Message[];
  kept: Message[];
  previousSummary: string | undefined;
}

/** Finds the earlier summary, if the history starts with one. */
export function extractSummary(messages: readonly Message[]): { summary: string | undefined; rest: Message[] } {
  const first = messages[0];
  const block = first?.role === 'user' ? first.content[0] : undefined;
  if (!first || !block || block.type !== 'text' || !block.text.startsWith(OPEN)) return { summary: undefined, rest: [...messages] };
  const summary = block.text.slice(OPEN.length, block.text.lastIndexOf(CLOSE)).trim();
  // The plan restated with it is as stale as the summary: the next compaction states the plan anew.
  const planBlock = first.content[1];
  const restated = planBlock?.type === 'text' && planBlock.text.startsWith(PLAN_OPEN) ? 2 : 1;
  const remaining = first.content.slice(restated) as UserContentBlock[];
  return { summary, rest: remaining.length > 0 ? [{ role: 'user', content: remaining }, ...messages.slice(1)] : messages.slice(1) };
}

/**
 * Undefined when there is nothing worth removing. `protectFrom` (an index of
 * `messages`): that message and those after it are always kept (what the model
 * has not seen yet).
 */
export function planCompaction(messages: readonly Message[], keepRecent = DEFAULT_KEEP_RECENT, protectFrom = messages.length): CompactionPlan | undefined {
  const { summary, rest } = extractSummary(messages);
  const shift = messages.length - rest.length;
  let split = Math.min(Math.max(0, rest.length - keepRecent), Math.max(0, protectFrom - shift));
  // Never start the kept part with tool results whose tool uses would be summarised away.
  while (split > 0 && rest[split]?.role === 'user' && rest[split]!.content.some((b) => b.type === 'tool_result')) split--;
  if (split > 0 && toolUsesOf(rest[split - 1]).length > 0) split--;
  if (split <= 0) return undefined;
  return { removed: rest.slice(0, split), kept: rest.slice(split), previousSummary: summary };
}

/**
 * Puts the summary (and the plan as it stands, when there is one) in front of
 * the kept messages without creating two user messages in a row.
 */
export function applySummary(summary: string, kept: readonly Message[], plan?: string): Message[] {
  const blocks: UserContentBlock[] = [{ type: 'text', text: `${OPEN}\n${summary.trim()}\n${CLOSE}` }];
  if (plan) blocks.push({ type: 'text', text: `${PLAN_OPEN}\n${plan}\n${PLAN_CLOSE}` });
  const first = kept[0];
  if (first?.role === 'user' && !first.content.some((b) => b.type === 'tool_result')) {
    return [{ role: 'user', content: [...blocks, ...first.content] }, ...kept.slice(1)];
  }
  return [{ role: 'user', content: blocks }, ...kept];
}

export function transcript(messages: readonly Message[], limitPerBlock = 2000): string {
  const cut = (s: string) => (s.length > limitPerBlock ? `${cutHead(s, limitPerBlock)}…` : s);
  const lines: string[] = [];
  for (const m of messages) {
    for (const b of m.content) {
      if (b.type === 'text') lines.push(`${m.role}: ${cut(b.text)}`);
      else if (b.type === 'tool_use') lines.push(`assistant used ${b.name} ${cut(JSON.stringify(b.input))}`);
      else if (b.type === 'tool_result') lines.push(`tool result${b.is_error ? ' (error)' : ''}: ${cut(b.content)}`);
      else if (b.type === 'image') lines.push(`${m.role}: [image ${b.width}×${b.height}]`);
    }
  }
  return lines.join('\n');
}

/** Deterministic: same history, same summary. Used when the model cannot summarise. */
export function localSummary(removed: readonly Message[], previous?: string): string {
  const prompts: string[] = [];
  const tools = new Map<string, number>();
  const files = new Set<string>();
  let lastAssistant = '';
  for (const m of removed) {
    for (const b of m.content) {
      if (m.role === 'user' && b.type === 'text') prompts.push(cutHead(b.text.replace(/\s+/g, ' '), 200));
      if (b.type === 'tool_use') {
        tools.set(b.name, (tools.get(b.name) ?? 0) + 1);
        if (typeof b.input.path === 'string') files.add(b.input.path);
      }
      if (m.role === 'assistant' && b.type === 'text') lastAssistant = cutHead(b.text.replace(/\s+/g, ' '), 400);
    }
  }
  const parts = [];
  if (previous) parts.push(previous);
  parts.push(`${removed.length} earlier messages were compacted.`);
  if (prompts.length) parts.push(`User requests:\n${prompts.map((p) => `- ${p}`).join('\n')}`);
  if (tools.size) parts.push(`Tools used: ${[...tools].map(([n, c]) => `${n}×${c}`).join(', ')}.`);
  if (files.size) parts.push(`Files involved: ${[...files].join(', ')}.`);
  if (lastAssistant) parts.push(`Last assistant reply: ${lastAssistant}`);
  return parts.join('\n');
}

const SUMMARY_SYSTEM =
  'You compress a coding-agent conversation so the work can continue. Write a concise summary: the user goals, decisions, files and commands involved, what was done, what remains. Plain text, no preamble.';

export interface CompactionOutcome {
  messages: Message[];
  removedMessageCount: number;
  summarySource: 'model' | 'local';
  /** Why the model summary was not used, when it was not. */
  fallbackReason?: string;
  /** What the summary request cost (C4: it is charged like any step). */
  usage?: Usage;
}

/** The most a summary may be (its request's max_tokens): removing less than this cannot free anything. */
export const SUMMARY_MAX_TOKENS = 2048;

export async function compactHistory(
  messages: readonly Message[],
  options: {
    keepRecent?: number;
    client?: ModelClient;
    model: string;
    signal: AbortSignal;
    /** Messages from this index on are kept whatever keepRecent says (see planCompaction). */
    protectFrom?: number;
    /** Summarise only when what goes is larger than this many (estimated) tokens: a summary must cost less than it removes. */
    minRemovedTokens?: number;
    /** The session's plan in words (planForModel), restated after the summary. */
    plan?: string;
  },
): Promise<CompactionOutcome | undefined> {
  const plan = planCompaction(messages, options.keepRecent, options.protectFrom);
  if (!plan) return undefined;
  if (options.minRemovedTokens !== undefined && estimateTextTokens(historyChars(plan.removed)) <= options.minRemovedTokens) return undefined;
  let summary: string | undefined;
  let fallbackReason: string | undefined;
  let usage: Usage | undefined;
  if (options.client) {
    try {
      const previous = plan.previousSummary ? `Summary of even earlier conversation:\n${plan.previousSummary}\n\n` : '';
      const response = await options.client.complete(
        {
          model: options.model,
          system: SUMMARY_SYSTEM,
          messages: [{ role: 'user', content: [{ type: 'text', text: `${previous}Conversation to summarise:\n${transcript(plan.removed)}` }] }],
          tools: [],
          maxTokens: SUMMARY_MAX_TOKENS,
          afterToolResults: false,
        },
        options.signal,
      );
      usage = response.usage;
      summary = response.content.map((b) => (b.type === 'text' ? b.text : '')).join('').trim() || undefined;
      if (!summary) fallbackReason = 'the model returned an empty summary';
    } catch (error) {
      if (options.signal.aborted) throw error;
      // A spend cap that leaves no room for the summary request: the local summary costs nothing.
      fallbackReason = error instanceof RuntimeError && error.kind === 'budget' ? 'a model summary could pass the spend cap' : errorMessage(error);
    }
  }
  const source = summary ? 'model' : 'local';
  const text = summary ?? localSummary(plan.removed, plan.previousSummary);
  return {
    messages: applySummary(text, plan.kept, options.plan),
    removedMessageCount: plan.removed.length,
    summarySource: source,
    ...(fallbackReason ? { fallbackReason } : {}),
    ...(usage ? { usage } : {}),
  };
}

export const HEALTH_PROBE_INPUT = { pattern: '**/*.turnstone-health-probe-§§-never-matches' } as const;
