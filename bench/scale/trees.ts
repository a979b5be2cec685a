// Deterministic source trees for the search scale benches: N files in folders
// of 100 (two levels), ~0.5 kB each, 1 % of them holding the grep needle and
// 1 % named *.md. Cached in the temp dir under a stamp of the generator's
// version and N, so the Node and VS Code halves (and a re-run after a crash)
// share one tree; `removeTrees()` deletes them when the bench is done.
import { existsSync, mkdirSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';

/** Bump when the generated content changes: a stale cached tree is then rebuilt. */
const GENERATOR_VERSION = 1;
export const TREES_DIR = path.join(os.tmpdir(), 'turnstone-bench-trees');
export const NEEDLE = 'turnstoneScaleNeedle';
export const GREP_PATTERN = `${NEEDLE}\\(\\d+\\)`;
export const GLOB_PATTERN = '**/*.md';

const WORDS = 'const value returns the parsed entry when called with an empty list so we check the length first'.split(' ');

function fileText(i: number): string {
  const lines: string[] = [`// file ${i}`, `export function f${i}(input: string[]): number {`];
  for (let l = 0; l < 12; l++) lines.push(`  const v${l} = input.length + ${(i * 31 + l) % 997}; // ${WORDS[(i + l) % WORDS.length]} ${WORDS[(i * 7 + l) % WORDS.length]}`);
  if (i % 100 === 37) lines.push(`  return ${NEEDLE}(${i});`);
  lines.push('  return v0;', '}', '');
  return lines.join('\n');
}

/** Path of the tree with `files` files, generated on first use. */
export function ensureTree(files: number): string {
  const root = path.join(TREES_DIR, `v${GENERATOR_VERSION}-${files}`);
  const stamp = path.join(root, '.turnstone-tree-stamp');
  if (existsSync(stamp)) return root;
  rmSync(root, { recursive: true, force: true });
  for (let i = 0; i < files; i++) {
    const dir = path.join(root, `pkg${Math.floor(i / 10_000)}`, `mod${Math.floor(i / 100) % 100}`);
    if (i % 100 === 0) mkdirSync(dir, { recursive: true });
    const ext = i % 100 === 53 ? 'md' : 'ts';
    writeFileSync(path.join(dir, `file${i}.${ext}`), fileText(i));
  }
  // A .gitignore like a real repository's, so both engines apply ignore rules.
  writeFileSync(path.join(root, '.gitignore'), 'dist/\n*.log\n');
  writeFileSync(stamp, `${GENERATOR_VERSION} ${files}\n`);
  return root;
}

/** Matches the generator puts in a tree of `files` files (checked against every engine's answer). */
export function expectedMatches(files: number): { grep: number; glob: number } {
  let grep = 0;
  let glob = 0;
  for (let i = 0; i < files; i++) {
    if (i % 100 === 37) grep++;
    if (i % 100 === 53) glob++;
  }
  return { grep, glob };
}

export function removeTrees(): void {
  if (process.env.TURNSTONE_BENCH_KEEP_TREES) return;
  if (existsSync(TREES_DIR)) for (const name of readdirSync(TREES_DIR)) rmSync(path.join(TREES_DIR, name), { recursive: true, force: true });
  rmSync(TREES_DIR, { recursive: true, force: true });
}
