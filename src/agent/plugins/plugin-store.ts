// Plugin marketplaces and installed plugins (issue 46), under the user's data folder (the editor's global
// storage), never in a repository:
//
//   <base>/plugins/registry.json                       what was added and installed
//   <base>/plugins/marketplaces/<name>/                a git marketplace's clone (a folder one is read in place)
//   <base>/plugins/installed/<marketplace>/<plugin>/   an installed plugin's copy
//   <base>/plugins/staging/<id>-<random>/<plugin>/      its private copy while the install question is open
//   <base>/plugins/cache/<id>-<random>/                 a plugin's own repository, cloned for planInstall() only
//
// A marketplace is a folder or git repository with `.claude-plugin/marketplace.json` listing plugins whose
// `source` is a folder inside it, or a repository of their own (`{"source": "github", "repo": "owner/name"}`,
// `{"source": "url", "url": "…"}`, with an optional `ref`, `sha` and `path`). Listing never fetches anything:
// such a repository is cloned (shallow) when the plugin is installed or updated, copied like a folder source
// and the clone deleted. Installing is two steps so the caller can ask first: planInstall() copies the plugin into a
// private staging folder and names, from that copy, what it will run (its hooks' and MCP servers' commands);
// install() moves that very copy into place, discardInstall() deletes it. A plugin's id is
// `<plugin>@<marketplace>`, the value `turnstone.plugins.enabled` holds. Git runs without any hooks, templates
// or submodules of the repository.
import { execFile } from 'node:child_process';
import { promises as fs } from 'node:fs';
import { randomBytes } from 'node:crypto';
import * as path from 'node:path';
import { cutHead } from '../../runtime/text-cut';
import { childEnv } from '../../tools/node-adapter';
import { findProgram } from '../../tools/os/program-path';
import { GIT_ENV_REMOVED } from '../../runtime/policy/safe-git';
import { readPlugin, summarizePlugin, type LoadedPlugin, type PluginSummary } from './plugin-reader';

export const MARKETPLACE_FILE = '.claude-plugin/marketplace.json';
/** A file the store writes into each installed copy, naming that install (plugin-mcp.ts reads it). */
export const INSTALL_STAMP = '.turnstone-install';
const NAME = /^[A-Za-z0-9][A-Za-z0-9_.-]{0,63}$/;
const GIT_TIMEOUT_MS = 120_000;
/** How long a staged copy whose question was never answered is kept. */
const STAGING_KEPT_MS = 24 * 60 * 60 * 1000;

export class PluginStoreError extends Error {
  override readonly name = 'PluginStoreError';
}

export interface MarketplaceRecord {
  name: string;
  kind: 'folder' | 'git';
  /** The folder or git location as the user gave it. */
  source: string;
  /** Where it is read: the folder itself, or the clone. */
  dir: string;
}

export interface InstalledRecord {
  /** `<plugin>@<marketplace>`. */
  id: string;
  name: string;
  marketplace: string;
  version: string;
  /** The copy under installed/. */
  dir: string;
  /** What it runs, as the user was told when installing. */
  runs: string[];
}

interface Registry {
  version: 1;
  marketplaces: MarketplaceRecord[];
  installed: InstalledRecord[];
}

export interface MarketplaceEntry {
  name: string;
  description: string;
  version: string;
  /** The plugin's folder inside the marketplace; undefined when its source is not a folder there. */
  dir: string | undefined;
  /** A plugin kept in a repository of its own, cloned when it is installed (never when it is listed). */
  remote?: RemoteSource;
  /** Where a plugin of a repository of its own comes from, to show (`from github.com/owner/name`). */
  from?: string;
  /** Why it cannot be installed. */
  unavailable?: string;
}

/** A plugin entry's repository of its own, as checked when the marketplace is read. */
export interface RemoteSource {
  /** The clone URL without a user name or token (the one cloned, if it has them, is kept out of this object). */
  url: string;
  /** A branch or tag; the default branch when undefined. */
  ref?: string;
  /** A commit the clone is then moved to. */
  sha?: string;
  /** The plugin's folder inside the repository, relative (`''`: its top). */
  path: string;
}

export interface Marketplace {
  name: string;
  description: string;
  plugins: MarketplaceEntry[];
  problems: string[];
}

/** A plugin staged for installing (planInstall): read from its private copy, which install() moves into place. */
export interface InstallPlan {
  /** `<plugin>@<marketplace>`. */
  id: string;
  /** As read from the staged copy. */
  plugin: LoadedPlugin;
  /** What it brings and runs, named for the question; `runs` name the folder it is installed in. */
  summary: PluginSummary;
  /** The marketplace's folder it was copied from, or `from <repository>` for one cloned (for messages; never read again). */
  sourceDir: string;
  /** The private copy that is installed. */
  stagedDir: string;
}

export const pluginId = (plugin: string, marketplace: string): string => `${plugin}@${marketplace}`;

const GITHUB_REPO = /^[A-Za-z0-9_.-]+\/[A-Za-z0-9_.-]+$/;
const GIT_REF = /^[A-Za-z0-9_][A-Za-z0-9_./+-]{0,199}$/;
const GIT_SHA = /^[0-9a-f]{40}$/;
/**
 * The URL a remote source is cloned from when it carries credentials: kept beside the entry rather than in it,
 * so a listing that is logged or serialized never holds the token.
 */
const cloneUrls = new WeakMap<RemoteSource, string>();

/**
 * Whether git may clone `url` for a plugin, and the URL as git gets it (normalised: git reads some strings a URL
 * parser accepts differently, `https:host/x` as ssh to a host named https): https, ssh (`ssh://` or
 * `git@host:path`) or file. Plain http and git:// are refused as they fetch code to run without checking who
 * served it. `file:` only in a marketplace that is a folder of the user's (`local`), and only for this machine:
 * a marketplace fetched from elsewhere must not point git at the user's own repositories or at a network share.
 */
function cloneableUrl(url: string, local: boolean): { url: string } | { refused: string } {
  if (/^git@[A-Za-z0-9][A-Za-z0-9.-]*:[^\s-][^\s]*$/.test(url)) return { url };
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    return { refused: `its source URL '${withoutCredentials(url)}' is not a URL` };
  }
  const shown = withoutCredentials(url);
  if (parsed.protocol === 'https:' || parsed.protocol === 'ssh:') {
    if (parsed.hostname === '' || parsed.hostname.startsWith('-') || !url.toLowerCase().startsWith(`${parsed.protocol}//`)) return { refused: `its source URL '${shown}' names no usable host` };
    return { url: parsed.href };
  }
  if (parsed.protocol === 'file:') {
    if (!local) return { refused: `its source URL '${shown}' is a file on this machine, which only a marketplace in a folder of yours may name` };
    if (parsed.hostname !== '' && parsed.hostname !== 'localhost') return { refused: `its source URL '${shown}' names another machine's files` };
    return { url: parsed.href };
  }
  return { refused: `its source URL '${shown}' is ${parsed.protocol.replace(/:$/, '')}:, and Turnstone clones plugins only over https, ssh or from a local file: repository` };
}

/** A plugin entry's `source` object (Claude Code's `github` and `url` kinds): the repository to clone, or why it cannot be. */
function remoteSource(source: object, local: boolean): { remote: RemoteSource; from: string } | { unavailable: string } {
  const s = source as { source?: unknown; repo?: unknown; url?: unknown; ref?: unknown; sha?: unknown; path?: unknown };
  let url: string;
  let shown: string;
  if (s.source === 'github') {
    const repo = typeof s.repo === 'string' ? s.repo.trim() : '';
    if (!GITHUB_REPO.test(repo) || repo.split('/').some((part) => part === '.' || part === '..' || part.includes('..'))) return { unavailable: `its GitHub source "repo" must be owner/name (letters, digits, '.', '_' and '-'), not '${cutHead(repo, 100)}'` };
    url = `https://github.com/${repo}${repo.endsWith('.git') ? '' : '.git'}`;
    shown = `github.com/${repo.replace(/\.git$/, '')}`;
  } else if (s.source === 'url') {
    const given = typeof s.url === 'string' ? s.url.trim() : '';
    if (given === '') return { unavailable: 'its URL source has no "url"' };
    const checked = cloneableUrl(given, local);
    if ('refused' in checked) return { unavailable: checked.refused };
    url = checked.url;
    shown = withoutCredentials(url);
  } else {
    const kind = typeof s.source === 'string' ? `'${cutHead(s.source, 40)}'` : 'without a "source" kind';
    return { unavailable: `its source is of the kind ${kind}; Turnstone installs plugins from a folder of the marketplace, a "github" or a "url" git repository` };
  }
  const ref = typeof s.ref === 'string' && s.ref.trim() !== '' ? s.ref.trim() : undefined;
  if (ref !== undefined && (!GIT_REF.test(ref) || ref.includes('..'))) return { unavailable: `its source "ref" '${cutHead(ref, 100)}' is not a branch or tag name` };
  const sha = typeof s.sha === 'string' && s.sha.trim() !== '' ? s.sha.trim().toLowerCase() : undefined;
  if (sha !== undefined && !GIT_SHA.test(sha)) return { unavailable: `its source "sha" must be a full commit id of 40 hexadecimal digits` };
  const sub = typeof s.path === 'string' ? s.path.trim().replace(/\\/g, '/') : '';
  const parts = sub.split('/').filter((part) => part !== '' && part !== '.');
  if (path.posix.isAbsolute(sub) || /^[A-Za-z]:/.test(sub) || parts.includes('..')) return { unavailable: `its source "path" '${cutHead(sub, 100)}' must be a folder inside the repository` };
  const remote: RemoteSource = { url: withoutCredentials(url), path: parts.join('/'), ...(ref !== undefined ? { ref } : {}), ...(sha !== undefined ? { sha } : {}) };
  if (remote.url !== url) cloneUrls.set(remote, url);
  const at = [ref, sha?.slice(0, 12)].filter(Boolean).join(' ');
  return { remote, from: `from ${shown}${remote.path ? `/${remote.path}` : ''}${at ? ` at ${at}` : ''}` };
}

const isWithin = (root: string, p: string): boolean => {
  const rel = path.relative(root, p);
  return rel === '' || (rel !== '..' && !rel.startsWith(`..${path.sep}`) && !path.isAbsolute(rel));
};

/** Reads `.claude-plugin/marketplace.json` of a folder. Throws PluginStoreError when it is missing or unusable. */
/** `local`: the marketplace is a folder of the user's (its entries may name file: repositories), not a clone. */
export async function readMarketplace(dir: string, options: { local?: boolean } = {}): Promise<Marketplace> {
  const file = path.join(dir, ...MARKETPLACE_FILE.split('/'));
  let json: unknown;
  try {
    json = JSON.parse(await fs.readFile(file, 'utf8'));
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (code === 'ENOENT' || code === 'ENOTDIR') throw new PluginStoreError(`${dir} is not a plugin marketplace: it has no ${MARKETPLACE_FILE}`);
    throw new PluginStoreError(`${file} ${error instanceof SyntaxError ? `is not valid JSON (${error.message})` : `cannot be read (${code ?? String(error)})`}`);
  }
  if (typeof json !== 'object' || json === null || Array.isArray(json)) throw new PluginStoreError(`${file} must hold a JSON object with "name" and "plugins"`);
  const raw = json as { name?: unknown; description?: unknown; metadata?: { description?: unknown; pluginRoot?: unknown }; plugins?: unknown };
  const name = typeof raw.name === 'string' ? raw.name.trim() : '';
  if (!NAME.test(name)) throw new PluginStoreError(`${file}: "name" must be a name of letters, digits, '.', '_' and '-'`);
  if (!Array.isArray(raw.plugins)) throw new PluginStoreError(`${file}: "plugins" must be a list`);
  const problems: string[] = [];
  const realDir = await fs.realpath(dir);
  const pluginRoot = typeof raw.metadata?.pluginRoot === 'string' ? raw.metadata.pluginRoot : '';
  const plugins: MarketplaceEntry[] = [];
  for (const item of raw.plugins as unknown[]) {
    const p = (typeof item === 'object' && item !== null ? item : {}) as { name?: unknown; description?: unknown; version?: unknown; source?: unknown };
    const pname = typeof p.name === 'string' ? p.name.trim() : '';
    if (!NAME.test(pname)) {
      problems.push(`${MARKETPLACE_FILE}: an entry without a usable "name" is skipped.`);
      continue;
    }
    if (plugins.some((e) => e.name === pname)) {
      problems.push(`${MARKETPLACE_FILE}: the plugin '${pname}' is listed twice; the first is used.`);
      continue;
    }
    const entry: MarketplaceEntry = { name: pname, description: typeof p.description === 'string' ? cutHead(p.description, 300) : '', version: typeof p.version === 'string' ? p.version : '', dir: undefined };
    if (typeof p.source === 'string' && !/^[a-z][a-z0-9+.-]*:/i.test(p.source) && !p.source.startsWith('git@')) {
      const rel = p.source.startsWith('./') || p.source.startsWith('../') || path.isAbsolute(p.source) ? p.source : path.join(pluginRoot, p.source);
      const abs = path.resolve(realDir, rel);
      const real = await fs.realpath(abs).catch(() => undefined);
      if (!real) entry.unavailable = `its folder ${p.source} is not in the marketplace`;
      else if (!isWithin(realDir, real)) entry.unavailable = `its folder ${p.source} is outside the marketplace`;
      else entry.dir = real;
    } else if (typeof p.source === 'object' && p.source !== null && !Array.isArray(p.source)) {
      // Only checked here: the repository is cloned when the plugin is installed, so listing needs no network.
      const remote = remoteSource(p.source, options.local ?? true);
      if ('remote' in remote) Object.assign(entry, remote);
      else entry.unavailable = remote.unavailable;
    } else {
      entry.unavailable = typeof p.source === 'string'
        ? 'its source is a URL written as a string; Turnstone installs plugins from a folder of the marketplace or a "github" or "url" source object'
        : 'it has no "source" (a folder of the marketplace, or a "github" or "url" source object)';
    }
    plugins.push(entry);
  }
  const description = typeof raw.description === 'string' ? raw.description : typeof raw.metadata?.description === 'string' ? raw.metadata.description : '';
  return { name, description: cutHead(description, 300), plugins, problems };
}

/** A repository's location as saved and shown: without a user name or token written into it (`https://user:token@host/…`). */
export function withoutCredentials(location: string): string {
  try {
    const url = new URL(location);
    if (!url.username && !url.password) return location;
    url.username = '';
    url.password = '';
    return url.toString();
  } catch {
    return location;
  }
}

/**
 * How git is handed a URL's credentials: never in its arguments, which every local user can read (`ps`). An
 * https URL's user name and token become an Authorization header for that origin, passed in git's environment
 * (GIT_CONFIG_PARAMETERS, which every git reads and only the same user can), and git is given the URL without
 * them. Sent with the first request, as GitHub, GitLab and Bitbucket take a token; `redirects` is false then,
 * because git would send the header on to a host its first request is redirected to. A user name alone is a
 * token only when it looks like one (`https://ghp_…@github.com/…`); `https://user@bitbucket.org/…` stays as it
 * is (no secret, and a public repository clones without credentials). Other URLs are given as they are.
 */
export function gitAuth(url: string): { url: string; env: Record<string, string>; redirects: boolean } {
  const plain = { url, env: {}, redirects: true };
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    return plain;
  }
  const decode = (s: string) => {
    try {
      return decodeURIComponent(s);
    } catch {
      return s;
    }
  };
  const [user, password] = [decode(parsed.username), decode(parsed.password)];
  if (parsed.protocol !== 'https:' || (password === '' && !TOKEN_LIKE.test(user))) return plain;
  const header = `Authorization: Basic ${Buffer.from(`${user}:${password}`).toString('base64')}`;
  return { url: withoutCredentials(url), env: { GIT_CONFIG_PARAMETERS: shellQuoted(`http.${parsed.origin}/.extraHeader=${header}`) }, redirects: false };
}

/** User names that are tokens: GitHub's and GitLab's prefixes, or a long run of token characters. */
const TOKEN_LIKE = /^(gh[pousr]_|github_pat_|glpat-)|^[\w-]{30,}$/;

/** One GIT_CONFIG_PARAMETERS entry: single-quoted, as git writes them (a quote inside as '\''). */
function shellQuoted(entry: string): string {
  return `'${entry.replace(/'/g, "'\\''")}'`;
}

/** `text` with the credentials of `url` (a user name, a token) taken out, for an error that may quote it. */
function redacted(text: string, url: string): string {
  const bare = withoutCredentials(url);
  if (bare === url) return text;
  let out = text.split(url).join(bare);
  try {
    const { username, password } = new URL(url);
    for (const secret of [password, username, decodeURIComponent(password), decodeURIComponent(username)]) if (secret.length >= 4) out = out.split(secret).join('***');
  } catch {
    // Not a URL: nothing more to find.
  }
  return out;
}

function runGit(args: string[], cwd: string, url?: string, auth: { env: Record<string, string>; redirects: boolean } = { env: {}, redirects: true }): Promise<void> {
  return new Promise((resolve, reject) => {
    // git by its absolute path found on PATH, as Turnstone's other git runs (worktrees.ts), without GIT_DIR-like variables.
    const git = findProgram(process.platform === 'win32' ? 'git.exe' : 'git');
    if (!git) {
      reject(new PluginStoreError('git was not found on PATH (a git marketplace or a plugin in a repository of its own needs it)'));
      return;
    }
    const env: NodeJS.ProcessEnv = { ...childEnv(process.env, []), GIT_TERMINAL_PROMPT: '0', GIT_CONFIG_NOSYSTEM: '1' };
    for (const name of GIT_ENV_REMOVED) delete env[name];
    Object.assign(env, auth.env);
    // No hooks (core.hooksPath to nothing, no template to copy them from), no submodules, no prompts for a password.
    // No credential helper either: a token in a marketplace's URL would be handed to it to store (~/.git-credentials).
    const safe = ['-c', 'core.hooksPath=/dev/null', '-c', 'core.fsmonitor=false', '-c', 'protocol.ext.allow=never', '-c', 'credential.helper=', ...(auth.redirects ? [] : ['-c', 'http.followRedirects=false']), ...args];
    execFile(git, safe, { cwd, timeout: GIT_TIMEOUT_MS, env, maxBuffer: 4 * 1024 * 1024 }, (error, _stdout, stderr) => {
      // git may quote the URL it was given: a token in it stays out of the message (which is logged and shown).
      if (error) reject(new PluginStoreError(`git ${args[0]} failed: ${cutHead(redacted(String(stderr || error.message).trim(), url ?? ''), 400)}`));
      else resolve();
    });
  });
}

/**
 * A shallow clone of `url` into `dest` (which must not exist), without the repository's hooks, template or
 * submodules: a marketplace's, or a plugin's repository of its own. `ref` a branch or tag (else the default
 * branch); `sha` a commit then fetched and checked out.
 */
async function shallowClone(url: string, dest: string, cwd: string, at: { ref?: string | undefined; sha?: string | undefined } = {}): Promise<void> {
  const auth = gitAuth(url);
  await runGit(['clone', '--depth', '1', '--no-recurse-submodules', '--template=', ...(at.ref !== undefined ? [`--branch=${at.ref}`] : []), '--', auth.url, dest], cwd, url, auth);
  if (at.sha !== undefined) {
    await runGit(['fetch', '--depth', '1', '--no-recurse-submodules', 'origin', at.sha], dest, url, auth);
    await runGit(['checkout', '-q', '--detach', at.sha], dest, url);
  }
}

/** The registry of one data folder: marketplaces added, plugins installed. */
/**
 * Where a git marketplace's URL is kept when it carries a user name or token (the editor's secret storage):
 * registry.json and the clone hold only the URL without them, and a refresh needs the whole one.
 */
export interface MarketplaceCredentials {
  get(marketplace: string): Promise<string | undefined>;
  store(marketplace: string, url: string): Promise<void>;
  forget(marketplace: string): Promise<void>;
}

export class PluginStore {
  readonly dir: string;

  /**
   * `base`: the user's data folder for Turnstone (the editor's global storage, or userDataDir()). `credentials`:
   * where a marketplace URL's token is kept (none: such a marketplace can be added but not refreshed).
   */
  constructor(
    base: string,
    private readonly credentials?: MarketplaceCredentials,
  ) {
    this.dir = path.join(base, 'plugins');
  }

  private get registryFile(): string {
    return path.join(this.dir, 'registry.json');
  }

  async registry(): Promise<Registry> {
    try {
      const json = JSON.parse(await fs.readFile(this.registryFile, 'utf8')) as Partial<Registry>;
      return { version: 1, marketplaces: Array.isArray(json.marketplaces) ? json.marketplaces : [], installed: Array.isArray(json.installed) ? json.installed : [] };
    } catch {
      return { version: 1, marketplaces: [], installed: [] };
    }
  }

  private async save(reg: Registry): Promise<void> {
    await fs.mkdir(this.dir, { recursive: true });
    const tmp = `${this.registryFile}.${process.pid}.tmp`;
    await fs.writeFile(tmp, `${JSON.stringify(reg, null, 2)}\n`);
    await fs.rename(tmp, this.registryFile);
  }

  async marketplaces(): Promise<MarketplaceRecord[]> {
    return (await this.registry()).marketplaces;
  }

  async installed(): Promise<InstalledRecord[]> {
    return (await this.registry()).installed;
  }

  /**
   * Adds a marketplace: a folder is read where it is; a git repository (a URL, or a local repository's path) is
   * cloned under the data folder. Replaces an earlier one of the same name only from the same source.
   */
  async addMarketplace(source: { kind: 'folder'; path: string } | { kind: 'git'; url: string }): Promise<{ record: MarketplaceRecord; marketplace: Marketplace }> {
    const reg = await this.registry();
    if (source.kind === 'folder') {
      const dir = path.resolve(source.path);
      const marketplace = await readMarketplace(dir);
      const record: MarketplaceRecord = { name: marketplace.name, kind: 'folder', source: dir, dir };
      this.checkName(reg, record);
      await this.save({ ...reg, marketplaces: [...reg.marketplaces.filter((m) => m.name !== record.name), record] });
      return { record, marketplace };
    }
    const url = source.url.trim();
    if (url === '' || url.startsWith('-')) throw new PluginStoreError(`'${url}' is not a git repository's location`);
    const staging = path.join(this.dir, 'marketplaces', `.clone-${process.pid}-${Date.now()}`);
    await fs.mkdir(path.dirname(staging), { recursive: true });
    try {
      await shallowClone(url, staging, this.dir);
      // Not needed (a refresh clones afresh), and its config would name where the marketplace came from.
      await fs.rm(path.join(staging, '.git'), { recursive: true, force: true });
      const marketplace = await readMarketplace(staging, { local: false });
      const dir = path.join(this.dir, 'marketplaces', marketplace.name);
      // Saved and shown without credentials: a token in the URL stays out of registry.json, the log and the picker.
      const record: MarketplaceRecord = { name: marketplace.name, kind: 'git', source: withoutCredentials(url), dir };
      this.checkName(reg, record);
      await fs.rm(dir, { recursive: true, force: true });
      await fs.rename(staging, dir);
      await this.save({ ...reg, marketplaces: [...reg.marketplaces.filter((m) => m.name !== record.name), record] });
      if (record.source !== url) await this.credentials?.store(record.name, url);
      else await this.credentials?.forget(record.name);
      return { record, marketplace: await readMarketplace(dir, { local: false }) };
    } finally {
      await fs.rm(staging, { recursive: true, force: true });
    }
  }

  private checkName(reg: Registry, record: MarketplaceRecord): void {
    const existing = reg.marketplaces.find((m) => m.name === record.name);
    if (existing && existing.source !== record.source) throw new PluginStoreError(`a marketplace named '${record.name}' was already added from ${existing.source}; remove it first`);
  }

  /** Updates a git marketplace (a fresh clone); a folder one is always read as it is. */
  async refreshMarketplace(name: string): Promise<Marketplace> {
    const record = (await this.marketplaces()).find((m) => m.name === name);
    if (!record) throw new PluginStoreError(`no marketplace named '${name}'`);
    if (record.kind === 'git') {
      // The whole URL from the secret storage, if it is this marketplace's (the same URL without its token).
      const kept = await this.credentials?.get(name);
      const url = kept !== undefined && withoutCredentials(kept) === record.source ? kept : record.source;
      return (await this.addMarketplace({ kind: 'git', url })).marketplace;
    }
    return readMarketplace(record.dir);
  }

  async marketplace(name: string): Promise<{ record: MarketplaceRecord; marketplace: Marketplace }> {
    const record = (await this.marketplaces()).find((m) => m.name === name);
    if (!record) throw new PluginStoreError(`no marketplace named '${name}'`);
    // A clone made by an earlier version kept its .git, whose config holds the URL it came from, token included.
    if (record.kind === 'git' && isWithin(path.join(this.dir, 'marketplaces'), record.dir)) await fs.rm(path.join(record.dir, '.git'), { recursive: true, force: true });
    return { record, marketplace: await readMarketplace(record.dir, { local: record.kind !== 'git' }) };
  }

  /**
   * Stages a marketplace's plugin for the question asked before install(): copies its folder into a private
   * staging folder under the data folder and reads what it brings and runs from that copy, so what install()
   * puts in place is what was named, even if the marketplace's folder changes while the question is open.
   * A plugin in a repository of its own is cloned first (each time: installing again is how it is updated) into
   * a private folder under cache/, copied from there as a folder source is, and the clone deleted.
   * Each plan is ended by install() or discardInstall().
   */
  async planInstall(marketplaceName: string, pluginName: string): Promise<InstallPlan> {
    const { marketplace } = await this.marketplace(marketplaceName);
    const entry = marketplace.plugins.find((p) => p.name === pluginName);
    if (!entry) throw new PluginStoreError(`the marketplace '${marketplaceName}' lists no plugin '${pluginName}'`);
    if (!entry.dir && !entry.remote) throw new PluginStoreError(`${pluginName} cannot be installed: ${entry.unavailable ?? 'it has no folder'}`);
    const id = pluginId(pluginName, marketplaceName);
    const clone = entry.remote ? await this.cloneRemote(id, entry.remote) : undefined;
    try {
      const sourceDir = entry.dir ?? (await this.pluginInClone(clone!, entry.remote!, pluginName, entry.from ?? ''));
      return await this.stage(id, pluginName, marketplaceName, sourceDir, entry.dir ?? entry.from ?? '');
    } finally {
      if (clone) await fs.rm(clone, { recursive: true, force: true });
    }
  }

  /** A plugin's repository of its own cloned into a new private folder under cache/; returns that folder. */
  private async cloneRemote(id: string, remote: RemoteSource): Promise<string> {
    await fs.mkdir(this.cacheDir, { recursive: true });
    await this.dropOld(this.cacheDir);
    // mkdtemp: the user's alone, and a fresh name, so two installs at once never share a clone.
    const holder = await fs.mkdtemp(path.join(this.cacheDir, `${id}-`));
    try {
      await shallowClone(cloneUrls.get(remote) ?? remote.url, path.join(holder, 'repo'), this.dir, remote);
      return holder;
    } catch (error) {
      await fs.rm(holder, { recursive: true, force: true });
      throw error;
    }
  }

  /** The plugin's folder in a clone made by cloneRemote(): its `path`, checked to stay inside and to be a plugin. */
  private async pluginInClone(holder: string, remote: RemoteSource, pluginName: string, from: string): Promise<string> {
    const repo = await fs.realpath(path.join(holder, 'repo'));
    const real = await fs.realpath(path.join(repo, ...remote.path.split('/').filter(Boolean))).catch(() => undefined);
    if (!real) throw new PluginStoreError(`${pluginName} cannot be installed: its repository (${from.replace(/^from /, '')}) has no folder ${remote.path}`);
    if (!isWithin(repo, real)) throw new PluginStoreError(`${pluginName} cannot be installed: its folder ${remote.path} leads outside its repository`);
    const read = await readPlugin(real);
    // Named by where it comes from, not the clone's folder, which is deleted before the message is shown.
    if (!read.plugin) throw new PluginStoreError(`${pluginName} cannot be installed (cloned ${from}): ${read.problems.map((p) => p.split(real).join(remote.path ? `its folder ${remote.path}` : 'its repository')).join(' ')}`);
    return real;
  }

  /** Copies `sourceDir` into a new private staging folder and reads what it brings and runs from that copy. */
  private async stage(id: string, pluginName: string, marketplaceName: string, sourceDir: string, shownSource: string): Promise<InstallPlan> {
    const staging = this.stagingDir;
    await fs.mkdir(staging, { recursive: true });
    await this.dropOld(staging);
    // mkdtemp makes the folder readable and writable by the user alone.
    const holder = await fs.mkdtemp(path.join(staging, `${pluginName}@${marketplaceName}-`));
    const stagedDir = path.join(holder, pluginName);
    try {
      // Links are copied as links: one leading out of the plugin stays unread by the reader, as in the source.
      await fs.cp(sourceDir, stagedDir, { recursive: true, verbatimSymlinks: true, filter: (src) => path.basename(src) !== '.git' });
      // Which install this copy is: an update lands in the same folder, and its MCP servers must start again.
      await fs.writeFile(path.join(stagedDir, INSTALL_STAMP), `${randomBytes(12).toString('hex')}\n`);
      const read = await readPlugin(stagedDir);
      if (!read.plugin) throw new PluginStoreError(read.problems.join(' ') || `${pluginName} is not a plugin`);
      if (read.plugin.name !== pluginName) throw new PluginStoreError(`the marketplace lists '${pluginName}' but its folder holds the plugin '${read.plugin.name}'`);
      // What it runs is named as it will be after the move: the plugin's folder in it is the installed copy's.
      const dest = await this.installedDir(marketplaceName, pluginName);
      const summary = summarizePlugin(read.plugin);
      const runs = summary.runs.map((r) => r.split(read.plugin.realRoot).join(dest));
      return { id, plugin: read.plugin, summary: { ...summary, runs }, sourceDir: shownSource, stagedDir };
    } catch (error) {
      await fs.rm(holder, { recursive: true, force: true });
      throw error;
    }
  }

  /** Where a plugin's copy is installed, after links (its parent folder is made). */
  private async installedDir(marketplace: string, name: string): Promise<string> {
    const parent = path.join(this.dir, 'installed', marketplace);
    await fs.mkdir(parent, { recursive: true });
    return path.join(await fs.realpath(parent), name);
  }

  private get stagingDir(): string {
    return path.join(this.dir, 'staging');
  }

  private get cacheDir(): string {
    return path.join(this.dir, 'cache');
  }

  /** The staged copy of a plan, checked to be one of ours: undefined when it is gone (installed or discarded). */
  private stagedHolder(plan: InstallPlan): string | undefined {
    const holder = path.dirname(plan.stagedDir);
    return path.dirname(holder) === this.stagingDir && path.basename(plan.stagedDir) === plan.id.split('@')[0] ? holder : undefined;
  }

  /**
   * Staged copies a question never answered (the editor closed while it was open), and clones an interrupted
   * install left, are removed after a day.
   */
  private async dropOld(dir: string): Promise<void> {
    const names = await fs.readdir(dir).catch(() => [] as string[]);
    for (const name of names) {
      const abs = path.join(dir, name);
      const stat = await fs.lstat(abs).catch(() => undefined);
      if (stat && Date.now() - stat.mtimeMs > STAGING_KEPT_MS) await fs.rm(abs, { recursive: true, force: true });
    }
  }

  /** The answer was No: the staged copy is deleted, nothing is installed. */
  async discardInstall(plan: InstallPlan): Promise<void> {
    const holder = this.stagedHolder(plan);
    if (holder) await fs.rm(holder, { recursive: true, force: true });
  }

  /** Moves the planned plugin's staged copy under installed/ and records it (replacing an older copy). */
  async install(plan: InstallPlan): Promise<InstalledRecord> {
    const [name, marketplace] = plan.id.split('@') as [string, string];
    const holder = this.stagedHolder(plan);
    if (!holder || !(await fs.lstat(plan.stagedDir).catch(() => undefined))?.isDirectory()) throw new PluginStoreError(`${plan.id} is not staged for installing (plan it again)`);
    try {
      const dest = await this.installedDir(marketplace, name);
      await fs.rm(dest, { recursive: true, force: true });
      await fs.rename(plan.stagedDir, dest);
      // What runs is what was named: the record keeps the moved copy's own list, read again from it.
      const copy = await readPlugin(dest);
      const record: InstalledRecord = { id: plan.id, name, marketplace, version: plan.plugin.version, dir: path.join(this.dir, 'installed', marketplace, name), runs: copy.plugin ? summarizePlugin(copy.plugin).runs : plan.summary.runs };
      const reg = await this.registry();
      await this.save({ ...reg, installed: [...reg.installed.filter((i) => i.id !== plan.id), record] });
      return record;
    } finally {
      await fs.rm(holder, { recursive: true, force: true });
    }
  }

  /** Removes an installed plugin: its copy and its record. */
  async uninstall(id: string): Promise<boolean> {
    const reg = await this.registry();
    const record = reg.installed.find((i) => i.id === id);
    if (!record) return false;
    if (isWithin(path.join(this.dir, 'installed'), record.dir)) await fs.rm(record.dir, { recursive: true, force: true });
    await this.save({ ...reg, installed: reg.installed.filter((i) => i.id !== id) });
    return true;
  }

  /** Removes a marketplace (its clone, if any) and every plugin installed from it; returns those plugins' ids. */
  async removeMarketplace(name: string): Promise<string[]> {
    const reg = await this.registry();
    const record = reg.marketplaces.find((m) => m.name === name);
    if (!record) return [];
    const removed = reg.installed.filter((i) => i.marketplace === name);
    for (const i of removed) if (isWithin(path.join(this.dir, 'installed'), i.dir)) await fs.rm(i.dir, { recursive: true, force: true });
    await fs.rm(path.join(this.dir, 'installed', name), { recursive: true, force: true });
    if (record.kind === 'git' && isWithin(path.join(this.dir, 'marketplaces'), record.dir)) await fs.rm(record.dir, { recursive: true, force: true });
    await this.save({ ...reg, marketplaces: reg.marketplaces.filter((m) => m.name !== name), installed: reg.installed.filter((i) => i.marketplace !== name) });
    await this.credentials?.forget(name);
    return removed.map((i) => i.id);
  }

  /** The folders of the installed plugins among `enabled` ids, in the order given. */
  async enabledDirs(enabled: readonly string[]): Promise<string[]> {
    if (enabled.length === 0) return [];
    const installed = await this.installed();
    return enabled.map((id) => installed.find((i) => i.id === id)?.dir).filter((d): d is string => d !== undefined);
  }
}
