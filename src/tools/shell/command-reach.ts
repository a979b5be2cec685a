// What one simple command reaches beyond the words it names: which of its
// words are files it writes (output options), whether it reads whole folder
// trees (recursive search) or the repository's history (revision reads). The
// bash tool's assessment resolves every word the command names through the
// file system; this says how to judge each. Pure: words in, verdicts out.
import { type ShellCommand } from '../../runtime/policy/shell-command';

export type WordRole =
  /** Only read: secrets and paths outside the workspace ask. */
  | 'read'
  /** Written: anything outside the workspace, secrets and control files ask. */
  | 'write'
  /** A program whose arguments may be read or written: judged as a write when they name a control file. */
  | 'unknown';

export interface CommandReach {
  /** One role per word (index 0, the name, is never a path). */
  roles: WordRole[];
  /** Set for a recursive reader: the folders it reads every file of (literal words; `.` when it names none). */
  recursive?: string[];
  /** Set when the command prints content from the repository's history or index (`git show`, `git log -p`). */
  revisions?: string;
}

/** Programs (and git subcommands) that only read the files they are given, and write only to their output. */
const READERS = new Set(['cat', 'head', 'tail', 'less', 'more', 'wc', 'grep', 'egrep', 'fgrep', 'rg', 'ag', 'ack', 'ls', 'stat', 'du', 'file', 'diff', 'cmp', 'md5sum', 'sha1sum', 'sha256sum', 'sha512sum', 'which', 'tree', 'nl', 'od', 'xxd', 'hexdump', 'strings', 'base64', 'jq', 'realpath', 'readlink', 'basename', 'dirname', 'echo', 'printf', 'pwd', 'true', 'test', '[']);
const GIT_READERS = new Set(['status', 'diff', 'log', 'show', 'blame', 'ls-files', 'rev-parse', 'grep', 'shortlog', 'whatchanged', 'cat-file', 'ls-tree', 'describe', 'branch', 'tag', 'remote', 'reflog', 'format-patch', 'archive', 'stash']);
/** git options whose value (or next word) is a file git writes. */
const GIT_OUTPUTS = /^(--output|-o|--output-directory)$/;
/** git subcommands that print file content from history or the index. */
const GIT_REVISION_READERS = new Set(['show', 'diff', 'cat-file', 'archive', 'format-patch', 'whatchanged', 'grep']);
const GIT_PATCH_FLAGS = /^(-p|-u|--patch|--patch-with-stat|--patch-with-raw|--cc|-c|--full-diff|-U\d*|--unified(=.*)?|--word-diff(=.*)?|--ext-diff|--textconv|-G.*|-S.*)$/;

const RECURSIVE_GREP = /^(-[A-Za-z]*[rR][A-Za-z]*|--recursive|--dereference-recursive|--directories=recurse|-d\s*recurse)$/;
/** Searchers that walk folders by default. */
const ALWAYS_RECURSIVE = new Set(['rg', 'ag', 'ack', 'tree']);

/** git's subcommand: the first word after `git` and its global options (`git -C dir -c x=y log`). */
function gitSubcommand(words: readonly string[]): { index: number; name: string } | undefined {
  for (let i = 1; i < words.length; i++) {
    const w = words[i]!;
    if (w === '-C' || w === '-c' || w === '--git-dir' || w === '--work-tree' || w === '--namespace' || w === '--exec-path') {
      i++;
      continue;
    }
    if (w.startsWith('-')) continue;
    return { index: i, name: w };
  }
  return undefined;
}

export function commandReach(cmd: ShellCommand): CommandReach {
  const { words, name } = cmd;
  const roles: WordRole[] = words.map(() => 'unknown');
  if (name === 'git') {
    const sub = gitSubcommand(words);
    if (!sub || !GIT_READERS.has(sub.name)) return { roles };
    for (let i = 1; i < words.length; i++) roles[i] = 'read';
    for (let i = sub.index + 1; i < words.length; i++) {
      const w = words[i]!;
      if (GIT_OUTPUTS.test(w) && i + 1 < words.length) roles[++i] = 'write';
      else if (/^--output(-directory)?=/.test(w) || /^-o./.test(w)) roles[i] = 'write';
    }
    const rest = words.slice(sub.index + 1);
    const printsContent =
      GIT_REVISION_READERS.has(sub.name) ||
      ((sub.name === 'log' || sub.name === 'reflog' || sub.name === 'stash') && rest.some((w) => GIT_PATCH_FLAGS.test(w)));
    return { roles, ...(printsContent ? { revisions: `git ${sub.name}` } : {}) };
  }
  if (!READERS.has(name)) return { roles };
  for (let i = 1; i < words.length; i++) roles[i] = 'read';
  const recursive =
    ALWAYS_RECURSIVE.has(name) ||
    ((name === 'grep' || name === 'egrep' || name === 'fgrep') && words.some((w, i) => i > 0 && cmd.literal[i] !== false && RECURSIVE_GREP.test(w))) ||
    (name === 'diff' && words.some((w) => /^(-[A-Za-z]*r[A-Za-z]*|--recursive)$/.test(w)));
  if (!recursive) return { roles };
  const dirs = words.slice(1).filter((w, k) => cmd.literal[k + 1] !== false && !w.startsWith('-'));
  return { roles, recursive: dirs.length > 0 ? dirs : ['.'] };
}
