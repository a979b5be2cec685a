// What survives the webview being hidden (it is destroyed: no
// retainContextWhenHidden) until the host's `restore` arrives: a compact
// snapshot of the newest items plus the unsent draft, via getState/setState.
import * as z from 'zod';
import { Attachment, PanelSnapshot, type TranscriptItem, type WebviewToHostInput } from '../protocol';
import { MAX_KEPT_DRAFTS } from './session-drafts';

export interface VsCodeApi {
  postMessage(message: unknown): void;
  getState(): unknown;
  setState(state: unknown): void;
}

declare function acquireVsCodeApi(): VsCodeApi;

export const vscode: VsCodeApi = acquireVsCodeApi();
export const post = (message: WebviewToHostInput): void => vscode.postMessage(message);

const KEEP_ITEMS = 150;
const KEEP_TEXT = 100_000;
const KEEP_OUTPUT = 2_000;
const KEEP_DIFF = 20_000;
const SAVE_EVERY_MS = 1_000;

const Saved = z.object({
  v: z.literal(1),
  snapshot: PanelSnapshot,
  draft: z.string().max(1_000_000),
  attachments: z.array(Attachment).max(100),
  /** Issue 47 item 9: the drafts of the sessions not shown, each kept with its session (session-drafts.ts). */
  drafts: z.array(z.object({ session: z.string().max(200), draft: z.string().max(1_000_000), attachments: z.array(Attachment).max(100) })).max(MAX_KEPT_DRAFTS).optional(),
});
export type Saved = z.infer<typeof Saved>;

export function loadState(): Saved | undefined {
  const parsed = Saved.safeParse(vscode.getState());
  return parsed.success ? parsed.data : undefined;
}

function compactItem(item: TranscriptItem): TranscriptItem {
  switch (item.kind) {
    case 'assistant':
    case 'thinking':
    case 'user':
      return item.text.length > KEEP_TEXT ? { ...item, text: item.text.slice(0, KEEP_TEXT) } : item;
    case 'tool': {
      const v = item.view;
      if (v.kind === 'bash' && v.output && v.output.length > KEEP_OUTPUT) return { ...item, view: { ...v, output: v.output.slice(-KEEP_OUTPUT) } };
      if (v.kind === 'mcp' && (v.input.length > KEEP_OUTPUT || (v.output?.length ?? 0) > KEEP_OUTPUT)) {
        return { ...item, view: { ...v, input: v.input.slice(0, KEEP_OUTPUT), ...(v.output !== undefined ? { output: v.output.slice(0, KEEP_OUTPUT) } : {}) } };
      }
      if (v.kind === 'edit' && v.diff && v.diff.length > KEEP_DIFF) {
        const { diff: _diff, ...rest } = v;
        return { ...item, view: rest };
      }
      return item;
    }
    default:
      return item;
  }
}

/** Throttled writer: at most one setState per second, plus one when the page goes away. */
export class StateSaver {
  private timer: ReturnType<typeof setTimeout> | undefined;

  constructor(private readonly collect: () => Omit<Saved, 'v'>) {
    const now = () => this.saveNow();
    window.addEventListener('pagehide', now);
    document.addEventListener('visibilitychange', () => document.visibilityState === 'hidden' && now());
  }

  schedule(): void {
    this.timer ??= setTimeout(() => this.saveNow(), SAVE_EVERY_MS);
  }

  saveNow(): void {
    if (this.timer !== undefined) clearTimeout(this.timer);
    this.timer = undefined;
    const { snapshot, draft, attachments, drafts } = this.collect();
    const saved: Saved = {
      v: 1,
      snapshot: { ...snapshot, items: snapshot.items.slice(-KEEP_ITEMS).map(compactItem) },
      draft,
      attachments,
      ...(drafts?.length ? { drafts } : {}),
    };
    vscode.setState(saved);
  }
}
