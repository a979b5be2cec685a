// The bash parser behind command permission decisions: tree-sitter-bash run by
// web-tree-sitter (the approach Codex uses; bench/README.md has the figures
// against mvdan/sh's WASM build). Loaded on first use, never at activation: the
// two .wasm files (~1.5 MB) sit next to the bundle in dist/ (esbuild.mjs copies
// them) and are read only when a command is first judged.
import { existsSync } from 'node:fs';
import * as path from 'node:path';
import type * as TreeSitter from 'web-tree-sitter';
import type { Node as SyntaxNode, Parser as TreeSitterParser, Tree } from 'web-tree-sitter';
import { RuntimeError } from '../errors';

export type { SyntaxNode, Tree };

const RUNTIME_WASM = 'tree-sitter.wasm';
const BASH_WASM = 'tree-sitter-bash.wasm';

let parser: TreeSitterParser | undefined;
let loading: Promise<TreeSitterParser> | undefined;

/**
 * Where a .wasm file is: next to the running bundle (dist/ in the repo and in an
 * installed VSIX), else in node_modules (tests and tsx run from src/).
 */
function wasmPath(file: string, pkg: string): string {
  const beside = path.join(__dirname, file);
  if (existsSync(beside)) return beside;
  try {
    return path.join(path.dirname(require.resolve(`${pkg}/package.json`)), file);
  } catch {
    // web-tree-sitter's exports hide package.json: resolve its entry point instead.
    return path.join(path.dirname(require.resolve(pkg)), file);
  }
}

async function load(): Promise<TreeSitterParser> {
  // require, not import(): bundlers then take the package's CommonJS build, which finds its files
  // by __dirname (the ESM build needs import.meta.url, empty in a CommonJS bundle); still evaluated only here.
  // eslint-disable-next-line @typescript-eslint/no-require-imports
  const { Parser, Language } = require('web-tree-sitter') as typeof TreeSitter;
  const runtimeWasm = wasmPath(RUNTIME_WASM, 'web-tree-sitter');
  await Parser.init({ locateFile: () => runtimeWasm });
  const bash = await Language.load(wasmPath(BASH_WASM, 'tree-sitter-bash'));
  const p = new Parser();
  p.setLanguage(bash);
  return p;
}

/** Loads the parser once; later calls resolve at once. A failed load is retried on the next call. */
export function loadShellParser(): Promise<void> {
  if (parser) return Promise.resolve();
  loading ??= load().then(
    (p) => (parser = p),
    (error: unknown) => {
      loading = undefined;
      throw new RuntimeError('internal', `the bash parser could not be loaded: ${error instanceof Error ? error.message : String(error)}`);
    },
  );
  return loading.then(() => undefined);
}

export const shellParserLoaded = (): boolean => parser !== undefined;

/** Parses synchronously; the caller must have awaited loadShellParser(). The tree must be deleted after use. */
export function parseShell(source: string): Tree {
  if (!parser) throw new RuntimeError('internal', 'the bash parser is used before loadShellParser() finished');
  const tree = parser.parse(source);
  if (!tree) throw new RuntimeError('internal', 'the bash parser returned no tree');
  return tree;
}
