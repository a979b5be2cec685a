// Code blocks coloured by highlight.js grammars, through lowlight: it turns
// highlight.js's result into a syntax tree instead of an HTML string, so the
// tree is built here with createElement/text nodes and no markup is ever
// parsed (the block's text came out of the sanitiser; this cannot add to it).
// Classes are highlight.js's own (`hljs-keyword`…), coloured by --vscode-*
// variables in media/highlight.css so blocks follow the editor's theme.
// The common languages are in the panel's bundle; every other highlight.js
// language is in dist/webview-languages.js, loaded the first time a block
// names a language the bundle lacks.
import bash from 'highlight.js/lib/languages/bash';
import c from 'highlight.js/lib/languages/c';
import cpp from 'highlight.js/lib/languages/cpp';
import csharp from 'highlight.js/lib/languages/csharp';
import css from 'highlight.js/lib/languages/css';
import diff from 'highlight.js/lib/languages/diff';
import go from 'highlight.js/lib/languages/go';
import java from 'highlight.js/lib/languages/java';
import javascript from 'highlight.js/lib/languages/javascript';
import json from 'highlight.js/lib/languages/json';
import markdown from 'highlight.js/lib/languages/markdown';
import python from 'highlight.js/lib/languages/python';
import rust from 'highlight.js/lib/languages/rust';
import shell from 'highlight.js/lib/languages/shell';
import sql from 'highlight.js/lib/languages/sql';
import typescript from 'highlight.js/lib/languages/typescript';
import xml from 'highlight.js/lib/languages/xml';
import yaml from 'highlight.js/lib/languages/yaml';
import { type LanguageFn } from 'highlight.js';
import { createLowlight } from 'lowlight';

type HastNode = ReturnType<ReturnType<typeof createLowlight>['highlight']>['children'][number];

const lowlight = createLowlight({ bash, c, cpp, csharp, css, diff, go, java, javascript, json, markdown, python, rust, shell, sql, typescript, xml, yaml });
lowlight.registerAlias({ bash: ['sh', 'zsh'], shell: ['console', 'shellsession'], typescript: ['tsx', 'mts', 'cts'], javascript: ['jsx', 'mjs', 'cjs'], json: ['jsonc', 'json5'] });

const MAX_CHARS = 50_000;

/** Set by the extra bundle (dist/webview-languages.js) when it runs. */
interface LanguagesGlobal {
  __turnstoneLanguages?: Record<string, LanguageFn>;
}

// Captured while this bundle runs: the extra bundle is loaded from beside it, with the same CSP nonce.
const self = typeof document !== 'undefined' ? (document.currentScript as HTMLScriptElement | null) : null;
const extraUrl = self?.src ? self.src.replace(/webview\.js(\?.*)?$/, 'webview-languages.js$1') : undefined;
const nonce = self?.nonce || self?.getAttribute('nonce') || '';
let extra: 'none' | 'loading' | 'loaded' | 'failed' = 'none';
const waiting = new Map<HTMLElement, string>();

const idleQueue: { code: HTMLElement; lang: string }[] = [];
let idleScheduled = false;
const pendingLang = new WeakMap<Element, string>();
/** Blocks on screen (or within the margin) now, as the observer last said. */
const nearScreen = new WeakSet<Element>();
let onScreen: IntersectionObserver | undefined;

/**
 * Highlights a code block once it is on screen (or near it), when the main
 * thread has nothing else to do, and at the latest ~0.5 s later: a block that
 * closes mid-stream never costs the frame it closes in, and blocks a fast reply
 * has already scrolled past, or the older part of a restored session, cost
 * nothing until the user scrolls to them. A block that left the screen before
 * its turn came waits, observed, for the next time it is seen; a block removed
 * meanwhile is skipped.
 */
export function highlightWhenSeen(code: HTMLElement, lang: string): void {
  if (!lang) return;
  if (typeof IntersectionObserver !== 'function') return queueIdle(code, lang);
  onScreen ??= new IntersectionObserver(
    (entries) => {
      for (const e of entries) {
        if (!e.isIntersecting) {
          nearScreen.delete(e.target);
          continue;
        }
        const name = pendingLang.get(e.target);
        if (!name || nearScreen.has(e.target)) continue;
        nearScreen.add(e.target);
        queueIdle(e.target as HTMLElement, name);
      }
    },
    { rootMargin: '200px 0px' },
  );
  pendingLang.set(code, lang);
  onScreen.observe(code);
}

function queueIdle(code: HTMLElement, lang: string): void {
  idleQueue.push({ code, lang });
  scheduleIdle();
}

function scheduleIdle(): void {
  if (idleScheduled) return;
  idleScheduled = true;
  if (typeof requestIdleCallback === 'function') requestIdleCallback(runIdle, { timeout: 500 });
  else setTimeout(() => runIdle(undefined), 50);
}

/** Blocks highlighted per call when the thread was never idle (the timeout fired): a few, then the frame goes on. */
const PER_BUSY_CALL = 4;

function runIdle(deadline: IdleDeadline | undefined): void {
  idleScheduled = false;
  let done = 0;
  while (idleQueue.length > 0) {
    const busy = !deadline || deadline.didTimeout;
    if (busy ? done >= PER_BUSY_CALL : done > 0 && deadline.timeRemaining() < 2) break;
    const next = idleQueue.shift()!;
    if (!next.code.isConnected) {
      onScreen?.unobserve(next.code);
      continue;
    }
    // Done already (queued twice), or scrolled away while it waited: the observer queues it again when it is back.
    if (onScreen && (!pendingLang.has(next.code) || !nearScreen.has(next.code))) continue;
    onScreen?.unobserve(next.code);
    pendingLang.delete(next.code);
    highlight(next.code, next.lang);
    done++;
  }
  if (idleQueue.length > 0) scheduleIdle();
}

/** Highlighting done synchronously per animation frame, ms, before the rest waits for idle time. */
const FRAME_BUDGET_MS = 3;
/** Longer blocks always wait for idle time: one alone would cost the frame. */
const EAGER_MAX_CHARS = 5_000;
let budgetFrame: number | null = null;
let budgetSpent = 0;

/**
 * Highlights a block about to be shown at once, while this frame's budget
 * lasts; otherwise as `highlightWhenSeen`. For a block that closes on screen
 * mid-stream: coloured before it is inserted, it is laid out once, instead of
 * once plain and again coloured a moment later (the second layout, style and
 * paint of the whole block cost more than the tokenising).
 */
export function highlightNowOrWhenSeen(code: HTMLElement, lang: string): void {
  // The same for every callback of one frame, so the budget is per frame (a flood of small blocks spreads out).
  const frame = typeof document.timeline?.currentTime === 'number' ? document.timeline.currentTime : null;
  if (frame !== budgetFrame) {
    budgetFrame = frame;
    budgetSpent = 0;
  }
  if (!lang || budgetSpent >= FRAME_BUDGET_MS || (code.textContent?.length ?? 0) > EAGER_MAX_CHARS) return highlightWhenSeen(code, lang);
  const started = performance.now();
  highlight(code, lang);
  budgetSpent += performance.now() - started;
}

/** Replaces `code`'s text with highlighted spans; unknown languages and huge blocks stay plain text. */
export function highlight(code: HTMLElement, lang: string): void {
  const name = lang.toLowerCase();
  const text = code.textContent ?? '';
  if (!name || text.length > MAX_CHARS) return;
  if (!lowlight.registered(name)) {
    if (extra === 'loaded' || extra === 'failed' || !/^[\w+#.-]{1,40}$/.test(name)) return;
    waiting.set(code, name);
    loadExtraLanguages();
    return;
  }
  let tree;
  try {
    tree = lowlight.highlight(name, text);
  } catch {
    return;
  }
  const out = document.createDocumentFragment();
  for (const node of tree.children) append(out, node);
  code.replaceChildren(out);
  code.classList.add('hljs');
}

function append(parent: Node, node: HastNode): void {
  if (node.type === 'text') {
    parent.appendChild(document.createTextNode(node.value));
    return;
  }
  if (node.type !== 'element') return;
  const span = document.createElement('span');
  const classes = node.properties?.className;
  if (Array.isArray(classes)) span.className = allowedClasses(classes.join(' '));
  for (const child of node.children) append(span, child as HastNode);
  parent.appendChild(span);
}

/** A scope's classes as they reach the DOM, filtered once per distinct scope (a reply repeats a few dozen). */
const classCache = new Map<string, string>();

/** Only highlight.js's own class names reach the DOM. */
function allowedClasses(joined: string): string {
  let allowed = classCache.get(joined);
  if (allowed === undefined) {
    allowed = joined.split(' ').filter((c) => /^hljs-[\w-]+$|^[\w-]+_$/.test(c)).join(' ');
    if (classCache.size < 1_000) classCache.set(joined, allowed);
  }
  return allowed;
}

function loadExtraLanguages(): void {
  if (extra !== 'none') return;
  if (!extraUrl) {
    extra = 'failed';
    return;
  }
  extra = 'loading';
  const script = document.createElement('script');
  script.src = extraUrl;
  if (nonce) script.nonce = nonce;
  script.onload = () => {
    const grammars = (globalThis as LanguagesGlobal).__turnstoneLanguages ?? {};
    for (const [name, fn] of Object.entries(grammars)) if (!lowlight.registered(name)) lowlight.register(name, fn);
    extra = 'loaded';
    rehighlightWaiting();
  };
  script.onerror = () => {
    extra = 'failed';
    waiting.clear();
  };
  document.head.appendChild(script);
}

function rehighlightWaiting(): void {
  const pending = [...waiting];
  waiting.clear();
  for (const [code, name] of pending) if (code.isConnected && lowlight.registered(name)) highlight(code, name);
}
