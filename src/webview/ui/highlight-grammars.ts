// The highlight.js grammars the panel's tokeniser knows from the start (a Web Worker, ./highlight-worker.ts): the
// languages replies use most. Every other highlight.js language is in dist/webview-languages.js
// (../languages/extra.ts), loaded on the panel's thread the first time a block names one.
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
import { type createLowlight } from 'lowlight';

export type Lowlight = ReturnType<typeof createLowlight>;

export const COMMON_GRAMMARS: Readonly<Record<string, LanguageFn>> = { bash, c, cpp, csharp, css, diff, go, java, javascript, json, markdown, python, rust, shell, sql, typescript, xml, yaml };

/** Names models write that the grammars do not register themselves. */
export function addAliases(lowlight: Lowlight): Lowlight {
  const alias: Record<string, string[]> = { bash: ['sh', 'zsh'], shell: ['console', 'shellsession'], typescript: ['tsx', 'mts', 'cts'], javascript: ['jsx', 'mjs', 'cjs'], json: ['jsonc', 'json5'] };
  for (const [name, names] of Object.entries(alias)) if (lowlight.registered(name)) lowlight.registerAlias(name, names);
  return lowlight;
}
