// The strings Turnstone shows, read from the sources with the TypeScript
// compiler (the `@vscode/l10n-dev` exporter is not a dependency):
//   - every key of `vscode.l10n.t('…')` (host) and `t('…')` (panel, pure
//     wording): the English text is the key, as in VS Code;
//   - literals the panel puts on screen without `t(…)` (text, titles, labels).
// `npx tsx scripts/l10n-keys.ts` prints the keys the zh-cn bundle lacks or no
// longer needs; test/unit/l10n.test.ts runs the same checks.
import { readdirSync, readFileSync } from 'node:fs';
import * as path from 'node:path';
import ts from 'typescript';

export const ROOT = path.resolve(__dirname, '..');

/** Where user-facing strings live: the extension host and the panel (the runtime, tools and CLI talk to the model or a terminal). */
export const L10N_SOURCES = ['src/host', 'src/webview', 'src/extension.ts'];
export const PANEL_SOURCES = ['src/webview/ui'];
export const ZH_BUNDLE = 'l10n/bundle.l10n.zh-cn.json';

export function tsFiles(...roots: string[]): string[] {
  const out: string[] = [];
  const walk = (p: string) => {
    const abs = path.join(ROOT, p);
    if (p.endsWith('.ts')) {
      out.push(p);
      return;
    }
    for (const entry of readdirSync(abs, { withFileTypes: true })) {
      if (entry.isDirectory()) walk(path.posix.join(p, entry.name));
      else if (entry.name.endsWith('.ts') && !entry.name.endsWith('.d.ts')) out.push(path.posix.join(p, entry.name));
    }
  };
  for (const r of roots) walk(r);
  return out.sort();
}

function parse(file: string, text = readFileSync(path.join(ROOT, file), 'utf8')): ts.SourceFile {
  return ts.createSourceFile(file, text, ts.ScriptTarget.Latest, true);
}

const where = (sf: ts.SourceFile, node: ts.Node) => `${sf.fileName}:${sf.getLineAndCharacterOfPosition(node.getStart(sf)).line + 1}`;

/** `t(…)`, `l10n.t(…)` or `vscode.l10n.t(…)`. */
function isTranslateCall(node: ts.Node): node is ts.CallExpression {
  if (!ts.isCallExpression(node)) return false;
  const callee = node.expression;
  if (ts.isIdentifier(callee)) return callee.text === 't';
  if (!ts.isPropertyAccessExpression(callee) || callee.name.text !== 't') return false;
  const owner = callee.expression;
  return (ts.isIdentifier(owner) && owner.text === 'l10n') || (ts.isPropertyAccessExpression(owner) && owner.name.text === 'l10n');
}

export interface KeyScan {
  /** Key → where it is used. */
  keys: Map<string, string[]>;
  /** Calls whose message is not a literal: no bundle can hold them. */
  dynamic: string[];
}

/** `sources` maps a file name to its text (read from the repository when absent). */
export function extractKeys(files: string[], sources: Record<string, string> = {}): KeyScan {
  const keys = new Map<string, string[]>();
  const dynamic: string[] = [];
  for (const file of files) {
    const sf = parse(file, sources[file]);
    const visit = (node: ts.Node) => {
      if (isTranslateCall(node)) {
        const first = node.arguments[0];
        if (first && (ts.isStringLiteral(first) || ts.isNoSubstitutionTemplateLiteral(first))) {
          const at = keys.get(first.text) ?? [];
          at.push(where(sf, node));
          keys.set(first.text, at);
        } else dynamic.push(`${where(sf, node)}: ${node.getText(sf).slice(0, 80)}`);
      }
      ts.forEachChild(node, visit);
    };
    visit(sf);
  }
  return { keys, dynamic };
}

/** Attributes and properties whose value a user reads or hears. */
const TEXT_ATTRIBUTES = new Set(['title', 'placeholder', 'alt', 'aria-label', 'aria-description', 'aria-roledescription', 'aria-valuetext']);
const TEXT_PROPERTIES = new Set(['textContent', 'innerText', 'title', 'placeholder', 'alt', 'ariaLabel']);
/** Object properties that the panel's views render as text (mode labels, status labels, list tags). */
const TEXT_FIELDS = new Set(['label', 'title', 'tag', 'detail', 'placeholder', 'aria-label', 'alt']);
/** DOM methods whose arguments become text nodes. */
const APPENDERS = new Set(['append', 'prepend', 'replaceChildren', 'before', 'after', 'replaceWith', 'createTextNode', 'say']);

/**
 * Literals that are not words of a language: the product's name, a language id shown as a code
 * block's header, the key's shape as a placeholder, a web address.
 */
export const NOT_WORDS = new Set(['Turnstone', 'text', 'sk-ant-…', 'console.anthropic.com']);

const isWords = (text: string) => /[A-Za-z]{2,}/.test(text) && !NOT_WORDS.has(text.trim());

function propertyName(name: ts.PropertyName): string | undefined {
  return ts.isIdentifier(name) || ts.isStringLiteral(name) ? name.text : undefined;
}

/**
 * String literals that an expression can evaluate to, followed through
 * conditionals, `||`/`??`/`+`, templates and arrays; a call is opaque (a
 * `t(…)` call is the translated case).
 */
function literalsOf(expr: ts.Expression | undefined, out: ts.Node[] = []): ts.Node[] {
  if (!expr) return out;
  if (ts.isStringLiteral(expr) || ts.isNoSubstitutionTemplateLiteral(expr)) out.push(expr);
  else if (ts.isTemplateExpression(expr)) {
    out.push(expr);
    for (const span of expr.templateSpans) literalsOf(span.expression, out);
  } else if (ts.isParenthesizedExpression(expr) || ts.isAsExpression(expr) || ts.isNonNullExpression(expr)) literalsOf(expr.expression, out);
  else if (ts.isConditionalExpression(expr)) {
    literalsOf(expr.whenTrue, out);
    literalsOf(expr.whenFalse, out);
  } else if (ts.isBinaryExpression(expr) && [ts.SyntaxKind.PlusToken, ts.SyntaxKind.BarBarToken, ts.SyntaxKind.QuestionQuestionToken, ts.SyntaxKind.AmpersandAmpersandToken].includes(expr.operatorToken.kind)) {
    literalsOf(expr.left, out);
    literalsOf(expr.right, out);
  } else if (ts.isArrayLiteralExpression(expr)) for (const e of expr.elements) literalsOf(ts.isSpreadElement(e) ? e.expression : e, out);
  return out;
}

function staticText(node: ts.Node): string {
  if (ts.isTemplateExpression(node)) return [node.head.text, ...node.templateSpans.map((s) => s.literal.text)].join('${…}');
  return (node as ts.StringLiteral).text;
}

/** Hard-coded words the panel shows: `file:line: "text"` for each. */
export function hardCodedPanelStrings(files: string[], sources: Record<string, string> = {}): string[] {
  const found: string[] = [];
  for (const file of files) {
    const sf = parse(file, sources[file]);
    const check = (expr: ts.Expression | undefined) => {
      for (const lit of literalsOf(expr)) {
        const text = staticText(lit);
        if (isWords(text)) found.push(`${where(sf, lit)}: ${JSON.stringify(text)}`);
      }
    };
    const checkAttributes = (attrs: ts.Expression | undefined, names: Set<string>) => {
      if (!attrs || !ts.isObjectLiteralExpression(attrs)) return;
      for (const p of attrs.properties) {
        if (ts.isPropertyAssignment(p) && names.has(propertyName(p.name) ?? '')) check(p.initializer);
      }
    };
    const visit = (node: ts.Node) => {
      if (ts.isCallExpression(node)) {
        const callee = node.expression;
        const name = ts.isIdentifier(callee) ? callee.text : ts.isPropertyAccessExpression(callee) ? callee.name.text : '';
        const args = node.arguments;
        if (ts.isIdentifier(callee) && name === 'el') {
          checkAttributes(args[1], TEXT_ATTRIBUTES);
          for (const child of args.slice(2)) check(child);
        } else if (ts.isIdentifier(callee) && name === 'button') {
          check(args[0]);
          checkAttributes(args[2], TEXT_FIELDS);
        } else if (ts.isIdentifier(callee) && name === 'article') check(args[1]);
        else if (name === 'setAttribute' && args[0] && ts.isStringLiteral(args[0]) && TEXT_ATTRIBUTES.has(args[0].text)) check(args[1]);
        else if (ts.isPropertyAccessExpression(callee) && APPENDERS.has(name)) for (const a of args) check(a);
      } else if (ts.isNewExpression(node) && ts.isIdentifier(node.expression) && node.expression.text === 'SuggestList') {
        check(node.arguments?.[1]);
      } else if (ts.isBinaryExpression(node) && node.operatorToken.kind === ts.SyntaxKind.EqualsToken && ts.isPropertyAccessExpression(node.left) && TEXT_PROPERTIES.has(node.left.name.text)) {
        check(node.right);
      } else if (ts.isPropertyAssignment(node) && TEXT_FIELDS.has(propertyName(node.name) ?? '') && !ts.isCallExpression(node.parent.parent)) {
        // `{ label: 'Plan', title: '…' }` in a table the views render (object literals passed to calls are checked above).
        check(node.initializer);
      }
      ts.forEachChild(node, visit);
    };
    visit(sf);
  }
  return [...new Set(found)];
}

export function readBundle(file = ZH_BUNDLE): Record<string, string> {
  return JSON.parse(readFileSync(path.join(ROOT, file), 'utf8')) as Record<string, string>;
}

/** Keys used but not in the bundle, and bundle entries no source uses. */
export function compareWithBundle(scan: KeyScan, bundle: Record<string, string>): { missing: string[]; stale: string[] } {
  return {
    missing: [...scan.keys.keys()].filter((k) => !(k in bundle)).sort(),
    stale: Object.keys(bundle).filter((k) => !scan.keys.has(k)).sort(),
  };
}

if (require.main === module) {
  const scan = extractKeys(tsFiles(...L10N_SOURCES));
  const { missing, stale } = compareWithBundle(scan, readBundle());
  const hardCoded = hardCodedPanelStrings(tsFiles(...PANEL_SOURCES));
  console.log(JSON.stringify({ keys: scan.keys.size, missing: Object.fromEntries(missing.map((k) => [k, ''])), stale, dynamic: scan.dynamic, hardCoded }, null, 2));
  process.exitCode = missing.length || stale.length || scan.dynamic.length || hardCoded.length ? 1 : 0;
}
