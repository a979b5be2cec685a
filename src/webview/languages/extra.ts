// The highlight.js languages the panel's main bundle leaves out, bundled apart
// as dist/webview-languages.js and loaded on demand (src/webview/ui/highlight.ts):
// the panel stays small, and a reply in Haskell or Terraform is still coloured.
import hljs from 'highlight.js';
import { type LanguageFn } from 'highlight.js';

const grammars: Record<string, LanguageFn> = {};
for (const name of hljs.listLanguages()) {
  const language = hljs.getLanguage(name);
  // The full build registers each language by name; its definition function is what lowlight takes.
  const fn = (language as unknown as { rawDefinition?: LanguageFn } | undefined)?.rawDefinition;
  if (fn) grammars[name] = fn;
}
(globalThis as { __turnstoneLanguages?: Record<string, LanguageFn> }).__turnstoneLanguages = grammars;
