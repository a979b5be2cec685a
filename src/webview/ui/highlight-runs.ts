// A highlighted code block as flat runs of text, each with the classes that colour it: what the tokeniser (a Web
// Worker, ./highlight-worker.ts, or the on-demand bundle for rarer languages) sends to the panel, which turns runs
// into spans (./highlight.ts). No DOM here, so it runs in the worker and in plain Node tests.
//
// Why flat, and only styled scopes: highlight.js nests scopes (a template string holds a substitution holds a
// variable), and most scopes have no colour or font of their own in media/highlight.css. A span for each cost the
// panel's main thread a DOM node and a style recalculation apiece while a reply streams. A run takes the classes of
// its innermost coloured scope, which is the colour it showed nested too (a coloured scope's colour comes from its
// own `--tok`, not its parent's), plus the fonts its scopes give: bold and italic from `strong`/`emphasis` anywhere
// on its path, and italic inside a comment or quote (a JSDoc tag, `**b**` in a markdown quote).
import { type createLowlight } from 'lowlight';
import type { Lowlight } from './highlight-grammars';

export type HighlightTree = ReturnType<ReturnType<typeof createLowlight>['highlight']>;
type TreeNode = HighlightTree['children'][number];

/** `runs` holds pairs: an index into `classes` (-1: plain text), then the run's length in characters. */
export interface HighlightRuns {
  classes: string[];
  runs: number[];
}

/** Scopes media/highlight.css gives a font and no colour of their own. */
const FONT_SCOPES: ReadonlySet<string> = new Set(['hljs-emphasis', 'hljs-strong']);
/** Coloured scopes that are italic: what is nested in them stays italic. */
const ITALIC_SCOPES: ReadonlySet<string> = new Set(['hljs-comment', 'hljs-quote']);

/**
 * The scopes media/highlight.css gives a colour or a font of its own (kept in step with it by
 * test/unit/webview/highlight-runs.test.ts). A scope named only in a compound (`.hljs-char.escape_`) counts: its
 * run keeps every class it has, so the compound still matches.
 */
export const STYLED_SCOPES: ReadonlySet<string> = new Set([
  'hljs-comment', 'hljs-quote', 'hljs-keyword', 'hljs-selector-tag', 'hljs-doctag', 'hljs-name', 'hljs-literal',
  'hljs-string', 'hljs-regexp', 'hljs-template-string', 'hljs-char', 'hljs-symbol', 'hljs-link', 'hljs-number',
  'hljs-title', 'hljs-section', 'hljs-type', 'hljs-built_in', 'hljs-selector-class', 'hljs-selector-id',
  'hljs-variable', 'hljs-template-variable', 'hljs-params', 'hljs-attr', 'hljs-attribute', 'hljs-property',
  'hljs-meta', 'hljs-tag', 'hljs-addition', 'hljs-deletion', ...FONT_SCOPES,
]);

/** Only highlight.js's own class names (`hljs-keyword`, `function_`) ever reach the DOM. */
export function allowedClasses(joined: string): string {
  return joined.split(' ').filter((c) => /^hljs-[\w-]+$|^[\w-]+_$/.test(c)).join(' ');
}

/** The runs of a lowlight tree: text under no styled scope is plain. */
export function toRuns(tree: HighlightTree): HighlightRuns {
  const classes: string[] = [];
  const index = new Map<string, number>();
  const runs: number[] = [];
  const push = (cls: number, length: number) => {
    if (length === 0) return;
    // Neighbours with the same classes join: "foo" "." "bar" under one variable is one span, not three.
    if (runs.length > 0 && runs[runs.length - 2] === cls) runs[runs.length - 1]! += length;
    else runs.push(cls, length);
  };
  const classIndex = (joined: string): number => {
    if (!joined) return -1;
    let i = index.get(joined);
    if (i === undefined) {
      i = classes.push(joined) - 1;
      index.set(joined, i);
    }
    return i;
  };
  /** `colour`: the innermost coloured scope's classes; the font flags: from any scope on the path. */
  const walk = (node: TreeNode, colour: string, italic: boolean, bold: boolean, cls: number) => {
    if (node.type === 'text') return push(cls, node.value.length);
    if (node.type !== 'element') return;
    const names = node.properties?.className;
    const joined = Array.isArray(names) ? allowedClasses(names.join(' ')) : '';
    const own = joined ? joined.split(' ') : [];
    const coloured = own.some((c) => STYLED_SCOPES.has(c) && !FONT_SCOPES.has(c));
    const nextColour = coloured ? own.filter((c) => !FONT_SCOPES.has(c)).join(' ') : colour;
    // A comment's own text is italic by its rule; what is nested in it (and in emphasis) is marked italic here.
    const nextItalic = italic || own.includes('hljs-emphasis');
    const nextBold = bold || own.includes('hljs-strong');
    const next = joined ? classIndex([nextColour, nextItalic ? 'hljs-emphasis' : '', nextBold ? 'hljs-strong' : ''].filter(Boolean).join(' ')) : cls;
    const childItalic = nextItalic || own.some((c) => ITALIC_SCOPES.has(c));
    for (const child of node.children) walk(child as TreeNode, nextColour, childItalic, nextBold, next);
  };
  for (const child of tree.children) walk(child, '', false, false, -1);
  return { classes, runs };
}

/** The characters the runs cover: equal to the block's text, or the runs belong to another text. */
export function runsLength(r: HighlightRuns): number {
  let n = 0;
  for (let i = 1; i < r.runs.length; i += 2) n += r.runs[i]!;
  return n;
}

/** Runs for `text` in `lang`: undefined for a language `lowlight` lacks, null when its grammar throws (left plain). */
export function tokenise(lowlight: Lowlight, lang: string, text: string): HighlightRuns | null | undefined {
  if (!lowlight.registered(lang)) return undefined;
  try {
    return toRuns(lowlight.highlight(lang, text));
  } catch {
    return null;
  }
}
