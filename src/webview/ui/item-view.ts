// What a transcript item's view is and how views talk to the host, apart from
// the views themselves so that items.ts, error-view.ts and permission-view.ts
// share them without importing one another.
import { type TranscriptItem, type WebviewToHostInput } from '../protocol';

export interface ItemView {
  readonly root: HTMLElement;
  update(item: TranscriptItem): void;
}

export type Post = (message: WebviewToHostInput) => void;

/** A tool's card as its permission request sees it (items.ts's ToolCardView): one card per tool, its approval inside it. */
export interface ToolCard extends ItemView {
  /** Where the tool's permission request renders. */
  readonly approval: HTMLElement;
  /** Its permission request is pending (no spinner: nothing runs until the user answers). */
  setWaiting(waiting: boolean): void;
}
