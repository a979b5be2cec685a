// Code blocks coloured by highlight.js grammars. The tokenising runs in a Web Worker (./highlight-worker.ts) for the
// common languages, and on this thread from dist/webview-languages.js for the rest (or when no worker starts). Either
// answers with flat runs (./highlight-runs.ts), which become spans here with createElement and text nodes: no markup
// is ever parsed (the block's text came out of the sanitiser; this cannot add to it). Classes are highlight.js's own
// (`hljs-keyword`…), coloured by --vscode-* variables in media/highlight.css so blocks follow the editor's theme.
import workerSource from './highlight-worker?worker';
import { type HighlightRuns, allowedClasses, runsLength } from './highlight-runs';
import type { TokeniseReply, TokeniseRequest } from './highlight-worker';

const MAX_CHARS = 50_000;

/** Set by the on-demand bundle (dist/webview-languages.js) when it runs. */
interface LanguagesGlobal {
  __turnstoneTokenise?: (lang: string, text: string) => HighlightRuns | null | undefined;
}

// Captured while this bundle runs: the extra bundle is loaded from beside it, with the same CSP nonce.
const self = typeof document !== 'undefined' ? (document.currentScript as HTMLScriptElement | null) : null;
const extraUrl = self?.src ? self.src.replace(/webview\.js(\?.*)?$/, 'webview-languages.js$1') : undefined;
const nonce = self?.nonce || self?.getAttribute('nonce') || '';
let extra: 'none' | 'loading' | 'loaded' | 'failed' = 'none';
/** Blocks waiting for the on-demand bundle, with their language. */
const waitingForExtra = new Map<HTMLElement, string>();

/** Blocks asked of the worker, by request id; a block asked again replaces its older request. */
const asked = new Map<number, { code: HTMLElement; text: string; lang: string }>();
const latestAsk = new WeakMap<HTMLElement, number>();
let nextId = 0;
/** undefined: not started yet; null: could not start (or failed), so this thread tokenises. */
let worker: Worker | null | undefined;

const pendingLang = new WeakMap<Element, string>();
let onScreen: IntersectionObserver | undefined;

/**
 * Colours a code block once it is on screen (or near it): blocks a fast reply has already scrolled past, or the
 * older part of a restored session, cost nothing until the user scrolls to them.
 */
export function highlightWhenSeen(code: HTMLElement, lang: string): void {
  if (!lang) return;
  if (typeof IntersectionObserver !== 'function') return highlight(code, lang);
  onScreen ??= new IntersectionObserver(
    (entries) => {
      for (const e of entries) {
        const name = e.isIntersecting ? pendingLang.get(e.target) : undefined;
        if (!name) continue;
        onScreen?.unobserve(e.target);
        pendingLang.delete(e.target);
        if (e.target.isConnected) highlight(e.target as HTMLElement, name);
      }
    },
    { rootMargin: '200px 0px' },
  );
  pendingLang.set(code, lang);
  onScreen.observe(code);
}

/**
 * Asks for `code`'s runs in `lang` at once (for a block that closes where the user is looking: the worker's answer
 * colours it a frame or two later); unknown languages and huge blocks stay plain text.
 */
export function highlight(code: HTMLElement, lang: string): void {
  const name = lang.toLowerCase();
  const text = code.textContent ?? '';
  if (!name || text.length > MAX_CHARS || !/^[\w+#.-]{1,40}$/.test(name)) return;
  const tokeniser = startWorker();
  if (!tokeniser) return tokeniseHere(code, text, name);
  const id = ++nextId;
  asked.set(id, { code, text, lang: name });
  latestAsk.set(code, id);
  // The blocks of one task go in one message (a reply closing several blocks at once asks for each).
  if (outbox.push({ id, lang: name, text }) === 1) queueMicrotask(sendOutbox);
}

let outbox: TokeniseRequest[] = [];
/** Batches sent and not yet answered, oldest first: the worker answers each with one message, in order. */
let inFlight: { ids: number[]; at: number }[] = [];
let watchdog: ReturnType<typeof setTimeout> | undefined;
/**
 * A batch unanswered this long has a grammar stuck on its text (some highlight.js patterns backtrack for minutes on
 * the wrong input): the worker is replaced, that batch stays plain, and the batches after it are asked again.
 */
const STALL_MS = 2_000;

function sendOutbox(): void {
  const batch = outbox;
  outbox = [];
  // A worker that failed meanwhile already gave its blocks to this thread (onerror).
  if (!worker) return;
  worker.postMessage(batch);
  inFlight.push({ ids: batch.map((r) => r.id), at: performance.now() });
  watchdog ??= setTimeout(checkStall, STALL_MS);
}

function checkStall(): void {
  watchdog = undefined;
  const oldest = inFlight[0];
  if (!oldest) return;
  const waited = performance.now() - oldest.at;
  if (waited < STALL_MS) {
    watchdog = setTimeout(checkStall, STALL_MS - waited);
    return;
  }
  worker?.terminate();
  worker = undefined;
  for (const id of oldest.ids) asked.delete(id);
  const again = [...asked.values()];
  asked.clear();
  inFlight = [];
  for (const a of again) if (a.code.isConnected) highlight(a.code, a.lang);
}

/**
 * Starts the worker the first time a block asks, so grammars compile off this thread before the first reply needs
 * them (the panel calls it while idle after opening). Null if workers cannot start here.
 */
export function startWorker(): Worker | null {
  if (worker !== undefined) return worker;
  try {
    // The worker's code is this bundle's own text: a blob: URL is the only source `worker-src` allows.
    worker = new Worker(URL.createObjectURL(new Blob([workerSource], { type: 'text/javascript' })));
  } catch {
    return (worker = null);
  }
  worker.onmessage = (e: MessageEvent<TokeniseReply[]>) => {
    inFlight.shift();
    for (const reply of e.data) answered(reply);
  };
  worker.onerror = () => {
    // A worker that failed (blocked by policy, or crashed): its unanswered blocks are coloured on this thread.
    worker?.terminate();
    worker = null;
    inFlight = [];
    const unanswered = [...asked.values()];
    asked.clear();
    for (const a of unanswered) if (a.code.isConnected) tokeniseHere(a.code, a.text, a.lang);
  };
  return worker;
}

function answered(reply: TokeniseReply): void {
  const ask = asked.get(reply.id);
  if (!ask) return;
  asked.delete(reply.id);
  if (latestAsk.get(ask.code) !== reply.id) return;
  latestAsk.delete(ask.code);
  // Answers come after the task that asked, so a block not in the page now was removed (a trimmed item).
  if (!ask.code.isConnected) return;
  if (!reply.known) return tokeniseHere(ask.code, ask.text, ask.lang);
  if (reply.runs) paint(ask.code, ask.text, reply.runs);
}

/**
 * Languages the worker lacks (and all of them without a worker): from the on-demand bundle, on this thread, in idle
 * time (a few blocks per call when the thread is never idle), so a block never costs the frame it closes in.
 */
function tokeniseHere(code: HTMLElement, text: string, lang: string): void {
  if (!(globalThis as LanguagesGlobal).__turnstoneTokenise) {
    if (extra === 'loaded' || extra === 'failed') return;
    waitingForExtra.set(code, lang);
    loadExtraLanguages();
    return;
  }
  idleQueue.push({ code, text, lang });
  if (idleQueue.length > 1) return;
  if (typeof requestIdleCallback === 'function') requestIdleCallback(runIdle, { timeout: 500 });
  else setTimeout(() => runIdle(undefined), 50);
}

const idleQueue: { code: HTMLElement; text: string; lang: string }[] = [];
/** Blocks tokenised per call when the thread was never idle (the timeout fired): a few, then the frame goes on. */
const PER_BUSY_CALL = 4;

function runIdle(deadline: IdleDeadline | undefined): void {
  const tokenise = (globalThis as LanguagesGlobal).__turnstoneTokenise;
  let done = 0;
  while (idleQueue.length > 0 && tokenise) {
    const busy = !deadline || deadline.didTimeout;
    if (busy ? done >= PER_BUSY_CALL : done > 0 && deadline.timeRemaining() < 2) break;
    const next = idleQueue.shift()!;
    if (!next.code.isConnected) continue;
    const runs = tokenise(next.lang, next.text);
    if (runs) paint(next.code, next.text, runs);
    done++;
  }
  if (idleQueue.length > 0) {
    if (typeof requestIdleCallback === 'function') requestIdleCallback(runIdle, { timeout: 500 });
    else setTimeout(() => runIdle(undefined), 50);
  }
}

/** A scope's classes as they reach the DOM, filtered once per distinct scope (a reply repeats a few dozen). */
const classCache = new Map<string, string>();

/**
 * Replaces `code`'s text with its runs as spans, if the block still shows the text they were made for (a block
 * re-rendered meanwhile is left alone).
 */
function paint(code: HTMLElement, text: string, r: HighlightRuns): void {
  if (code.classList.contains('hljs') || runsLength(r) !== text.length || code.textContent !== text) return;
  const classes = r.classes.map((joined) => {
    let allowed = classCache.get(joined);
    if (allowed === undefined) {
      allowed = allowedClasses(joined);
      if (classCache.size < 1_000) classCache.set(joined, allowed);
    }
    return allowed;
  });
  const out = document.createDocumentFragment();
  let at = 0;
  for (let i = 0; i < r.runs.length; i += 2) {
    const cls = r.runs[i]!;
    const piece = text.slice(at, (at += r.runs[i + 1]!));
    const name = cls >= 0 ? classes[cls] : '';
    if (!name) {
      out.appendChild(document.createTextNode(piece));
      continue;
    }
    const span = document.createElement('span');
    span.className = name;
    span.textContent = piece;
    out.appendChild(span);
  }
  code.replaceChildren(out);
  code.classList.add('hljs');
}

function loadExtraLanguages(): void {
  if (extra !== 'none') return;
  if (!extraUrl) {
    extra = 'failed';
    waitingForExtra.clear();
    return;
  }
  extra = 'loading';
  const script = document.createElement('script');
  script.src = extraUrl;
  if (nonce) script.nonce = nonce;
  script.onload = () => {
    extra = 'loaded';
    const pending = [...waitingForExtra];
    waitingForExtra.clear();
    for (const [code, lang] of pending) if (code.isConnected) tokeniseHere(code, code.textContent ?? '', lang);
  };
  script.onerror = () => {
    extra = 'failed';
    waitingForExtra.clear();
  };
  document.head.appendChild(script);
}
