import * as vscode from 'vscode';
import { DeltaBatcher } from './batcher';
import { makeNonce, panelHtml } from './panel-html';
import type { HostEvent, HostToWebview, WebviewToHost } from './protocol';
import { Transcript, restoreEvents } from './transcript';

export interface PanelHandlers {
  /** A validated message from the webview. `ready` is answered with `restore` before this is called. */
  onMessage(message: WebviewToHost): void;
  /** A message from the webview failed validation and was dropped. */
  onInvalidMessage(raw: unknown, error: string): void;
  /** The host tried to post something that fails the protocol; it was dropped (a bug in the mapping). */
  onInvalidPost?(message: unknown, error: string): void;
  /** The page is gone (view hidden or disposed): whatever it reported as ongoing (typing) has ended. */
  onDidHide?(): void;
}

/**
 * The schemas the provider checks messages with, given as a loader: they are
 * loaded when the panel first shows (or its state is read), not at activation.
 */
export type PanelSchemas = () => { HostToWebview: typeof HostToWebview; WebviewToHost: typeof WebviewToHost };

/** Messages held unchecked before the schemas are loaded; past this many they are loaded (a turn running with the panel never opened). */
const MAX_UNCHECKED = 256;

/**
 * Hosts the chat webview in the Turnstone sidebar (turnstone.chat).
 *
 * The host only calls `post(event)`. The provider validates it, keeps a mirror
 * of the panel's state and coalesces deltas (one postMessage per ~30 ms). The
 * webview is destroyed whenever the view is hidden (no retainContextWhenHidden),
 * so each time it loads it posts `ready` and gets the mirror back as `restore`.
 *
 * Wiring, in short (the mapping from runtime events lives in src/host):
 *   const panel = new ChatPanelProvider(extensionUri, {
 *     onMessage: (m) => { switch (m.type) { case 'send': … case 'permission_decision': … } },
 *     onInvalidMessage: (raw, err) => log.warn(err),
 *     onInvalidPost: (msg, err) => log.error(err),
 *   }, () => loadPanelSupport());                    // the schemas, loaded when first needed
 *   panel.post({ type: 'assistant_delta', id: blockId, text, stepId });   // as often as you like
 *   panel.flush();                                                        // before a modal dialog
 * The panel never echoes input: answer `send`/`steer` with an `item_add` of
 * kind 'user' (delivery 'steer' for steering) and keep `queued` up to date.
 */
export class ChatPanelProvider implements vscode.WebviewViewProvider {
  static readonly viewType = 'turnstone.chat';
  private view: vscode.WebviewView | undefined;
  private badge: vscode.ViewBadge | undefined;
  private ready = false;
  private readonly mirror = new Transcript();
  private readonly batcher = new DeltaBatcher((message) => this.deliver(message));
  private schemas: ReturnType<PanelSchemas> | undefined;
  /** Posted before the schemas were loaded (activation posts the mode and the session before any panel exists). */
  private unchecked: HostToWebview[] = [];

  constructor(
    private readonly extensionUri: vscode.Uri,
    private readonly handlers: PanelHandlers,
    private readonly loadSchemas: PanelSchemas,
  ) {}

  resolveWebviewView(view: vscode.WebviewView): void {
    this.view = view;
    this.ready = false;
    view.badge = this.badge;
    const dist = vscode.Uri.joinPath(this.extensionUri, 'dist');
    view.webview.options = { enableScripts: true, localResourceRoots: [dist] };
    view.webview.html = renderHtml(view.webview, dist);
    // The schemas load while the webview starts in its own process; its first message is checked with them.
    setTimeout(() => this.checked(), 0);
    view.onDidDispose(() => {
      this.view = undefined;
      this.ready = false;
      this.batcher.clear();
      this.handlers.onDidHide?.();
    });
    view.onDidChangeVisibility(() => {
      // Hidden means the page is gone; it will post `ready` when shown again.
      if (!view.visible) {
        this.ready = false;
        this.batcher.clear();
        this.handlers.onDidHide?.();
      }
    });
    view.webview.onDidReceiveMessage((raw: unknown) => {
      const parsed = this.checked().WebviewToHost.safeParse(raw);
      if (!parsed.success) {
        this.handlers.onInvalidMessage(raw, parsed.error.message);
        return;
      }
      if (parsed.data.type === 'ready') {
        this.ready = true;
        this.batcher.clear();
        // Newest items first so the panel paints at once; older ones follow.
        for (const event of restoreEvents(this.mirror.snapshot)) this.deliver(event);
      }
      this.handlers.onMessage(parsed.data);
    });
  }

  get isVisible(): boolean {
    return this.view?.visible ?? false;
  }

  /**
   * The count on the view's icon (requests waiting for the user); 0 clears it. Kept for a view made later.
   * Cleared with a badge of 0, not undefined: VS Code's webview view keeps an undefined badge's last count on
   * the activity bar (microsoft/vscode#331019), while a 0 replaces it and shows nothing.
   */
  setBadge(count: number, tooltip: string): void {
    this.badge = { value: Math.max(0, count), tooltip: count > 0 ? tooltip : '' };
    if (this.view) this.view.badge = this.badge;
  }

  /** What the panel currently shows (e.g. to persist or to test the mapping). */
  get snapshot() {
    this.checked();
    return this.mirror.snapshot;
  }

  /**
   * Validates an event, applies it to the mirror and queues it for the
   * webview. Returns false when the event was invalid and dropped. Before the
   * schemas are loaded it is held and checked when they are (an invalid one
   * is then reported through onInvalidPost and dropped).
   */
  post(message: HostToWebview): boolean {
    if (!this.schemas) {
      this.unchecked.push(message);
      if (this.unchecked.length >= MAX_UNCHECKED) this.checked();
      return true;
    }
    return this.apply(this.schemas, message);
  }

  /** Sends anything the batcher holds now (call before awaiting user input, e.g. a modal dialog). */
  flush(): void {
    this.batcher.flush();
  }

  /** The schemas, loaded on first use; what was posted before is checked and applied then, in order. */
  private checked(): ReturnType<PanelSchemas> {
    if (this.schemas) return this.schemas;
    const schemas = (this.schemas = this.loadSchemas());
    const held = this.unchecked;
    this.unchecked = [];
    for (const message of held) this.apply(schemas, message);
    return schemas;
  }

  private apply(schemas: ReturnType<PanelSchemas>, message: HostToWebview): boolean {
    const parsed = schemas.HostToWebview.safeParse(message);
    if (!parsed.success) {
      this.handlers.onInvalidPost?.(message, parsed.error.message);
      return false;
    }
    const events: HostEvent[] = parsed.data.type === 'batch' ? parsed.data.events : [parsed.data];
    for (const event of events) {
      this.mirror.apply(event);
      if (!this.ready) continue;
      // A long session is sent newest-first so the panel paints at once.
      for (const out of event.type === 'restore' ? restoreEvents(event.snapshot) : [event]) this.batcher.push(out);
    }
    return true;
  }

  private deliver(message: HostToWebview): void {
    if (!this.ready || !this.view) return;
    void this.view.webview.postMessage(message);
  }
}

function renderHtml(webview: vscode.Webview, dist: vscode.Uri): string {
  return panelHtml({
    cspSource: webview.cspSource,
    nonce: makeNonce(),
    asset: (name) => webview.asWebviewUri(vscode.Uri.joinPath(dist, name)).toString(),
    l10n: { language: vscode.env.language, bundle: vscode.l10n.bundle },
  });
}
