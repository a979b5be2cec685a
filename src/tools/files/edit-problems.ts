// The problems an edit introduced, for the edit tools' results: what the
// language servers report for the file after the write, less what they
// reported before it. The host supplies both sets (EditDiagnostics); the
// comparison and the wording live here so they are the same everywhere.
import { type Problem, type ProblemWatch } from '../language-ports';
import { type ToolEnv } from '../tool';

/** Errors are listed up to this many; warnings are a side note and get fewer lines. */
export const MAX_ERRORS = 20;
export const MAX_WARNINGS = 5;

/**
 * Maps a 1-based line of the old text to its line in the new text: lines
 * before the first and after the last changed line keep their place (shifted by
 * what the change added or removed); lines inside the change map to nothing.
 */
export function lineMapping(before: string, after: string): (line: number) => number | undefined {
  const a = before.split('\n');
  const b = after.split('\n');
  let head = 0;
  while (head < a.length && head < b.length && a[head] === b[head]) head++;
  let tail = 0;
  while (tail < a.length - head && tail < b.length - head && a[a.length - 1 - tail] === b[b.length - 1 - tail]) tail++;
  const shift = b.length - a.length;
  return (line) => (line <= head ? line : line > a.length - tail ? line + shift : undefined);
}

const keyOf = (p: Problem): string => JSON.stringify([p.severity, p.code ?? '', p.message]);

/**
 * The problems of `after` that were not in `before`. Two problems are the same
 * when severity, code and message agree (the text of an error does not change
 * because lines above it moved); among several with that key, one whose line
 * is where the old one's line went is matched first, then the nearest. So an
 * edit that adds a second copy of an existing error reports one new error, at
 * the new place.
 */
export function newProblems(before: readonly Problem[], after: readonly Problem[], mapLine: (line: number) => number | undefined): Problem[] {
  const pending = new Map<string, Array<{ line: number | undefined }>>();
  for (const p of before) {
    const list = pending.get(keyOf(p)) ?? [];
    list.push({ line: mapLine(p.line) });
    pending.set(keyOf(p), list);
  }
  const unmatched: Problem[] = [];
  for (const p of after) {
    const list = pending.get(keyOf(p));
    const exact = list?.findIndex((o) => o.line === p.line) ?? -1;
    if (list && exact >= 0) list.splice(exact, 1);
    else unmatched.push(p);
  }
  const fresh: Problem[] = [];
  for (const p of unmatched) {
    const list = pending.get(keyOf(p));
    if (!list || list.length === 0) {
      fresh.push(p);
      continue;
    }
    let best = 0;
    const distance = (o: { line: number | undefined }) => (o.line === undefined ? Number.MAX_SAFE_INTEGER - 1 : Math.abs(o.line - p.line));
    list.forEach((o, i) => {
      if (distance(o) < distance(list[best]!)) best = i;
    });
    list.splice(best, 1);
  }
  return fresh;
}

function problemLine(display: string, p: Problem): string {
  const origin = [p.source, p.code].filter(Boolean).join(' ');
  return `${display}:${p.line}: ${p.severity}: ${p.message.replace(/\s*\n\s*/g, ' ')}${origin ? ` (${origin})` : ''}`;
}

/** The note appended to an edit's result; '' when the edit introduced no errors or warnings. */
export function formatNewProblems(display: string, problems: readonly Problem[]): string {
  const errors = problems.filter((p) => p.severity === 'error').sort((x, y) => x.line - y.line);
  const warnings = problems.filter((p) => p.severity === 'warning').sort((x, y) => x.line - y.line);
  if (errors.length === 0 && warnings.length === 0) return '';
  const count = (n: number, what: string) => `${n} ${what}${n === 1 ? '' : 's'}`;
  const counts = [errors.length ? count(errors.length, 'error') : '', warnings.length ? count(warnings.length, 'warning') : ''].filter(Boolean).join(' and ');
  const lines = [`New problems in ${display} after this change (${counts}, reported by the editor's language features):`];
  lines.push(...errors.slice(0, MAX_ERRORS).map((p) => problemLine(display, p)));
  if (errors.length > MAX_ERRORS) lines.push(`… ${count(errors.length - MAX_ERRORS, 'more error')}`);
  lines.push(...warnings.slice(0, MAX_WARNINGS).map((p) => problemLine(display, p)));
  if (warnings.length > MAX_WARNINGS) lines.push(`… ${count(warnings.length - MAX_WARNINGS, 'more warning')}`);
  return lines.join('\n');
}

/** Starts watching the file's problems before a write; undefined where nothing reports them (the CLI, a language without a server). */
export async function watchProblems(env: ToolEnv, path: string, signal: AbortSignal): Promise<ProblemWatch | undefined> {
  return env.diagnostics?.watch(path, signal);
}

/** After the write: the note on the problems it introduced ('' when none or when nothing watched). */
export async function reportNewProblems(
  watch: ProblemWatch | undefined,
  change: { display: string; before: string | null; after: string },
  signal: AbortSignal,
): Promise<string> {
  if (!watch) return '';
  const after = await watch.settle(signal);
  const fresh = newProblems(watch.before, after, lineMapping(change.before ?? '', change.after));
  return formatNewProblems(change.display, fresh);
}
