// Host-side helpers that turn a tool use into the card the panel shows, so the
// host's event mapping stays a few lines per event. Pure: no vscode, no DOM.
import { FILE_HEADERS_ONLY, formatPatch } from 'diff';
import { countHunkLines, patchHunks } from '../runtime/line-diff';
import { type ToolView } from './protocol';

/** Diffs above this size are summarised (counts only): the card must stay cheap to render. */
const MAX_DIFF_CHARS = 200_000;
/** An MCP tool's input and output as the card keeps them (the whole result is in the session). */
export const MAX_MCP_CHARS = 100_000;

const str = (v: unknown): string | undefined => (typeof v === 'string' ? v : undefined);
const int = (v: unknown): number | undefined => (typeof v === 'number' && Number.isInteger(v) && v >= 0 ? v : undefined);
const MEMORY_COMMANDS = ['view', 'create', 'str_replace', 'insert', 'delete', 'rename'] as const;
const clip = (s: string, max = 2_000) => (s.length > max ? `${s.slice(0, max - 1)}…` : s);

/** The card for a tool use as soon as its input is complete (status is set by the caller). */
export function toolViewFromInput(name: string, input: Record<string, unknown>): ToolView {
  switch (name) {
    case 'read_file':
      return { kind: 'read', path: clip(str(input.path) ?? '?'), ...opt('offset', int(input.offset)), ...opt('limit', int(input.limit)) };
    case 'write_file': {
      const content = str(input.content) ?? '';
      return { kind: 'edit', path: clip(str(input.path) ?? '?'), added: countLines(content), removed: 0 };
    }
    case 'edit_file': {
      const before = str(input.old_string) ?? '';
      const after = str(input.new_string) ?? '';
      return { kind: 'edit', path: clip(str(input.path) ?? '?'), ...diffStats(before, after) };
    }
    case 'bash':
      return { kind: 'bash', command: clip(str(input.command) ?? '', 100_000), ...opt('description', str(input.description) && clip(str(input.description)!)) };
    case 'glob_search':
    case 'grep_search':
      return {
        kind: 'search',
        mode: name === 'glob_search' ? 'glob' : 'grep',
        pattern: clip(str(input.pattern) ?? ''),
        ...opt('path', str(input.path) && clip(str(input.path)!)),
      };
    case 'todo_write': {
      // The plan itself is pinned above the composer; the card says how far it was when written.
      const todos = Array.isArray(input.todos) ? (input.todos as Array<Record<string, unknown>>) : [];
      const done = todos.filter((todo) => todo?.status === 'completed').length;
      const active = todos.find((todo) => todo?.status === 'in_progress');
      return { kind: 'other', summary: clip(`${done}/${todos.length}${str(active?.content) ? ` · ${str(active?.content)}` : ''}`) };
    }
    case 'web_fetch':
      return { kind: 'fetch', url: clip(str(input.url) ?? '') };
    case 'browser': {
      const action = clip(str(input.action) ?? '?', 40);
      const num = (v: unknown) => (typeof v === 'number' && Number.isFinite(v) ? Math.round(v) : undefined);
      const point = num(input.x) !== undefined || num(input.y) !== undefined ? `${num(input.x) ?? 0}, ${num(input.y) ?? 0}` : undefined;
      const target = str(input.selector) ?? str(input.key) ?? (action === 'type' ? str(input.text) : undefined) ?? point;
      return { kind: 'browser', action, ...opt('url', str(input.url) && clip(str(input.url)!)), ...opt('target', target && clip(target, 200)) };
    }
    case 'memory': {
      const command = MEMORY_COMMANDS.find((c) => c === input.command) ?? 'view';
      const path = command === 'rename' ? `${str(input.old_path) ?? '?'} → ${str(input.new_path) ?? '?'}` : (str(input.path) ?? '/memories');
      return { kind: 'memory', command, path: clip(path) };
    }
    case 'agent':
      return { kind: 'agent', agent: clip(str(input.agent)?.trim() || 'explore', 200), description: clip(str(input.description) ?? '') };
    default: {
      // MCP tools (mcp__<server>__<tool>): the card names the server and the tool, and shows the input whole.
      const mcp = /^mcp__(.+?)__(.+)$/.exec(name);
      if (mcp) return { kind: 'mcp', server: clip(mcp[1]!), tool: clip(mcp[2]!), input: clip(JSON.stringify(input, null, 2) ?? '{}', MAX_MCP_CHARS) };
      return { kind: 'other', summary: clip(otherSummary(input)) };
    }
  }
}

/** The page's URL after a browser action, from the `URL: …` line of its result (index.ts `report`). */
export function browserPageUrl(result: string): string | undefined {
  const url = /^URL: (\S+)$/m.exec(result)?.[1];
  return url ? clip(url) : undefined;
}

/**
 * +/- line counts and a unified diff for a file change (C5 FileChange: null = absent).
 * Use with the runtime's FileChange: `{ kind: 'edit', path, ...diffStats(before, after) }`.
 */
export function diffStats(before: string | null, after: string | null, path = 'file'): { added: number; removed: number; created?: boolean; diff?: string } {
  const hunks = patchHunks(before ?? '', after ?? '', 3);
  // Counted as the CLI's json `changes` counts (runtime/line-diff.ts): the hunks' lines, never the headers.
  const { added, removed } = countHunkLines({ hunks });
  const body = formatPatch({ oldFileName: `a/${path}`, newFileName: `b/${path}`, oldHeader: undefined, newHeader: undefined, hunks }, FILE_HEADERS_ONLY);
  return {
    added,
    removed,
    ...(before === null && after !== null ? { created: true } : {}),
    ...(body.length <= MAX_DIFF_CHARS && (added || removed) ? { diff: body } : {}),
  };
}

function countLines(s: string): number {
  if (s === '') return 0;
  return s.split('\n').length - (s.endsWith('\n') ? 1 : 0);
}

function opt<K extends string, V>(key: K, value: V | undefined | '' | false): Partial<Record<K, V>> {
  return value === undefined || value === '' || value === false ? {} : ({ [key]: value } as Record<K, V>);
}

/**
 * Issue 47 item 9: a tool without a card of its own is titled by its description, else its plain values
 * (`{"id":"bash_1"}` → "bash_1"), never raw JSON.
 */
function otherSummary(input: Record<string, unknown>): string {
  const description = typeof input.description === 'string' ? input.description.trim() : '';
  if (description) return description;
  const values = Object.values(input).flatMap((v) => (typeof v === 'string' ? [v.trim()] : typeof v === 'number' || typeof v === 'boolean' ? [String(v)] : []));
  return values.filter(Boolean).join(' · ');
}
