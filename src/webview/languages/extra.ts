// Every highlight.js language, bundled apart as dist/webview-languages.js and loaded on demand
// (src/webview/ui/highlight.ts): the panel stays small, and a reply in Haskell or Terraform is still coloured.
// It tokenises on the panel's thread: the worker that does the common languages cannot load it (the CSP lets only
// the nonce-carrying <script> fetch code). It also stands in for the worker if one cannot start.
import { all, createLowlight } from 'lowlight';
import { addAliases } from '../ui/highlight-grammars';
import { type HighlightRuns, toRuns } from '../ui/highlight-runs';

const lowlight = addAliases(createLowlight(all));

/** Runs for `text` in `lang`; undefined for a language highlight.js lacks, null when its grammar throws. */
function tokenise(lang: string, text: string): HighlightRuns | null | undefined {
  if (!lowlight.registered(lang)) return undefined;
  try {
    return toRuns(lowlight.highlight(lang, text));
  } catch {
    return null;
  }
}

(globalThis as { __turnstoneTokenise?: typeof tokenise }).__turnstoneTokenise = tokenise;
