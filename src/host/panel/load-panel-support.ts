// Loads dist/panel-support.js on first use, as load-core.ts loads the core: a
// computed path keeps esbuild from inlining it into dist/extension.js.
import * as path from 'node:path';
import type * as vscode from 'vscode';
import type * as PanelSupportModule from './panel-support';
import { type SensitiveMatcher } from '../../runtime/policy/sensitive-files';
import { readSensitiveGlobs } from '../settings';
import { type PathIndex, type WorkspaceIndex } from '../context/workspace-index';

export type PanelSupport = typeof PanelSupportModule;

let support: PanelSupport | undefined;

export function loadPanelSupport(): PanelSupport {
  // eslint-disable-next-line @typescript-eslint/no-require-imports -- a synchronous, deliberately late load
  support ??= require(path.join(__dirname, 'panel-support.js')) as PanelSupport;
  return support;
}

/**
 * The sensitive-file matcher for the current `turnstone.permissions.sensitiveFiles`, rebuilt only when they
 * change. It lives in the panel-support bundle: its glob engine is not compiled at activation.
 */
let sensitive: { key: string; matcher: SensitiveMatcher } | undefined;
export function hostSensitiveMatcher(globs: readonly string[] = readSensitiveGlobs()): SensitiveMatcher {
  const key = JSON.stringify(globs);
  if (sensitive?.key !== key) sensitive = { key, matcher: loadPanelSupport().sensitiveFileMatcher(globs) };
  return sensitive.matcher;
}

/**
 * The `@` picker's workspace index, made on first use (the panel opened or `@`
 * was typed): until then there is no listing to keep current, so no file
 * watcher either.
 */
export class LazyWorkspaceIndex implements PathIndex, vscode.Disposable {
  private index: WorkspaceIndex | undefined;

  constructor(private readonly log?: vscode.LogOutputChannel) {}

  list(): ReturnType<PathIndex['list']> {
    return this.get().list();
  }

  warm(): void {
    this.get().warm();
  }

  dispose(): void {
    this.index?.dispose();
  }

  private get(): WorkspaceIndex {
    this.index ??= new (loadPanelSupport().WorkspaceIndex)(this.log);
    return this.index;
  }
}
