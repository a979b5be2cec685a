// Which secret files (the sensitive-file list) a repository holds in its
// index or anywhere in its history: what `git show`, `git log -p` or
// `git diff <rev>` can print, and no sandbox can hide (git keeps the content
// in .git/objects). Asked with pathspecs so git filters; never runs a program
// the repository's config names (safe-git.ts).
import { execFile } from 'node:child_process';
import { NO_REPOSITORY_PROGRAMS } from '../../runtime/policy/safe-git';
import { type SensitiveMatcher } from '../../runtime/policy/sensitive-files';
import { findProgram } from '../os/program-path';

const cache = new Map<string, { at: number; matcher: SensitiveMatcher; held: Promise<string[]> }>();
const TTL_MS = 30_000;

/** The pathspecs that select the files a matcher calls secret (`**\/.env*` for a name pattern). */
export function secretPathspecs(sensitive: SensitiveMatcher): string[] {
  return sensitive.patterns.map((p) => `:(glob,icase)${p.includes('/') ? p : `**/${p}`}`);
}

/** Secret paths git holds for `root` (index and every ref's history); empty outside a repository or without git. */
export function gitHeldSecrets(root: string, sensitive: SensitiveMatcher): Promise<string[]> {
  const cached = cache.get(root);
  if (cached && cached.matcher === sensitive && Date.now() - cached.at < TTL_MS) return cached.held;
  const held = lookUp(root, sensitive);
  cache.set(root, { at: Date.now(), matcher: sensitive, held });
  return held;
}

async function lookUp(root: string, sensitive: SensitiveMatcher): Promise<string[]> {
  const git = findProgram(process.platform === 'win32' ? 'git.exe' : 'git', { excludeRoots: [root] });
  if (!git) return [];
  const specs = secretPathspecs(sensitive);
  const run = (args: string[]) =>
    new Promise<string[] | undefined>((resolve) => {
      execFile(git, ['-C', root, '--no-optional-locks', ...NO_REPOSITORY_PROGRAMS, ...args, '--', ...specs], { maxBuffer: 64 * 1024 * 1024, timeout: 60_000 }, (error, stdout) =>
        resolve(error ? undefined : stdout.split('\0').filter((p) => p !== '')),
      );
    });
  const index = await run(['ls-files', '-z']);
  if (!index) return []; // not a repository
  const history = await run(['log', '--all', '--format=', '--name-only', '-z']);
  // Fail closed: a history that could not be read may hold anything.
  if (!history) return ['files the history holds (it could not be checked)'];
  // The pathspecs are a first cut; the matcher (with its exemptions, `.env.example`) decides.
  return [...new Set([...index, ...history.map((p) => p.trim())])].filter((p) => p !== '' && sensitive(p) !== undefined).sort();
}
