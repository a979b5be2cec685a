// Every highlight.js language, bundled apart as dist/webview-languages.js and loaded on demand
// (src/webview/ui/highlight.ts): the panel stays small, and a reply in Haskell or Terraform is still coloured.
// It tokenises on the panel's thread: the worker that does the common languages cannot load it (the CSP lets only
// the nonce-carrying <script> fetch code). It also stands in for the worker if one cannot start.
import { all, createLowlight } from 'lowlight';
import { addAliases } from '../ui/highlight-grammars';
import { tokenise } from '../ui/highlight-runs';

const lowlight = addAliases(createLowlight(all));

(globalThis as { __turnstoneTokenise?: (lang: string, text: string) => ReturnType<typeof tokenise> }).__turnstoneTokenise = (lang, text) => tokenise(lowlight, lang, text);
