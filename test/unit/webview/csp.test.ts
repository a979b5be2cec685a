// Issue 25: the panel's Content-Security-Policy, read from the HTML the panel
// provider renders (src/webview/panel-html.ts) and checked directive by
// directive. The CSP is the last line of defence if the sanitiser ever fails,
// and a policy that is weakened or made inert (a renamed http-equiv, a meta
// after the script, a dropped base-uri) still lets the panel work normally:
// only a test that reads the policy itself notices.
import assert from 'node:assert/strict';
import { JSDOM } from 'jsdom';
import { makeNonce, panelHtml } from '../../../src/webview/panel-html';

const CSP_SOURCE = 'https://*.vscode-cdn.net';
const NONCE = 'Vq3nY0aC9xRk2Lw7Tb1eZg';

function render(nonce = NONCE): Document {
  const html = panelHtml({ cspSource: CSP_SOURCE, nonce, asset: (name) => `https://file+.vscode-resource.vscode-cdn.net/ext/dist/${name}` });
  // jsdom parses like a browser (parse5); scripts are not run.
  return new JSDOM(html).window.document;
}

/** The policies a browser would enforce: every http-equiv meta that names the CSP, case-insensitively, as browsers match it. */
function cspMetas(doc: Document): HTMLMetaElement[] {
  return [...doc.querySelectorAll('meta[http-equiv]')].filter((m): m is HTMLMetaElement => m.getAttribute('http-equiv')!.trim().toLowerCase() === 'content-security-policy');
}

/** Directive name → its source list, as the CSP spec parses a serialised policy; a repeated directive is kept apart (browsers ignore it). */
function parsePolicy(policy: string): { directives: Map<string, string[]>; repeated: string[] } {
  const directives = new Map<string, string[]>();
  const repeated: string[] = [];
  for (const part of policy.split(';')) {
    const tokens = part.trim().split(/[\t\n\f\r ]+/).filter(Boolean);
    if (tokens.length === 0) continue;
    const name = tokens[0]!.toLowerCase();
    if (directives.has(name)) repeated.push(name);
    else directives.set(name, tokens.slice(1));
  }
  return { directives, repeated };
}

function policyOf(doc: Document) {
  const metas = cspMetas(doc);
  assert.equal(metas.length, 1, `exactly one <meta http-equiv="Content-Security-Policy"> (found ${metas.length}): a renamed or missing http-equiv makes the policy inert`);
  return parsePolicy(metas[0]!.getAttribute('content') ?? '');
}

describe('webview: the panel CSP, directive by directive (issue 25)', () => {
  it('25.csp: the policy is a real http-equiv meta in <head>, before every script, stylesheet and resource', () => {
    const doc = render();
    const [meta] = cspMetas(doc);
    assert.ok(meta, 'no <meta http-equiv="Content-Security-Policy">: the panel would run without a policy');
    assert.equal(meta.parentElement, doc.head, 'a CSP meta outside <head> is ignored by browsers');
    // A meta policy only governs what comes after it: every script and fetched resource must follow it.
    const loaders = [...doc.querySelectorAll('script, link, style, img, iframe, object, embed, base')];
    assert.ok(loaders.some((e) => e.tagName === 'SCRIPT'), 'the panel has its script');
    for (const e of loaders) {
      assert.ok(meta.compareDocumentPosition(e) & doc.defaultView!.Node.DOCUMENT_POSITION_FOLLOWING, `<${e.tagName.toLowerCase()}> comes before the CSP meta, so the policy does not cover it`);
    }
    assert.equal(doc.querySelectorAll('base').length, 0, 'no <base> in the panel');
  });

  it('25.csp: exactly the expected directives, none repeated (a repeat is ignored by the browser)', () => {
    const { directives, repeated } = policyOf(render());
    assert.deepEqual(repeated, []);
    assert.deepEqual([...directives.keys()].sort(), ['base-uri', 'default-src', 'font-src', 'form-action', 'img-src', 'script-src', 'style-src', 'worker-src']);
  });

  it("25.csp: default-src 'none', base-uri 'none', form-action 'none'", () => {
    const { directives } = policyOf(render());
    assert.deepEqual(directives.get('default-src'), ["'none'"], 'everything not named below is blocked');
    assert.deepEqual(directives.get('base-uri'), ["'none'"], "base-uri 'none': injected <base> cannot redirect the panel's relative URLs");
    assert.deepEqual(directives.get('form-action'), ["'none'"], 'no form can submit anywhere');
  });

  it("25.csp: script-src is the render's nonce alone (no 'unsafe-inline', 'unsafe-eval', host or scheme), and only the bundle carries it", () => {
    const doc = render();
    const { directives } = policyOf(doc);
    assert.deepEqual(directives.get('script-src'), [`'nonce-${NONCE}'`]);
    const scripts = [...doc.querySelectorAll('script')];
    assert.equal(scripts.length, 1);
    assert.equal(scripts[0]!.getAttribute('nonce'), NONCE);
    assert.match(scripts[0]!.getAttribute('src') ?? '', /\/dist\/webview\.js$/);
  });

  it('25.csp: styles, fonts and images only from the extension (images also data:/blob: for thumbnails), never inline styles', () => {
    const { directives } = policyOf(render());
    assert.deepEqual(directives.get('style-src'), [CSP_SOURCE], "no 'unsafe-inline' styles");
    assert.deepEqual(directives.get('font-src'), [CSP_SOURCE]);
    assert.deepEqual(directives.get('img-src'), [CSP_SOURCE, 'data:', 'blob:']);
  });

  it('47.11: workers only from blob: (the highlighting worker, started from the bundle\'s own text), never a host or data:', () => {
    const { directives } = policyOf(render());
    assert.deepEqual(directives.get('worker-src'), ['blob:']);
  });

  it('25.csp: each render has a fresh 128-bit nonce', () => {
    const a = makeNonce();
    const b = makeNonce();
    assert.notEqual(a, b);
    assert.match(a, /^[A-Za-z0-9_-]{22}$/);
    const { directives } = policyOf(render(a));
    assert.deepEqual(directives.get('script-src'), [`'nonce-${a}'`]);
  });
});
