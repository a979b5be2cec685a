// P3: permission rules. `tool` or `tool(content)`; content `*` matches any
// subject, `prefix:*` a prefix, a glob (`src/**`) a path, anything else
// exactly. For bash the subject is a command read from its syntax tree
// (shell-analysis.ts) and rules compare words, quotes resolved: an allow rule
// vouches only for a command that is provably plain (every part literal) and
// must cover every part; a deny rule matching any part, or a command whose
// names cannot be known, denies.
import { isIP } from 'node:net';
import picomatch from 'picomatch';
import { RuntimeError } from '../errors';
import { analyseCommand } from './shell-analysis';
import { type CommandAnalysis, type ShellCommand } from './shell-command';

export interface PermissionRule {
  tool: string;
  /** Undefined: the rule covers every use of the tool. */
  content?: string;
  /** The rule as written, for messages and session memory. */
  source: string;
}

const RULE = /^([A-Za-z0-9_.:-]+\*?)(?:\((.*)\))?$/s;

export function parseRule(source: string): PermissionRule {
  const trimmed = source.trim();
  const m = RULE.exec(trimmed);
  if (!m) throw new RuntimeError('invalid_rule', `invalid permission rule "${source}": expected tool or tool(content)`);
  if (m[1]!.endsWith('*') && !/^mcp__[A-Za-z0-9_-]+__\*$/.test(m[1]!)) {
    throw new RuntimeError('invalid_rule', `invalid permission rule "${source}": only MCP rules may end in * (mcp__server__*)`);
  }
  const content = m[2];
  if (content !== undefined && content.trim() === '') {
    throw new RuntimeError('invalid_rule', `invalid permission rule "${source}": empty content, write "${m[1]}" or "${m[1]}(*)"`);
  }
  return content === undefined || content === '*' ? { tool: m[1]!, source: trimmed } : { tool: m[1]!, content, source: trimmed };
}

export function parseRules(sources: readonly string[] = []): PermissionRule[] {
  return sources.map(parseRule);
}

export const isShellTool = (tool: string) => tool === 'bash';

/**
 * Whether a rule's tool part names a tool. Exact, plus MCP's server-wide forms
 * (contracts.md): `mcp__srv__*` and `mcp__srv` cover every tool of server srv.
 * Which server a tool belongs to is the server's fact (`mcpServer`, as tool
 * names spell it), never read off the name: `mcp__docs__admin__wipe` may be
 * tool `admin__wipe` of server `docs` or tool `wipe` of server `docs__admin`,
 * and `mcp__docs` must cover only the first; `mcp__docs__admin` covers the
 * second. Without that fact (a tool no live server lists, so it cannot run)
 * the name is read as `mcp__<server without __>__<tool>`.
 */
export function ruleNamesTool(ruleTool: string, tool: string, mcpServer?: string): boolean {
  if (ruleTool === tool) return true;
  if (!ruleTool.startsWith('mcp__') || !tool.startsWith('mcp__')) return false;
  const server = ruleTool.endsWith('__*') ? ruleTool.slice('mcp__'.length, -'__*'.length) : ruleTool.slice('mcp__'.length);
  if (server === '') return false;
  if (mcpServer !== undefined) return server === mcpServer;
  return !server.includes('__') && tool.startsWith(`mcp__${server}__`);
}

const GLOB_CHARS = /[*?[\]{}]/;

/** `web_fetch(domain:example.com)`: the content names the URL's host, not a prefix of it. */
const DOMAIN_PREFIX = 'domain:';
/** `browser(origin:http://localhost:3000)`: the content names one origin (scheme, host and port). */
const ORIGIN_PREFIX = 'origin:';

/** An http(s) URL's origin as the URL parser spells it (`http://localhost:3000`), or undefined. */
export function urlOrigin(text: string): string | undefined {
  try {
    const url = new URL(text.trim());
    return url.protocol === 'http:' || url.protocol === 'https:' ? url.origin : undefined;
  } catch {
    return undefined;
  }
}

/** The rule "Always allow" saves for a page: its origin (`browser(origin:http://localhost:3000)`). */
export function originRule(tool: string, url: string): string | undefined {
  const origin = urlOrigin(url);
  return origin ? `${tool}(${ORIGIN_PREFIX}${origin})` : undefined;
}

/**
 * `example.com` matches that host only; `*.example.com` any host below it
 * (docs.example.com, a.b.example.com) but not example.com itself. Compared
 * label by label, never as text: `example.com` is not `example.com.evil.net`,
 * and `*.0.0.1` is no address's. Case, a trailing dot and the Unicode or
 * punycode spelling of a name do not count; a subject that is not a URL
 * matches nothing.
 */
export function matchDomain(pattern: string, subject: string): boolean {
  let host: string;
  try {
    host = new URL(subject).hostname.toLowerCase().replace(/\.$/, '');
  } catch {
    return false;
  }
  let want = pattern.trim().toLowerCase().replace(/\.$/, '');
  const below = want.startsWith('*.');
  if (below) want = want.slice(2);
  want = hostSpelling(want);
  if (want === '') return false;
  if (!below) return host === want;
  if (isIP(host.replace(/^\[|\]$/g, ''))) return false;
  const labels = host.split('.');
  const under = want.split('.');
  return labels.length > under.length && under.every((label, i) => labels[labels.length - under.length + i] === label);
}

/**
 * A host name or address as the URL parser spells it in a URL's hostname
 * (bücher.example is xn--bcher-kva.example, [0:0::1] is [::1]); '' for text
 * a URL would read as more than a host (user@, :port, /path) or not at all.
 */
function hostSpelling(name: string): string {
  if (!/^(\[[0-9a-f:.]+\]|[^\s/\\@:?#[\]*%]+)$/i.test(name)) return '';
  try {
    return new URL(`http://${name}/`).hostname;
  } catch {
    return '';
  }
}

/**
 * A rule whose content is a URL (`web_fetch(https://docs.example.com/guide:*)`)
 * against a URL subject, on the URL's structure: the same scheme, host and
 * port, then the rule's path as whole segments, so `/docs:*` covers `/docs`
 * and `/docs/a` but not `/docs-evil`; a rule with a query covers its path
 * with that query (more parameters after it with `:*`). Without `:*` the URL
 * itself, as the parser normalises both. Percent-escapes of unreserved
 * characters count as the characters (`/%61dmin` is `/admin` to a server),
 * and a path with an escaped slash (`/docs/..%2Fadmin`) is read both ways, as
 * servers differ: an allow rule must cover both, a deny rule either.
 * Undefined when this is not such a pair; false for a rule that names a URL
 * but does not parse.
 */
function matchUrl(content: string, subject: string, semantics: RuleSemantics): boolean | undefined {
  const prefix = content.endsWith(':*');
  const written = prefix ? content.slice(0, -2) : content;
  if (!/^https?:\/\//i.test(written)) return undefined;
  const target = httpUrl(subject);
  if (!target) return undefined;
  const rule = httpUrl(written);
  if (!rule || rule.protocol !== target.protocol || rule.port !== target.port || bareHost(rule) !== bareHost(target)) return false;
  const want = segments(rule.pathname);
  // `/docs/` covers what `/docs` does: a trailing empty segment asks for nothing more.
  if (prefix && want.length > 1 && want[want.length - 1] === '') want.pop();
  const covers = (got: string[]) => {
    if (!prefix || rule.search) {
      const samePath = want.length === got.length && want.every((s, i) => s === got[i]);
      if (!prefix) return samePath && rule.search === target.search;
      return samePath && (target.search === rule.search || target.search.startsWith(`${rule.search}&`));
    }
    return want.length <= got.length && want.every((s, i) => s === got[i]);
  };
  const readings = [segments(target.pathname)];
  if (/%(2f|5c)/i.test(target.pathname)) readings.push(segments(new URL(`http://h${target.pathname.replace(/%2f|%5c/gi, '/')}`).pathname));
  return semantics === 'allow' ? readings.every(covers) : readings.some(covers);
}

/** How a rule is read: `allow` must vouch for every reading of a subject, `deny` (and ask) matches any. */
export type RuleSemantics = 'allow' | 'deny';

const bareHost = (url: URL) => url.hostname.replace(/\.$/, '');
const segments = (pathname: string) => pathname.split('/').map(unescapeUnreserved);

function httpUrl(text: string): URL | undefined {
  try {
    const url = new URL(text);
    return url.protocol === 'http:' || url.protocol === 'https:' ? url : undefined;
  } catch {
    return undefined;
  }
}

/** `%7E` and `~` are one character to every server, and so are `%2f` and `%2F`; `%2F` stays apart from `/`. */
function unescapeUnreserved(segment: string): string {
  return segment.replace(/%([0-9A-Fa-f]{2})/g, (escape, hex: string) => {
    const char = String.fromCharCode(parseInt(hex, 16));
    return /[A-Za-z0-9\-._~]/.test(char) ? char : escape.toUpperCase();
  });
}

/** The rule "Always allow" saves for a URL: its host (`web_fetch(domain:docs.example.com)`). */
export function domainRule(tool: string, url: string): string | undefined {
  try {
    const host = new URL(url).hostname.toLowerCase();
    return host ? `${tool}(${DOMAIN_PREFIX}${host})` : undefined;
  } catch {
    return undefined;
  }
}
const globs = new Map<string, (s: string) => boolean>();

/** Path rules accept globs, matched like glob_search matches (picomatch; `*` within a folder, `**` across). */
function globMatch(pattern: string, subject: string): boolean {
  let m = globs.get(pattern);
  if (!m) {
    m = picomatch(pattern, { dot: true });
    if (globs.size > 500) globs.clear();
    globs.set(pattern, m);
  }
  return m(subject);
}

/** A shell rule's content as words: `git commit -m "a b":*` → prefix [git, commit, -m, a b]. */
interface RuleWords {
  words: string[];
  prefix: boolean;
}
const ruleWordsCache = new Map<string, RuleWords>();

function ruleWords(content: string): RuleWords {
  let r = ruleWordsCache.get(content);
  if (r) return r;
  const prefix = content.endsWith(':*');
  const body = prefix ? content.slice(0, -2) : content;
  const a = analyseCommand(body);
  const only = a.commands[0];
  // A rule that is itself compound or not literal is compared as text against the whole command only.
  const words = a.commands.length === 1 && a.unprovable.length === 0 && only ? only.words : [];
  r = { words, prefix };
  if (ruleWordsCache.size > 500) ruleWordsCache.clear();
  ruleWordsCache.set(content, r);
  return r;
}

function wordsMatch(content: string, words: readonly string[]): boolean {
  const rule = ruleWords(content);
  if (rule.words.length === 0) return false;
  if (rule.prefix ? words.length < rule.words.length : words.length !== rule.words.length) return false;
  return rule.words.every((w, i) => w === words[i]);
}

/**
 * Deny semantics for one command: the rule's words must match up to the first computed word; from there the
 * command may run anything (`git $x` is `git push` when x=push), so a rule that got that far matches.
 */
function denyWordsMatch(content: string, cmd: ShellCommand): boolean {
  const rule = ruleWords(content);
  if (rule.words.length === 0) return false;
  const words = [cmd.name, ...cmd.words.slice(1)];
  for (let i = 0; i < rule.words.length; i++) {
    if (i > 0 && cmd.literal[i] === false) return true;
    if (i >= words.length) return false;
    const w = rule.words[i]!;
    // The name compares case-insensitively: `RM` runs rm on a case-insensitive file system.
    if (!(w === words[i] || w === cmd.words[i] || (i === 0 && w.toLowerCase() === words[0]!.toLowerCase()))) return false;
  }
  return rule.prefix || words.length === rule.words.length;
}

/** Matches a non-shell rule's content against a plain subject (a path, a pattern, a URL). */
export function matchContent(content: string | undefined, subject: string, semantics: RuleSemantics = 'allow'): boolean {
  if (content === undefined) return true;
  if (content.startsWith(DOMAIN_PREFIX)) return matchDomain(content.slice(DOMAIN_PREFIX.length), subject);
  if (content.startsWith(ORIGIN_PREFIX)) {
    const want = urlOrigin(content.slice(ORIGIN_PREFIX.length));
    return want !== undefined && want === urlOrigin(subject);
  }
  const url = matchUrl(content, subject, semantics);
  if (url !== undefined) return url;
  if (content.endsWith(':*')) return subject.startsWith(content.slice(0, -2));
  if (subject === content) return true;
  return GLOB_CHARS.test(content) && globMatch(content, subject);
}

/** Matches a shell rule's content against one simple command (its literal words). */
export function matchCommand(content: string | undefined, cmd: ShellCommand): boolean {
  if (content === undefined) return true;
  if (!wordsMatch(content, cmd.words)) return false;
  // A prefix rule vouches for the words it names, not for options after them that make the program run code.
  const rule = ruleWords(content);
  return !rule.prefix || !cmd.words.slice(rule.words.length).some((w) => riskyOption(cmd.name, w));
}

/**
 * Options that make a program run code given on the command line or from a file of the caller's choosing
 * (`npm test --node-options=--import=data:…`, `make test --eval=…`, `git log --ext-diff`, `rg --pre ./x`):
 * a prefix rule such as `bash(npm test:*)` does not cover them, they ask.
 */
const RISKY_ANYWHERE = /^--?(exec|eval|pre|pre-glob|node-options|require|import|loader|experimental-loader|config|config-env|rcfile|init-file|upload-pack|receive-pack|ext-diff|textconv|script-shell|shell|call|setup-files|setupFiles|setupFilesAfterEnv|globalSetup|toolexec|plugins?|userconfig|globalconfig|inspect(-brk)?|prof-process|env-file)(=|$)/;
const RISKY_BY_PROGRAM: Record<string, RegExp> = {
  npm: /^-c$/, pnpm: /^-c$/, yarn: /^-c$/, npx: /^-c$/, bun: /^-c$/,
  // make: another makefile, an evaluated line, another folder's makefile, or a variable that recipes run (SHELL=…).
  make: /^(-[fECI].*|--(file|makefile|directory|include-dir)(=.*)?|[A-Za-z_][A-Za-z0-9_]*=.*)$/,
  gmake: /^(-[fECI].*|--(file|makefile|directory|include-dir)(=.*)?|[A-Za-z_][A-Za-z0-9_]*=.*)$/,
  pytest: /^(-[cp].*|--confcutdir.*|--rootdir.*)$/,
  git: /^(-x.*|-c)$/,
  go: /^-(exec|toolexec|overlay)(=|$)/,
  cargo: /^(-Z.*|--config.*)$/,
};

function riskyOption(program: string, word: string): boolean {
  return RISKY_ANYWHERE.test(word) || (RISKY_BY_PROGRAM[program]?.test(word) ?? false);
}

export interface RuleSubject {
  tool: string;
  subject: string;
  /** Present for shell tools: what the command runs. */
  shell?: CommandAnalysis;
  /** For an MCP tool: its server's name as tool names spell it (server-wide rules match on it). */
  mcpServer?: string;
  /** The permission kind: a fetch's suggested rule names its domain. */
  need?: string;
}

/** The parser must be loaded for a shell tool without a ready analysis (loadShellParser). */
export function ruleSubject(tool: string, subject: string, shell?: CommandAnalysis): RuleSubject {
  if (!isShellTool(tool)) return { tool, subject };
  return { tool, subject, shell: shell ?? analyseCommand(subject) };
}


/**
 * Deny (and ask) semantics: the rule matches if it matches ANY simple command
 * at any depth, or if the command hides what it runs (unresolved names count as
 * matching every rule of the tool: fail closed).
 */
export function matchesAnyPart(rule: PermissionRule, s: RuleSubject): boolean {
  if (!ruleNamesTool(rule.tool, s.tool, s.mcpServer)) return false;
  if (rule.content === undefined) return true;
  if (!s.shell) return matchContent(rule.content, s.subject, 'deny');
  if (s.shell.unresolved.length > 0) return true;
  const content = rule.content;
  return [...s.shell.commands, ...s.shell.candidates].some((c) => denyWordsMatch(content, c));
}

/**
 * Allow semantics: for a shell command, it must be provably plain (no
 * construct in `unprovable`) and every simple command must match some rule, or
 * one rule must be exactly the whole command. Path checks (arguments outside
 * the workspace, sensitive files) are the assessment's and ask before this.
 */
export function matchesEveryPart(rules: readonly PermissionRule[], s: RuleSubject): boolean {
  const mine = rules.filter((r) => ruleNamesTool(r.tool, s.tool, s.mcpServer));
  if (mine.length === 0) return false;
  if (mine.some((r) => r.content === undefined)) return true;
  if (!s.shell) return mine.some((r) => matchContent(r.content, s.subject));
  const { commands, unprovable } = s.shell;
  if (unprovable.length > 0 || commands.length === 0) return false;
  if (mine.some((r) => r.content === s.subject.trim())) return true;
  return commands.every((c) => mine.some((r) => matchCommand(r.content, c)));
}

/**
 * Read-only commands (and subcommands) whose flags can neither run code nor
 * write anywhere the path checks miss: only these get a `prefix:*` suggestion.
 * Reviewed list; NOT sed (its `e` command runs code), find (-exec), rg (--pre),
 * awk (system()), git config (core.pager / core.fsmonitor run code), xargs, env.
 */
const PREFIX_SAFE: readonly (readonly string[])[] = [
  ['ls'], ['pwd'], ['cat'], ['head'], ['tail'], ['wc'], ['grep'], ['echo'], ['which'], ['stat'], ['du'], ['file'], ['diff'],
  ['git', 'status'], ['git', 'diff'], ['git', 'log'], ['git', 'show'], ['git', 'blame'], ['git', 'ls-files'], ['git', 'rev-parse'],
];


/**
 * The rule a "remember" choice would store: precise. The exact command by
 * default; a prefix rule only for a lone plain command from the reviewed
 * read-only list above.
 */
export function suggestRule(tool: string, subject: string, shell?: CommandAnalysis, need?: string): string {
  if (need === 'fetch') return domainRule(tool, subject) ?? `${tool}(${subject})`;
  if (need === 'browser') return originRule(tool, subject) ?? `${tool}(${subject})`;
  if (!isShellTool(tool)) return subject ? `${tool}(${subject})` : tool;
  const a = shell ?? analyseCommand(subject);
  const only = a.commands[0];
  if (a.commands.length === 1 && a.unprovable.length === 0 && a.writes.length === 0 && only) {
    const safe = PREFIX_SAFE.find((p) => p.length <= only.words.length && p.every((w, i) => w === only.words[i]));
    // A use that writes (`git diff --output=…`) or runs a driver gets its exact rule even on the list.
    if (safe && !only.words.some((w) => /^--output/.test(w) || riskyOption(only.name, w))) return `${tool}(${safe.join(' ')}:*)`;
  }
  return `${tool}(${subject.trim()})`;
}
