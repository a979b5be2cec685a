// Issue 26.1: text the model reads is shortened only by src/runtime/text-cut.ts.
// This reads every module that builds model-bound text (the runtime, the tools,
// the host's @-mentions and attachments) and fails on a raw head or tail cut —
// `s.slice(0, n)`, `s.slice(-n)`, `s.slice(s.length - n)`, `substring(0, n)`,
// `substr(0, n)` — that is not listed below with why it is not a cut of text
// (an array, an ASCII id, parsing at a delimiter that was found).
import assert from 'node:assert/strict';
import { readdirSync, readFileSync, statSync } from 'node:fs';
import * as path from 'node:path';
import ts from 'typescript';

const ROOT = path.resolve(__dirname, '..', '..', '..');

const SCANNED = ['src/runtime', 'src/tools', 'src/host/context/mentions.ts', 'src/host/context/attachment-blocks.ts', 'src/host/terminal/terminal-context.ts', 'src/host/terminal/terminal-description.ts'];

const ARRAY = 'an array, not text';
const ID = 'an ASCII id or hash';
const PARSE = 'parsing at a delimiter that was found, not shortening';

/** `file: call` → why it is not a cut of model-bound text. */
const NOT_CUTS: Record<string, string> = {
  'src/runtime/context/slash-commands.ts: fileName.slice(0, -suffix.length)': 'a file name without the suffix it was found to end with',
  'src/runtime/session/transcript.ts: this.list.slice(0, mark.messages)': ARRAY,
  'src/tools/browser/page-session.ts: items.slice(-MAX_REPORTED)': ARRAY,
  'src/runtime/session/transcript.ts: last.content.slice(0, mark.lastBlocks)': ARRAY,
  "src/tools/memory/memory-dir.ts: createHash('sha256').update(path.resolve(workspaceRoot)).digest('hex').slice(0, 16)": ID,
  'src/tools/memory/memory-store.ts: text.slice(0, i)': PARSE,
  'src/tools/memory/memory-store.ts: text.slice(0, at)': PARSE,
  'src/tools/web-fetch/html-markdown.ts: part.slice(0, cutIndex(part, MAX_CONVERTED_HTML - size))': 'cutIndex never lands inside a surrogate pair, a tag or a character reference (issue 42 item 13)',
  'src/tools/checkpoints/store.ts: entry.target.id.slice(0, 12)': ID,
  'src/tools/checkpoints/store.ts: this.checkpoints.slice(0, index)': ARRAY,
  'src/tools/checkpoints/store.ts: id.slice(0, 12)': ID,
  'src/tools/checkpoints/store.ts: id.slice(0, 2)': ID,
  'src/runtime/context/compaction.ts: rest.slice(0, split)': ARRAY,
  'src/runtime/session/transcript.ts: this.list.slice(0, from)': ARRAY,
  'src/runtime/context/instructions.ts: names.slice(0, MAX_FOLDER_FILES)': ARRAY,
  'src/runtime/providers/sse.ts: line.slice(0, colon)': PARSE,
  'src/runtime/session/session.ts: id.slice(0, 8)': ID,
  'src/runtime/session/session.ts: loaded.messages.slice(0, upTo)': ARRAY,
  "src/runtime/session/session-images.ts: name.slice(0, name.indexOf('.'))": PARSE,
  'src/runtime/session/user-text.ts: message.slice(0, tail.index)': PARSE,
  'src/runtime/session/user-text.ts: message .slice(0, end)': PARSE,
  'src/tools/files/edit-diff.ts: lines.slice(0, maxDiffLines + 2)': ARRAY,
  'src/tools/files/edit-file.ts: c.lines.slice(0, 8)': ARRAY,
  'src/tools/files/edit-file.ts: positions.slice(0, 10)': ARRAY,
  'src/tools/files/edit-file.ts: text.slice(0, p)': 'the edit itself: the file up to where old_string was found',
  'src/tools/files/edit-file.ts: ranges.slice(0, 10)': ARRAY,
  'src/tools/search/glob-search.ts: withTimes.slice(0, max)': ARRAY,
  'src/tools/search/grep-js.ts: parts.slice(0, i + 1)': ARRAY,
  'src/tools/search/grep-search.ts: line.slice(0, line.lastIndexOf(\':\'))': PARSE,
  'src/tools/search/grep-search.ts: lines.slice(0, headLimit)': ARRAY,
  'src/tools/search/grep-search.ts: lines.slice(0, kept)': ARRAY,
  'src/tools/search/list-files.ts: pattern.slice(0, Math.max(cut, 0))': PARSE,
  'src/tools/search/list-files.ts: listed.slice(0, options.maxEntries)': ARRAY,
  'src/tools/files/similar.ts: starts.slice(0, 25)': ARRAY,
  'src/host/context/mentions.ts: out.slice(0, 200)': ARRAY,
  'src/host/context/mentions.ts: under.slice(0, MAX_LISTING)': ARRAY,
  'src/host/context/mentions.ts: rows.slice(0, MAX_PROBLEMS)': ARRAY,
  'src/tools/shell/bash.ts: [...held].slice(0, 5)': ARRAY,
  'src/tools/shell/bash.ts: held.slice(0, 3)': ARRAY,
  'src/tools/files/edit-problems.ts: errors.slice(0, MAX_ERRORS)': ARRAY,
  'src/tools/files/edit-problems.ts: warnings.slice(0, MAX_WARNINGS)': ARRAY,
  'src/tools/lsp/lsp.ts: symbols.slice(0, MAX_SYMBOLS)': ARRAY,
  'src/tools/lsp/lsp.ts: found.slice(0, MAX_LOCATIONS)': ARRAY,
  'src/runtime/context/definition-files.ts: names.slice(0, MAX_DEFINITION_ENTRIES)': ARRAY,
  'src/runtime/context/skills.ts: cut.slice(0, 20)': ARRAY,
};

/** Real cuts waiting to move to cutHead/cutMiddle, listed so they stay visible (none now). */
const PENDING: Record<string, string> = {};

function tsFiles(rel: string): string[] {
  const abs = path.join(ROOT, rel);
  if (!statSync(abs).isDirectory()) return [rel];
  return readdirSync(abs).flatMap((name) => tsFiles(path.join(rel, name)));
}

const isNegativeLiteral = (e: ts.Expression | undefined) =>
  !!e && ts.isPrefixUnaryExpression(e) && e.operator === ts.SyntaxKind.MinusToken && ts.isNumericLiteral(e.operand);

/** `x.slice(0, n)` (n not a negative literal: `slice(0, -1)` drops a known character), `x.slice(-n)`, `x.slice(y.length - n)`, and substring/substr alike. */
function isHeadOrTailCut(call: ts.CallExpression): boolean {
  const [first, second] = call.arguments;
  if (!first) return false;
  if (call.arguments.length === 2) return ts.isNumericLiteral(first) && first.text === '0' && !isNegativeLiteral(second);
  if (call.arguments.length !== 1) return false;
  if (ts.isPrefixUnaryExpression(first) && first.operator === ts.SyntaxKind.MinusToken) return !isNegativeLiteral(first);
  return ts.isBinaryExpression(first) && first.operatorToken.kind === ts.SyntaxKind.MinusToken && /\.length$/.test(first.left.getText());
}

function rawCuts(): string[] {
  const found: string[] = [];
  for (const rel of SCANNED.flatMap(tsFiles)) {
    if (!rel.endsWith('.ts') || rel === path.join('src', 'runtime', 'text-cut.ts')) continue;
    const source = ts.createSourceFile(rel, readFileSync(path.join(ROOT, rel), 'utf8'), ts.ScriptTarget.ES2022, true);
    const visit = (node: ts.Node): void => {
      if (ts.isCallExpression(node) && ts.isPropertyAccessExpression(node.expression) && ['slice', 'substring', 'substr'].includes(node.expression.name.text) && isHeadOrTailCut(node)) {
        found.push(`${rel.split(path.sep).join('/')}: ${node.getText().replace(/\s+/g, ' ')}`);
      }
      ts.forEachChild(node, visit);
    };
    visit(source);
  }
  return found;
}

describe('runtime: model-bound text is cut only by text-cut.ts (issue 26.1)', function () {
  this.timeout(60_000);

  it('26.1: no raw .slice/.substring head or tail cut of text in the runtime, the tools or the host\'s attachments outside text-cut.ts', () => {
    const found = rawCuts();
    const unexplained = found.filter((c) => !(c in NOT_CUTS) && !(c in PENDING));
    assert.deepEqual(
      unexplained,
      [],
      `Raw cuts of text found. Use cutHead / cutTail / cutMiddle from src/runtime/text-cut.ts (they never split a surrogate pair or a grapheme cluster), or, if it is not a cut of text, list it in NOT_CUTS with why:\n${unexplained.join('\n')}`,
    );
    // The lists stay honest: an entry whose call is gone is removed.
    const stale = [...Object.keys(NOT_CUTS), ...Object.keys(PENDING)].filter((c) => !found.includes(c));
    assert.deepEqual(stale, [], 'entries for calls that no longer exist');
  });

  it('26.1: the guard catches a raw cut (it is not a test that cannot fail)', () => {
    const source = ts.createSourceFile('x.ts', 'const a = text.slice(0, 100); const b = out.slice(-MAX); const c = s.substring(0, n); const d = line.slice(0, -1);', ts.ScriptTarget.ES2022, true);
    const calls: string[] = [];
    const visit = (node: ts.Node): void => {
      if (ts.isCallExpression(node) && isHeadOrTailCut(node)) calls.push(node.getText());
      ts.forEachChild(node, visit);
    };
    visit(source);
    assert.deepEqual(calls, ['text.slice(0, 100)', 'out.slice(-MAX)', 's.substring(0, n)']);
  });
});
