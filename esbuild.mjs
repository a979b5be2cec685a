// Builds the bundles: the extension (Node/CommonJS, `vscode` external), the
// headless CLI (Node, with a shebang), the GitHub Action's entry and the webview
// (browser IIFE + CSS).
// Usage: node esbuild.mjs [--watch] [--production] [--webview]
// (--webview: only the webview bundle and CSS, for the panel's browser tests.)
import * as esbuild from 'esbuild';
import { cpSync, mkdirSync, writeFileSync } from 'node:fs';
import { inlineWorker } from './scripts/inline-worker.mjs';

const watch = process.argv.includes('--watch');
const production = process.argv.includes('--production');
const webviewOnly = process.argv.includes('--webview');

/** @type {esbuild.BuildOptions} */
const common = {
  bundle: true,
  // NO_MINIFY=1: a production build left readable, for a CPU profile of the panel.
  minify: production && !process.env.NO_MINIFY,
  sourcemap: production ? false : 'linked',
  sourcesContent: false,
  logLevel: 'warning',
  legalComments: 'none',
  define: { 'process.env.NODE_ENV': production ? '"production"' : '"development"' },
};

/**
 * Writes a build's metafile beside the bundles (not packaged: .vscodeignore lists
 * what is): test/unit/activation-bundle.test.ts reads from it what each holds.
 * @param {string} file
 * @returns {esbuild.Plugin}
 */
const writeMetafile = (file) => ({
  name: 'write-metafile',
  setup(build) {
    build.onEnd((result) => {
      if (result.metafile) writeFileSync(file, JSON.stringify(result.metafile));
    });
  },
});

/**
 * Resolves the modules `filter` matches to an inert stand-in (a call of anything
 * on it throws): for parts of a library the code never reaches.
 * @param {RegExp} filter
 * @returns {esbuild.Plugin}
 */
const leaveOut = (filter) => ({
  name: 'leave-out',
  setup(build) {
    build.onResolve({ filter }, (args) => ({ path: args.path, namespace: 'left-out' }));
    build.onLoad({ filter: /.*/, namespace: 'left-out' }, (args) => ({
      contents: `module.exports = new Proxy({}, { get: (_, key) => key === '__esModule' ? false : () => { throw new Error(${JSON.stringify(args.path)} + ' is left out of the bundle'); } });`,
      loader: 'js',
    }));
  },
});

/** @type {esbuild.BuildOptions[]} */
const builds = [
  {
    ...common,
    // Three bundles: the thin host compiled at activation; what only an open
    // panel needs (message schemas, the @ picker's index), required when it
    // first shows (src/host/panel/load-panel-support.ts); and the agent core
    // (runtime, SDKs, tools) that src/host/session/load-core.ts requires on first use.
    // test/unit/activation-bundle.test.ts keeps the lazy parts out of the first.
    entryPoints: { extension: 'src/extension.ts', 'panel-support': 'src/host/panel/panel-support.ts', core: 'src/host/session/core.ts' },
    outdir: 'dist',
    platform: 'node',
    format: 'cjs',
    target: 'node20',
    external: ['vscode'],
    metafile: true,
    plugins: [writeMetafile('dist/extension.meta.json')],
  },
  {
    ...common,
    // The browser tool's automation library (puppeteer-core), required on the tool's first use only
    // (src/tools/browser/load-driver.ts) by the core bundle and the CLI alike. What puppeteer needs only to
    // download browsers (proxy-agent, yargs) or to speak WebDriver BiDi (chromium-bidi) is left out: the tool
    // drives an installed browser over CDP (0.69 MB minified instead of 2.35 MB; src/tools/browser/README.md).
    entryPoints: { browser: 'src/tools/browser/driver.ts' },
    outdir: 'dist',
    platform: 'node',
    format: 'cjs',
    target: 'node20',
    metafile: true,
    plugins: [leaveOut(/^(proxy-agent|yargs|chromium-bidi)(\/.*)?$/), writeMetafile('dist/browser.meta.json')],
  },
  {
    ...common,
    entryPoints: { cli: 'src/cli.ts' },
    outdir: 'dist',
    platform: 'node',
    format: 'cjs',
    target: 'node20',
    banner: { js: '#!/usr/bin/env node' },
  },
  {
    ...common,
    // The GitHub Action's entry (action.yml): runs dist/cli.js beside it. No `vscode`
    // external: an import of it from src/action fails the build.
    entryPoints: { action: 'src/action/index.ts' },
    outdir: 'dist',
    platform: 'node',
    format: 'cjs',
    target: 'node20',
  },
  {
    ...common,
    entryPoints: { webview: 'src/webview/ui/main.ts' },
    outdir: 'dist',
    platform: 'browser',
    format: 'iife',
    target: ['chrome120'],
    // The highlighting worker's script, as text inside the panel's (started from a blob: URL).
    plugins: [inlineWorker({ minify: common.minify, target: ['chrome120'] })],
  },
  {
    ...common,
    // Every syntax-highlighting grammar, loaded on demand for languages beyond the worker's common set.
    entryPoints: { 'webview-languages': 'src/webview/languages/extra.ts' },
    outdir: 'dist',
    platform: 'browser',
    format: 'iife',
    target: ['chrome120'],
  },
  {
    ...common,
    entryPoints: { webview: 'media/webview.css' },
    outdir: 'dist',
    loader: { '.css': 'css' },
  },
];

function copyAssets() {
  // Codicons are served to the webview from dist/ so localResourceRoots can stay minimal.
  mkdirSync('dist/codicons', { recursive: true });
  cpSync('node_modules/@vscode/codicons/dist/codicon.css', 'dist/codicons/codicon.css');
  cpSync('node_modules/@vscode/codicons/dist/codicon.ttf', 'dist/codicons/codicon.ttf');
  // The bash parser behind permission decisions (src/runtime/policy/shell-parser.ts): loaded from dist/ on first use.
  cpSync('node_modules/web-tree-sitter/tree-sitter.wasm', 'dist/tree-sitter.wasm');
  cpSync('node_modules/tree-sitter-bash/tree-sitter-bash.wasm', 'dist/tree-sitter-bash.wasm');
}

copyAssets();
const selected = webviewOnly ? builds.filter((b) => 'webview' in b.entryPoints || 'webview-languages' in b.entryPoints) : builds;
if (watch) {
  const contexts = await Promise.all(selected.map((b) => esbuild.context(b)));
  await Promise.all(contexts.map((c) => c.watch()));
  console.log('[esbuild] watching for changes…');
} else {
  const started = Date.now();
  await Promise.all(selected.map((b) => esbuild.build(b)));
  console.log(`[esbuild] built ${production ? 'production' : 'development'} bundles in ${Date.now() - started} ms`);
}
