// The pure parts of the `lsp` tool: finding the column of a name the model
// gave on a line, and writing the providers' answers as text the model reads.
import { cutHead } from '../../runtime/text-cut';
import { ToolError } from '../errors';
import { type CodeSymbol, type SourcePosition } from '../language-ports';

export const MAX_LOCATIONS = 50;
export const MAX_SYMBOLS = 200;
export const MAX_CONTEXT_CHARS = 200;
export const MAX_HOVER_CHARS = 4000;

const IDENTIFIER = /[\p{L}\p{N}_$]+/gu;
const isWordChar = (c: string | undefined) => c !== undefined && /[\p{L}\p{N}_$]/u.test(c);

/** The names on a line, in order, once each (for the error that lists them). */
export function namesOnLine(text: string): string[] {
  const seen = new Set<string>();
  for (const m of text.matchAll(IDENTIFIER)) if (!/^\p{N}/u.test(m[0])) seen.add(m[0]);
  return [...seen];
}

/**
 * The position of `symbol` on `text` (line `line`, 1-based): its first
 * occurrence as a whole word, else as part of a longer name or expression
 * (`obj.method` given as `method`, or the reverse). Columns are UTF-16 code
 * units, as editors count them. A name that is not there is a ToolError that
 * shows the line and the names on it, so the model can pick one.
 */
export function resolveSymbolOnLine(text: string, line: number, symbol: string, display: string): SourcePosition {
  const wanted = symbol.trim();
  const whole = (name: string): number => {
    for (let i = text.indexOf(name); i !== -1; i = text.indexOf(name, i + 1)) {
      if (!isWordChar(text[i - 1]) && !isWordChar(text[i + name.length])) return i;
    }
    return -1;
  };
  // `a.b.c` or `foo()` as the model may write it: the place of the last name in it.
  const last = namesOnLine(wanted).at(-1);
  let at = wanted === '' ? -1 : whole(wanted);
  if (at === -1 && wanted !== '') at = text.indexOf(wanted);
  if (at !== -1 && last && last !== wanted) at += wanted.lastIndexOf(last);
  if (at === -1 && last && last !== wanted) at = whole(last);
  if (at === -1) {
    const names = namesOnLine(text);
    const shown = text.length > MAX_CONTEXT_CHARS ? `${cutHead(text, MAX_CONTEXT_CHARS)}…` : text;
    throw new ToolError(
      'no_match',
      `"${symbol}" is not on line ${line} of ${display}. The line reads: ${JSON.stringify(shown.trim())}${names.length ? `\nNames on it: ${names.join(', ')}` : '\nThere are no names on it'}. Give one of them as symbol, or the right line (1-based, as read_file numbers lines).`,
    );
  }
  return { line, column: at + 1 };
}

export interface ShownLocation {
  /** Workspace-relative (or absolute, for a place outside the workspace). */
  display: string;
  line: number;
  column: number;
  /** The line's text; undefined when it is not shown (outside the workspace, a secret file). */
  context?: string;
  /** Why no text is shown. */
  withheld?: string;
}

const oneLine = (s: string) => {
  const t = s.trim();
  return t.length > MAX_CONTEXT_CHARS ? `${cutHead(t, MAX_CONTEXT_CHARS)}…` : t;
};

export function formatLocations(title: string, locations: readonly ShownLocation[], total: number): string {
  if (total === 0) return `${title}: none found.`;
  const lines = [`${title}: ${total} location${total === 1 ? '' : 's'}${total > locations.length ? ` (showing the first ${locations.length})` : ''}`];
  for (const l of locations) {
    const where = `${l.display}:${l.line}:${l.column}`;
    lines.push(l.context !== undefined ? `${where}: ${oneLine(l.context)}` : `${where}${l.withheld ? ` (${l.withheld})` : ''}`);
  }
  return lines.join('\n');
}

export function formatSymbols(title: string, symbols: ReadonlyArray<{ symbol: CodeSymbol; where: ShownLocation }>, total: number, withPath: boolean): string {
  if (total === 0) return `${title}: none found.`;
  const lines = [`${title}: ${total} symbol${total === 1 ? '' : 's'}${total > symbols.length ? ` (showing the first ${symbols.length})` : ''}`];
  for (const { symbol, where } of symbols) {
    const indent = '  '.repeat(symbol.depth);
    const place = withPath ? `${where.display}:${where.line}` : `line ${where.line}`;
    const extra = [symbol.detail, symbol.containerName && withPath ? `in ${symbol.containerName}` : ''].filter(Boolean).join(', ');
    const context = where.context !== undefined ? `: ${oneLine(where.context)}` : where.withheld ? ` (${where.withheld})` : '';
    lines.push(`${indent}${symbol.kind} ${symbol.name}${extra ? ` (${extra})` : ''} — ${place}${withPath ? context : ''}`);
  }
  return lines.join('\n');
}

export function formatHover(display: string, position: SourcePosition, texts: readonly string[]): string {
  const body = texts.map((t) => t.trim()).filter(Boolean).join('\n\n---\n\n');
  if (!body) return `No hover information at ${display}:${position.line}:${position.column}.`;
  const cut = body.length > MAX_HOVER_CHARS ? `${cutHead(body, MAX_HOVER_CHARS)}\n… [cut: ${body.length - MAX_HOVER_CHARS} more characters]` : body;
  return `Hover at ${display}:${position.line}:${position.column}:\n${cut}`;
}
