// Front matter of definition files (custom agents, skills). Claude Code and
// Copilot write it as YAML: a `tools` list is either `[a, b]`, `- a` lines or
// `a, b`, and a long description may be a `>` or `|` block. This reads that
// subset (keys, plain and quoted scalars, lists, block scalars) without a YAML
// library in the bundle; anything else is a problem line, never a throw.
import { cutHead } from '../text-cut';

export type FrontMatterValue = string | string[];

export interface DefinitionText {
  /** Keys lower-cased. */
  attributes: Record<string, FrontMatterValue>;
  body: string;
  /** What could not be read, one sentence each (the caller names the file). */
  problems: string[];
  /** False when the text has no `---` block at the top. */
  hasFrontMatter: boolean;
}

const KEY_LINE = /^([A-Za-z][\w-]*)\s*:(?:\s+(.*)|\s*)$/;

function unquote(value: string): string {
  const v = value.trim();
  if (v.length >= 2 && ((v.startsWith('"') && v.endsWith('"')) || (v.startsWith("'") && v.endsWith("'")))) {
    const inner = v.slice(1, -1);
    return v.startsWith("'") ? inner.replace(/''/g, "'") : inner.replace(/\\"/g, '"').replace(/\\n/g, '\n').replace(/\\\\/g, '\\');
  }
  // A plain scalar ends at ` #` (a comment).
  return v.replace(/\s+#.*$/, '');
}

/** `[a, "b", c]` → its items. */
function flowList(value: string): string[] {
  return value
    .slice(1, -1)
    .split(',')
    .map(unquote)
    .filter((item) => item !== '');
}

const indentOf = (line: string) => /^[ \t]*/.exec(line)![0].length;

/** Splits `---` front matter from the body and reads the keys in it. */
export function parseDefinitionText(text: string): DefinitionText {
  const src = text.replace(/^\ufeff/, '');
  if (!/^---[ \t]*\r?\n/.test(src)) return { attributes: {}, body: src, problems: [], hasFrontMatter: false };
  const m = /^---[ \t]*\r?\n(?:([\s\S]*?)\r?\n)?---[ \t]*(?:\r?\n|$)/.exec(src);
  if (!m) return { attributes: {}, body: src, problems: ['its front matter has no closing `---` line'], hasFrontMatter: false };
  const lines = (m[1] ?? '').split(/\r?\n/);
  const attributes: Record<string, FrontMatterValue> = {};
  const problems: string[] = [];
  for (let i = 0; i < lines.length; i++) {
    const line = lines[i]!;
    if (line.trim() === '' || line.trimStart().startsWith('#')) continue;
    const kv = indentOf(line) === 0 ? KEY_LINE.exec(line) : null;
    if (!kv) {
      problems.push(`line ${i + 2} of its front matter is not \`key: value\` (${JSON.stringify(cutHead(line.trim(), 60))})`);
      continue;
    }
    const key = kv[1]!.toLowerCase();
    const raw = (kv[2] ?? '').trim();
    // The lines belonging to this key: indented ones (or `- item` at the key's own indent, as YAML allows).
    const nested: string[] = [];
    while (i + 1 < lines.length) {
      const next = lines[i + 1]!;
      if (next.trim() !== '' && indentOf(next) === 0 && !next.startsWith('- ') && next !== '-') break;
      nested.push(next);
      i++;
    }
    while (nested.length > 0 && nested[nested.length - 1]!.trim() === '') nested.pop();
    if (/^[|>][+-]?$/.test(raw)) {
      const indent = Math.min(...nested.filter((l) => l.trim() !== '').map(indentOf));
      const kept = nested.map((l) => (l.trim() === '' ? '' : l.slice(indent)));
      attributes[key] = raw.startsWith('|') ? kept.join('\n') : kept.join('\n').replace(/([^\n])\n(?=[^\n])/g, '$1 ').trim();
    } else if (raw === '' && nested.some((l) => /^\s*-(\s|$)/.test(l))) {
      const items: string[] = [];
      for (const l of nested) {
        if (l.trim() === '') continue;
        const item = /^\s*-(?:\s+(.*))?$/.exec(l);
        if (!item) {
          problems.push(`\`${key}\` mixes list items with other lines`);
          break;
        }
        const value = unquote(item[1] ?? '');
        if (value !== '') items.push(value);
      }
      attributes[key] = items;
    } else if (raw.startsWith('[') && raw.endsWith(']') && nested.length === 0) {
      attributes[key] = flowList(raw);
    } else {
      // A plain scalar may go on over indented lines: YAML folds them with spaces.
      attributes[key] = [unquote(raw), ...nested.map((l) => l.trim()).filter((l) => l !== '')].join(' ').trim();
    }
  }
  return { attributes, body: src.slice(m[0].length), problems, hasFrontMatter: true };
}

/** A key's value as text (a list is joined with commas); undefined when absent. */
export function textAttribute(attributes: Record<string, FrontMatterValue>, key: string): string | undefined {
  const v = attributes[key];
  if (v === undefined) return undefined;
  return Array.isArray(v) ? v.join(', ') : v;
}

/** A key's value as a list: a YAML list, or a comma-separated string (`Read, Grep`); undefined when absent. */
export function listAttribute(attributes: Record<string, FrontMatterValue>, key: string): string[] | undefined {
  const v = attributes[key];
  if (v === undefined) return undefined;
  const items = Array.isArray(v) ? v : v.startsWith('[') && v.endsWith(']') ? flowList(v) : v.split(',');
  return items.map((s) => s.trim()).filter((s) => s !== '');
}
