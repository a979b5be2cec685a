// The models the picker offers. VS Code's quick pick re-sorts what matches the
// typed text (prefix matches first, then by name, numbers compared as numbers),
// and an extension cannot turn that off in VS Code 1.100: typed "opus", it put
// claude-opus-4-8 before claude-opus-5-5, so Enter picked an older Opus. Each
// family therefore also has an entry named `claude-<family>` for its newest
// model: being the shortest name that contains the family (and a prefix of the
// others), it sorts first whether the user types "opus" or "claude-opus".

import { knownModelLimits } from '../runtime/context/context-window';
import { type ListedModel } from '../runtime/providers/model-lists';
import { withLiveFacts } from '../runtime/providers/model-facts';
import { displayUrl, normalizeBaseUrl } from '../runtime/providers/presets';
import { priceFor, type PriceTable } from '../runtime/spend/usage';

import { FAMILIES, newestOf } from '../runtime/providers/model-families';

export { MODEL_CHOICES, newestOf } from '../runtime/providers/model-families';

/**
 * The heading of the provider in use's own list: the provider, a preset's name, or the server's address
 * (`openai` pointed at a proxy lists the proxy's models). `unnamed`: an OpenAI-compatible provider with no server.
 */
export function providerListLabel(provider: string, baseUrl: string | undefined, preset: { label: string } | undefined, unnamed: string): string {
  if (provider === 'anthropic') return 'Anthropic';
  if (preset) return preset.label;
  if (baseUrl) return displayUrl(baseUrl);
  return provider === 'openai' ? 'OpenAI' : unnamed;
}

/** Whether the provider's list is refused without a key, so a missing one is said rather than fetched into a 401. */
export function listNeedsKey(provider: string, preset: { keyVariable?: string | undefined } | undefined): boolean {
  return provider === 'anthropic' || provider === 'openai' || preset?.keyVariable !== undefined;
}

/** The model in use stays pickable even when the list lacks it (an id typed earlier, a retired model): then it comes first. */
export function withCurrentModel<T extends { id: string }>(models: readonly T[], current: string): ReadonlyArray<T | { id: string }> {
  return models.some((m) => m.id === current) ? models : [{ id: current }, ...models];
}

// The picker is a list of model sources (the provider's live list, the presets,
// and later others such as VS Code's language models), each loaded on its own
// so one that fails or is slow does not hold back the rest.

/** What picking a row sets: the model, and the provider and server when they change. */
export interface ModelChoice {
  model: string;
  provider?: string;
  baseUrl?: string;
}

export interface SourceModel {
  id: string;
  /** What the row shows when not the id (a family entry `claude-opus` for its newest model); such a row is never marked current. */
  label?: string | undefined;
  name?: string | undefined;
  /** Tokens; absent when neither the provider nor the built-in table knows. */
  contextWindow?: number | undefined;
  /** US dollars per million tokens. */
  price?: { inputPerMTok: number; outputPerMTok: number } | undefined;
}

/** A source's rows as loaded: its models, and a note when they are not fresh (offline: the saved list). */
export interface LoadedSource {
  models: SourceModel[];
  /** Shown on the source's separator: "offline: the list saved on …", "built-in list: …". */
  note?: string | undefined;
  /** What picking one of them sets besides the model (a preset: provider and base URL). */
  choice?: Omit<ModelChoice, 'model'>;
}

export interface ModelSource {
  /** Stable id (`live`, `presets`, `vscode-lm`): the order of the picker and tests use it. */
  id: string;
  label: string;
  load(): Promise<LoadedSource>;
}

const dollars = (n: number) => `$${Number.isInteger(n) ? n : Number(n.toPrecision(3))}`;

/** "200k · $3/$15": the window in thousands of tokens and the price per million tokens in / out; what is unknown is left out. */
export function factsLine(model: SourceModel): string {
  const parts: string[] = [];
  if (model.contextWindow) parts.push(model.contextWindow >= 1_000_000 && model.contextWindow % 1_000 !== 0 ? `${(model.contextWindow / 1_000_000).toFixed(2)}M` : `${Math.round(model.contextWindow / 1000)}k`);
  if (model.price) parts.push(model.price.inputPerMTok === 0 && model.price.outputPerMTok === 0 ? 'free' : `${dollars(model.price.inputPerMTok)}/${dollars(model.price.outputPerMTok)}`);
  return parts.join(' · ');
}

/**
 * A listed model with the window and price a turn on it would use: the settings' (`turnstone.contextWindow`,
 * `turnstone.modelPrices`), else the list's, else the built-in tables'.
 */
export function withTurnFacts(listed: ListedModel, settings: { contextWindow: number; prices: PriceTable }): SourceModel {
  const facts = withLiveFacts(listed.id, listed, settings);
  const contextWindow = facts.contextWindow || knownModelLimits(listed.id)?.contextWindow;
  const price = priceFor(listed.id, facts.prices);
  return { id: listed.id, name: listed.name, contextWindow, price };
}

/** One entry per family (`claude-opus`) for its newest model in the list's order (see the top of this file). */
export function familyEntries(ids: readonly string[]): Array<{ label: string; model: string }> {
  return FAMILIES.flatMap((family) => {
    const model = newestOf(family, ids);
    return model ? [{ label: `claude-${family}`, model }] : [];
  });
}

/** What is in use now: a row is current when it would set exactly this. */
export interface CurrentChoice {
  model: string;
  provider: string;
  baseUrl: string | undefined;
}

function isCurrent(choice: ModelChoice, current: CurrentChoice): boolean {
  if (choice.model !== current.model) return false;
  if (choice.provider !== undefined && choice.provider !== current.provider) return false;
  return choice.baseUrl === undefined || normalizeBaseUrl(choice.baseUrl) === normalizeBaseUrl(current.baseUrl ?? '');
}

export type PickerRow = { kind: 'separator'; label: string } | { kind: 'model'; label: string; description: string; current: boolean; choice: ModelChoice };

/**
 * The rows of the loaded sources in order: a separator per source (with its note), then its models, the
 * current one marked and first. First, because VS Code opens a list on its first row and moves to the best
 * match as the user types; setting the active row from the extension instead races the typing (the host may
 * not know yet what was typed, and its choice then hides or overrides VS Code's match).
 */
export function pickerRows(sources: ReadonlyArray<{ source: ModelSource; loaded: LoadedSource }>, current: CurrentChoice, currentMark = 'current'): PickerRow[] {
  const rows: PickerRow[] = [];
  for (const { source, loaded } of sources) {
    if (loaded.models.length === 0 && !loaded.note) continue;
    rows.push({ kind: 'separator', label: loaded.note ? `${source.label} (${loaded.note})` : source.label });
    const models = loaded.models.map((m): PickerRow & { kind: 'model' } => {
      const choice: ModelChoice = { ...loaded.choice, model: m.id };
      const now = m.label === undefined && isCurrent(choice, current);
      const description = [now ? currentMark : '', m.name ?? '', factsLine(m)].filter(Boolean).join(' · ');
      return { kind: 'model', label: m.label ?? m.id, description, current: now, choice };
    });
    rows.push(...models.filter((r) => r.current), ...models.filter((r) => !r.current));
  }
  return rows;
}
