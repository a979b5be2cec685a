// A highlighted code block as flat runs of text, each with the classes that colour it: what the tokeniser (a Web
// Worker, ./highlight-worker.ts, or the on-demand bundle for rarer languages) sends to the panel, which turns runs
// into spans (./highlight.ts). No DOM here, so it runs in the worker and in plain Node tests.
//
// Why flat, and only styled scopes: highlight.js nests scopes (a template string holds a substitution holds a
// variable), and most scopes have no colour or font of their own in media/highlight.css. A span for each cost the
// panel's main thread a DOM node and a style recalculation apiece while a reply streams; a run takes the classes of
// its innermost styled scope, which is the colour it showed nested too (a styled scope's colour comes from its own
// `--tok`, not its parent's).
import { type createLowlight } from 'lowlight';

export type HighlightTree = ReturnType<ReturnType<typeof createLowlight>['highlight']>;
type TreeNode = HighlightTree['children'][number];

/** `runs` holds pairs: an index into `classes` (-1: plain text), then the run's length in characters. */
export interface HighlightRuns {
  classes: string[];
  runs: number[];
}

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
  'hljs-meta', 'hljs-tag', 'hljs-addition', 'hljs-deletion', 'hljs-emphasis', 'hljs-strong',
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
  const walk = (node: TreeNode, cls: number) => {
    if (node.type === 'text') return push(cls, node.value.length);
    if (node.type !== 'element') return;
    const names = node.properties?.className;
    const joined = Array.isArray(names) ? allowedClasses(names.join(' ')) : '';
    let own = cls;
    if (joined && joined.split(' ').some((c) => STYLED_SCOPES.has(c))) {
      own = index.get(joined) ?? -1;
      if (own < 0) {
        own = classes.push(joined) - 1;
        index.set(joined, own);
      }
    }
    for (const child of node.children) walk(child as TreeNode, own);
  };
  for (const child of tree.children) walk(child, -1);
  return { classes, runs };
}

/** The characters the runs cover: equal to the block's text, or the runs belong to another text. */
export function runsLength(r: HighlightRuns): number {
  let n = 0;
  for (let i = 1; i < r.runs.length; i += 2) n += r.runs[i]!;
  return n;
}
