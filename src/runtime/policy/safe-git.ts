// Turnstone's own git (checkpoint scans and restores, the @git attachment)
// never runs a program the repository's configuration names: a hostile
// repository, or a command that planted one, would otherwise run it outside
// the sandbox the moment Turnstone looks at the work tree. Command-line `-c`
// settings win over every config file (includes too), so these switch off
// fsmonitor, hooks, pagers, external diffs and every clean/smudge filter.
// Checked against git 2.39 in test/unit/tools/checkpoints-hostile.test.ts.

/** Programs git could run for the commands Turnstone uses, switched off. */
export const NO_REPOSITORY_PROGRAMS: readonly string[] = [
  '-c', 'core.fsmonitor=false',
  '-c', 'core.hooksPath=/dev/null',
  '-c', 'core.pager=cat',
  '-c', 'diff.external=',
  '-c', 'submodule.recurse=false',
  '-c', 'core.sshCommand=false',
  '-c', 'credential.helper=',
  '-c', 'protocol.allow=never',
];

/**
 * Filter drivers run on file content (`git status` cleans a racily-clean file to compare it). Their names come
 * from the repository's `.gitattributes`, so each driver the configuration defines is emptied by name; reading the
 * configuration runs nothing. `configLines` is the output of `git config -z --get-regexp '^filter\.'`.
 */
export function filterOverrides(configLines: string): string[] {
  const drivers = new Set<string>();
  for (const entry of configLines.split('\0')) {
    const key = entry.split('\n', 1)[0] ?? '';
    const m = /^filter\.(.+)\.[^.]+$/s.exec(key);
    if (m) drivers.add(m[1]!);
  }
  return [...drivers].flatMap((d) => ['-c', `filter.${d}.clean=`, '-c', `filter.${d}.smudge=`, '-c', `filter.${d}.process=`, '-c', `filter.${d}.required=false`]);
}

/** The arguments that read the filter drivers a repository defines (see filterOverrides). */
export const FILTER_DRIVERS_QUERY: readonly string[] = ['config', '-z', '--get-regexp', '^filter\\.'];

/** Environment variables that would point git at other programs or repositories; removed from its environment. */
export const GIT_ENV_REMOVED: readonly string[] = [
  'GIT_DIR', 'GIT_WORK_TREE', 'GIT_INDEX_FILE', 'GIT_OBJECT_DIRECTORY', 'GIT_CEILING_DIRECTORIES', 'GIT_EXTERNAL_DIFF', 'GIT_PAGER',
  'GIT_SSH', 'GIT_SSH_COMMAND', 'GIT_ASKPASS', 'GIT_EDITOR', 'GIT_EXEC_PATH', 'GIT_CONFIG', 'GIT_CONFIG_GLOBAL', 'GIT_CONFIG_SYSTEM',
  'GIT_CONFIG_PARAMETERS', 'GIT_CONFIG_COUNT',
];
