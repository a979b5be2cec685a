// An esbuild plugin: `import source from './x?worker'` bundles ./x(.ts) on its own, as a browser script, and gives
// the importer its text. The panel starts its highlighting worker from that text through a blob: URL
// (src/webview/ui/highlight.ts); its CSP allows no other worker source. Used by esbuild.mjs and by tests that bundle
// the panel's modules themselves.
import * as esbuild from 'esbuild';
import { resolve } from 'node:path';

/**
 * @param {{ minify?: boolean, target?: string[] }} [options]
 * @returns {esbuild.Plugin}
 */
export function inlineWorker(options = {}) {
  return {
    name: 'inline-worker',
    setup(build) {
      build.onResolve({ filter: /\?worker$/ }, (args) => ({ path: resolve(args.resolveDir, args.path.replace(/\?worker$/, '')), namespace: 'inline-worker' }));
      build.onLoad({ filter: /.*/, namespace: 'inline-worker' }, async (args) => {
        const result = await esbuild.build({
          entryPoints: [args.path],
          resolveExtensions: ['.ts', '.js'],
          bundle: true,
          write: false,
          metafile: true,
          format: 'iife',
          platform: 'browser',
          target: options.target ?? ['chrome120'],
          minify: options.minify ?? false,
          legalComments: 'none',
          logLevel: 'warning',
        });
        return { contents: result.outputFiles[0].text, loader: 'text', watchFiles: Object.keys(result.metafile.inputs).map((f) => resolve(f)) };
      });
    },
  };
}
