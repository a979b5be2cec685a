// The CLI's model lists (issue 31): the saved lists in the user's cache folder
// (~/.cache/turnstone/model-lists.json), and a fresh one only from a preset's
// server that reports windows and prices (OpenRouter, Ollama) when neither the
// settings nor the built-in tables know the model: other servers get no request
// a run did not ask for.
import * as path from 'node:path';
import { type TurnstoneSettings } from '../agent/settings';
import { knownModelLimits } from '../runtime/context/context-window';
import { CATALOG_FILE, fileCatalogStore, ModelCatalog } from '../runtime/providers/model-catalog';
import { type ListedModel } from '../runtime/providers/model-lists';
import { listSourceFor, presetForBaseUrl } from '../runtime/providers/presets';
import { type ModelClientOptions } from '../runtime/providers';
import { priceFor, type PriceTable } from '../runtime/spend/usage';
import { userCacheDir } from '../tools/os/private-dir';

/** How long a run waits for a list before it goes on with what it knows. */
const LIST_TIMEOUT_MS = 5_000;

export async function cliLiveModel(options: ModelClientOptions, s: TurnstoneSettings, cliPrices: PriceTable, cacheDir = userCacheDir()): Promise<ListedModel | undefined> {
  const source = listSourceFor(options.provider, options.baseURL);
  if (!source) return undefined;
  const catalog = new ModelCatalog(fileCatalogStore(path.join(cacheDir, CATALOG_FILE)));
  const settingsPrice = typeof s.modelPrices === 'object' && s.modelPrices !== null && s.modelPrices !== undefined && s.model in s.modelPrices;
  const priced = settingsPrice || priceFor(s.model, cliPrices) !== undefined;
  const known = (s.contextWindow > 0 || knownModelLimits(s.model) !== undefined) && priced;
  const preset = options.provider === 'openai-compatible' ? presetForBaseUrl(options.baseURL) : undefined;
  if (!known && (preset?.listing === 'openrouter' || preset?.listing === 'ollama')) {
    const apiKey = 'apiKey' in options && typeof options.apiKey === 'string' && options.apiKey !== 'not-needed' ? options.apiKey : undefined;
    try {
      return (await catalog.list(source, { apiKey, timeoutMs: LIST_TIMEOUT_MS })).models.find((m) => m.id === s.model);
    } catch {
      // Unreachable and never saved: the run goes on with the built-in tables, as before lists.
    }
  }
  return catalog.lookup(source, s.model).catch(() => undefined);
}
