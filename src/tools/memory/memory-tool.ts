// The `memory` tool (contracts.md "Memory"; Anthropic's memory_20250818 shape: `command` view | create |
// str_replace | insert | delete | rename over `/memories`). It is a tool source of its own beside the built-in
// ones, added by the turn factory (agent/turn-context.ts) when turnstone.memory.enabled is on, because its
// folder is the user's, not the workspace's: it never goes through the Workspace port or checkpoints.
//
// Permission: memory is Turnstone's own store outside the workspace, so its uses never ask. They are
// assessed as reads (need 'read') and the tool counts as read-only for the policy, which lets every command
// run in every mode, plan mode included: plan mode promises no change to the user's project, and notes in
// Turnstone's own folder are not one (as todo_write's plan is not), while remembering what was learnt while
// planning is what memory is for. A user's rule still applies (`memory` in permissions.deny turns it off,
// `memory(/memories/x)` in ask asks). Read-only also lets the loop run memory uses side by side; the store
// runs them one at a time.
import { z } from 'zod';
import { type ToolContext, type ToolDefinition, type ToolExecutor, ToolInputError, type ToolOutput, type ToolUseAssessment } from '../../runtime/types';
import { ToolError } from '../errors';
import { formatSize, MEMORY_LIMITS, MEMORY_ROOT, MemoryStore } from './memory-store';

export const MEMORY_TOOL = 'memory';
export const MEMORY_COMMANDS = ['view', 'create', 'str_replace', 'insert', 'delete', 'rename'] as const;
export type MemoryCommand = (typeof MEMORY_COMMANDS)[number];

const schema = z.object({
  command: z.enum(MEMORY_COMMANDS).describe('view | create | str_replace | insert | delete | rename'),
  path: z.string().min(1).max(1000).optional().describe(`A path under ${MEMORY_ROOT} (${MEMORY_ROOT} itself for the whole folder). Every command but rename.`),
  view_range: z.tuple([z.number().int(), z.number().int()]).optional().describe('view of a file: [first line, last line], 1-based; -1 as last means to the end.'),
  file_text: z.string().optional().describe('create: the content of the new file.'),
  old_str: z.string().optional().describe('str_replace: the exact text to replace; it must occur once in the file.'),
  new_str: z.string().optional().describe('str_replace: the text to put in its place (may be empty).'),
  insert_line: z.number().int().optional().describe('insert: the line after which to insert (0: at the start).'),
  insert_text: z.string().optional().describe('insert: the text to insert.'),
  old_path: z.string().min(1).max(1000).optional().describe('rename: the file or folder to move.'),
  new_path: z.string().min(1).max(1000).optional().describe('rename: where to move it.'),
});
export type MemoryInput = z.output<typeof schema>;

const DESCRIPTION = [
  `Your persistent memory for this workspace: a folder of plain text (Markdown) files, seen as ${MEMORY_ROOT}, that outlives this session. Later sessions start with no other recollection of this one.`,
  `Commands: view (a folder: its files and sizes two levels deep; a file: its numbered lines, view_range optional), create (a new file with file_text; fails if it exists), str_replace (old_str, unique in the file, becomes new_str), insert (insert_text after line insert_line, 0 for the top), delete (a file or folder), rename (old_path to new_path).`,
  'Keep notes short and organised by topic (e.g. /memories/project.md, /memories/decisions.md); update or delete notes that turn out wrong. Never store secrets (keys, tokens, passwords): such writes are refused.',
].join('\n');

const inputSchema = (() => {
  const json = z.toJSONSchema(schema, { io: 'input' }) as Record<string, unknown>;
  delete json.$schema;
  return json;
})();

function need<K extends keyof MemoryInput>(input: MemoryInput, key: K): NonNullable<MemoryInput[K]> {
  const value = input[key];
  if (value === undefined || value === null) throw new ToolInputError(`memory ${input.command} needs \`${String(key)}\``);
  return value as NonNullable<MemoryInput[K]>;
}

function parse(raw: Record<string, unknown>): MemoryInput {
  const result = schema.safeParse(raw);
  if (!result.success) throw new ToolInputError(`Invalid input for ${MEMORY_TOOL}:\n${z.prettifyError(result.error)}`);
  const input = result.data;
  // Each command's own inputs, checked before anything runs (a missing one is an input error the model can fix).
  switch (input.command) {
    case 'view':
    case 'delete':
      need(input, 'path');
      break;
    case 'create':
      need(input, 'path');
      need(input, 'file_text');
      break;
    case 'str_replace':
      need(input, 'path');
      need(input, 'old_str');
      need(input, 'new_str');
      break;
    case 'insert':
      need(input, 'path');
      need(input, 'insert_line');
      need(input, 'insert_text');
      break;
    case 'rename':
      need(input, 'old_path');
      need(input, 'new_path');
      break;
  }
  return input;
}

/** What rules match and the approval would show: the path (both, for a rename). */
function subjectOf(input: MemoryInput): string {
  return input.command === 'rename' ? `${input.old_path ?? ''} -> ${input.new_path ?? ''}` : (input.path ?? '');
}

export async function runMemoryCommand(store: MemoryStore, input: MemoryInput): Promise<string> {
  switch (input.command) {
    case 'view':
      return store.view(need(input, 'path'), input.view_range);
    case 'create':
      return store.create(need(input, 'path'), need(input, 'file_text'));
    case 'str_replace':
      return store.strReplace(need(input, 'path'), need(input, 'old_str'), need(input, 'new_str'));
    case 'insert':
      return store.insert(need(input, 'path'), need(input, 'insert_line'), need(input, 'insert_text'));
    case 'delete':
      return store.delete(need(input, 'path'));
    case 'rename':
      return store.rename(need(input, 'old_path'), need(input, 'new_path'));
  }
}

/** `base` with the memory tool added on top, its notes in `dir`. */
export function withMemoryTool(base: ToolExecutor, dir: string): ToolExecutor {
  const store = new MemoryStore(dir);
  const definition: ToolDefinition = { name: MEMORY_TOOL, description: DESCRIPTION, input_schema: inputSchema };
  let baseDefs: ToolDefinition[] | undefined;
  let merged: ToolDefinition[] = [];
  const mine = (name: string) => name === MEMORY_TOOL && base.isReadOnly(name) === undefined;
  return {
    definitions() {
      const b = base.definitions();
      if (b !== baseDefs) {
        baseDefs = b;
        merged = b.some((d) => d.name === MEMORY_TOOL) ? b : [...b, definition];
      }
      return merged;
    },
    isReadOnly(name) {
      return mine(name) ? true : base.isReadOnly(name);
    },
    async assess(name, input): Promise<ToolUseAssessment> {
      if (!mine(name)) return base.assess(name, input);
      return { need: 'read', subject: subjectOf(parse(input)) };
    },
    ...(base.preview ? { preview: base.preview.bind(base) } : {}),
    async execute(name, input, ctx: ToolContext): Promise<ToolOutput> {
      if (!mine(name)) return base.execute(name, input, ctx);
      const parsed = parse(input);
      try {
        return { content: await runMemoryCommand(store, parsed), isError: false };
      } catch (error) {
        if (error instanceof ToolError) return { content: error.message, isError: true };
        const code = (error as NodeJS.ErrnoException).code;
        if (code) return { content: `memory ${parsed.command} failed: ${(error as Error).message}`, isError: true };
        throw error;
      }
    },
    ...(base.prepareStep ? { prepareStep: base.prepareStep.bind(base) } : {}),
  };
}

/** The memory files as a short text (the CLI's `/memory`): the folder, then each file with its size. */
export async function memoryListing(dir: string | undefined): Promise<string> {
  if (!dir) return 'Memory is turned off (turnstone.memory.enabled is false).\n';
  const files = (await new MemoryStore(dir).entries(MEMORY_ROOT, MEMORY_LIMITS.maxDepth).catch(() => [])).filter((e) => !e.directory);
  if (files.length === 0) return `No memory files yet (${dir}).\n`;
  const lines = files.map((f) => `- ${f.path.slice(MEMORY_ROOT.length + 1)} (${formatSize(f.size)})`);
  return `${files.length} memory file${files.length === 1 ? '' : 's'} in ${dir}:\n${lines.join('\n')}\n`;
}
