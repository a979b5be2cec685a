// Files that usually hold secrets: reading one asks in every mode but
// bypassPermissions (read_file, and a bash argument naming one). Globs are
// matched with picomatch, as glob_search matches: a pattern without `/` is
// matched against the file name, one with `/` against the path relative to
// the workspace folder. `turnstone.permissions.sensitiveFiles` extends the list.
import * as path from 'node:path';
import picomatch from 'picomatch';

export const DEFAULT_SENSITIVE_FILES: readonly string[] = [
  '.env*',
  '*.pem',
  '*.key',
  'id_rsa*',
  'id_ed25519*',
  '.npmrc',
  '.netrc',
  '.pypirc',
  '*credentials*.json',
  '.git-credentials',
];

/**
 * Credential files known by where they sit, not by name alone ("config" and "credentials" are common names): a
 * repository's git config (actions/checkout leaves the job's token in it as an `http.…extraheader`), a
 * submodule's, and the AWS CLI's shared credentials. Tested only for files with these names, so a walk pays
 * nothing for them.
 */
const CREDENTIAL_PATHS: ReadonlyArray<{ name: string; pattern: string; re: RegExp }> = [
  { name: 'config', pattern: '.git/config', re: /(^|\/)\.git\/(modules\/.+\/)?config$/i },
  { name: 'credentials', pattern: '.aws/credentials', re: /(^|\/)\.aws\/credentials$/i },
];

function credentialPath(name: string, normalized: () => string): string | undefined {
  const lower = name.toLowerCase();
  return CREDENTIAL_PATHS.find((c) => c.name === lower && c.re.test(normalized()))?.pattern;
}

/** Templates committed on purpose: they hold no secrets. */
const NOT_SENSITIVE = ['.env.example', '.env.sample', '.env.template'];

export interface SensitiveMatcher {
  (file: string): string | undefined;
  /** Every glob, built in and the user's (the credential files known by their folder are matched besides). */
  readonly patterns: readonly string[];
  /** The patterns that match a file name wherever it is (no `/`): searches over a folder skip such files. */
  readonly namePatterns: readonly string[];
  /**
   * The same answer for a file found by a walk, from its name and its path relative to the folder walked:
   * one regular expression over the name first, the path patterns only if there are any (a walk of 100 000
   * files costs ~200 ms this way instead of ~2 s).
   */
  inWalk(name: string, relative: () => string): string | undefined;
}

/** Returns the matcher: given a path (relative to the workspace, or absolute), the pattern it matches, if any. */
export function sensitiveFileMatcher(extra: readonly string[] = []): SensitiveMatcher {
  const patterns = [...DEFAULT_SENSITIVE_FILES, ...extra.filter((p) => p.trim() !== '')];
  const tests = patterns.map((p) => ({ pattern: p, test: picomatch(p, { dot: true, nocase: true, basename: !p.includes('/') }) }));
  const exempt = picomatch(NOT_SENSITIVE, { dot: true, nocase: true, basename: true });
  const match = (file: string) => {
    const normalized = file.split(path.sep).join('/');
    if (exempt(normalized)) return undefined;
    return tests.find((t) => t.test(normalized))?.pattern ?? credentialPath(path.posix.basename(normalized), () => normalized);
  };
  const namePatterns = patterns.filter((p) => !p.includes('/'));
  const nameRes = namePatterns.map((p) => ({ pattern: p, re: picomatch.makeRe(p, { dot: true, nocase: true }) }));
  const anyName = new RegExp(nameRes.map((n) => `(?:${n.re.source})`).join('|'), 'i');
  const hasPathPatterns = patterns.length > namePatterns.length;
  const inWalk = (name: string, relative: () => string) => {
    if (anyName.test(name)) return exempt(name) ? undefined : nameRes.find((n) => n.re.test(name))?.pattern;
    if (hasPathPatterns) return match(relative());
    return credentialPath(name, () => relative().split(path.sep).join('/'));
  };
  return Object.assign(match, { patterns, namePatterns, inWalk });
}
