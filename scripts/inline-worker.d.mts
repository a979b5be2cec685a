// Types of inline-worker.mjs for the tests that bundle the panel's modules.
import { type Plugin } from 'esbuild';
export function inlineWorker(options?: { minify?: boolean; target?: string[] }): Plugin;
