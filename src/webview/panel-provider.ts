import * as vscode from 'vscode';
import { HostToWebview, WebviewToHost } from './protocol';

export interface PanelHandlers {
  onMessage(message: WebviewToHost): void;
  onInvalidMessage(raw: unknown, error: string): void;
}

/** Hosts the chat webview in the Turnstone sidebar (turnstone.chat). */
export class ChatPanelProvider implements vscode.WebviewViewProvider {
  static readonly viewType = 'turnstone.chat';
  private view: vscode.WebviewView | undefined;

  constructor(
    private readonly extensionUri: vscode.Uri,
    private readonly handlers: PanelHandlers,
  ) {}

  resolveWebviewView(view: vscode.WebviewView): void {
    this.view = view;
    const dist = vscode.Uri.joinPath(this.extensionUri, 'dist');
    view.webview.options = { enableScripts: true, localResourceRoots: [dist] };
    view.webview.html = renderHtml(view.webview, dist);
    view.onDidDispose(() => (this.view = undefined));
    view.webview.onDidReceiveMessage((raw: unknown) => {
      const parsed = WebviewToHost.safeParse(raw);
      if (parsed.success) this.handlers.onMessage(parsed.data);
      else this.handlers.onInvalidMessage(raw, parsed.error.message);
    });
  }

  get isVisible(): boolean {
    return this.view?.visible ?? false;
  }

  post(message: HostToWebview): void {
    void this.view?.webview.postMessage(HostToWebview.parse(message));
  }
}

function renderHtml(webview: vscode.Webview, dist: vscode.Uri): string {
  const nonce = makeNonce();
  const asset = (name: string) => webview.asWebviewUri(vscode.Uri.joinPath(dist, name)).toString();
  const csp = [
    "default-src 'none'",
    `style-src ${webview.cspSource}`,
    `font-src ${webview.cspSource}`,
    `img-src ${webview.cspSource} data:`,
    `script-src 'nonce-${nonce}'`,
  ].join('; ');
  return `<!DOCTYPE html>
<html lang="en">
<head>
<meta charset="UTF-8">
<meta http-equiv="Content-Security-Policy" content="${csp}">
<meta name="viewport" content="width=device-width, initial-scale=1.0">
<link rel="stylesheet" href="${asset('codicons/codicon.css')}">
<link rel="stylesheet" href="${asset('webview.css')}">
<title>Turnstone</title>
</head>
<body>
<main id="app" aria-label="Turnstone chat"></main>
<script nonce="${nonce}" src="${asset('webview.js')}"></script>
</body>
</html>`;
}

function makeNonce(): string {
  const bytes = new Uint8Array(16);
  globalThis.crypto.getRandomValues(bytes);
  return Buffer.from(bytes).toString('base64url');
}
