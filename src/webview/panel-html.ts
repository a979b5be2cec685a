// The panel's HTML document and its Content-Security-Policy, free of the
// `vscode` module so the e2e panel harness can serve exactly what the product
// renders (the CSP is the last line of defence if the sanitiser ever fails).

export interface PanelHtmlInput {
  /** `webview.cspSource`: the origin VS Code serves the extension's assets from. */
  cspSource: string;
  /** Fresh per render; only the bundle's <script> carries it. */
  nonce: string;
  /** URL of a file in dist/ as the webview can load it. */
  asset(name: string): string;
  /** The display language and its bundle (`vscode.l10n.bundle`; none for English), read by ./ui/l10n.ts. */
  l10n?: { language: string; bundle?: Readonly<Record<string, string>> | undefined };
}

export function panelHtml({ cspSource, nonce, asset, l10n }: PanelHtmlInput): string {
  const csp = [
    "default-src 'none'",
    `style-src ${cspSource}`,
    `font-src ${cspSource}`,
    // data:/blob: only for images: composer thumbnails and image blocks in the transcript (never scripts or styles).
    `img-src ${cspSource} data: blob:`,
    `script-src 'nonce-${nonce}'`,
    // The highlighting worker only (ui/highlight.ts): started from a blob: URL of the bundle's own text. Only a script
    // can make a worker, and only the nonce-carrying bundle runs.
    'worker-src blob:',
    "base-uri 'none'",
    "form-action 'none'",
  ].join('; ');
  return `<!DOCTYPE html>
<html lang="${languageTag(l10n?.language)}"${l10n?.bundle ? ` data-l10n="${escapeAttribute(JSON.stringify(l10n.bundle))}"` : ''}>
<head>
<meta charset="UTF-8">
<meta http-equiv="Content-Security-Policy" content="${csp}">
<meta name="viewport" content="width=device-width, initial-scale=1.0">
<link rel="preload" href="${asset('codicons/codicon.ttf')}" as="font" type="font/ttf" crossorigin>
<link rel="stylesheet" href="${asset('codicons/codicon.css')}">
<link rel="stylesheet" href="${asset('webview.css')}">
<title>Turnstone</title>
</head>
<body>
<main id="app" class="turnstone-chat" aria-label="Turnstone chat"></main>
<script nonce="${nonce}" src="${asset('webview.js')}"></script>
</body>
</html>`;
}

/** A BCP 47 tag such as `zh-cn`; anything else is English (it lands in an attribute). */
function languageTag(language: string | undefined): string {
  return language && /^[a-z]{2,3}(-[a-z0-9]{2,8})*$/i.test(language) ? language : 'en';
}

/** The bundle goes in a data attribute (the CSP allows no inline script): quotes and markup characters escaped. */
function escapeAttribute(text: string): string {
  return text.replace(/&/g, '&amp;').replace(/"/g, '&quot;').replace(/</g, '&lt;').replace(/>/g, '&gt;');
}

/** A fresh nonce per render: 128 random bits, base64url (the CSP's only way for a script to run). */
export function makeNonce(): string {
  const bytes = new Uint8Array(16);
  globalThis.crypto.getRandomValues(bytes);
  return Buffer.from(bytes).toString('base64url');
}
