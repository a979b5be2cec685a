// P3: what a bash command would run, read from a real syntax tree
// (shell-parser.ts), for the permission policy. Fail closed both ways:
// - an allow rule can vouch only for a command that is provably a list of
//   simple commands with literal words, joined by `;` `&&` `||` `|`, with
//   redirections whose targets are literal; anything else is `unprovable` and
//   names the construct, so the question shown to the user can say why;
// - deny rules see every simple command at any depth (bodies, subshells,
//   substitutions, what wrappers run); a command whose names cannot all be
//   known statically is `unresolved` and counts as matching every deny rule.
import { loadShellParser, parseShell, type Tree } from './shell-parser';
import { type CommandAnalysis, type ShellCommand } from './shell-command';
import { cutHead } from '../text-cut';

/**
 * The syntax tree copied out of the parser in one cursor walk: reading nodes
 * one by one across the WebAssembly boundary costs more than the parse itself
 * on a long command, and the analysis reads each node several times.
 */
const NO_CHILDREN: readonly SyntaxNode[] = [];

class SyntaxNode {
  /** Leaves share one empty list: a long command has thousands of them. */
  children: readonly SyntaxNode[] = NO_CHILDREN;
  private named_: readonly SyntaxNode[] | undefined;

  constructor(
    private readonly source: string,
    readonly type: string,
    readonly isNamed: boolean,
    readonly startIndex: number,
    readonly endIndex: number,
  ) {}

  get text(): string {
    return this.source.slice(this.startIndex, this.endIndex);
  }

  get namedChildren(): readonly SyntaxNode[] {
    this.named_ ??= this.children.length === 0 ? NO_CHILDREN : this.children.filter((c) => c.isNamed);
    return this.named_;
  }

  add(child: SyntaxNode): void {
    if (this.children === NO_CHILDREN) this.children = [child];
    else (this.children as SyntaxNode[]).push(child);
  }

  /** The first named child of one of these types. */
  childOfType(...types: string[]): SyntaxNode | null {
    return this.namedChildren.find((c) => types.includes(c.type)) ?? null;
  }
}

/** Named nodes that are lexer tokens in tree-sitter-bash, so never have children: no need to ask. */
const LEAF_TOKENS = new Set(['word', 'raw_string', 'string_content', 'heredoc_content', 'heredoc_start', 'heredoc_end', 'variable_name', 'file_descriptor', 'comment', 'ansi_c_string']);

/**
 * The tree, plus the source spans of its leaves in source order. Text between leaves must be blanks or line
 * continuations: anything else is text the parser skipped (`\\ ` at a word's start, `$$` after a quoted
 * string), which bash still reads.
 */
function copyTree(tree: Tree, source: string): { root: SyntaxNode; leaves: number[] } {
  const cursor = tree.walk();
  // Every cursor read marshals the cursor into WebAssembly memory, and the language's name tables are
  // rebuilt on each read of cursor.nodeType: read the tables once and derive what the type id tells.
  const language = tree.language;
  const { types } = language;
  const named = new Map<number, boolean>();
  const isNamed = (id: number) => {
    let n = named.get(id);
    if (n === undefined) named.set(id, (n = language.nodeTypeIsNamed(id)));
    return n;
  };
  const leaves: number[] = [];
  try {
    const make = () => {
      const id = cursor.nodeTypeId;
      return new SyntaxNode(source, types[id] ?? 'ERROR', isNamed(id), cursor.startIndex, cursor.endIndex);
    };
    const root = make();
    const stack: SyntaxNode[] = [root];
    for (;;) {
      const top = stack[stack.length - 1]!;
      // The text of a string or here-document body is content between its expansions, not skipped text; but a
      // string holding a command substitution holds shell code again, whose skipped text must be checked too.
      if (CONTENT_NODES.has(top.type) && !(top.type === 'string' && /\$\(|`/.test(source.slice(top.startIndex, top.endIndex)))) leaves.push(top.startIndex, top.endIndex);
      if (!LEAF_TOKENS.has(top.type) && cursor.gotoFirstChild()) {
        const node = make();
        top.add(node);
        stack.push(node);
        continue;
      }
      leaves.push(top.startIndex, top.endIndex);
      for (;;) {
        if (cursor.gotoNextSibling()) {
          stack.pop();
          const node = make();
          stack[stack.length - 1]!.add(node);
          stack.push(node);
          break;
        }
        if (!cursor.gotoParent()) return { root, leaves };
        stack.pop();
      }
    }
  } finally {
    cursor.delete();
  }
}

const CONTENT_NODES = new Set(['string', 'heredoc_body', 'translated_string']);

/** Whether the text outside the leaves is only what bash also skips: blanks, newlines and backslash-newlines. */
function onlyBlanksBetween(source: string, leaves: readonly number[]): boolean {
  let at = 0;
  for (let i = 0; i <= leaves.length; i += 2) {
    const until = i < leaves.length ? leaves[i]! : source.length;
    for (let j = at; j < until; j++) {
      const c = source[j];
      if (c === ' ' || c === '\t' || c === '\n') continue;
      if (c === '\\' && source[j + 1] === '\n') {
        j++;
        continue;
      }
      return false;
    }
    if (i < leaves.length) at = Math.max(at, leaves[i + 1]!);
  }
  return true;
}

const MAX_DEPTH = 6;
/** A wrapper's argument list is searched for the command it runs this far; past it the name counts as unknown. */
const MAX_WRAPPER_WORDS = 24;

/** Programs that run another command given in their arguments: deny rules look at every candidate; allow rules never vouch for them. */
const WRAPPERS = new Set([
  'env', 'command', 'builtin', 'exec', 'nohup', 'time', 'nice', 'ionice', 'timeout', 'xargs', 'sudo', 'doas', 'su', 'runuser',
  'busybox', 'toybox', 'stdbuf', 'setsid', 'chroot', 'strace', 'ltrace', 'watch', 'flock', 'taskset', 'unbuffer', 'script',
  'parallel', 'chrt', 'prlimit', 'unshare', 'nsenter', 'firejail', 'bwrap', 'fakeroot', 'dbus-run-session',
  'caffeinate', 'systemd-run', 'catchsegv', 'valgrind', 'trap',
  'setpriv', 'sg', 'newgrp', 'pkexec', 'setarch', 'linux32', 'linux64', 'numactl', 'cgexec', 'chpst', 'eatmydata', 'faketime',
  'nocache', 'rlwrap', 'xvfb-run', 'dbus-launch', 'sshpass', 'torsocks', 'proxychains', 'proxychains4', 'entr', 'sem', 'ssh',
  'gdb', 'start-stop-daemon', 'daemonize', 'tsp', 'ld.so',
]);
/**
 * Package and environment managers that run a command named in their arguments (`npx rm x`, `npm exec rm x`,
 * `uv run rm x`): deny rules see every candidate; an allow rule naming the runner and its command still vouches
 * for it (`bash(uv run pytest:*)`), since the user named both. `*`: every argument is a candidate.
 */
const RUNNER_SUBCOMMANDS: Record<string, readonly string[]> = {
  npx: ['*'], bunx: ['*'], uvx: ['*'], pnpx: ['*'], 'cross-env': ['*'], 'env-cmd': ['*'], dotenv: ['*'], dotenvx: ['*'],
  npm: ['exec', 'x'], pnpm: ['exec', 'dlx', 'x', 'run'], yarn: ['exec', 'dlx', 'run'], bun: ['x', 'run', 'exec'], uv: ['run', 'tool'],
  pipx: ['run'], poetry: ['run'], pdm: ['run'], hatch: ['run'], rye: ['run'], pixi: ['run', 'exec'], conda: ['run'], mamba: ['run'],
  mise: ['exec', 'x'], asdf: ['exec'], direnv: ['exec'], bundle: ['exec'], nix: ['develop', 'shell', 'run'], 'nix-shell': ['--run', '--command'],
  dotnet: ['tool'], opam: ['exec'], rbenv: ['exec'], pyenv: ['exec'], nvm: ['exec', 'run'], volta: ['run'], fnm: ['exec'],
};
/** The dynamic loader runs the program named in its arguments (`/lib64/ld-linux-x86-64.so.2 /bin/rm x`). */
const LOADER = /^ld(-linux[\w.-]*|-musl[\w.-]*|-[\d.]+)?\.so(\.[\d.]+)?$/;
const SHELLS = new Set(['sh', 'bash', 'zsh', 'dash', 'ksh', 'mksh', 'fish', 'ash', 'csh', 'tcsh', 'rbash']);
/** Single-letter options bash, sh, dash, zsh and ksh share (`-o`/`-O` take a value); others make the script unknown. */
const SHELL_FLAGS = [...'abcefhikmnprstuvxBCEHPTlsDoO'];
/** Long options: `flag`, or `startup` (runs a file named by the next word: unknown code). */
const SHELL_LONG_OPTIONS = new Map<string, 'flag' | 'startup'>([
  ['--norc', 'flag'], ['--noprofile', 'flag'], ['--posix', 'flag'], ['--restricted', 'flag'], ['--verbose', 'flag'], ['--noediting', 'flag'],
  ['--login', 'flag'], ['--rcfile', 'startup'], ['--init-file', 'startup'],
]);
/** Builtins that run text as commands, or change what a command name means for the rest of the command. */
const CODE_FROM_TEXT = new Set(['eval', 'source', '.', 'alias', 'unalias', 'enable', 'hash', 'shopt', 'set', 'fc', 'mapfile', 'readarray', 'coproc']);
/** Variables a `NAME=value` may set while an allow rule still covers the command: they change no program's code path. */
const SAFE_VARIABLES = new Set(['CI', 'NODE_ENV', 'FORCE_COLOR', 'NO_COLOR', 'TZ', 'LANG', 'LC_ALL', 'TERM', 'COLUMNS', 'DEBUG', 'RUST_BACKTRACE']);
/** Variables that change which program a name runs, or run code themselves: a deny rule cannot be checked past them. */
const NAME_CHANGING_VARIABLES = /^(PATH|BASH_ENV|ENV|IFS|LD_PRELOAD|LD_LIBRARY_PATH|LD_AUDIT|SHELLOPTS|BASHOPTS|PS4|PROMPT_COMMAND|BASH_FUNC_.*|DYLD_.*|HOME|ZDOTDIR|BASH_LOADABLES_PATH|GLOBIGNORE|EXECIGNORE)$/;

/** Nodes an allowed command may contain. */
const STRUCTURE = new Set(['program', 'list', 'pipeline', 'redirected_statement', 'comment']);
/** Constructs that make a command unprovable, named for the question. Their children are still searched for commands. */
const CONSTRUCTS: Record<string, string> = {
  subshell: 'a subshell ( … )',
  compound_statement: 'a { … } group',
  if_statement: 'an if statement',
  for_statement: 'a for loop',
  c_style_for_statement: 'a for loop',
  while_statement: 'a while/until loop',
  case_statement: 'a case statement',
  function_definition: 'a function definition',
  negated_command: 'a negated command (!)',
  test_command: 'a test [ … ]',
  declaration_command: 'a declaration (export/declare/local/readonly)',
  unset_command: 'unset',
  command_substitution: 'command substitution $( … )',
  process_substitution: 'process substitution <( … )',
  arithmetic_expansion: 'arithmetic expansion $(( … ))',
  expansion: 'parameter expansion ${ … }',
  simple_expansion: 'a variable expansion $name',
  brace_expression: 'brace expansion { … }',
  ansi_c_string: "ANSI-C quoting $'…'",
  translated_string: 'a translated string $"…"',
  herestring_redirect: 'a here-string <<<',
  heredoc_redirect: 'a here-document',
  ERROR: 'a parse error',
};
/** Nodes that carry no meaning of their own (their parents are judged). */
const NEUTRAL = new Set([
  'word', 'number', 'string', 'string_content', 'raw_string', 'concatenation', 'variable_name', 'command_name', 'file_descriptor',
  'heredoc_body', 'heredoc_content', 'heredoc_start', 'heredoc_end', 'do_group', 'elif_clause', 'else_clause', 'case_item',
  'special_variable_name', 'extglob_pattern', 'regex', 'test_operator', 'array', 'subscript', 'file_redirect', 'variable_assignment',
  'variable_assignments', 'command', 'binary_expression', 'unary_expression', 'parenthesized_expression', 'postfix_expression',
  'ternary_expression', 'negated_expression',
]);
/** `find` actions that run a command (up to `;` or `+`) or write a file. */
const FIND_EXEC = new Set(['-exec', '-execdir', '-ok', '-okdir']);
const FIND_WRITES = new Set(['-delete', '-fprint', '-fprint0', '-fprintf', '-fls']);
/** Unusual blanks: JavaScript's `\s` and some parsers treat them as spaces, bash does not. */
// eslint-disable-next-line no-control-regex
const ODD_BLANK = /[\u000b\u000c\u0085\u00a0\u1680\u2000-\u200a\u2028\u2029\u202f\u205f\u3000\ufeff]/;
const HARMLESS_TARGETS = new Set(['/dev/null', '/dev/stdout', '/dev/stderr']);

class Analyser {
  readonly out: CommandAnalysis = { commands: [], candidates: [], unprovable: [], unresolved: [], writes: [], reads: [] };

  constructor(
    private readonly depth: number,
    /** The command's text (empty for a wrapper's candidates, which are words already). */
    private readonly source = '',
  ) {}

  unprovable(reason: string): void {
    if (!this.out.unprovable.includes(reason)) this.out.unprovable.push(reason);
  }

  unresolved(reason: string): void {
    this.unprovable(reason);
    if (!this.out.unresolved.includes(reason)) this.out.unresolved.push(reason);
  }

  /** Analyses `source` as a script of its own (`sh -c '…'`, `eval …`) and merges what it runs. */
  nested(source: string): void {
    if (this.depth >= MAX_DEPTH) return this.unresolved('commands nested too deeply to check');
    const inner = analyseCommand(source, this.depth + 1);
    this.out.commands.push(...inner.commands);
    this.out.candidates.push(...inner.candidates);
    this.out.writes.push(...inner.writes);
    this.out.reads.push(...inner.reads);
    inner.unresolved.forEach((r) => this.unresolved(r));
  }

  visit(node: SyntaxNode): void {
    const type = node.type;
    if (type === 'command') return this.command(node);
    if (type === 'variable_assignment') return this.assignment(node, undefined);
    if (type === 'file_redirect' || type === 'heredoc_redirect' || type === 'herestring_redirect') return this.redirect(node);
    if (STRUCTURE.has(type)) {
      for (const child of node.children) {
        if (!child.isNamed && !LIST_OPERATORS.has(child.type)) this.unprovable(`the operator ${child.type}`);
      }
    } else if (type === 'ERROR') this.unresolved('a parse error');
    else if (CONSTRUCTS[type]) {
      this.unprovable(this.constructName(node));
      // Inside backquotes bash removes a level of backslashes before it parses the command: the parser does not.
      if (type === 'command_substitution' && node.text.startsWith('`') && node.text.includes('\\')) {
        this.unresolved('a backslash inside backquotes, which bash reads twice');
      }
      const evaluates = evaluatesText(node);
      if (evaluates) this.unresolved(`${this.constructName(node)} ${evaluates}`);
    }
    // A node this analysis does not know may run something it cannot see: fail closed for deny rules too.
    else if (!NEUTRAL.has(type)) this.unresolved(`the construct ${type.replace(/_/g, ' ')}`);
    this.words(node);
  }

  /** Visits every named child; word-like children are evaluated so what they hide is found. */
  private words(node: SyntaxNode): void {
    for (const child of node.namedChildren) {
      if (!child) continue;
      if (isWordNode(child.type)) this.value(child);
      else this.visit(child);
    }
  }

  private constructName(node: SyntaxNode): string {
    const text = node.text;
    if (node.type === 'command_substitution' && text.startsWith('`')) return 'command substitution `…`';
    if (node.type === 'arithmetic_expansion' && text.startsWith('$[')) return 'arithmetic expansion $[ … ]';
    if (node.type === 'compound_statement' && text.startsWith('((')) return 'an arithmetic command (( … ))';
    if (node.type === 'expansion' && /@[PEAQKaku]\}$/.test(text)) return `a \${…@${text.slice(-2, -1)}} expansion`;
    return CONSTRUCTS[node.type] ?? node.type;
  }

  /**
   * The static value of a word, quotes resolved, or undefined when it is not
   * literal (the construct is recorded and its contents searched for commands).
   */
  value(node: SyntaxNode, role: 'name' | 'arg' = 'arg'): string | undefined {
    // bash expands `~` after the `=` or a `:` of an argument that looks like an assignment (`a=~/x`, `P=a:~/b`).
    if ((node.type === 'word' || node.type === 'concatenation') && this.source.includes('~') && /^[A-Za-z_][A-Za-z0-9_]*=(.*:)?~/.test(node.text)) {
      this.unprovable('tilde expansion in an assignment-like word');
      return undefined;
    }
    switch (node.type) {
      case 'word':
        return this.bareWord(node.text, role, true);
      case 'number':
        return node.text;
      case 'raw_string':
        return node.text.slice(1, -1);
      case 'string': {
        const parts = node.namedChildren.filter((c) => c !== null && c.type !== 'string_content');
        if (node.children.some((c) => !c.isNamed && c.type !== '"')) {
          this.unprovable('a $ expansion');
          parts.forEach((part) => this.visit(part));
          return undefined;
        }
        if (parts.length > 0) {
          parts.forEach((part) => this.visit(part!));
          return undefined;
        }
        const inner = node.text.slice(1, -1);
        if (/\\\r?\n/.test(inner)) {
          this.unprovable('a backslash-newline inside a word');
          return undefined;
        }
        return inner.replace(/\\([$`"\\])/g, '$1');
      }
      case 'concatenation': {
        // `find … {} \;`: a lone pair of braces is literal to bash.
        if (node.text === '{}') return '{}';
        // `~""x`: a quoted character in the tilde prefix turns the expansion off; a plain word is clearer.
        if (node.text.startsWith('~')) {
          this.unprovable('tilde expansion next to quotes');
          // Not literal, but what it runs still counts (`~$(cmd)`, `~/x"$(cmd)"`): every part is looked into.
          for (const part of node.namedChildren) if (part && part.type !== 'word') this.value(part, role);
          return undefined;
        }
        let v = '';
        // An operator token inside a word (`''$$`: the parser's `$`) is an expansion bash performs.
        let literal = !node.children.some((c) => !c.isNamed);
        if (!literal) this.unprovable('a $ expansion');
        for (const part of node.namedChildren) {
          if (!part) continue;
          const p = part.type === 'word' ? this.bareWord(part.text, role, false) : this.value(part, role);
          if (p === undefined) literal = false;
          else v += p;
        }
        return literal ? v : undefined;
      }
      default:
        this.visit(node);
        return undefined;
    }
  }

  /** An unquoted word: backslash escapes resolved; globs, braces, a leading `~user` and backslash-newlines make it non-literal. */
  private bareWord(raw: string, role: 'name' | 'arg', whole: boolean): string | undefined {
    // `[ -f x ]`: a bracket standing alone is the test command or its closing word, not a glob.
    if (whole && (raw === '[' || raw === ']')) return raw;
    // An unescaped line break ends a word for bash; the parser sometimes runs on into the next line.
    if (/(^|[^\\])\n/.test(raw)) {
      this.unresolved('a line break inside a word');
      return undefined;
    }
    let v = '';
    let literal = true;
    for (let i = 0; i < raw.length; i++) {
      const c = raw[i]!;
      if (c === '\\') {
        const next = raw[i + 1];
        if (next === '\n' || (next === '\r' && raw[i + 2] === '\n')) {
          this.unprovable('a backslash-newline inside a word');
          literal = false;
          i += next === '\r' ? 2 : 1;
          continue;
        }
        if (next !== undefined) v += next;
        i++;
        continue;
      }
      if (c === '*' || c === '?' || c === '[' || c === ']') {
        this.unprovable(role === 'name' ? 'a glob in the command name' : 'a glob pattern');
        literal = false;
      } else if (c === '{' || c === '}') {
        this.unprovable(role === 'name' ? 'braces in the command name' : 'brace expansion { … }');
        literal = false;
      } else if (c === '~' && i === 0 && !/^~(\/|$)/.test(raw)) {
        this.unprovable('tilde expansion ~user');
        literal = false;
      } else if (c === '$' && raw.length > 1) {
        this.unprovable('a $ expansion');
        literal = false;
      }
      v += c;
    }
    return literal ? v : undefined;
  }

  private assignment(node: SyntaxNode, prefixOf: string | undefined): void {
    // `name=value`: the name is the first named child, the value (if any) the one after `=`.
    const name = node.namedChildren[0]?.text ?? '';
    // `--x=1` is no assignment to bash (not a name): it is a command the parser did not see.
    if (!/^[A-Za-z_][A-Za-z0-9_]*(\[[^\]]*\])?$/.test(name)) return this.unresolved(`${truncate(node.text)}, which bash runs as a command`);
    const valueNode = node.namedChildren[1] ?? null;
    const value = valueNode ? this.value(valueNode) : '';
    if (value === undefined) this.unprovable('an assignment with a non-literal value');
    if (NAME_CHANGING_VARIABLES.test(name)) this.unresolved(`setting ${name} changes which program runs`);
    else if (!SAFE_VARIABLES.has(name)) this.unprovable(prefixOf ? `setting ${name} for ${prefixOf}` : `setting the variable ${name}`);
  }

  private redirect(node: SyntaxNode): void {
    if (node.type !== 'file_redirect') return this.inputDocument(node);
    const op = node.children.find((c) => c && !c.isNamed)?.type ?? '>';
    // `2> file`: the descriptor is a file_descriptor child, the destination the last named child.
    const named = node.namedChildren.filter((c) => c.type !== 'file_descriptor');
    // bash takes one word as the target and the rest as arguments: the parser reads them as more targets.
    if (named.length > 1) return this.unresolved('a redirection with more than one target word');
    const dest = named[0] ?? null;
    if (!dest) return this.unresolved('a redirection without a target');
    // `>&'x'`: bash decides between a descriptor and a file before it removes the quotes, and names the file its own way.
    if (op.includes('&') && dest.type !== 'word' && dest.type !== 'number') return this.unresolved(`the redirection ${op} ${truncate(dest.text)}, which bash reads differently`);
    const target = this.value(dest);
    if (target === undefined) return this.unprovable('a redirection to a computed target');
    const writes = op.includes('>');
    if (op.includes('&') && /^(\d+|-)$/.test(target)) return; // fd duplication or closing
    // `>& -b`, `<& 1x`: bash reads a target starting like a descriptor its own way.
    if (op.includes('&') && /^[\d-]/.test(target)) return this.unresolved(`the redirection ${op} ${truncate(target)}, which bash reads differently`);
    if (HARMLESS_TARGETS.has(target)) return;
    if (writes) this.out.writes.push(target);
    else this.out.reads.push(target);
  }

  /**
   * A here-document or here-string only feeds input; what matters is whether
   * it expands anything. The parser hangs the rest of the line on the
   * here-document (`cat <<EOF > file`, `cat <<EOF | sh`, `cat <<EOF && rm x`): judged like any other part.
   */
  private inputDocument(node: SyntaxNode): void {
    for (const child of node.children) {
      if (!child) continue;
      if (!child.isNamed) {
        if (!['<<', '<<-', '<<<', '&&', '||', '|', ';'].includes(child.type)) this.unprovable(`the operator ${child.type}`);
      } else if (child.type === 'heredoc_body') {
        // The parser misses some expansions in bodies (`$[…]`): with an unquoted delimiter, any `$` or backtick counts.
        const quoted = /['"\\]/.test(node.namedChildren.find((c) => c?.type === 'heredoc_start')?.text ?? '');
        if (!quoted && /\$\{[^}]*(@[PEA]|\[|:[^-=?+])|\$\[|\$\(\(/.test(child.text)) this.unresolved(`a here-document that ${EVALUATE_REASON}`);
        if (hasDescendant(child, (n) => EXPANSIONS.has(n.type)) || (!quoted && /[$`]/.test(child.text))) {
          this.unprovable('a here-document with expansions');
          this.words(child);
        }
      } else if (child.type === 'heredoc_start' || child.type === 'heredoc_end') continue;
      else if (isWordNode(child.type) || EXPANSIONS.has(child.type)) {
        if (this.value(child) === undefined) this.unprovable('a here-string with expansions');
      } else this.visit(child);
    }
  }

  private command(node: SyntaxNode): void {
    const nameNode = node.childOfType('command_name');
    // A command's parts are all named nodes; a bare token among them (`-n$` before a string) is text the parser misread.
    if (node.children.some((c) => !c.isNamed)) this.unresolved('a token the parser could not place in the command');
    const words: { value: string | undefined; raw: string; start: number; end: number }[] = [];
    for (const child of node.namedChildren) {
      if (!child) continue;
      if (child.type === 'variable_assignment') continue; // judged below, once the command name is known
      if (child.type.endsWith('_redirect')) this.redirect(child);
      else {
        const inner = child.type === 'command_name' ? child.namedChildren[0] : child;
        const value = inner ? this.value(inner, child.type === 'command_name' ? 'name' : 'arg') : undefined;
        const previous = words[words.length - 1];
        // Two nodes with nothing between them are one word to bash (`x<(cmd)0`, `''\`cmd\`-n`): its value is computed.
        if (previous && previous.end === child.startIndex) {
          previous.value = undefined;
          previous.end = child.endIndex;
          previous.raw += child.text;
          this.unprovable('a word the parser split in two');
          continue;
        }
        words.push({ value, raw: child.text, start: child.startIndex, end: child.endIndex });
      }
    }
    const shownName = nameNode?.text ?? '';
    for (const child of node.namedChildren) if (child?.type === 'variable_assignment') this.assignment(child, shownName || undefined);
    if (!nameNode || words.length === 0) return;
    const head = words[0]!;
    if (head.value === undefined) this.unresolved(`the command name ${truncate(head.raw)} is not a literal word`);
    this.simple(words.map((w) => w.value ?? w.raw), words.map((w) => w.value !== undefined));
  }

  /** Records one simple command (and, for wrappers and shells, what they may run). */
  simple(words: string[], literal: boolean[]): void {
    const name = words[0]!.split('/').pop()!;
    const cmd: ShellCommand = { words, text: words.join(' '), name, literal };
    this.out.commands.push(cmd);
    if (NAME_TAKING_BUILTINS.has(name) && words.slice(1).some((w) => w.includes('['))) this.unresolved(`${name} ${EVALUATE_REASON}`);
    if (/^\/proc\//.test(words[0]!)) return this.unresolved(`${truncate(words[0]!)} runs a program through /proc, whose name the rules cannot know`);
    if (SHELLS.has(name)) return this.shell(name, words, literal);
    if (LOADER.test(name)) return this.wrapper(name, words, literal, 1);
    const runner = RUNNER_SUBCOMMANDS[name];
    if (runner) return this.runner(name, words, literal, runner);
    if (CODE_FROM_TEXT.has(name)) {
      if (name === 'eval' && literal.every(Boolean)) {
        this.unprovable('eval');
        return this.nested(words.slice(1).join(' '));
      }
      return this.unresolved(`${name} changes or hides what runs`);
    }
    if (WRAPPERS.has(name)) return this.wrapper(name, words, literal, 1);
    if (name === 'find') return this.find(words, literal);
  }

  /**
   * `npm exec …`, `npx -c '…'`, `uv run …`: a script given to `-c`/`--call` (or `--run`/`--command`) is analysed as one;
   * the other words are candidates for the command run, as for any wrapper.
   */
  private runner(name: string, words: string[], literal: boolean[], subcommands: readonly string[]): void {
    const sub = words.findIndex((w, i) => i > 0 && !w.startsWith('-'));
    const scriptOption = words.findIndex((w, i) => i > 0 && /^(-c|--call|--run|--command)(=|$)/.test(w));
    if (scriptOption > 0) {
      this.unprovable(`${name} runs a script`);
      const w = words[scriptOption]!;
      const eq = w.indexOf('=');
      const at = eq >= 0 ? scriptOption : scriptOption + 1;
      if (at >= words.length || !literal[at]) return this.unresolved(`${name} runs a computed script`);
      this.nested(eq >= 0 ? w.slice(eq + 1) : words[at]!);
    }
    const from = subcommands.includes('*') ? 1 : sub > 0 && subcommands.includes(words[sub]!) ? sub + 1 : -1;
    if (from > 0) this.candidates(name, words, literal, from);
  }

  private find(words: string[], literal: boolean[]): void {
    for (let i = 1; i < words.length; i++) {
      if (FIND_WRITES.has(words[i]!)) this.unprovable(`find ${words[i]} writes or deletes files`);
      if (FIND_EXEC.has(words[i]!)) this.wrapper(`find ${words[i]}`, words.slice(i), literal.slice(i), 1);
    }
  }

  /**
   * `sh -c 'script'`: the script is analysed; a shell reading a file, its input or its startup files hides
   * what it runs. The script is the first operand after ALL options (`bash -c -- 'x'`, `bash -c -O extglob 'x'`),
   * so options are read the way bash reads them; an option it might read differently makes the name unknown.
   */
  private shell(name: string, words: string[], literal: boolean[]): void {
    this.unprovable(`${name} runs another shell`);
    let command = false;
    let i = 1;
    for (; i < words.length; i++) {
      if (!literal[i]) return this.unresolved(`${name} has a computed option or script`);
      const w = words[i]!;
      if (w === '--' || w === '-') {
        i++;
        break;
      }
      if (w.startsWith('--')) {
        const option = SHELL_LONG_OPTIONS.get(w);
        if (option === undefined) return this.unresolved(`${name} ${w}: an option the rules cannot read`);
        if (option === 'startup') return this.unresolved(`${name} ${w} runs startup files the rules cannot see`);
        continue;
      }
      if (!/^[-+]/.test(w)) break;
      const flags = w.slice(1);
      if (!/^[A-Za-z]+$/.test(flags) || [...flags].some((f) => !SHELL_FLAGS.includes(f))) return this.unresolved(`${name} ${w}: an option the rules cannot read`);
      // -l/-i read the user's own startup files (HOME is judged where it is set); -s reads the script from stdin.
      if (flags.includes('s')) return this.unresolved(`${name} ${w} reads its script from its input`);
      if (flags.includes('c')) {
        if (w.startsWith('+')) return this.unresolved(`${name} ${w}: an option the rules cannot read`);
        command = true;
      }
      // -o/-O (and +o/+O) take the next word, wherever they sit in a cluster (`-eo pipefail`).
      i += [...flags].filter((f) => f === 'o' || f === 'O').length;
    }
    if (!command || i >= words.length) return this.unresolved(`${name} runs a script the rules cannot see`);
    this.nested(words[i]!);
  }

  /**
   * A wrapper (`sudo`, `env`, `xargs`, `timeout 5`, `find … -exec`) runs a
   * command found somewhere in its arguments. Rather than model each one's
   * options, every argument that could start that command is taken as a
   * candidate for deny rules (`timeout 5 echo rm` is denied by `rm:*`:
   * over-denying is the safe side).
   */
  private wrapper(name: string, words: string[], literal: boolean[], from: number): void {
    // `env` alone (or with flags and assignments only) just prints the environment.
    const onlyOptions = words.every((w, i) => i < from || (literal[i] && (w.startsWith('-') || /^[A-Za-z_][A-Za-z0-9_]*=/.test(w))));
    if (name === 'env' && onlyOptions && !words.some((w) => /^(-[A-Za-z0-9]*S|--split-string)/.test(w))) return;
    this.unprovable(`${name} runs another command`);
    if (name === 'env' && words.some((w) => /^(-[A-Za-z0-9]*S|--split-string)/.test(w))) return this.unresolved('env -S splits a string into a new command line');
    this.candidates(name, words, literal, from);
  }

  /** Every argument from `from` that could start the command a wrapper or runner runs, recorded for deny rules. */
  private candidates(name: string, words: string[], literal: boolean[], from: number): void {
    if (words.length > MAX_WRAPPER_WORDS) this.unresolved(`${name} has too many arguments to find the command it runs`);
    if (this.depth >= MAX_DEPTH) return this.unresolved('commands nested too deeply to check');
    const end = Math.min(words.length, MAX_WRAPPER_WORDS);
    for (let i = from; i < end; i++) {
      const w = words[i]!;
      if (w.startsWith('-') || w === '.' || w === '..' || /^[A-Za-z_][A-Za-z0-9_]*=/.test(w)) continue;
      if (!literal[i]) {
        this.unresolved(`${name} may run a command named by a computed word`);
        continue;
      }
      // A word with blanks or operators may be a script of its own (`su -c 'rm -rf x'`, `trap 'rm x' EXIT`).
      const inner = new Analyser(this.depth + 1);
      if (/\s/.test(w) || (w.length > 1 && /[;&|`$()<>]/.test(w))) inner.nested(w);
      inner.simple(words.slice(i), literal.slice(i));
      this.out.candidates.push(...inner.out.commands, ...inner.out.candidates);
      this.out.writes.push(...inner.out.writes);
      this.out.reads.push(...inner.out.reads);
      inner.out.unresolved.forEach((r) => this.unresolved(r));
    }
  }
}

const ARITH_TEST = /\s-(eq|ne|lt|le|gt|ge)\s/;
const EVALUATE_REASON = 'evaluates a value as arithmetic or a prompt, which can run commands hidden in a variable';

/**
 * Bash evaluates some expansions as code: arithmetic on a variable whose value
 * is `a[$(cmd)]` runs cmd, and so does `${x@P}`. Their values are not static,
 * so deny rules cannot see what runs: these count as unresolved.
 */
function evaluatesText(node: SyntaxNode): string | undefined {
  const text = node.text;
  switch (node.type) {
    case 'arithmetic_expansion':
      return /[A-Za-z_$`]/.test(text.replace(/^\$(\(\(|\[)/, '')) ? EVALUATE_REASON : undefined;
    case 'expansion':
      return /@[PEA]|\[|:[^-=?+]/.test(text) ? EVALUATE_REASON : undefined;
    case 'compound_statement':
      return text.startsWith('((') ? EVALUATE_REASON : undefined;
    case 'test_command':
      return text.startsWith('[[') && ARITH_TEST.test(text) ? EVALUATE_REASON : undefined;
    case 'declaration_command':
      return node.namedChildren.some((c) => c?.type === 'word' && c.text.startsWith('-')) ? EVALUATE_REASON : undefined;
    default:
      return undefined;
  }
}

/** Builtins that take variable names: a subscript in one (`read 'a[$(cmd)]'`) is evaluated as arithmetic. */
const NAME_TAKING_BUILTINS = new Set(['printf', 'read', 'unset', 'mapfile', 'readarray', 'wait', 'getopts', 'test', '[', 'declare', 'typeset', 'local', 'export', 'readonly']);

const EXPANSIONS = new Set(['command_substitution', 'process_substitution', 'arithmetic_expansion', 'expansion', 'simple_expansion']);
const WORD_NODES = new Set(['word', 'number', 'string', 'raw_string', 'concatenation']);
const isWordNode = (type: string) => WORD_NODES.has(type);
const LIST_OPERATORS = new Set(['&&', '||', ';', '|', '\n']);
const truncate = (s: string) => (s.length > 40 ? `${cutHead(s, 40)}…` : s);

function hasDescendant(node: SyntaxNode, test: (n: SyntaxNode) => boolean): boolean {
  for (const child of node.namedChildren) if (child && (test(child) || hasDescendant(child, test))) return true;
  return false;
}

/** Analyses a command; the parser must be loaded (see analyseShell / loadShellParser). */
export function analyseCommand(command: string, depth = 0): CommandAnalysis {
  const a = new Analyser(depth, command);
  if (ODD_BLANK.test(command)) a.unresolved('an unusual blank character (U+00A0, \\v, \\f…) that bash does not treat as a space');
  // bash reads a carriage return as an ordinary character; the parser as a line break or a blank.
  if (command.includes('\r')) a.unresolved('a carriage return, which bash and the parser read differently');
  // bash joins `r\<newline>m` into `rm`; the parser splits it into two words. Between words (after a blank) it is harmless.
  if (/(^|[^ \t\n])\\\r?\n/.test(command)) a.unresolved('a backslash-newline inside a word');
  const tree = parseShell(command);
  let root: SyntaxNode;
  try {
    // hasError covers ERROR and MISSING nodes anywhere in the tree.
    if (tree.rootNode.hasError) a.unresolved('a parse error');
    const copy = copyTree(tree, command);
    root = copy.root;
    if (!onlyBlanksBetween(command, copy.leaves)) a.unresolved('text the parser skipped, which bash would still read');
  } finally {
    tree.delete();
  }
  // Comments: where the parser starts one bash must too, and where bash starts one (a word beginning with #) so must the parser.
  if (command.includes('#')) {
    hasDescendant(root, (n) => {
      if (n.type === 'comment' && !bashStartsComment(command, n.startIndex)) a.unresolved('a # that bash reads as part of a word, not as the start of a comment');
      else if (WORD_NODES.has(n.type) && command[n.startIndex] === '#' && bashStartsComment(command, n.startIndex)) a.unresolved('a # that starts a comment for bash but a word for the parser');
      return false;
    });
  }
  a.visit(root);
  return a.out;
}

/** Characters after which an unescaped `#` starts a comment in bash: blanks and the metacharacters that end a word. */
const WORD_ENDERS = new Set([' ', '\t', '\n', ';', '&', '|', '(', ')', '<', '>']);

/** Whether bash starts a comment at `#` here: at the start, or after a word ender that is not itself escaped (`a\ #x` is one word). */
function bashStartsComment(source: string, at: number): boolean {
  if (at === 0) return true;
  if (!WORD_ENDERS.has(source[at - 1]!)) return false;
  let backslashes = 0;
  for (let i = at - 2; i >= 0 && source[i] === '\\'; i--) backslashes++;
  return backslashes % 2 === 0;
}

/** Loads the parser on first use, then analyses. */
export async function analyseShell(command: string): Promise<CommandAnalysis> {
  await loadShellParser();
  return analyseCommand(command);
}
