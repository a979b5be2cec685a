// Where helper programs (ripgrep, bubblewrap) are found. A relative PATH entry
// (`./node_modules/.bin`, common in developers' shells) or a folder inside the
// workspace would let a repository ship its own `rg` or `bwrap` that Turnstone
// then runs with the user's rights, even in plan mode: only absolute entries
// outside the workspace count.
import { accessSync, constants, realpathSync } from 'node:fs';
import * as path from 'node:path';

function inside(child: string, parent: string): boolean {
  const rel = path.relative(parent, child);
  return rel === '' || (!rel.startsWith('..') && !path.isAbsolute(rel));
}

function real(p: string): string {
  try {
    return realpathSync(p);
  } catch {
    return path.resolve(p);
  }
}

/**
 * The first executable named `name` in an absolute PATH entry that is not
 * inside one of `excludeRoots` (symlinks resolved on both sides), like `which`.
 */
export function findProgram(name: string, options: { envPath?: string; excludeRoots?: readonly string[] } = {}): string | undefined {
  const envPath = options.envPath ?? process.env.PATH ?? '';
  const excluded = (options.excludeRoots ?? []).map(real);
  for (const dir of envPath.split(path.delimiter)) {
    if (!dir || !path.isAbsolute(dir)) continue;
    const candidate = path.join(dir, name);
    try {
      accessSync(candidate, constants.X_OK);
    } catch {
      continue;
    }
    const resolved = real(candidate);
    if (excluded.some((root) => inside(resolved, root) || inside(real(dir), root))) continue;
    return candidate;
  }
  return undefined;
}
