// The panel's tokeniser, in a Web Worker: highlight.js's matching (most of a code block's cost) runs off the
// panel's main thread, which only turns the answer into spans (./highlight.ts). Bundled into the panel's script as
// text (esbuild.mjs, `?worker`) and started from a blob: URL, the one worker source the panel's CSP allows.
// Asked a batch of {id, lang, text} (the blocks of one task, in one message); answers each block on its own as it
// is done, in order (the panel's watchdog can then tell which block a grammar is stuck on): {id, known: false} for a
// language it lacks (the panel then loads the rest), else {id, known: true, runs} (runs null: the grammar threw).
import { COMMON_GRAMMARS, addAliases } from './highlight-grammars';
import { type HighlightRuns, tokenise } from './highlight-runs';
import { createLowlight } from 'lowlight';

export interface TokeniseRequest {
  id: number;
  lang: string;
  text: string;
}

export type TokeniseReply = { id: number; known: false } | { id: number; known: true; runs: HighlightRuns | null };

const lowlight = addAliases(createLowlight(COMMON_GRAMMARS));
const scope = globalThis as unknown as { onmessage: ((e: MessageEvent<TokeniseRequest[]>) => void) | null; postMessage(reply: TokeniseReply): void };

function answer({ id, lang, text }: TokeniseRequest): TokeniseReply {
  const runs = tokenise(lowlight, lang, text);
  return runs === undefined ? { id, known: false } : { id, known: true, runs };
}

scope.onmessage = (e) => {
  for (const request of e.data) scope.postMessage(answer(request));
};
