// What a background command's card shows while it runs: the last lines it
// printed and how it ended. A dev server can print thousands of lines a
// second; the card gets at most one update per interval per command, and
// only the bounded tail, so the webview's work does not grow with the output.
import { stripVTControlCharacters } from 'node:util';
import { type BackgroundEvent } from '../../tools/shell/background';
import { type HostEvent, type ToolView } from '../../webview/protocol';

/** Lines of a background command's output its card keeps. */
export const BACKGROUND_TAIL_LINES = 40;
/** And characters, for a command printing very long lines. */
export const BACKGROUND_TAIL_CHARS = 8_000;
/** The least time between two updates of one card. */
export const BACKGROUND_UPDATE_MS = 250;

type BashView = Extract<ToolView, { kind: 'bash' }>;
type Background = NonNullable<BashView['background']>;

interface Followed {
  tail: string;
  state: Background['state'];
  exitCode: number | null;
  /** The card that started it, once its tool use finished. */
  card?: { toolUseId: string; view: BashView };
  timer?: ReturnType<typeof setTimeout>;
}

export interface BackgroundFeedOptions {
  intervalMs?: number;
  setTimer?: (fn: () => void, ms: number) => ReturnType<typeof setTimeout>;
  clearTimer?: (handle: ReturnType<typeof setTimeout>) => void;
}

export class BackgroundFeed {
  private readonly followed = new Map<string, Followed>();
  private readonly intervalMs: number;
  private readonly setTimer: NonNullable<BackgroundFeedOptions['setTimer']>;
  private readonly clearTimer: NonNullable<BackgroundFeedOptions['clearTimer']>;

  constructor(
    private readonly post: (event: HostEvent) => void,
    options: BackgroundFeedOptions = {},
  ) {
    this.intervalMs = options.intervalMs ?? BACKGROUND_UPDATE_MS;
    this.setTimer = options.setTimer ?? ((fn, ms) => setTimeout(fn, ms));
    this.clearTimer = options.clearTimer ?? ((handle) => clearTimeout(handle));
  }

  /** The bash tool use `toolUseId` started background command `id`: its card's view from now on (what it printed so far included). */
  started(toolUseId: string, view: BashView, id: string): BashView {
    const f = this.entry(id);
    f.card = { toolUseId, view: { ...view, output: undefined } };
    return this.view(f, id);
  }

  /** A card in this panel follows `id` (what the panel's Stop may name). */
  follows(id: string): boolean {
    return this.followed.get(id)?.card !== undefined;
  }

  /** An event of the session's background commands. */
  handle(event: BackgroundEvent): void {
    const f = this.entry(event.id);
    if (event.type === 'output') {
      f.tail = lastLines(f.tail + stripVTControlCharacters(event.chunk));
      if (f.card && f.timer === undefined) f.timer = this.setTimer(() => this.flush(event.id), this.intervalMs);
      return;
    }
    f.state = event.status;
    f.exitCode = event.exitCode;
    // How it ended goes out at once, with the last lines it printed.
    this.flush(event.id);
  }

  /** A new or resumed transcript: its cards are gone, so is what followed them. */
  reset(): void {
    for (const f of this.followed.values()) if (f.timer !== undefined) this.clearTimer(f.timer);
    this.followed.clear();
  }

  private flush(id: string): void {
    const f = this.followed.get(id);
    if (!f) return;
    if (f.timer !== undefined) this.clearTimer(f.timer);
    f.timer = undefined;
    if (f.card) this.post({ type: 'tool_update', id: f.card.toolUseId, view: this.view(f, id) });
  }

  private view(f: Followed, id: string): BashView {
    const { output: _none, ...view } = f.card!.view;
    return {
      ...view,
      ...(f.tail ? { output: f.tail } : {}),
      background: { id, state: f.state, ...(f.state === 'running' ? {} : { exitCode: f.exitCode }) },
    };
  }

  private entry(id: string): Followed {
    let f = this.followed.get(id);
    if (!f) this.followed.set(id, (f = { tail: '', state: 'running', exitCode: null }));
    return f;
  }
}

/** The last BACKGROUND_TAIL_LINES lines (and BACKGROUND_TAIL_CHARS characters) of `text`. */
export function lastLines(text: string): string {
  let end = text.length;
  // A line still being printed is a line; the newline ending the last one is not.
  if (text.endsWith('\n')) end--;
  let at = end;
  for (let n = 0; n < BACKGROUND_TAIL_LINES && at > 0; n++) at = text.lastIndexOf('\n', at - 1);
  const from = Math.max(at < 0 ? 0 : at + 1, text.length - BACKGROUND_TAIL_CHARS);
  return from > 0 ? text.slice(from) : text;
}
