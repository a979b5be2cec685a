// P3: split a shell command into the simple commands it would run, so a rule
// like `bash(git status:*)` can be checked against EVERY part. This is a
// conservative scanner, not a shell: whatever it cannot understand is reported
// as `opaque`, which makes the policy ask instead of allow.

export interface CommandNode {
  /** The simple command as matched by rules: its words joined by single spaces. */
  text: string;
  /** For wrappers (`env X=1 cmd`, `sh -c '…'`, `nohup cmd`…): the command(s) it runs. */
  inner?: CommandNode[];
}

export interface CommandAnalysis {
  commands: CommandNode[];
  /** Redirection targets written to (`> file`, `>> file`, `&> file`); /dev/null and fd dups are not writes. */
  writes: string[];
  /** Reasons the command cannot be judged by rules at all (unterminated quote, eval…). */
  opaque: string[];
}

interface Word {
  raw: string;
  value: string;
}

const SHELLS = new Set(['sh', 'bash', 'zsh', 'dash', 'ksh']);
/** Commands that run the rest of their arguments as a command. */
const PREFIX_WRAPPERS = new Set(['env', 'command', 'nohup', 'time', 'exec', 'nice', 'timeout', 'xargs', 'builtin']);

export function analyseCommand(command: string, depth = 0): CommandAnalysis {
  const out: CommandAnalysis = { commands: [], writes: [], opaque: [] };
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
    if (c === "'") {
      const end = command.indexOf("'", i + 1);
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
      i = skipInputRedirection(command, i);
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
  return end;
}

function skipInputRedirection(s: string, i: number): number {
  let j = i;
  while (j < s.length && s[j] === '<') j++;
  if (s[j] === '&') j++;
  while (j < s.length && /[ \t]/.test(s[j]!)) j++;
  return readWord(s, j)[1];
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

function commandNode(words: Word[], out: CommandAnalysis, depth: number): CommandNode {
  const text = words.map((w) => w.raw).join(' ');
  let k = 0;
  while (k < words.length && ASSIGNMENT.test(words[k]!.value)) k++;
  if (k === words.length) return { text };
  const name = words[k]!.value.split('/').pop()!;

  if (k > 0) return { text, inner: [commandNode(words.slice(k), out, depth)] };

  if (SHELLS.has(name)) {
    const c = words.findIndex((w, idx) => idx > k && /^-[a-z]*c[a-z]*$/.test(w.value));
    if (c < 0) return { text };
    const script = words[c + 1]?.value;
    if (script === undefined) return { text };
    const inner = analyseCommand(script, depth + 1);
    out.writes.push(...inner.writes);
    out.opaque.push(...inner.opaque);
    return { text, inner: inner.commands };
  }
  if (name === 'eval') {
    const inner = analyseCommand(words.slice(k + 1).map((w) => w.value).join(' '), depth + 1);
    out.writes.push(...inner.writes);
    out.opaque.push('eval');
    return { text, inner: inner.commands };
  }
  if (PREFIX_WRAPPERS.has(name)) {
    let j = k + 1;
    while (j < words.length) {
      const v = words[j]!.value;
      if (name === 'env' && (ASSIGNMENT.test(v) || v.startsWith('-'))) {
        if (v === '-u' || v === '-C' || v === '-S') j++;
        j++;
        continue;
      }
      if (v.startsWith('-')) {
        if ((name === 'nice' && v === '-n') || (name === 'timeout' && (v === '-s' || v === '-k'))) j++;
        j++;
        continue;
      }
      if (name === 'timeout' && /^\d/.test(v)) {
        j++;
        continue;
      }
      break;
    }
    if (j >= words.length) return { text };
    return { text, inner: [commandNode(words.slice(j), out, depth)] };
  }
  return { text };
}
