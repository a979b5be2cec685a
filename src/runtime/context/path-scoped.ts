// Path-scoped project rules (contracts.md "More instruction formats"): Copilot's
// `.github/instructions/*.instructions.md` with `applyTo` globs and Cursor's
// `.cursor/rules/*.mdc` with `globs`. They stay out of the system prompt; the
// first time in a session the model reads or edits a file one of them matches,
// the rule comes with that tool result, once. instructions.ts finds and caps
// the rules; this keeps what was sent, and wraps the tools.
import * as path from 'node:path';
import picomatch from 'picomatch';
import { type Message, type ToolExecutor, type ToolOutput } from '../types';
import { type PathScopedRule } from './instructions';

/** The tools whose `path` input names a file the rules are about. */
export const PATH_SCOPED_TOOLS: ReadonlySet<string> = new Set(['read_file', 'edit_file', 'write_file']);

interface CompiledRule {
  rule: PathScopedRule;
  matches: (relPath: string) => boolean;
}

/** Compiled once per glob: rules are re-read every turn, usually unchanged. */
const matcherCache = new Map<string, (p: string) => boolean>();

function matcherOf(glob: string): (p: string) => boolean {
  let m = matcherCache.get(glob);
  if (!m) {
    // As the sensitive-files list matches: a glob without `/` (`*.ts`) matches the file's name in any folder.
    try {
      m = picomatch(glob, { dot: true, basename: !glob.includes('/') });
    } catch {
      // A glob picomatch cannot read matches nothing.
      m = () => false;
    }
    if (matcherCache.size > 500) matcherCache.clear();
    matcherCache.set(glob, m);
  }
  return m;
}

/**
 * The session's path-scoped rules and which of them the model already has. One per session (the editor's
 * chat session, a CLI run): `update` with each turn's freshly read rules, then `sync` with the history the turn
 * starts from, so a rule counts as sent only while the history still holds it (a resumed session does not get it
 * twice; after a compaction summarised it away, or in a new session, it comes again).
 */
export class PathScopedInstructions {
  private rules: CompiledRule[] = [];
  private root: string | undefined;
  /** label + text of each rule sent: an edited rule is sent again. */
  private readonly sent = new Set<string>();
  /** Each rule the model has now, with the path it came with (none when found in a resumed history): what the chip lists. */
  private readonly appliedTo = new Map<string, { label: string; path?: string }>();
  /** Told when the rules the model has change (one was sent, or the history was re-read). */
  onDidChangeApplied: (() => void) | undefined;

  /** The path-scoped rules the model has in this session, and for which file each came (issue 46: the chip lists them). */
  get applied(): readonly { label: string; path?: string }[] {
    return [...this.appliedTo.values()];
  }

  update(rules: readonly PathScopedRule[] | undefined, workspaceRoot: string): void {
    this.root = workspaceRoot;
    this.rules = (rules ?? []).map((rule) => {
      const tests = rule.globs.map(matcherOf);
      return { rule, matches: (p: string) => tests.some((t) => t(p)) };
    });
  }

  /** The rules matching a workspace-relative path (forward slashes) that were not sent yet; they count as sent from now on. */
  forPath(relPath: string): PathScopedRule[] {
    const rel = relPath.replace(/\\/g, '/').replace(/^\.\//, '');
    const due: PathScopedRule[] = [];
    for (const { rule, matches } of this.rules) {
      const key = `${rule.label}\0${rule.text}`;
      if (this.sent.has(key) || !matches(rel)) continue;
      this.sent.add(key);
      this.appliedTo.set(key, { label: rule.label, path: rel });
      due.push(rule);
    }
    if (due.length > 0) this.onDidChangeApplied?.();
    return due;
  }

  /** A tool's `path` input as the file tools read it (relative to the workspace root, or absolute) → workspace-relative, or undefined outside it. */
  relativePath(input: string): string | undefined {
    if (this.root === undefined) return undefined;
    const p = input.trim();
    if (p === '' || p.startsWith('~')) return undefined;
    const rel = path.relative(this.root, path.resolve(this.root, p));
    if (rel === '' || rel === '..' || rel.startsWith(`..${path.sep}`) || path.isAbsolute(rel)) return undefined;
    return rel.split(path.sep).join('/');
  }

  /** Sent = the rules whose block is in the history's tool results (the turn's start; its own sends add to it). */
  sync(history: readonly Message[]): this {
    const before = this.appliedKeys();
    this.sent.clear();
    if (this.rules.length === 0) {
      this.settleApplied(before);
      return this;
    }
    const results: string[] = [];
    for (const m of history) {
      if (m.role !== 'user') continue;
      for (const b of m.content) if (b.type === 'tool_result' && b.content.includes('<instructions for path ')) results.push(b.content);
    }
    for (const { rule } of this.rules) {
      const head = `from ${JSON.stringify(rule.label)}>\n`;
      if (results.some((r) => r.includes(head) && r.includes(rule.text))) this.sent.add(`${rule.label}\0${rule.text}`);
    }
    this.settleApplied(before);
    return this;
  }

  /** Everything counts as not sent again (a new session). */
  forget(): void {
    const before = this.appliedKeys();
    this.sent.clear();
    this.settleApplied(before);
  }

  private appliedKeys(): string {
    return [...this.appliedTo.keys()].join('\n');
  }

  /** The applied list follows `sent` (a path is kept where known), and a change is told. */
  private settleApplied(before: string): void {
    for (const key of [...this.appliedTo.keys()]) if (!this.sent.has(key)) this.appliedTo.delete(key);
    for (const key of this.sent) if (!this.appliedTo.has(key)) this.appliedTo.set(key, { label: key.split('\0')[0]! });
    if (this.appliedKeys() !== before) this.onDidChangeApplied?.();
  }
}

/** What is appended to a tool result: each rule in a tag naming the path and the file it comes from. */
export function pathInstructionsBlock(relPath: string, rules: readonly PathScopedRule[]): string {
  return rules
    .map((r) => `<instructions for path ${JSON.stringify(relPath)} from ${JSON.stringify(r.label)}>\nThe project's rules for files like this one (follow them for this and similar files):\n${r.text}\n</instructions>`)
    .join('\n\n');
}

/**
 * The tools, with path-scoped rules added to the result of a successful read_file, edit_file or write_file
 * on a matching file (the first time only). Everything else passes through unchanged.
 */
export function withPathScopedInstructions(tools: ToolExecutor, scoped: PathScopedInstructions): ToolExecutor {
  return new Proxy(tools, {
    get(target, prop, receiver) {
      const value = Reflect.get(target, prop, receiver) as unknown;
      if (typeof value !== 'function') return value;
      if (prop === 'execute') {
        return async (...args: Parameters<ToolExecutor['execute']>): Promise<ToolOutput> => {
          const output = await target.execute(...args);
          const [name, input] = args;
          if (output.isError || !PATH_SCOPED_TOOLS.has(name) || typeof input['path'] !== 'string') return output;
          const rel = scoped.relativePath(input['path']);
          const due = rel === undefined ? [] : scoped.forPath(rel);
          if (due.length === 0) return output;
          return { ...output, content: `${output.content}\n\n${pathInstructionsBlock(rel!, due)}` };
        };
      }
      return (value as (...a: unknown[]) => unknown).bind(target);
    },
  });
}
