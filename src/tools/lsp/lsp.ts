// The `lsp` tool: code navigation through the editor's own language features
// (offered only where a host provides CodeNavigation: VS Code, not the CLI).
// The model names a symbol on a line; the tool finds its column, asks the
// providers, and answers with workspace-relative places and one line of each.
// Places outside the workspace or in secret files are named, never shown.
import { z } from 'zod';
import { ToolError } from '../errors';
import { assessPath } from '../files/file-common';
import { type CodeNavigation, type CodeSymbol, type SourceLocation } from '../language-ports';
import {
  MAX_LOCATIONS,
  MAX_SYMBOLS,
  type ShownLocation,
  formatHover,
  formatLocations,
  formatSymbols,
  resolveSymbolOnLine,
} from './lsp-format';
import { type ToolEnv, defineTool } from '../tool';

const OPERATIONS = ['definition', 'references', 'hover', 'document_symbols', 'workspace_symbols', 'implementation'] as const;

const schema = z
  .object({
    operation: z.enum(OPERATIONS).describe('What to ask the language server.'),
    path: z.string().min(1).optional().describe('File (relative to the workspace root, or absolute): for every operation but workspace_symbols.'),
    line: z.number().int().min(1).optional().describe('1-based line of the symbol (as read_file numbers lines): for definition, references, hover, implementation.'),
    symbol: z.string().min(1).optional().describe('The name on that line to ask about, e.g. "parseConfig" (no column needed): for definition, references, hover, implementation.'),
    query: z.string().optional().describe('For workspace_symbols: (part of) the name to look for.'),
  })
  .superRefine((v, ctx) => {
    const need = (field: 'path' | 'line' | 'symbol' | 'query') => {
      if (v[field] === undefined) ctx.addIssue({ code: 'custom', path: [field], message: `${v.operation} needs ${field}` });
    };
    if (v.operation === 'workspace_symbols') need('query');
    else if (v.operation === 'document_symbols') need('path');
    else for (const f of ['path', 'line', 'symbol'] as const) need(f);
  });
type Input = z.output<typeof schema>;

function navigationOf(env: ToolEnv): CodeNavigation {
  if (!env.navigation) throw new ToolError('unavailable', 'The lsp tool needs the editor\'s language features, which this host does not have.');
  return env.navigation;
}

/** Where each location is shown from: names and lines, the text only for files in the workspace that are not secret. */
async function showLocations(locations: readonly SourceLocation[], env: ToolEnv): Promise<ShownLocation[]> {
  const nav = navigationOf(env);
  const shown: ShownLocation[] = [];
  const wanted = new Map<string, { lines: number[]; slots: ShownLocation[] }>();
  for (const loc of locations) {
    if (!loc.isFile) {
      shown.push({ display: loc.path, line: loc.line, column: loc.column, withheld: 'not a file in the workspace' });
      continue;
    }
    const resolved = await env.paths.resolve(loc.path);
    const where: ShownLocation = { display: resolved.display, line: loc.line, column: loc.column };
    shown.push(where);
    if (!resolved.root) where.withheld = 'outside the workspace';
    else if (env.sensitiveFile(resolved.display)) where.withheld = 'may hold secrets; read it with read_file to see it';
    else {
      const entry = wanted.get(loc.path) ?? { lines: [], slots: [] };
      entry.lines.push(loc.line);
      entry.slots.push(where);
      wanted.set(loc.path, entry);
    }
  }
  for (const [file, entry] of wanted) {
    const text = await nav.lines(file, entry.lines);
    for (const slot of entry.slots) {
      const line = text.get(slot.line);
      if (line !== undefined) slot.context = line;
    }
  }
  return shown;
}

async function symbolList(title: string, symbols: readonly CodeSymbol[], env: ToolEnv, withPath: boolean): Promise<string> {
  const kept = symbols.slice(0, MAX_SYMBOLS);
  const places = await showLocations(kept.map((s) => s.location), env);
  return formatSymbols(title, kept.map((symbol, i) => ({ symbol, where: places[i]! })), symbols.length, withPath);
}

async function fileOf(input: Input, env: ToolEnv) {
  const resolved = await env.paths.resolve(input.path!);
  env.paths.assertUnchanged(resolved, 'read');
  const stat = await env.workspace.stat(resolved.real);
  if (!stat) throw new ToolError('not_found', `File does not exist: ${resolved.display}`);
  if (stat.type !== 'file') throw new ToolError('not_a_file', `${resolved.display} is not a file.`);
  return resolved;
}

export const lspTool = defineTool({
  name: 'lsp',
  description: [
    "Code navigation through the editor's language servers (the same as Go to Definition, Find All References, hover, the outline and Go to Symbol in Workspace).",
    'definition, references, hover, implementation: give path, line (1-based) and symbol, the name on that line to ask about; no column is needed.',
    'document_symbols: give path; lists the outline of the file. workspace_symbols: give query; finds symbols by name across the workspace.',
    'Results are workspace-relative file:line:column places with the text of that line, capped at 50 places (200 symbols). Prefer it to grep_search for finding where a symbol is defined or used.',
  ].join('\n'),
  schema,
  readOnly: true,
  need: 'read',
  async assess(input, env) {
    if (input.operation === 'workspace_symbols') return { need: 'read', subject: input.query ?? '' };
    return assessPath(await env.paths.resolve(input.path!), 'read', env);
  },
  async execute(input, env, ctx) {
    const nav = navigationOf(env);
    if (input.operation === 'workspace_symbols') {
      const found = await nav.workspaceSymbols(input.query!, ctx.signal);
      return { content: await symbolList(`Symbols matching "${input.query}"`, found, env, true), isError: false, counts: { matches: found.length } };
    }
    const resolved = await fileOf(input, env);
    if (input.operation === 'document_symbols') {
      const found = await nav.documentSymbols(resolved.real, ctx.signal);
      return { content: await symbolList(`Symbols in ${resolved.display}`, found, env, false), isError: false, counts: { matches: found.length } };
    }
    const line = input.line!;
    const text = (await nav.lines(resolved.real, [line])).get(line);
    if (text === undefined) throw new ToolError('out_of_range', `${resolved.display} has no line ${line}.`);
    const position = resolveSymbolOnLine(text, line, input.symbol!, resolved.display);
    if (input.operation === 'hover') {
      return { content: formatHover(resolved.display, position, await nav.hover(resolved.real, position, ctx.signal)), isError: false };
    }
    const found = await nav.locations(input.operation, resolved.real, position, ctx.signal);
    const title = `${input.operation === 'definition' ? 'Definition' : input.operation === 'references' ? 'References' : 'Implementations'} of ${input.symbol} (${resolved.display}:${line})`;
    const shown = await showLocations(found.slice(0, MAX_LOCATIONS), env);
    return { content: formatLocations(title, shown, found.length), isError: false, counts: { matches: found.length } };
  },
});
