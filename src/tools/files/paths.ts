// Turning a path the model wrote into the real file it denotes, and deciding
// whether that file is outside the workspace or sensitive. Every file tool
// operates on the *real* path, so what the permission check saw is what gets
// touched (a symlink cannot redirect a write after the check).
import * as os from 'node:os';
import * as path from 'node:path';
import { canonicalName, controlReason } from '../shell/control-files';
import { ToolError } from '../errors';
import { type Workspace, WorkspaceError } from '../ports';

export interface ResolvedPath {
  /** What the model wrote. */
  input: string;
  /** Lexically resolved absolute path (relative to the first root, `~` expanded). */
  absolute: string;
  /** Symlinks resolved; for a missing file, its nearest existing ancestor resolved plus the rest. */
  real: string;
  /** The real root containing it, if any. */
  root: string | undefined;
  /** Relative to the first root (forward slashes) when inside it, else the real absolute path. */
  display: string;
}

function isWithin(parent: string, child: string): boolean {
  const rel = path.relative(parent, child);
  return rel === '' || (!rel.startsWith(`..${path.sep}`) && rel !== '..' && !path.isAbsolute(rel));
}

interface PathVerdict {
  inside: boolean;
  sensitive: boolean;
  real: string;
}

const MAX_VERDICTS = 1000;

/** Which resolver produced a ResolvedPath, so assessPath can pin it without a new parameter. */
const owners = new WeakMap<ResolvedPath, PathResolver>();

function verdictOf(resolved: ResolvedPath): PathVerdict {
  return { inside: resolved.root !== undefined, sensitive: sensitiveReason(resolved) !== undefined, real: resolved.real };
}

/** Records the assessed verdict of a path for the write that may follow (see PathResolver.assertUnchanged). */
export function pinAssessed(resolved: ResolvedPath): void {
  owners.get(resolved)?.pin(resolved);
}

export class PathResolver {
  private realRoots: Promise<string[]> | undefined;
  /** The last verdict per absolute path (most recent last), to catch a path that changed meaning between check and use. */
  private readonly verdicts = new Map<string, PathVerdict>();

  constructor(
    private readonly workspace: Workspace,
    private readonly homeDir: string = os.homedir(),
  ) {}

  get firstRoot(): string {
    return this.workspace.roots[0]!;
  }

  roots(): Promise<string[]> {
    this.realRoots ??= Promise.all(
      this.workspace.roots.map((r) => this.workspace.realpath(r).catch(() => path.resolve(r))),
    );
    return this.realRoots;
  }

  absolute(input: string): string {
    let p = input.trim();
    if (p === '~' || p.startsWith('~/') || p.startsWith(`~${path.sep}`)) p = path.join(this.homeDir, p.slice(1));
    return path.resolve(this.firstRoot, p);
  }

  async resolve(input: string): Promise<ResolvedPath> {
    const absolute = this.absolute(input);
    const real = await this.realOrNearest(absolute);
    const roots = await this.roots();
    const root = roots.find((r) => isWithin(r, real));
    const resolved: ResolvedPath = { input, absolute, real, root, display: this.displayFor(real, roots) };
    owners.set(resolved, this);
    return resolved;
  }

  /** Remembers what the permission check saw for this path (called when a file tool is assessed). */
  pin(resolved: ResolvedPath): void {
    this.verdicts.delete(resolved.absolute);
    this.verdicts.set(resolved.absolute, verdictOf(resolved));
    if (this.verdicts.size > MAX_VERDICTS) this.verdicts.delete(this.verdicts.keys().next().value!);
  }

  /**
   * A write resolves its path when it is assessed and again when it runs. If a
   * folder was swapped for a symlink in between (another process, a command
   * left running in the background), the same path now leads outside the
   * workspace or into .git/ under an approval given for a harmless file:
   * refuse, so the next attempt is assessed (and asked about) afresh.
   */
  assertUnchanged(resolved: ResolvedPath, use: 'read' | 'write' = 'write'): void {
    const before = this.verdicts.get(resolved.absolute);
    const now = verdictOf(resolved);
    // Reading inside .git/ is harmless; only leaving the workspace matters for a read.
    if (before && ((before.inside && !now.inside) || (use === 'write' && !before.sensitive && now.sensitive))) {
      throw new ToolError(
        'stale',
        `${resolved.input} now resolves to ${resolved.real} (it was ${before.real} when permission was checked): a folder or link on the way changed. Nothing was ${use === 'read' ? 'read' : 'written'}; try again to have it checked afresh.`,
      );
    }
  }

  display(real: string, roots: string[]): string {
    return this.displayFor(real, roots);
  }

  private displayFor(real: string, roots: string[]): string {
    const first = roots[0]!;
    if (!isWithin(first, real)) return real;
    const rel = path.relative(first, real);
    return rel === '' ? '.' : rel.split(path.sep).join('/');
  }

  /** A missing leaf can still escape through a symlinked parent, so resolve the deepest ancestor that exists. */
  private async realOrNearest(absolute: string): Promise<string> {
    const rest: string[] = [];
    let current = absolute;
    for (;;) {
      try {
        const real = await this.workspace.realpath(current);
        return rest.length ? path.join(real, ...rest.reverse()) : real;
      } catch (error) {
        if (!(error instanceof WorkspaceError) || (error.kind !== 'not_found' && error.kind !== 'not_directory')) throw error;
        const parent = path.dirname(current);
        if (parent === current) return absolute;
        rest.push(path.basename(current));
        current = parent;
      }
    }
  }
}

/** Why writing this in-workspace path deserves a prompt even when edits are auto-approved. */
export function sensitiveReason(resolved: ResolvedPath): string | undefined {
  if (!resolved.root) return undefined;
  const rel = path.relative(resolved.root, resolved.real);
  if (rel === '') return undefined;
  const control = controlReason(rel);
  if (control) return control;
  if (canonicalName(path.basename(rel)).startsWith('.env')) return '.env files usually hold secrets';
  return undefined;
}
