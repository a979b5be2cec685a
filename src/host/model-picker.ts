// "Turnstone: Select Model" (issue 31): the provider's live model list with
// each model's window and price, the current one marked; the presets of the
// OpenAI-compatible provider, each opening its own server's list; "Other…" for
// any id. A list that cannot be fetched comes from the saved copy, saying so.
// The rows are built by model-choices.ts (no VS Code there, so tests run it).
import * as vscode from 'vscode';
import { missingKeyMessage } from '../runtime/providers/key-hints';
import { type CatalogList } from '../runtime/providers/model-catalog';
import { type ListedModel, type ModelListSource } from '../runtime/providers/model-lists';
import { listSourceFor, PROVIDER_PRESETS, type ProviderPreset } from '../runtime/providers/presets';
import { type PriceTable } from '../runtime/spend/usage';
import { familyEntries, type CurrentChoice, listNeedsKey, type LoadedSource, MODEL_CHOICES, type ModelChoice, type ModelSource, pickerRows, providerListLabel, withCurrentModel, withTurnFacts } from './model-choices';
import { baseUrlInUse, hostModelCatalog, presetInUse } from './model-lists';
import { type ApiKeys } from './secrets';
import { KeyDestinations } from './session/key-destination';
import { loadCore } from './session/load-core';
import { readSettings, setModel, setServer, type TurnstoneSettings } from './settings';

export interface ModelPickerDeps {
  context: vscode.ExtensionContext;
  keys: ApiKeys;
  log: vscode.LogOutputChannel;
}

/** A list fetch the picker waits for at most (a saved list, or the built-in one, is shown after it). */
const LIST_TIMEOUT_MS = 8_000;

interface TurnFacts {
  contextWindow: number;
  prices: PriceTable;
}

function settingsFacts(s: TurnstoneSettings): TurnFacts {
  return { contextWindow: s.contextWindow, prices: loadCore().parseModelPrices(s.modelPrices).prices };
}

/** The list of a source: fetched once a session, the saved one when that fails (said in the note), or the failure. */
async function fetchList(deps: ModelPickerDeps, source: ModelListSource, apiKey: string | undefined): Promise<{ list: CatalogList } | { error: string }> {
  try {
    const list = await hostModelCatalog(deps.context).list(source, { apiKey, timeoutMs: LIST_TIMEOUT_MS });
    if (list.error) deps.log.warn(`model list: ${list.error.message} (showing the list saved ${list.fetchedAt})`);
    return { list };
  } catch (error) {
    const message = error instanceof Error ? error.message : String(error);
    deps.log.warn(`model list: ${message}`);
    return { error: message };
  }
}

const savedNote = (list: CatalogList) => (list.fromCache ? vscode.l10n.t('offline: the list saved {0}', new Date(list.fetchedAt).toLocaleString()) : undefined);

/** The provider in use: its live list (Anthropic: with the family entries; without a list, the built-in one). */
function providerSource(deps: ModelPickerDeps, s: TurnstoneSettings, facts: TurnFacts): ModelSource {
  const baseUrl = baseUrlInUse(s);
  const preset = presetInUse(s);
  const label = providerListLabel(s.provider, baseUrl, preset, vscode.l10n.t('OpenAI-compatible server'));
  const withFacts = (models: readonly ListedModel[]) => withCurrentModel(models, s.model).map((m) => withTurnFacts(m, facts));
  const builtIn = (note: string): LoadedSource => {
    if (s.provider !== 'anthropic') return { models: withFacts([]), note };
    return { models: [...withFacts(MODEL_CHOICES.map((id) => ({ id }))), ...families(MODEL_CHOICES, facts)], note };
  };
  return {
    id: 'provider',
    label,
    load: async () => {
      const source = listSourceFor(s.provider, baseUrl);
      if (!source) return builtIn(vscode.l10n.t('set turnstone.baseUrl to list a server\'s models'));
      // A workspace-chosen server gets the key only once the user allowed it (asked at the first request, not here).
      if (!new KeyDestinations(deps.context.globalState).allowedWithoutAsking(s.baseUrl || undefined)) return builtIn(vscode.l10n.t('not listed: this workspace chose the server and you have not allowed it yet'));
      const apiKey = await deps.keys.get(s.provider, preset);
      if (!apiKey && listNeedsKey(s.provider, preset)) return builtIn(missingKeyMessage(s.provider, preset));
      const got = await fetchList(deps, source, apiKey);
      if ('error' in got) return builtIn(s.provider === 'anthropic' ? vscode.l10n.t('built-in list: {0}', got.error) : got.error);
      const models = withFacts(got.list.models);
      return { models: s.provider === 'anthropic' ? [...models, ...families(got.list.models.map((m) => m.id), facts)] : models, note: savedNote(got.list) };
    },
  };
}

function families(ids: readonly string[], facts: TurnFacts) {
  return familyEntries(ids).map((f) => ({ ...withTurnFacts({ id: f.model }, facts), label: f.label, name: vscode.l10n.t('newest: {0}', f.model) }));
}

/** A preset's own server: its list, each row setting the provider and base URL too. */
function presetSource(deps: ModelPickerDeps, preset: ProviderPreset, facts: TurnFacts, apiKey: string | undefined): ModelSource {
  return {
    id: `preset:${preset.id}`,
    label: preset.label,
    load: async () => {
      const choice = { provider: 'openai-compatible', baseUrl: preset.baseUrl };
      const got = await fetchList(deps, { shape: preset.listing, baseUrl: preset.baseUrl }, apiKey);
      if ('error' in got) return { models: [], note: got.error, choice };
      return { models: got.list.models.map((m) => withTurnFacts(m, facts)), note: savedNote(got.list), choice };
    },
  };
}

/**
 * The sources of the picker, in order. Another kind of model (VS Code's language models) adds its
 * source here; each loads on its own and a failure becomes its note.
 */
function modelSources(deps: ModelPickerDeps, s: TurnstoneSettings, facts: TurnFacts): ModelSource[] {
  return [providerSource(deps, s, facts)];
}

type Item = vscode.QuickPickItem & { choice?: ModelChoice; preset?: ProviderPreset; other?: true };

async function loadAll(sources: readonly ModelSource[]): Promise<Array<{ source: ModelSource; loaded: LoadedSource }>> {
  return Promise.all(
    sources.map(async (source) => ({
      source,
      loaded: await source.load().catch((error: unknown): LoadedSource => ({ models: [], note: error instanceof Error ? error.message : String(error) })),
    })),
  );
}

/** The rows as items; the first source's heading goes to the title, so the list starts with a model. */
function modelItems(loaded: Array<{ source: ModelSource; loaded: LoadedSource }>, current: CurrentChoice): { heading: string | undefined; items: Item[] } {
  const rows = pickerRows(loaded, current, vscode.l10n.t('current'));
  const heading = rows[0]?.kind === 'separator' ? rows.shift()?.label : undefined;
  const items = rows.map((row): Item =>
    row.kind === 'separator' ? { label: row.label, kind: vscode.QuickPickItemKind.Separator } : { label: row.label, description: row.description, choice: row.choice },
  );
  return { heading, items };
}

/** A quick pick that shows at once (busy) and gets its items when the sources have loaded. */
async function showPick(title: string, placeholder: string, items: () => Promise<{ heading: string | undefined; items: Item[] }>): Promise<Item | undefined> {
  const qp = vscode.window.createQuickPick<Item>();
  qp.title = title;
  qp.placeholder = placeholder;
  qp.busy = true;
  qp.show();
  const picked = new Promise<Item | undefined>((resolve) => {
    qp.onDidAccept(() => resolve(qp.selectedItems[0] ?? qp.activeItems[0]));
    qp.onDidHide(() => resolve(undefined));
  });
  void items().then(
    ({ heading, items: list }) => {
      if (heading) qp.title = `${title} · ${heading}`;
      // No activeItems here: the current model is the first row (pickerRows), so the list opens on it without
      // racing what the user types meanwhile.
      qp.items = list;
      qp.busy = false;
    },
    () => (qp.busy = false),
  );
  const item = await picked;
  qp.dispose();
  return item;
}

const otherItem = (): Item => ({ label: vscode.l10n.t('Other…'), description: vscode.l10n.t('type a model id'), other: true });

async function typedModel(value: string): Promise<string | undefined> {
  return (await vscode.window.showInputBox({ title: vscode.l10n.t('Model id'), value }))?.trim() || undefined;
}

/** A preset's models, once its key is there (asked for when it is not). */
async function pickFromPreset(deps: ModelPickerDeps, preset: ProviderPreset, s: TurnstoneSettings, facts: TurnFacts): Promise<ModelChoice | undefined> {
  let apiKey = await deps.keys.get('openai-compatible', preset);
  if (!apiKey && preset.keyVariable) {
    apiKey = await deps.keys.prompt('openai-compatible', vscode.l10n.t("{0} needs an API key. Stored in VS Code's secret storage ({1} in the environment also works).", preset.label, preset.keyVariable), preset);
    if (!apiKey) return undefined;
  }
  const current: CurrentChoice = { model: s.model, provider: s.provider, baseUrl: baseUrlInUse(s) };
  const item = await showPick(vscode.l10n.t('{0} models', preset.label), preset.baseUrl, async () => {
    const rows = modelItems(await loadAll([presetSource(deps, preset, facts, apiKey)]), current);
    return { heading: rows.heading, items: [...rows.items, otherItem()] };
  });
  if (!item) return undefined;
  if (item.choice) return item.choice;
  const model = item.other ? await typedModel('') : undefined;
  return model ? { model, provider: 'openai-compatible', baseUrl: preset.baseUrl } : undefined;
}

/** Shows the picker; resolves what was chosen (undefined: dismissed). */
export async function pickModel(deps: ModelPickerDeps): Promise<ModelChoice | undefined> {
  const s = readSettings();
  const facts = settingsFacts(s);
  const current: CurrentChoice = { model: s.model, provider: s.provider, baseUrl: baseUrlInUse(s) };
  const currentPreset = presetInUse(s);
  const presetItems: Item[] = [
    { label: vscode.l10n.t('OpenAI-compatible servers'), kind: vscode.QuickPickItemKind.Separator },
    ...PROVIDER_PRESETS.filter((p) => p !== currentPreset).map((preset) => ({
      label: preset.label,
      description: preset.keyVariable ? `${preset.baseUrl} · ${preset.keyVariable}` : `${preset.baseUrl} · ${vscode.l10n.t('no key needed')}`,
      preset,
    })),
  ];
  const item = await showPick(vscode.l10n.t('Turnstone model'), s.model, async () => {
    const rows = modelItems(await loadAll(modelSources(deps, s, facts)), current);
    return { heading: rows.heading, items: [...rows.items, otherItem(), ...presetItems] };
  });
  if (!item) return undefined;
  if (item.choice) return item.choice;
  if (item.preset) return pickFromPreset(deps, item.preset, s, facts);
  const model = item.other ? await typedModel(s.model) : undefined;
  return model ? { model } : undefined;
}

/** Writes the choice to the user's settings: the server first, so the model never runs on the old one. */
export async function applyModelChoice(choice: ModelChoice): Promise<void> {
  if (choice.provider !== undefined) await setServer(choice.provider, choice.baseUrl);
  await setModel(choice.model);
}
