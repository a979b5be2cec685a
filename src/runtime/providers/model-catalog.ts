// The model lists seen so far: fetched once per session (a process: the
// extension host, one CLI run), and persisted so the picker still lists models,
// windows and prices when the provider cannot be reached. The file holds the
// lists only: no key, and base URLs without user names, passwords or queries.
import { mkdir, readFile, rename, writeFile } from 'node:fs/promises';
import * as path from 'node:path';
import { z } from 'zod';
import { ModelError } from '../types';
import { fetchModelList, type FetchListOptions, type ListedModel, type ModelListSource } from './model-lists';
import { displayUrl, normalizeBaseUrl } from './presets';

/** Where the lists are kept between sessions. */
export interface CatalogStore {
  read(): Promise<string | undefined>;
  write(text: string): Promise<void>;
}

/** A JSON file (the extension's globalStorage, the CLI's cache folder), replaced whole on each write. */
export function fileCatalogStore(file: string): CatalogStore {
  return {
    read: () => readFile(file, 'utf8').catch((error: NodeJS.ErrnoException) => (error.code === 'ENOENT' ? undefined : Promise.reject(error))),
    write: async (text) => {
      await mkdir(path.dirname(file), { recursive: true });
      const tmp = `${file}.${process.pid}.tmp`;
      await writeFile(tmp, text, { mode: 0o600 });
      await rename(tmp, file);
    },
  };
}

export const CATALOG_FILE = 'model-lists.json';

const Price = z.object({ inputPerMTok: z.number(), outputPerMTok: z.number(), cacheReadPerMTok: z.number().optional(), cacheWritePerMTok: z.number().optional() });
const Listed = z.object({ id: z.string(), name: z.string().optional(), contextWindow: z.number().int().positive().optional(), price: Price.optional() });
const Entry = z.object({ fetchedAt: z.string(), models: z.array(Listed) });
const CatalogFile = z.object({ version: z.literal(1), lists: z.record(z.string(), Entry) });
type Entry = z.infer<typeof Entry>;

export interface CatalogList {
  models: ListedModel[];
  /** When the provider gave this list (ISO time). */
  fetchedAt: string;
  /** True when the provider could not be asked and the list is the one saved earlier. */
  fromCache: boolean;
  /** Why the provider could not be asked (only with fromCache). */
  error?: ModelError;
}

/** The key a list is kept under: its shape and server, never a key. */
export function sourceKey(source: ModelListSource): string {
  const base = source.baseUrl ? normalizeBaseUrl(displayUrl(source.baseUrl)) : 'default';
  return `${source.shape} ${base}`;
}

export class ModelCatalog {
  /** Lists fetched in this session. */
  private readonly session = new Map<string, Entry>();
  private saved: Promise<Map<string, Entry>> | undefined;
  private writing: Promise<void> = Promise.resolve();

  constructor(
    private readonly store: CatalogStore,
    private readonly fetchList: typeof fetchModelList = fetchModelList,
    private readonly now: () => Date = () => new Date(),
  ) {}

  /**
   * The source's models: fetched on the first call of the session (or with `refresh`), then from
   * memory. When the fetch fails, the list saved by an earlier session, marked fromCache; with none
   * saved, the fetch's error.
   */
  async list(source: ModelListSource, options: FetchListOptions & { refresh?: boolean } = {}): Promise<CatalogList> {
    const key = sourceKey(source);
    const known = this.session.get(key);
    if (known && !options.refresh) return { ...known, fromCache: false };
    try {
      const models = await this.fetchList(source, options);
      const entry: Entry = { fetchedAt: this.now().toISOString(), models };
      this.session.set(key, entry);
      await this.persist(key, entry);
      return { ...entry, fromCache: false };
    } catch (error) {
      const failure = error instanceof ModelError ? error : new ModelError('protocol', error instanceof Error ? error.message : String(error), { cause: error });
      const saved = known ?? (await this.loadSaved()).get(key);
      if (!saved) throw failure;
      return { ...saved, fromCache: true, error: failure };
    }
  }

  /** What the last list of this source (this session's, else a saved one) says about a model; no request is made. */
  async lookup(source: ModelListSource, model: string): Promise<ListedModel | undefined> {
    const key = sourceKey(source);
    const entry = this.session.get(key) ?? (await this.loadSaved()).get(key);
    return entry?.models.find((m) => m.id === model);
  }

  private loadSaved(): Promise<Map<string, Entry>> {
    // A missing, unreadable or malformed file is an empty cache: it only ever saves a request.
    this.saved ??= this.store
      .read()
      .then((text) => {
        if (!text) return new Map<string, Entry>();
        const parsed = CatalogFile.safeParse(JSON.parse(text));
        return new Map<string, Entry>(parsed.success ? Object.entries(parsed.data.lists) : []);
      })
      .catch(() => new Map<string, Entry>());
    return this.saved;
  }

  private async persist(key: string, entry: Entry): Promise<void> {
    // Writes one after another, each with every list known by then (another window's lists are kept as read at start).
    this.writing = this.writing.catch(() => undefined).then(async () => {
      const saved = await this.loadSaved();
      saved.set(key, entry);
      await this.store.write(JSON.stringify({ version: 1, lists: Object.fromEntries(saved) }));
    });
    await this.writing.catch(() => undefined);
  }
}
