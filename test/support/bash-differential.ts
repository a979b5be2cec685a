// The differential test's two halves: a grammar-based generator of bash
// commands full of the spellings where a parser and bash can disagree, and a
// runner that hands each command to bash itself in a throwaway bubblewrap
// sandbox where every command name is a recording stub. What bash actually
// ran is then compared with what the analysis (src/runtime/policy/shell-analysis.ts)
// saw. Used by test/reliability/bash-differential.test.ts.
import { spawn } from 'node:child_process';
import { chmodSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';

/**
 * Names the generator uses. The cases run with an empty PATH, so a name is recorded by bash's
 * command_not_found_handle (a fork, no exec: fast); spelled with a folder (`/usr/bin/echo`) it runs a recording stub.
 */
export const STUB_NAMES = ['echo', 'printf', 'true', 'git', 'ls', 'cat', 'touch', 'rm', 'grep', 'npm', 'x1', 'test'] as const;

/** Builtins disabled in the cases' shells, so they are looked up on PATH (and recorded) like any program. */
const DISABLED_BUILTINS = ['echo', 'printf', 'true', 'false', 'test', '[', 'pwd', 'kill', 'type', 'hash', 'cd', 'read', 'let', 'times', 'umask', 'ulimit', 'wait', 'jobs', 'bg', 'fg', 'disown', 'suspend', 'help', 'history', 'logout', 'dirs', 'pushd', 'popd', 'compgen', 'complete', 'compopt', 'getopts', 'caller'];

// ---------------------------------------------------------------------------
// Generator

/** A small seeded PRNG (mulberry32): the same seed gives the same commands on every machine. */
export function prng(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

class Gen {
  constructor(private readonly r: () => number) {}

  pick<T>(xs: readonly T[]): T {
    return xs[Math.floor(this.r() * xs.length)]!;
  }

  chance(p: number): boolean {
    return this.r() < p;
  }

  int(lo: number, hi: number): number {
    return lo + Math.floor(this.r() * (hi - lo + 1));
  }

  /** Pieces of an unquoted word, weighted towards the characters where readings differ. */
  piece(depth: number): string {
    const plain = ['a', 'b', 'x', '1', '0', '_', '-', '.', '/', 'out', 'f.txt', '-n', '--x=1', 'status'];
    const tricky = [
      '#', '\\#', '\\ ', '\\\t', '\\;', '\\\\', '\\\n', '\\\r\n', '\r', '~', '~/x', '=', ':', '*', '?', '[a]', '{a,b}', '{}', '\\{',
      '$x', '${x}', '$1', '$@', '$$', '$?', '$_', "$'a\\x3b'", '$"a"', '!', '%', '^', '@', ',', '\u00a0', '\\"', "\\'", '\\$', '\\`',
      '\\|', '\\&', '\\<', '\\>', '\\(', '\\)', '\\\u00a0', '\\\r', '\\', '&', ';',
    ];
    if (depth < 2 && this.chance(0.05)) return this.pick([`$(${this.command(depth + 1)})`, `\`${this.command(depth + 1)}\``, '$((1+1))', `<(${this.command(depth + 1)})`]);
    if (this.chance(0.1)) return this.single();
    if (this.chance(0.1)) return this.double(depth);
    return this.chance(0.8) ? this.pick(plain) : this.pick(tricky);
  }

  single(): string {
    const inner = ['a', ' ', '"', '\\', '#', ';', '\n', '$x', '`', '\r', '&&', '|', 'b c'];
    let s = '';
    for (let i = this.int(0, 3); i > 0; i--) s += this.pick(inner);
    return `'${s}'`;
  }

  double(depth: number): string {
    const inner = ['a', ' ', "'", '\\"', '\\\\', '\\$', '\\`', '#', ';', '\n', '\\\n', '$x', '${x}', '\\a', '\r', '&&', '|', '\\'];
    let s = '';
    for (let i = this.int(0, 3); i > 0; i--) s += depth < 2 && this.chance(0.05) ? `$(${this.command(depth + 1)})` : this.pick(inner);
    // A lone trailing backslash would escape the closing quote: keep the string closed.
    if (/(^|[^\\])(\\\\)*\\$/.test(s)) s += '\\';
    return `"${s}"`;
  }

  word(depth: number): string {
    let w = '';
    for (let i = this.int(1, 3); i > 0; i--) w += this.piece(depth);
    return w;
  }

  name(): string {
    const n = this.pick(STUB_NAMES);
    if (this.chance(0.75)) return n;
    return this.pick([`"${n.slice(0, 1)}"${n.slice(1)}`, `\\${n}`, `/usr/bin/${n}`, `${n.slice(0, 1)}'${n.slice(1)}'`, `${n.slice(0, 1)}\\${n.slice(1)}`]);
  }

  blank(): string {
    return this.chance(0.9) ? this.pick([' ', ' ', '\t', '  ']) : this.pick([' \\\n ', ' \\\r\n ', '\u00a0 ', ' \r ']);
  }

  redirect(depth: number): string {
    const op = this.pick(['>', '>>', '<', '2>', '&>', '>|', '2>&1', '<>', '>&', '<<<', '1>', '>&2', '2>>']);
    if (op === '2>&1' || op === '>&2') return op;
    let s = `${op}${this.pick(['', ' '])}${this.pick(['out', 'o2', '/dev/null', this.word(depth), '"o 3"'])}`;
    // The words after a target: bash takes them as arguments, a parser may take them as more targets.
    if (this.chance(0.2)) s += ` ${this.word(depth)}`;
    return s;
  }

  simple(depth: number): string {
    const parts: string[] = [];
    if (this.chance(0.1)) parts.push(this.pick(['X=1', 'A=b\\ c', 'NODE_ENV=test', 'Y="a b"', "Z='#'"]));
    parts.push(this.name());
    for (let i = this.int(0, 4); i > 0; i--) parts.push(this.chance(0.15) ? this.redirect(depth) : this.word(depth));
    let s = parts[0]!;
    for (const p of parts.slice(1)) s += this.blank() + p;
    return s;
  }

  command(depth: number): string {
    if (depth < 2 && this.chance(0.08)) {
      const inner = this.list(depth + 1);
      return this.pick([`(${inner})`, `{ ${inner}; }`, `! ${this.simple(depth)}`, `if ${this.simple(depth)}; then ${inner}; fi`]);
    }
    return this.simple(depth);
  }

  list(depth: number): string {
    let s = this.command(depth);
    for (let i = this.int(0, 2); i > 0; i--) s += this.pick([';', ' ; ', ' && ', '||', ' | ', '\n', ' & ', '\r\n', ';\r\n', ' |& ']) + this.command(depth);
    return s;
  }

  program(): string {
    let s = this.list(0);
    if (this.chance(0.25)) s += ` ${this.pick(['#', ' #', '\t#', '\\ #', ';#', '#x'])}${this.pick(['', ' c', "'", '"', ';touch x', '\\'])}\n${this.list(0)}`;
    if (this.chance(0.1)) {
      const quoted = this.chance(0.5);
      s += ` <<${quoted ? "'EOF'" : 'EOF'}\n${this.pick(['body', '$x', '$(touch hd)', "it's", '#x'])}\nEOF\n${this.list(0)}`;
    }
    return s;
  }
}

/** `count` generated commands for `seed`. */
export function generateCommands(seed: number, count: number): string[] {
  const g = new Gen(prng(seed));
  return Array.from({ length: count }, () => g.program());
}

/** Hand-written spellings known to separate parsers from bash (the attack reports' classes and their neighbours). */
export const TRICKY_CORPUS: readonly string[] = [
  'echo a\r# x; touch c',
  'echo \\ #x; touch c',
  'echo "a"\\ #x; touch c',
  'echo a\\\t#x; touch c',
  'echo a \\\r\ntouch c',
  'git status\r\ntouch c',
  'echo hi > a b c',
  'echo >a >b',
  'echo hi >out x1 y',
  'echo hi 2>o1 o2',
  'git status # it\'s\ntouch c',
  'git status <<\'EOF\'\nit\'s\nEOF\ntouch c',
  'echo a;#x\ntouch c',
  'echo a#x; touch c',
  'echo \\#x; touch c',
  'x1 a\\\n#b; touch c',
  'echo $\'\\x3b\' touch c',
  'echo {a,b}; touch c',
  'echo a\\\u00a0#x;touch c',
  'echo a\u00a0; touch c',
  'echo hi >\\ #x; touch c',
  'echo a\\\r\n#x; touch c',
  'echo "a\\\r\nb" ; touch c',
  "echo 'a\r'#b; touch c",
  'echo a &#x\ntouch c',
  'echo a|#x\ntouch c',
  'echo a&&#x\ntouch c',
  'echo (a)',
  'echo a\\\\\\ #x; touch c',
  'echo a\\\\ #x; touch c',
  'touch c #\\\necho d',
  'echo a #\r\ntouch c',
  'git status <<<a b; touch c',
  'cat <<EOF >o1 o2\nx\nEOF',
  'echo ~/x a=~/y --o=~/z',
];

// ---------------------------------------------------------------------------
// Runner

export interface BashRun {
  /** What bash ran, in order: each `[name, ...args]` (the name without its folder). */
  ran: string[][];
  /** Files the command created in its (empty) working folder. */
  created: string[];
}

const STUB = `#!/usr/bin/bash
enable printf
printf '%s\\0' "$#" "\${0##*/}" "$@" > "$TS_LOG/\${EPOCHREALTIME/./}.$$"
exit 0
`;

/** Sourced by every case's shell (BASH_ENV): builtins become PATH lookups; a name that is no program is still recorded. */
const PRELUDE = `enable -n ${DISABLED_BUILTINS.map((b) => `'${b}'`).join(' ')}
command_not_found_handle() { enable printf; printf '%s\\0' "$(($# - 1))" "\${1##*/}" "\${@:2}" > "$TS_LOG/\${EPOCHREALTIME/./}.$BASHPID"; return 0; }
`;

/** Runs each case (NUL-separated in the cases file) in a fresh bash with an empty folder; writes what it ran and created. */
const DRIVER = `procs=(/proc/[0-9]*)
base=\${#procs[@]}
# Background jobs and process substitutions outlive bash -c; wait (up to 2 s) for them before listing the files.
settle() {
  local n=0
  while procs=(/proc/[0-9]*); (( \${#procs[@]} > base && n++ < 400 )); do /tmp/tools/sleep 0.005; done
}
i=0
while IFS= read -r -d '' src; do
  /tmp/tools/mkdir -p "/tmp/work/$i" && cd "/tmp/work/$i" || exit 99
  printf '%s' "$i" > /tmp/logs/current
  /tmp/tools/mkdir "/tmp/logs/$i.ran" || exit 99
  BASH_ENV=/tmp/prelude TS_LOG="/tmp/logs/$i.ran" PATH=/nowhere /usr/bin/bash -c "$src" < /dev/null > /dev/null 2>&1
  settle
  shopt -s dotglob nullglob
  files=(*)
  : > "/tmp/logs/$i.files"
  (( \${#files[@]} )) && printf '%s\\0' "\${files[@]}" > "/tmp/logs/$i.files"
  shopt -u dotglob nullglob
  cd / && i=$((i + 1))
done < /tmp/cases
printf done > /tmp/logs/current
`;

/**
 * Runs every command with bash in one bubblewrap sandbox: /usr/bin holds only bash and the stubs, the file
 * system is read-only but for a tmpfs work folder, no network. Resolves with one BashRun per command.
 */
export async function runInBash(commands: readonly string[], options: { timeoutMs: number }): Promise<BashRun[]> {
  const dir = mkdtempSync(path.join(os.tmpdir(), 'turnstone-differential-'));
  try {
    const stubs = path.join(dir, 'stubs');
    const logs = path.join(dir, 'logs');
    mkdirSync(stubs);
    mkdirSync(logs);
    for (const name of STUB_NAMES) {
      writeFileSync(path.join(stubs, name), STUB);
      chmodSync(path.join(stubs, name), 0o755);
    }
    writeFileSync(path.join(dir, 'prelude'), PRELUDE);
    writeFileSync(path.join(dir, 'driver'), DRIVER);
    if (commands.some((c) => c.includes('\0'))) throw new Error('a case holds a NUL byte');
    writeFileSync(path.join(dir, 'cases'), commands.map((c) => `${c}\0`).join(''));
    const args = [
      '--ro-bind', '/', '/', '--tmpfs', '/usr/bin', '--ro-bind', '/usr/bin/bash', '/usr/bin/bash',
      ...STUB_NAMES.flatMap((n) => ['--ro-bind', path.join(stubs, n), `/usr/bin/${n}`]),
      '--tmpfs', '/usr/sbin', '--tmpfs', '/usr/local', '--dev', '/dev', '--proc', '/proc', '--tmpfs', '/tmp',
      '--bind', logs, '/tmp/logs', '--ro-bind', path.join(dir, 'prelude'), '/tmp/prelude', '--ro-bind', path.join(dir, 'cases'), '/tmp/cases',
      '--ro-bind', path.join(dir, 'driver'), '/tmp/driver', '--ro-bind', '/usr/bin/mkdir', '/tmp/tools/mkdir', '--ro-bind', '/usr/bin/sleep', '/tmp/tools/sleep', '--unshare-all', '--die-with-parent', '--new-session', '--cap-drop', 'ALL',
      '--clearenv', '--setenv', 'HOME', '/home/differential', '--setenv', 'PATH', '/usr/bin', '--chdir', '/',
      '/usr/bin/bash', '/tmp/driver',
    ];
    await new Promise<void>((resolve, reject) => {
      const child = spawn('bwrap', args, { stdio: ['ignore', 'ignore', 'pipe'] });
      let stderr = '';
      child.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
      const timer = setTimeout(() => {
        child.kill('SIGKILL');
        const current = readCurrent(logs);
        reject(new Error(`bash did not finish the cases within ${options.timeoutMs} ms; stuck at case ${current}: ${JSON.stringify(commands[Number(current)])}`));
      }, options.timeoutMs);
      child.on('error', reject);
      child.on('close', (code) => {
        clearTimeout(timer);
        const current = readCurrent(logs);
        if (code === 0 && current === 'done') resolve();
        else reject(new Error(`the differential driver ended with ${code} at case ${current}: ${stderr.slice(0, 500)}`));
      });
    });
    return commands.map((_, i) => ({ ran: readRecords(path.join(logs, `${i}.ran`)), created: splitNul(readFileSync(path.join(logs, `${i}.files`))) }));
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

const readCurrent = (logs: string) => {
  try {
    return readFileSync(path.join(logs, 'current'), 'utf8');
  } catch {
    return 'none';
  }
};

function splitNul(buf: Buffer): string[] {
  const parts = buf.toString('utf8').split('\0');
  parts.pop();
  return parts;
}

/**
 * One file per record, named by the time it was written: concurrent appends to one log split a record at
 * every newline (bash line-buffers its output) and interleaved background jobs' records into bogus commands.
 * A record is `count NUL name NUL arg… NUL`; one cut short (a background job killed at the end) is dropped.
 */
function readRecords(folder: string): string[][] {
  const out: string[][] = [];
  for (const name of readdirSync(folder).sort()) {
    const fields = splitNul(readFileSync(path.join(folder, name)));
    const n = Number(fields[0]);
    if (Number.isInteger(n) && fields.length === n + 2) out.push(fields.slice(1));
  }
  return out;
}

// ---------------------------------------------------------------------------
// Comparison

interface CommandView {
  words: string[];
  literal: boolean[];
}

export interface AnalysisView {
  commands: CommandView[];
  candidates: CommandView[];
  unprovable: string[];
  unresolved: string[];
  writes: string[];
}

export interface Disagreement {
  command: string;
  /** `allow`: the analysis would let an allow rule vouch for it; `deny`: it claims to know every name. */
  side: 'allow' | 'deny';
  detail: string;
}

/** The HOME the cases run with: a leading `~/` in an analysed word stands for it. */
const CASE_HOME = '/home/differential';

const expandHome = (w: string) => w.replace(/^~(?=\/|$)/, CASE_HOME);

/**
 * Whether bash's command is the analysed one: the same name (without its folder) and the same words up to
 * the first computed word, after which the analysis promises nothing (deny rules match from there on).
 */
function covers(seen: CommandView, ran: readonly string[]): boolean {
  if (seen.words[0]!.split('/').pop() !== ran[0]) return false;
  for (let i = 1; i < seen.words.length; i++) {
    if (!seen.literal[i]) return true;
    if (expandHome(seen.words[i]!) !== ran[i]) return false;
  }
  return seen.words.length === ran.length;
}

/**
 * What bash did that the analysis did not foresee. A command the analysis cannot resolve fails closed (every
 * deny rule matches it, no allow rule covers it): nothing to compare. Otherwise every command bash ran must be
 * one the analysis saw, word for word; and where it would let an allow rule vouch, every file bash created
 * must be a write it saw.
 */
export function disagreements(command: string, a: AnalysisView, run: BashRun): Disagreement[] {
  if (a.unresolved.length > 0) return [];
  const out: Disagreement[] = [];
  const allowable = a.unprovable.length === 0;
  const seen = [...a.commands, ...a.candidates];
  for (const ran of run.ran) {
    if (!seen.some((s) => covers(s, ran))) {
      out.push({ command, side: allowable ? 'allow' : 'deny', detail: `bash ran ${JSON.stringify(ran)}; the analysis saw ${JSON.stringify(seen.map((c) => c.words))}` });
    } else if (allowable && !a.commands.some((s) => covers(s, ran))) {
      out.push({ command, side: 'allow', detail: `bash ran ${JSON.stringify(ran)}, which the analysis saw only as a wrapper's candidate` });
    }
  }
  if (allowable) {
    for (const file of run.created) {
      if (!a.writes.includes(file)) out.push({ command, side: 'allow', detail: `bash created ${JSON.stringify(file)}; the analysis saw writes ${JSON.stringify(a.writes)}` });
    }
  }
  return out;
}
