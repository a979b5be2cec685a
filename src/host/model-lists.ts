// The extension's model lists (issue 31): one catalog per extension host, saved
// in the extension's global storage so the picker works offline. The catalog
// and its fetching load with the core (dist/core.js), never at activation.
import * as path from 'node:path';
import type * as vscode from 'vscode';
import { type ListedModel } from '../runtime/providers/model-lists';
import { type ModelCatalog } from '../runtime/providers/model-catalog';
import { listSourceFor, presetForBaseUrl, type ProviderPreset } from '../runtime/providers/presets';
import { type TurnstoneSettings } from '../agent/settings';
import { loadCore } from './session/load-core';

/** The base URL requests go to: the setting, else the provider's environment variable. */
export function baseUrlInUse(s: Pick<TurnstoneSettings, 'provider' | 'baseUrl'>): string | undefined {
  return s.baseUrl || (s.provider === 'anthropic' ? process.env.ANTHROPIC_BASE_URL : process.env.OPENAI_BASE_URL) || undefined;
}

/** The OpenAI-compatible preset the settings point at (OpenRouter, Groq, …): its key has a slot and variable of its own. */
export function presetInUse(s: Pick<TurnstoneSettings, 'provider' | 'baseUrl'>): ProviderPreset | undefined {
  return s.provider === 'openai-compatible' ? presetForBaseUrl(baseUrlInUse(s)) : undefined;
}

let held: { dir: string; catalog: ModelCatalog } | undefined;

export function hostModelCatalog(context: vscode.ExtensionContext): ModelCatalog {
  const dir = context.globalStorageUri.fsPath;
  if (held?.dir !== dir) {
    const core = loadCore();
    held = { dir, catalog: new core.ModelCatalog(core.fileCatalogStore(path.join(dir, core.CATALOG_FILE))) };
  }
  return held.catalog;
}

/** What the last list of the provider in use said about the model (no request is made); undefined when none did. */
export async function liveModelFacts(context: vscode.ExtensionContext, provider: string, baseUrl: string | undefined, model: string): Promise<ListedModel | undefined> {
  const source = listSourceFor(provider, baseUrl);
  if (!source) return undefined;
  return hostModelCatalog(context)
    .lookup(source, model)
    .catch(() => undefined);
}
