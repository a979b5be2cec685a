// Issue 47 item 9: a draft belongs to the session it was typed in. When the panel shows another session (a
// `restore` with another session: resume, fork, New Session, the Sessions view), the composer's words, chips
// and images go with the session they were typed for, and come back when it is shown again; the other session
// gets its own draft or an empty composer, so Enter never sends a fork's words to another branch.
// Pure (no DOM), so the rule is unit-tested: test/unit/webview/item9-state.test.ts.
import { type Attachment } from '../protocol';

export interface Draft<Held = unknown> {
  text: string;
  attachments: Attachment[];
  /** Pasted images (in memory only: never written to the webview's saved state). */
  images?: Held;
}

/** The drafts of sessions not shown kept at once (the oldest is forgotten first). */
export const MAX_KEPT_DRAFTS = 20;

/** What the webview's saved state keeps of them (text and chips). */
export interface SavedDraft {
  session: string;
  draft: string;
  attachments: Attachment[];
}

const isEmpty = (d: Draft) => d.text.trim() === '' && d.attachments.length === 0 && !hasImages(d.images);
const hasImages = (held: unknown) => Array.isArray(held) && held.length > 0;

export class SessionDrafts<Held = unknown> {
  /** By session id, the least recently left first. */
  private readonly kept = new Map<string, Draft<Held>>();

  constructor(saved: readonly SavedDraft[] = []) {
    for (const d of saved.slice(-MAX_KEPT_DRAFTS)) this.kept.set(d.session, { text: d.draft, attachments: [...d.attachments] });
  }

  /**
   * The panel goes from session `from` to session `to` (a `restore`), with `current` in the composer. Returns the
   * draft the composer shows from now on, or undefined when it keeps what it has: the same session again (the
   * answer to `ready` after a reload, the view shown again), or no session known before (nothing to give back).
   */
  switch(from: string | undefined, to: string | undefined, current: Draft<Held>): Draft<Held> | undefined {
    if (!SessionDrafts.changes(from, to)) return undefined;
    this.kept.delete(from);
    if (!isEmpty(current)) {
      this.kept.set(from, current);
      while (this.kept.size > MAX_KEPT_DRAFTS) this.kept.delete(this.kept.keys().next().value!);
    }
    const next = to === undefined ? undefined : this.kept.get(to);
    if (to !== undefined) this.kept.delete(to);
    return next ?? { text: '', attachments: [] };
  }

  /** Whether a `restore` from session `from` to `to` shows another session (an unknown `from` is not one: nothing to give back). */
  static changes(from: string | undefined, to: string | undefined): from is string {
    return from !== undefined && from !== to;
  }

  /** The draft kept for a session not shown (for tests and the saved state). */
  get(session: string): Draft<Held> | undefined {
    return this.kept.get(session);
  }

  /** For the webview's saved state: text and chips, no images. */
  saved(): SavedDraft[] {
    return [...this.kept].flatMap(([session, d]) => (d.text.trim() || d.attachments.length ? [{ session, draft: d.text, attachments: d.attachments }] : []));
  }
}
