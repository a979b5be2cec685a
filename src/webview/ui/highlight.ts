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
/**
 * Blocks sent and not yet answered, in the order the worker takes them; `since` is when the worker could start on
 * the first (sent, and the block before it answered).
 */
let inFlight: number[] = [];
let since = 0;
/** Whether the current worker has answered yet: its first block also pays for starting it and compiling grammars. */
let warm = false;
let watchdog: ReturnType<typeof setTimeout> | undefined;
/**
 * A block the worker has worked on this long has a grammar stuck on its text (some highlight.js patterns backtrack
 * for minutes on the wrong input): the worker is replaced, that block stays plain, and the rest are asked again.
 */
const STALL_MS = 2_000;
const COLD_STALL_MS = 10_000;

function sendOutbox(): void {
  const batch = outbox;
  outbox = [];
  if (!worker) {
    // Replaced meanwhile (a stall): the next worker takes them. Failed: onerror gave them to this thread already.
    if (worker === undefined) for (const r of batch) reask(r.id);
    return;
  }
  worker.postMessage(batch);
  if (inFlight.length === 0) since = performance.now();
  inFlight.push(...batch.map((r) => r.id));
  watchdog ??= setTimeout(checkStall, STALL_MS);
}

/** Asks again for a block whose ask was lost with its worker, if that ask is still the block's latest. */
function reask(id: number): void {
  const ask = asked.get(id);
  asked.delete(id);
  if (ask && latestAsk.get(ask.code) === id && ask.code.isConnected) highlight(ask.code, ask.lang);
}

function checkStall(): void {
  watchdog = undefined;
  const stuck = inFlight[0];
  if (stuck === undefined) return;
  const limit = warm ? STALL_MS : COLD_STALL_MS;
  const waited = performance.now() - since;
  if (waited < limit) {
    watchdog = setTimeout(checkStall, limit - waited);
    return;
  }
  worker?.terminate();
  worker = undefined;
  const stuckCode = asked.get(stuck)?.code;
  asked.delete(stuck);
  const rest = inFlight.slice(1);
  inFlight = [];
  for (const id of rest) if (asked.get(id)?.code !== stuckCode) reask(id);
}

/**
 * Starts the worker the first time a block asks, so grammars compile off this thread before the first reply needs
 * them (the panel calls it while idle after opening). Null if workers cannot start here.
 */
export function startWorker(): Worker | null {
  if (worker !== undefined) return worker;
  let started: Worker;
  try {
    // The worker's code is this bundle's own text: a blob: URL is the only source `worker-src` allows.
    started = new Worker(URL.createObjectURL(new Blob([workerSource], { type: 'text/javascript' })));
  } catch {
    return (worker = null);
  }
  worker = started;
  warm = false;
  inFlight = [];
  // Events of a worker already replaced are ignored: they must not answer for, or fail, the one after it.
  started.onmessage = (e: MessageEvent<TokeniseReply>) => {
    if (worker !== started) return;
    warm = true;
    inFlight = inFlight.filter((id) => id !== e.data.id);
    since = performance.now();
    answered(e.data);
  };
  started.onerror = () => {
    if (worker !== started) return;
    // A worker that failed (blocked by policy, or crashed): its unanswered blocks are coloured on this thread.
    started.terminate();
    worker = null;
    inFlight = [];
    const unanswered = [...asked.entries()];
    asked.clear();
    for (const [id, a] of unanswered) if (latestAsk.get(a.code) === id && a.code.isConnected) tokeniseHere(a.code, a.text, a.lang);
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
  if (idleQueue.push({ code, text, lang }) === 1) scheduleIdle();
}

function scheduleIdle(): void {
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
  if (idleQueue.length > 0) scheduleIdle();
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
