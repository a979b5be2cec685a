// Loads dist/core.js on first use. A computed path keeps esbuild from inlining
// it into dist/extension.js: compiling the whole agent at activation cost
// ~120 ms, and the editor pays activation on every window.
import * as path from 'node:path';
import type * as CoreModule from './core';

export type Core = typeof CoreModule;

let core: Core | undefined;

export function loadCore(): Core {
  // eslint-disable-next-line @typescript-eslint/no-require-imports -- a synchronous, deliberately late load
  core ??= require(path.join(__dirname, 'core.js')) as Core;
  return core;
}
