// P3: split a shell command into the simple commands it would run, so a rule
// like `bash(git status:*)` can be checked against EVERY part. This is a
// conservative scanner, not a shell: whatever it cannot understand is reported
// as `opaque`, which makes the policy ask instead of allow.

export interface CommandNode {
  /** The simple command as matched by rules: its words joined by single spaces. */
  text: string;
  /** For wrappers (`env X=1 cmd`, `sh -c '…'`, `nohup cmd`…): the command(s) it runs. */
  inner?: CommandNode[];
  /**
   * The inner commands alone do not cover this part for allow rules: the
   * wrapper changes what they do (`GIT_CONFIG_…=… git status`, unknown options).
   * Deny rules still look inside.
   */
  wrapperMatters?: boolean;
  /** The words unquoted, the command name without its folder: what deny rules also see (`"rm"`, `\rm`, `/bin/rm` → `rm`). */
  plain?: string;
}

export interface CommandAnalysis {
  commands: CommandNode[];
  /** Redirection targets written to (`> file`, `>> file`, `&> file`); /dev/null and fd dups are not writes. */
  writes: string[];
  /** Reasons the command cannot be judged by rules at all (unterminated quote, eval…). */
  opaque: string[];
  /** What hides which program runs (`$x args`, `… | sh`): no deny rule can be checked against it. */
  hidden: string[];
}

interface Word {
  raw: string;
  value: string;
}

const SHELLS = new Set(['sh', 'bash', 'zsh', 'dash', 'ksh']);

export function analyseCommand(command: string, depth = 0): CommandAnalysis {
  const out: CommandAnalysis = { commands: [], writes: [], opaque: [], hidden: [] };
  if (depth > 8) {
    out.opaque.push('nested too deeply');
    return out;
  }
  const segments: string[] = [];
  let cur = '';
  let i = 0;
  const n = command.length;
  const endSegment = () => {
    segments.push(cur);
    cur = '';
  };
  const substitution = (start: number, open: string, close: string): number => {
    const end = findClosing(command, start, open, close);
    if (end < 0) {
      out.opaque.push(`unterminated ${open}`);
      return n;
    }
    merge(out, analyseCommand(command.slice(start, end), depth + 1));
    return end + close.length;
  };

  while (i < n) {
    const c = command[i]!;
    const next = command[i + 1];
    if (c === '\\') {
      cur += command.slice(i, i + 2);
      i += 2;
      continue;
    }
    if (c === "'" || (c === '$' && next === "'")) {
      // In ANSI-C quoting ($'…') `\'` does not end the quote, unlike in a plain single quote.
      const end = c === '$' ? ansiCEnd(command, i + 2) : command.indexOf("'", i + 1);
      if (end < 0) {
        out.opaque.push('unterminated quote');
        cur += command.slice(i);
        break;
      }
      cur += command.slice(i, end + 1);
      i = end + 1;
      continue;
    }
    if (c === '"') {
      // Double quotes still expand $(…) and backticks: scan inside for them.
      let j = i + 1;
      let closed = false;
      while (j < n) {
        const d = command[j]!;
        if (d === '\\') {
          j += 2;
          continue;
        }
        if (d === '"') {
          closed = true;
          break;
        }
        if (d === '$' && command[j + 1] === '(') {
          j = substitution(j + 2, '(', ')');
          continue;
        }
        if (d === '`') {
          j = substitution(j + 1, '`', '`');
          continue;
        }
        j++;
      }
      if (!closed) out.opaque.push('unterminated quote');
      cur += command.slice(i, Math.min(j + 1, n));
      i = j + 1;
      continue;
    }
    if (c === '$' && next === '(') {
      const end = substitution(i + 2, '(', ')');
      cur += '$(…)';
      i = end;
      continue;
    }
    if (c === '`') {
      const end = substitution(i + 1, '`', '`');
      cur += '$(…)';
      i = end;
      continue;
    }
    if ((c === '<' || c === '>') && next === '(') {
      const end = substitution(i + 2, '(', ')');
      cur += '$(…)';
      i = end;
      continue;
    }
    if (c === '>' || (c === '&' && next === '>')) {
      i = redirection(command, i, out, () => {
        // A file-descriptor number glued to the operator (`2>`) belongs to it.
        cur = cur.replace(/(^|\s)\d+$/, '$1');
      });
      continue;
    }
    if (c === '<') {
      i = skipInputRedirection(command, i, out);
      continue;
    }
    if (c === '&' || c === '|' || c === ';' || c === '\n' || c === '\r' || c === '(' || c === ')' || c === '{' || c === '}') {
      // `{`/`}` only group when they stand alone as words; inside a word (`a{b}`) they are text.
      if ((c === '{' || c === '}') && !isLoneWord(command, i)) {
        cur += c;
        i++;
        continue;
      }
      endSegment();
      i += (c === '&' && next === '&') || (c === '|' && (next === '|' || next === '&')) || (c === ';' && next === ';') ? 2 : 1;
      continue;
    }
    cur += c;
    i++;
  }
  endSegment();

  for (const segment of segments) {
    const words = splitWords(segment);
    if (words.length === 0) continue;
    out.commands.push(commandNode(words, out, depth));
  }
  return out;
}

function merge(into: CommandAnalysis, from: CommandAnalysis): void {
  into.commands.push(...from.commands);
  into.writes.push(...from.writes);
  into.opaque.push(...from.opaque);
  into.hidden.push(...from.hidden);
}

/** Index of the quote closing an ANSI-C string `$'…'` whose body starts at `i`; -1 if unterminated. */
function ansiCEnd(s: string, i: number): number {
  let j = i;
  while (j < s.length) {
    if (s[j] === '\\') j += 2;
    else if (s[j] === "'") return j;
    else j++;
  }
  return -1;
}

function isLoneWord(s: string, i: number): boolean {
  const before = i === 0 ? ' ' : s[i - 1]!;
  const after = i + 1 >= s.length ? ' ' : s[i + 1]!;
  return /[\s;&|(]/.test(before) || /[\s;&|)]/.test(after);
}

/** Index just past the closing delimiter's start, honouring quotes and nesting; -1 if unterminated. */
function findClosing(s: string, start: number, open: string, close: string): number {
  let depth = 1;
  let i = start;
  while (i < s.length) {
    const c = s[i]!;
    if (c === '\\') {
      i += 2;
      continue;
    }
    if (c === '$' && s[i + 1] === "'") {
      const end = ansiCEnd(s, i + 2);
      if (end < 0) return -1;
      i = end + 1;
      continue;
    }
    if (close !== '`' && c === "'") {
      const end = s.indexOf("'", i + 1);
      if (end < 0) return -1;
      i = end + 1;
      continue;
    }
    if (c === close) {
      depth--;
      if (depth === 0) return i;
    } else if (c === open && close !== '`') depth++;
    i++;
  }
  return -1;
}

function redirection(s: string, i: number, out: CommandAnalysis, dropFd: () => void): number {
  dropFd();
  let j = i;
  let op = '';
  while (j < s.length && /[&>|]/.test(s[j]!) && op.length < 3) op += s[j++];
  while (j < s.length && /[ \t]/.test(s[j]!)) j++;
  const [target, end] = readWord(s, j);
  const harmless = (op.includes('&') && /^(\d+|-)$/.test(target)) || target === '/dev/null';
  if (!harmless) out.writes.push(target || '(missing target)');
  if (/\$[({]|`/.test(s.slice(j, end))) out.opaque.push('substitution in a redirection');
  return end;
}

function skipInputRedirection(s: string, i: number, out: CommandAnalysis): number {
  let j = i;
  while (j < s.length && s[j] === '<') j++;
  if (s[j] === '&') j++;
  while (j < s.length && /[ \t]/.test(s[j]!)) j++;
  const end = readWord(s, j)[1];
  // `<<< "$(cmd)"` and `< "`cmd`"` run cmd: this scanner does not look inside, so no rule can vouch for it.
  if (/\$[({]|`/.test(s.slice(j, end))) out.opaque.push('substitution in a redirection');
  return end;
}

/** Reads one shell word starting at `i`; returns its unquoted value and the index after it. */
function readWord(s: string, i: number): [string, number] {
  let value = '';
  let j = i;
  while (j < s.length && !/[\s;&|<>()]/.test(s[j]!)) {
    const c = s[j]!;
    if (c === "'" || c === '"') {
      const end = s.indexOf(c, j + 1);
      const stop = end < 0 ? s.length : end;
      value += s.slice(j + 1, stop);
      j = stop + 1;
      continue;
    }
    if (c === '\\' && j + 1 < s.length) {
      value += s[j + 1];
      j += 2;
      continue;
    }
    value += c;
    j++;
  }
  return [value, j];
}

function splitWords(segment: string): Word[] {
  const words: Word[] = [];
  let i = 0;
  while (i < segment.length) {
    while (i < segment.length && /\s/.test(segment[i]!)) i++;
    if (i >= segment.length) break;
    const start = i;
    let value = '';
    while (i < segment.length && !/\s/.test(segment[i]!)) {
      const c = segment[i]!;
      if (c === "'" || c === '"') {
        const end = segment.indexOf(c, i + 1);
        const stop = end < 0 ? segment.length : end;
        value += segment.slice(i + 1, stop);
        i = stop + 1;
        continue;
      }
      if (c === '\\' && i + 1 < segment.length) {
        value += segment[i + 1];
        i += 2;
        continue;
      }
      value += c;
      i++;
    }
    words.push({ raw: segment.slice(start, i), value });
  }
  return words;
}

const ASSIGNMENT = /^[A-Za-z_][A-Za-z0-9_]*=/;

/** Variables a `NAME=value cmd` prefix may set while an allow rule for `cmd` still covers it: they change no program's code path. */
const SAFE_VARIABLES = new Set(['CI', 'NODE_ENV', 'FORCE_COLOR', 'NO_COLOR', 'TZ', 'LANG', 'LC_ALL', 'TERM', 'COLUMNS', 'DEBUG', 'RUST_BACKTRACE']);
/** Pagers run a program: only turning them off is harmless. */
const PAGER_VARIABLES = new Set(['PAGER', 'GIT_PAGER']);

function safeAssignment(word: string): boolean {
  const eq = word.indexOf('=');
  const name = word.slice(0, eq);
  return SAFE_VARIABLES.has(name) || (PAGER_VARIABLES.has(name) && ['', 'cat'].includes(word.slice(eq + 1)));
}

/** Per wrapper: options taking a separate argument, and options taking none. Any other option: only a rule for the wrapper covers it. */
const WRAPPER_OPTIONS: Record<string, { arg: string[]; flag: RegExp }> = {
  env: { arg: ['-u', '--unset', '-C', '--chdir'], flag: /^(-[i0v]+|--ignore-environment|--null|--debug|-|-u.+|-C.+|--unset=.*|--chdir=.*)$/ },
  command: { arg: [], flag: /^-p$/ },
  nohup: { arg: [], flag: /^$/ },
  time: { arg: [], flag: /^-p$/ },
  exec: { arg: ['-a'], flag: /^-[cl]+$/ },
  nice: { arg: ['-n', '--adjustment'], flag: /^(-n-?\d+|-\d+|--adjustment=-?\d+)$/ },
  timeout: { arg: ['-s', '--signal', '-k', '--kill-after'], flag: /^(--preserve-status|--foreground|-v|--verbose|-[sk].+|--signal=.*|--kill-after=.*)$/ },
  xargs: {
    arg: ['-n', '--max-args', '-P', '--max-procs', '-L', '--max-lines', '-s', '--max-chars', '-d', '--delimiter', '-E', '-a', '--arg-file', '-I'],
    flag: /^(-[0rtx]+|--null|--no-run-if-empty|--verbose|--exit|-[nPLsdEaI].+|--[a-z-]+=.*)$/,
  },
  builtin: { arg: [], flag: /^$/ },
};

/** `find` actions that run a command (up to `;` or `+`) or write a file. */
const FIND_EXEC = new Set(['-exec', '-execdir', '-ok', '-okdir']);
const FIND_WRITES = new Set(['-fprint', '-fprint0', '-fprintf', '-fls']);

const plainOf = (words: Word[]) => words.map((w, i) => (i === 0 ? w.value.split('/').pop()! : w.value)).join(' ');
const dynamic = (w: Word) => /[$`]/.test(w.raw) || w.raw.includes('$(…)');

function commandNode(words: Word[], out: CommandAnalysis, depth: number): CommandNode {
  const text = words.map((w) => w.raw).join(' ');
  let k = 0;
  while (k < words.length && ASSIGNMENT.test(words[k]!.value)) k++;
  if (k === words.length) return { text };
  const head = words[k]!;
  const name = head.value.split('/').pop()!;
  const plain = plainOf(words.slice(k));
  if (dynamic(head)) out.hidden.push(`the command name ${head.raw} is computed when it runs`);
  // Any command may be told to write a file with --output (git diff/log, curl…): that is a write like `>`.
  words.forEach((w, idx) => {
    const m = /^--output(?:=(.*))?$/.exec(w.value);
    if (m) out.writes.push(m[1] ?? words[idx + 1]?.value ?? '(missing target)');
  });

  if (k > 0) {
    const unsafe = words.slice(0, k).some((w) => !safeAssignment(w.value));
    return { text, plain, inner: [commandNode(words.slice(k), out, depth)], ...(unsafe ? { wrapperMatters: true } : {}) };
  }

  if (SHELLS.has(name)) {
    const c = words.findIndex((w, idx) => idx > k && /^-[a-z]*c[a-z]*$/.test(w.value));
    if (c < 0) {
      const script = words.slice(k + 1).find((w) => !w.value.startsWith('-'));
      out.hidden.push(script ? `${name} runs the script ${script.value}` : `${name} runs a script read from its input`);
      return { text, plain };
    }
    const script = words[c + 1]?.value;
    if (script === undefined) return { text, plain };
    const inner = analyseCommand(script, depth + 1);
    out.writes.push(...inner.writes);
    out.opaque.push(...inner.opaque);
    out.hidden.push(...inner.hidden);
    return { text, plain, inner: inner.commands };
  }
  if (name === 'eval') {
    const inner = analyseCommand(words.slice(k + 1).map((w) => w.value).join(' '), depth + 1);
    out.writes.push(...inner.writes);
    out.hidden.push(...inner.hidden);
    out.opaque.push('eval');
    return { text, plain, inner: inner.commands };
  }
  if (name === 'find') {
    for (let j = k + 1; j < words.length; j++) {
      const v = words[j]!.value;
      if (FIND_WRITES.has(v)) out.writes.push(words[j + 1]?.value ?? '(missing target)');
      if (v === '-delete') out.writes.push('(find -delete)');
      if (FIND_EXEC.has(v)) {
        let e = j + 1;
        while (e < words.length && words[e]!.value !== ';' && words[e]!.value !== '+') e++;
        // What -exec runs is a command of its own: allow rules must cover it and deny rules see it.
        if (e > j + 1) out.commands.push(commandNode(words.slice(j + 1, e), out, depth + 1));
        j = e;
      }
    }
    return { text, plain };
  }
  const options = WRAPPER_OPTIONS[name];
  if (options) {
    let j = k + 1;
    let unknownOption = false;
    while (j < words.length) {
      const v = words[j]!.value;
      if (name === 'env' && ASSIGNMENT.test(v)) {
        if (!safeAssignment(v)) unknownOption = true;
        j++;
        continue;
      }
      if (name === 'env' && /^(-[a-zA-Z0-9]*S|--split-string)/.test(v)) {
        // env -S splits a string into a whole new command line: nothing here can be judged.
        out.opaque.push('env -S');
        return { text, plain };
      }
      if (v === '--') {
        j++;
        break;
      }
      if (v.startsWith('-') && v.length > 1) {
        if (options.arg.includes(v)) j += 2;
        else {
          if (!options.flag.test(v)) unknownOption = true;
          j++;
        }
        continue;
      }
      if (name === 'timeout' && /^\d/.test(v)) {
        j++;
        continue;
      }
      break;
    }
    if (j >= words.length) return { text, plain };
    return { text, plain, inner: [commandNode(words.slice(j), out, depth)], ...(unknownOption ? { wrapperMatters: true } : {}) };
  }
  return { text, plain };
}
