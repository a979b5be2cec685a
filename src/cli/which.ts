import { findProgram } from '../tools/os/program-path';

/** The first executable named `name` in an absolute PATH entry outside `excludeRoots` (see findProgram). */
export function findOnPath(name: string, envPath = process.env.PATH ?? '', excludeRoots: readonly string[] = []): string | undefined {
  return findProgram(name, { envPath, excludeRoots });
}
