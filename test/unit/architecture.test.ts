// Issue 27: the layers of src/ and the direction of their imports, read from
// the sources (every import, `import type`, export-from, require() and
// import()) so that a type-only edge counts as much as one that survives
// bundling. Bottom to top:
//
//   runtime  the agent core (no vscode)
//   tools    tool implementations on the file system and shell (no vscode)
//   agent    runtime + tools composed, shared by the extension host and the CLI
//   host | cli   siblings: the VS Code adapters | the headless CLI's parts
//   action   the GitHub Action's entry: runs the built CLI as a child, so it takes
//            only types from cli and runtime
//   src/extension.ts | src/cli.ts   the entry points
//
// Beside them, the panel: src/webview/ui (and languages) is browser code and
// sees only src/webview; the rest of src/webview is its host side (schemas,
// reducer, panel provider), which may use runtime types and is used by host.
import assert from 'node:assert/strict';
import { readdirSync, readFileSync } from 'node:fs';
import { builtinModules } from 'node:module';
import * as path from 'node:path';
import ts from 'typescript';

const ROOT = path.resolve(__dirname, '..', '..');

type Part = 'runtime' | 'tools' | 'agent' | 'host' | 'cli' | 'action' | 'webview' | 'webview-ui' | 'extension-entry' | 'cli-entry';

/** Which part of the architecture a file under src/ belongs to. */
function partOf(file: string): Part | undefined {
  if (file === 'src/extension.ts') return 'extension-entry';
  if (file === 'src/cli.ts') return 'cli-entry';
  if (/^src\/webview\/(ui|languages)\//.test(file)) return 'webview-ui';
  const top = /^src\/([^/]+)\//.exec(file)?.[1];
  return top === 'runtime' || top === 'tools' || top === 'agent' || top === 'host' || top === 'cli' || top === 'action' || top === 'webview' ? top : undefined;
}

/** What each part may import (itself included); anything else runs upward or sideways. */
const MAY_IMPORT: Record<Part, readonly Part[]> = {
  runtime: ['runtime'],
  tools: ['runtime', 'tools'],
  agent: ['runtime', 'tools', 'agent'],
  host: ['runtime', 'tools', 'agent', 'host', 'webview'],
  cli: ['runtime', 'tools', 'agent', 'cli'],
  action: ['runtime', 'cli', 'action'],
  // The panel's host side: runtime only for types (checked below), never the browser code.
  webview: ['runtime', 'webview'],
  'webview-ui': ['webview', 'webview-ui'],
  'extension-entry': ['runtime', 'tools', 'agent', 'host', 'webview'],
  'cli-entry': ['runtime', 'tools', 'agent', 'cli'],
};

/** Parts whose imports of runtime must be type-only (erased, so no agent code reaches the bundle). */
const RUNTIME_TYPES_ONLY: readonly Part[] = ['webview', 'action'];

/**
 * Runtime modules the browser code may import, with why. Each must import nothing
 * itself (checked), so no Node code can follow it into the webview bundle.
 */
const BROWSER_SAFE_RUNTIME: Record<string, string> = {
  'src/runtime/context/image-sniff.ts': 'the composer checks a pasted image with the same magic numbers as read_file and --image',
};

/**
 * Modules the GitHub Action's entry may take code (not only types) from, with why. Each imports nothing but
 * Node's own modules (checked), so the action's bundle stays the action's and never carries the agent.
 */
const ACTION_LEAVES: Record<string, string> = {
  'src/runtime/policy/secret-env.ts': 'the action masks and hides the variables commands lose, by the same names',
  'src/cli/start-environment.ts': 'the action overwrites its inputs in its start environment as the CLI launcher does its keys',
};

/**
 * Runtime modules the panel's host side (src/webview) may take code from, with why. Each imports nothing of
 * Turnstone and no Node module (checked), so no agent code follows it into what the webview's files are bundled in.
 */
const WEBVIEW_RUNTIME_LEAVES: Record<string, string> = {
  'src/runtime/line-diff.ts': "the edit cards (tool-view.ts diffStats) diff and count a change's lines as the review and the CLI's json `changes` do",
};

/** Parts that may import `vscode`: the host, its entry point and the panel provider beside the webview. */
const MAY_IMPORT_VSCODE: readonly Part[] = ['host', 'extension-entry', 'webview'];

interface Edge {
  from: string;
  /** The file it resolves to (relative to the root) or the bare module name. */
  to: string;
  typeOnly: boolean;
}

function sourceFiles(dir: string): string[] {
  return readdirSync(path.join(ROOT, dir), { withFileTypes: true }).flatMap((e) => {
    const rel = `${dir}/${e.name}`;
    if (e.isDirectory()) return sourceFiles(rel);
    return e.name.endsWith('.ts') && !e.name.endsWith('.d.ts') ? [rel] : [];
  });
}

/** Every module specifier of a file, and whether the reference is erased at compile time. */
function specifiers(file: string): Array<{ spec: string; typeOnly: boolean }> {
  const text = readFileSync(path.join(ROOT, file), 'utf8');
  const source = ts.createSourceFile(file, text, ts.ScriptTarget.Latest, false, ts.ScriptKind.TS);
  const found: Array<{ spec: string; typeOnly: boolean }> = [];
  const add = (node: ts.Node | undefined, typeOnly: boolean) => {
    if (node && ts.isStringLiteralLike(node)) found.push({ spec: node.text, typeOnly });
  };
  const visit = (node: ts.Node): void => {
    if (ts.isImportDeclaration(node)) {
      const clause = node.importClause;
      const named = clause?.namedBindings;
      const allTypes = clause !== undefined && (clause.isTypeOnly || (!clause.name && named !== undefined && ts.isNamedImports(named) && named.elements.length > 0 && named.elements.every((e) => e.isTypeOnly)));
      add(node.moduleSpecifier, allTypes);
    } else if (ts.isExportDeclaration(node)) {
      const named = node.exportClause;
      add(node.moduleSpecifier, node.isTypeOnly || (named !== undefined && ts.isNamedExports(named) && named.elements.length > 0 && named.elements.every((e) => e.isTypeOnly)));
    } else if (ts.isImportEqualsDeclaration(node) && ts.isExternalModuleReference(node.moduleReference)) {
      add(node.moduleReference.expression, node.isTypeOnly);
    } else if (ts.isImportTypeNode(node)) {
      const arg = node.argument;
      if (ts.isLiteralTypeNode(arg)) add(arg.literal, true);
    } else if (ts.isCallExpression(node) && node.arguments.length >= 1) {
      const callee = node.expression;
      if (callee.kind === ts.SyntaxKind.ImportKeyword || (ts.isIdentifier(callee) && callee.text === 'require')) add(node.arguments[0], false);
    }
    ts.forEachChild(node, visit);
  };
  visit(source);
  return found;
}

/** A relative specifier as a file under the root (`./x` → `src/…/x.ts` or `…/x/index.ts`). */
function resolve(from: string, spec: string, known: Set<string>): string {
  const base = path.posix.normalize(path.posix.join(path.posix.dirname(from), spec));
  for (const candidate of [base, `${base}.ts`, `${base}/index.ts`]) if (known.has(candidate)) return candidate;
  return base; // outside src (package.json) or a runtime path such as `path.join(__dirname, 'core.js')`
}

function readGraph(): { files: string[]; edges: Edge[] } {
  const files = sourceFiles('src');
  const known = new Set(files);
  const edges = files.flatMap((from) =>
    specifiers(from).map(({ spec, typeOnly }) => ({ from, to: spec.startsWith('.') ? resolve(from, spec, known) : spec, typeOnly })),
  );
  return { files, edges };
}

/** Edges between parts that the table above does not allow. */
function upwardEdges(edges: readonly Edge[]): string[] {
  const bad: string[] = [];
  for (const e of edges) {
    const from = partOf(e.from);
    const to = e.to.startsWith('src/') ? partOf(e.to) : undefined;
    if (from === undefined || to === undefined) continue;
    if (from === 'webview-ui' && to === 'runtime' && e.to in BROWSER_SAFE_RUNTIME) continue;
    if (from === 'action' && e.to in ACTION_LEAVES) continue;
    if (from === 'webview' && e.to in WEBVIEW_RUNTIME_LEAVES) continue;
    if (!MAY_IMPORT[from].includes(to)) bad.push(`${e.from} -> ${e.to} (${from} may not import ${to})`);
    else if (to === 'runtime' && from !== 'runtime' && RUNTIME_TYPES_ONLY.includes(from) && !e.typeOnly) bad.push(`${e.from} -> ${e.to} (${from} may import only types from runtime)`);
    // The action runs dist/cli.js; bundling the CLI's code into dist/action.js would carry the whole agent twice.
    else if (from === 'action' && to === 'cli' && !e.typeOnly) bad.push(`${e.from} -> ${e.to} (action may import only types from cli)`);
  }
  return bad;
}

/** Strongly connected components of more than one file (or a file importing itself), by Tarjan's algorithm. */
function cycles(files: readonly string[], edges: readonly Edge[]): string[][] {
  const next = new Map<string, string[]>(files.map((f) => [f, []]));
  for (const e of edges) if (next.has(e.to)) next.get(e.from)!.push(e.to);
  const index = new Map<string, number>();
  const low = new Map<string, number>();
  const stack: string[] = [];
  const onStack = new Set<string>();
  const found: string[][] = [];
  let counter = 0;
  const connect = (v: string): void => {
    index.set(v, counter);
    low.set(v, counter);
    counter++;
    stack.push(v);
    onStack.add(v);
    for (const w of next.get(v)!) {
      if (!index.has(w)) {
        connect(w);
        low.set(v, Math.min(low.get(v)!, low.get(w)!));
      } else if (onStack.has(w)) low.set(v, Math.min(low.get(v)!, index.get(w)!));
    }
    if (low.get(v) === index.get(v)) {
      const component: string[] = [];
      let w: string;
      do {
        w = stack.pop()!;
        onStack.delete(w);
        component.push(w);
      } while (w !== v);
      if (component.length > 1 || next.get(v)!.includes(v)) found.push(component.sort());
    }
  };
  for (const f of files) if (!index.has(f)) connect(f);
  return found;
}

/** One path around a component, for the message: a → b → … → a. */
function loopThrough(component: readonly string[], edges: readonly Edge[]): string {
  const inside = new Set(component);
  const start = component[0]!;
  const from = new Map<string, string>();
  const queue = [start];
  while (queue.length > 0) {
    const at = queue.shift()!;
    for (const e of edges) {
      if (e.from !== at || !inside.has(e.to)) continue;
      if (e.to === start) {
        const steps = [start];
        for (let s: string | undefined = at; s !== undefined && s !== start; s = from.get(s)) steps.splice(1, 0, s);
        return [...steps, start].join(' -> ');
      }
      if (!from.has(e.to)) {
        from.set(e.to, at);
        queue.push(e.to);
      }
    }
  }
  return component.join(', ');
}

describe('architecture: layers and import direction (issue 27)', function () {
  const { files, edges } = readGraph();

  it('reads the imports of every source file (the graph is not empty)', () => {
    assert.ok(files.length > 100, `only ${files.length} files under src`);
    assert.ok(edges.some((e) => e.from === 'src/tools/shell/bash.ts' && e.to.startsWith('src/runtime/')), 'tools/shell/bash.ts imports nothing from runtime?');
    assert.ok(edges.some((e) => e.typeOnly), 'no type-only import found');
    for (const f of files) if (f !== 'src/extension.ts' && f !== 'src/cli.ts') assert.ok(partOf(f), `${f} belongs to no layer: add its folder to the table`);
  });

  it('27.layers: no import runs upward', () => {
    const bad = upwardEdges(edges);
    if (bad.length > 0) assert.fail(`imports that run upward or sideways:\n  ${bad.join('\n  ')}`);
  });

  it('27.layers: no import cycles', () => {
    const found = cycles(files, edges).map((c) => `${loopThrough(c, edges)}${c.length > 2 ? `\n    (all ${c.length} files of this knot: ${c.join(', ')})` : ''}`);
    if (found.length > 0) assert.fail(`import cycles (type-only imports count):\n  ${found.join('\n  ')}`);
  });

  it("27.layers: the action's leaves import nothing but Node's own modules", () => {
    for (const leaf of Object.keys(ACTION_LEAVES)) {
      const imports = edges.filter((e) => e.from === leaf && !e.to.startsWith('node:')).map((e) => e.to);
      assert.deepEqual(imports, [], `${leaf} is code the action bundles, so it may import only node: modules`);
    }
  });

  it("27.layers: the runtime leaves of the panel's host side import nothing of Turnstone and no Node module", () => {
    const builtins = new Set(builtinModules);
    for (const leaf of Object.keys(WEBVIEW_RUNTIME_LEAVES)) {
      const imports = edges.filter((e) => e.from === leaf && (e.to.startsWith('src/') || e.to.startsWith('.') || e.to.startsWith('node:') || builtins.has(e.to) || e.to === 'vscode')).map((e) => e.to);
      assert.deepEqual(imports, [], `${leaf} is code src/webview takes from runtime, so it may import only npm packages`);
    }
  });

  // Inside a layer, where a floor order holds (issue 43): the loop is the runtime's top floor (the providers and the
  // spend gate read a request's limits from request-limits.ts, not from the loop), and os/ is the tools' bottom one.
  it('27.layers: inside the runtime no folder imports loop/ (its entry may, and its top files its types); tools/os/ imports no other tools folder', () => {
    const folderOf = (file: string, layer: string) => (file.startsWith(`${layer}/`) ? file.slice(layer.length + 1).split('/').slice(0, -1)[0] : undefined);
    const bad = edges.flatMap((e) => {
      const into = folderOf(e.to, 'src/runtime');
      const from = folderOf(e.from, 'src/runtime');
      if (into === 'loop' && e.from.startsWith('src/runtime/') && from !== 'loop') {
        if (from === undefined && (e.from === 'src/runtime/index.ts' || e.typeOnly)) return [];
        return [`${e.from} -> ${e.to} (the loop is the runtime's top floor)`];
      }
      const toolsFrom = folderOf(e.from, 'src/tools');
      const toolsInto = folderOf(e.to, 'src/tools');
      if (toolsFrom === 'os' && e.to.startsWith('src/tools/') && toolsInto !== 'os') return [`${e.from} -> ${e.to} (os/ is the tools' bottom floor)`];
      return [];
    });
    assert.ok(edges.some((e) => e.from === 'src/runtime/loop/conversation.ts' && folderOf(e.to, 'src/runtime') === 'spend'), 'the loop imports the spend gate (the graph reads sub-folders)');
    if (bad.length > 0) assert.fail(`imports across a layer's floors:\n  ${bad.join('\n  ')}`);
  });

  it('27.layers: vscode only in the host, its entry point and the panel provider; runtime, tools, agent and cli never', () => {
    const bad = edges.filter((e) => e.to === 'vscode' && !MAY_IMPORT_VSCODE.includes(partOf(e.from)!)).map((e) => `${e.from} -> vscode`);
    if (bad.length > 0) assert.fail(`vscode imported outside the host:\n  ${bad.join('\n  ')}`);
  });

  it('27.layers: the browser code reaches no Node module, directly or through what it imports', () => {
    const builtins = new Set(builtinModules);
    const node = (spec: string) => spec.startsWith('node:') || builtins.has(spec) || spec === 'vscode';
    const byFile = new Map<string, Edge[]>();
    for (const e of edges) byFile.set(e.from, [...(byFile.get(e.from) ?? []), e]);
    const bad: string[] = [];
    const seenEdge = new Set<string>();
    for (const start of files.filter((f) => partOf(f) === 'webview-ui')) {
      const seen = new Set([start]);
      const queue = [start];
      while (queue.length > 0) {
        const at = queue.shift()!;
        for (const e of byFile.get(at) ?? []) {
          if (e.typeOnly) continue;
          if (node(e.to) && !seenEdge.has(`${at} -> ${e.to}`)) {
            seenEdge.add(`${at} -> ${e.to}`);
            bad.push(`${at} -> ${e.to} (reached from ${start})`);
          }
          else if (byFile.has(e.to) && !seen.has(e.to)) {
            seen.add(e.to);
            queue.push(e.to);
          }
        }
      }
    }
    for (const safe of Object.keys(BROWSER_SAFE_RUNTIME)) assert.deepEqual(byFile.get(safe) ?? [], [], `${safe} is imported by the browser code, so it must import nothing`);
    if (bad.length > 0) assert.fail(`the browser code reaches Node or VS Code modules:\n  ${bad.join('\n  ')}`);
  });

  it('27.layers: the check fails on an upward import and on a cycle', () => {
    const planted: Edge[] = [
      { from: 'src/runtime/errors.ts', to: 'src/host/settings.ts', typeOnly: true },
      { from: 'src/webview/ui/items.ts', to: 'src/runtime/types.ts', typeOnly: true },
      { from: 'src/webview/protocol.ts', to: 'src/runtime/errors.ts', typeOnly: false },
    ];
    assert.deepEqual(upwardEdges(planted), [
      'src/runtime/errors.ts -> src/host/settings.ts (runtime may not import host)',
      'src/webview/ui/items.ts -> src/runtime/types.ts (webview-ui may not import runtime)',
      'src/webview/protocol.ts -> src/runtime/errors.ts (webview may import only types from runtime)',
    ]);
    const loop: Edge[] = [
      { from: 'a', to: 'b', typeOnly: true },
      { from: 'b', to: 'c', typeOnly: false },
      { from: 'c', to: 'a', typeOnly: false },
      { from: 'c', to: 'd', typeOnly: false },
    ];
    assert.deepEqual(cycles(['a', 'b', 'c', 'd'], loop), [['a', 'b', 'c']]);
    assert.equal(loopThrough(['a', 'b', 'c'], loop), 'a -> b -> c -> a');
  });
});
