// Layers 2–4 of the panel's markdown sanitiser (layer 1, marked's renderer, is
// ./markdown-html.ts). Model output is hostile input:
//   2. DOMPurify with an allow-list that has no forms, buttons, images, SVG,
//      styles, ids or data-* attributes, so nothing in a reply can run script
//      or look like the panel's own controls;
//   3. a class filter: only `language-*` on <code> keeps a class, so model HTML
//      cannot borrow the panel's classes (`perm-allow`, `item permission`…);
//   4. a link filter: an href must parse as an http(s)/mailto URL (DOMPurify's
//      scheme check lets `https:` alone through), and kept links get rel=noopener.
// Built against a given window so each layer can be tested on its own in plain
// Node with jsdom (test/unit/webview/sanitiser.test.ts): a layer that only ever
// runs behind another is otherwise masked by it.
import createDOMPurify, { type Config, type UponSanitizeAttributeHookEvent, type WindowLike } from 'dompurify';
import { isSafeLinkHref } from '../protocol';

/** Layer 2's allow-list. */
export const SANITIZE_CONFIG: Config & { RETURN_DOM_FRAGMENT: true } = {
  ALLOWED_TAGS: ['p', 'br', 'hr', 'h1', 'h2', 'h3', 'h4', 'h5', 'h6', 'strong', 'em', 'del', 's', 'code', 'pre', 'blockquote', 'ul', 'ol', 'li', 'a', 'table', 'thead', 'tbody', 'tr', 'th', 'td'],
  ALLOWED_ATTR: ['href', 'title', 'start', 'align', 'class'],
  FORBID_TAGS: ['style', 'svg', 'math', 'form', 'button', 'input', 'textarea', 'select', 'img', 'iframe', 'object', 'embed', 'script', 'link', 'meta', 'base'],
  FORBID_ATTR: ['style', 'id', 'name', 'target', 'srcset'],
  ALLOW_DATA_ATTR: false,
  ALLOW_ARIA_ATTR: false,
  ALLOWED_URI_REGEXP: /^(?:https?:|mailto:)/i,
  RETURN_DOM_FRAGMENT: true,
};

/** Layer 3: may this element keep this class attribute? Only a code block's language does. */
export function keepsClass(nodeName: string, value: string): boolean {
  return nodeName === 'CODE' && /^language-[\w+#.-]{1,30}$/.test(value);
}

function classFilter(node: Element, data: UponSanitizeAttributeHookEvent): void {
  if (data.attrName === 'class' && !keepsClass(node.nodeName, data.attrValue)) data.keepAttr = false;
}

/** Layer 4, on an element DOMPurify kept: links keep only hrefs that are real http(s)/mailto URLs, opened without an opener. */
export function filterLink(node: Element): void {
  if (node.nodeName !== 'A') return;
  const href = node.getAttribute('href');
  if (href !== null && !isSafeLinkHref(href)) node.removeAttribute('href');
  if (node.hasAttribute('href')) node.setAttribute('rel', 'noopener noreferrer');
}

export interface SanitiserLayers {
  classFilter: boolean;
  linkFilter: boolean;
}

export type Sanitiser = (html: string) => DocumentFragment;

/**
 * Layers 2–4 on `window` (the panel's, or a jsdom window in tests). `layers`
 * turns the hooks off one by one, for tests only; the panel always runs all.
 */
export function createSanitiser(window: WindowLike, layers: SanitiserLayers = { classFilter: true, linkFilter: true }): Sanitiser {
  const purify = createDOMPurify(window);
  if (layers.classFilter) purify.addHook('uponSanitizeAttribute', classFilter);
  if (layers.linkFilter) purify.addHook('afterSanitizeAttributes', filterLink);
  // Parsed once: passing the config to every call re-parses it per frame of a stream.
  purify.setConfig(SANITIZE_CONFIG);
  return (html) => purify.sanitize(html) as unknown as DocumentFragment;
}
