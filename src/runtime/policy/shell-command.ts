// What a bash command would run, as the permission policy reads it: the shapes
// shell-analysis.ts fills. Kept apart (no imports) so that the runtime's shared
// types can name them without depending on the parser.
export interface ShellCommand {
  /** The words after any assignment prefix, quotes resolved; a word that is not literal keeps its source text. */
  words: string[];
  /** The words joined by single spaces: what rules match. */
  text: string;
  /** The command name without its folder (`/bin/rm` → `rm`): what deny rules also see. */
  name: string;
  /**
   * Which words are literal. A computed word (`$x`, `$(…)`, a glob) may become any number of words when it
   * runs: a deny rule counts it as matching whatever the rule says from there on.
   */
  literal: boolean[];
}

export interface CommandAnalysis {
  /** Every simple command found, at any depth: allow rules must cover each, deny rules check each. */
  commands: ShellCommand[];
  /** What wrappers and runners may run (`sudo rm x` → `rm x`, `npx jest -t 'a b'` → `jest …`, `a b`): deny rules only. */
  candidates: ShellCommand[];
  /** Why no allow rule can vouch for the command, naming each construct (deduplicated). Empty: a plain list of literal simple commands. */
  unprovable: string[];
  /** Why some command name cannot be known before it runs (deduplicated). Non-empty: every deny rule of the tool matches. */
  unresolved: string[];
  /** Literal redirection targets that are written (not /dev/null, not a file descriptor). */
  writes: string[];
  /** Literal targets of input redirections (`< file`): read. Arguments are judged per command (their words). */
  reads: string[];
}
