// A deliberately small highlighter: one regex pass that marks comments,
// strings, numbers and keywords with token classes coloured by --vscode-*
// variables. A full grammar library would multiply the bundle for little gain
// in a chat transcript. Output is built with text nodes, so it cannot inject.

const KEYWORDS: Record<string, string> = {
  js: 'async await break case catch class const continue default delete do else export extends false finally for from function if import in instanceof let new null of return static super switch this throw true try typeof undefined var void while yield',
  ts: 'abstract as declare enum implements interface keyof namespace private protected public readonly type unknown never any string number boolean',
  py: 'and as assert async await break class continue def del elif else except False finally for from global if import in is lambda None nonlocal not or pass raise return True try while with yield self',
  sh: 'if then else elif fi for while do done case esac in function return export local set unset echo cd exit',
  go: 'break case chan const continue default defer else fallthrough for func go goto if import interface map package range return select struct switch type var nil true false',
  rust: 'as async await break const continue crate else enum extern false fn for if impl in let loop match mod move mut pub ref return self Self static struct super trait true type unsafe use where while',
  c: 'auto break case char const continue default do double else enum extern float for goto if int long register return short signed sizeof static struct switch typedef union unsigned void volatile while class public private protected new delete this true false null nullptr template namespace using bool',
  json: 'true false null',
};

const ALIASES: Record<string, string> = {
  javascript: 'js', jsx: 'js', mjs: 'js', cjs: 'js', typescript: 'ts', tsx: 'ts',
  python: 'py', bash: 'sh', shell: 'sh', zsh: 'sh', console: 'sh', golang: 'go', rs: 'rust',
  cpp: 'c', 'c++': 'c', h: 'c', hpp: 'c', java: 'c', cs: 'c', csharp: 'c', kotlin: 'c', swift: 'c',
};

const HASH_COMMENTS = new Set(['py', 'sh']);
const MAX_CHARS = 50_000;
const cache = new Map<string, { re: RegExp; keywords: Set<string> }>();

function grammar(lang: string) {
  const key = ALIASES[lang] ?? lang;
  if (!(key in KEYWORDS)) return undefined;
  let g = cache.get(key);
  if (!g) {
    const words = new Set((KEYWORDS[key] ?? '').split(' '));
    if (key === 'ts') for (const w of KEYWORDS.js!.split(' ')) words.add(w);
    const comment = HASH_COMMENTS.has(key) ? '#[^\\n]*' : key === 'json' ? '(?!)' : '\\/\\/[^\\n]*|\\/\\*[\\s\\S]*?\\*\\/';
    // Groups: 1 comment, 2 string, 3 number, 4 word.
    const re = new RegExp(`(${comment})|("(?:[^"\\\\\\n]|\\\\.)*"|'(?:[^'\\\\\\n]|\\\\.)*'|\`(?:[^\`\\\\]|\\\\.)*\`)|(\\b\\d[\\d_]*(?:\\.\\d+)?(?:e[+-]?\\d+)?\\b|\\b0x[\\da-f]+\\b)|([A-Za-z_$][\\w$]*)`, 'gi');
    g = { re, keywords: words };
    cache.set(key, g);
  }
  return g;
}

/** Replaces `code`'s text with highlighted spans; leaves unknown languages and huge blocks as plain text. */
export function highlight(code: HTMLElement, lang: string): void {
  const g = grammar(lang.toLowerCase());
  const text = code.textContent ?? '';
  if (!g || text.length > MAX_CHARS) return;
  const out = document.createDocumentFragment();
  let last = 0;
  const push = (s: string, cls?: string) => {
    if (!s) return;
    if (!cls) {
      out.append(s);
      return;
    }
    const span = document.createElement('span');
    span.className = cls;
    span.textContent = s;
    out.append(span);
  };
  g.re.lastIndex = 0;
  for (let m = g.re.exec(text); m; m = g.re.exec(text)) {
    const cls = m[1] ? 'tok-comment' : m[2] ? 'tok-string' : m[3] ? 'tok-number' : m[4] && g.keywords.has(m[4]) ? 'tok-keyword' : undefined;
    if (!cls) continue;
    push(text.slice(last, m.index));
    push(m[0], cls);
    last = m.index + m[0].length;
  }
  push(text.slice(last));
  code.replaceChildren(out);
}
