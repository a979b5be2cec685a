// The panel's state and how each HostEvent changes it. Pure data, no DOM, so
// the same code keeps the host's mirror (to answer `ready` with `restore`)
// and drives the webview, and the two cannot drift apart.
import { type HostEvent, type PanelSnapshot, type TranscriptItem } from './protocol';

/** Items sent in the first `restore` message; older ones follow in `prepend` messages. */
export const RESTORE_FIRST_ITEMS = 200;
const PREPEND_CHUNK = 1_000;

/**
 * The messages that restore a snapshot: the newest items first (so the panel
 * paints at once, whatever the session's length), then older ones in chunks.
 */
export function restoreEvents(snapshot: PanelSnapshot, first = RESTORE_FIRST_ITEMS): HostEvent[] {
  const split = Math.max(0, snapshot.items.length - first);
  const events: HostEvent[] = [{ type: 'restore', snapshot: { ...snapshot, items: snapshot.items.slice(split) } }];
  for (let end = split; end > 0; end -= PREPEND_CHUNK) {
    events.push({ type: 'prepend', items: snapshot.items.slice(Math.max(0, end - PREPEND_CHUNK), end) });
  }
  return events;
}

/** A panel with nothing in it. Here rather than in protocol.ts: the host's mirror needs it without loading the schemas. */
export const emptySnapshot = (): PanelSnapshot => ({ items: [], turn: 'idle', notices: [], queued: [] });

/** Live output kept per bash card: a tail is all the card shows, and it bounds memory in long sessions. */
export const OUTPUT_TAIL_CHARS = 16_000;

export type Change =
  | { type: 'reset' }
  | { type: 'added'; item: TranscriptItem }
  | { type: 'updated'; item: TranscriptItem }
  | { type: 'removed'; ids: string[] }
  | { type: 'prepended'; count: number }
  | { type: 'chrome'; part: 'session' | 'turn' | 'usage' | 'notices' | 'queued' | 'reconnecting' | 'mode' | 'plan' };

export interface Reconnecting {
  attempt: number;
  maxAttempts: number;
  reason?: string;
  /** How long until the next attempt, counted from `at` (Date.now() when the event arrived). */
  delayMs?: number;
  at?: number;
}

export class Transcript {
  /**
   * @param copyInputs copy items before storing them (they are mutated as
   * deltas arrive). The host needs this because its batcher still holds the
   * events; the webview can skip it, its events are fresh from JSON.
   */
  constructor(private readonly copyInputs = true) {}

  private state: PanelSnapshot = emptySnapshot();
  private readonly index = new Map<string, TranscriptItem>();
  reconnecting: Reconnecting | undefined;

  get snapshot(): PanelSnapshot {
    return this.state;
  }

  get items(): readonly TranscriptItem[] {
    return this.state.items;
  }

  get(id: string): TranscriptItem | undefined {
    return this.index.get(id);
  }

  /** Applies one event; returns what changed, for a view to re-render. Events about unknown ids are ignored. */
  apply(event: HostEvent): Change[] {
    switch (event.type) {
      case 'restore': {
        // Copied because items are mutated in place as deltas arrive, and the
        // caller may still hold the event (the host's batcher does).
        const permission = this.state.permission;
        this.state = this.copyInputs ? structuredClone(event.snapshot) : { ...event.snapshot, items: [...event.snapshot.items] };
        if (!this.state.permission && permission) this.state.permission = permission;
        this.index.clear();
        for (const item of this.state.items) this.index.set(item.id, item);
        this.reconnecting = undefined;
        return [{ type: 'reset' }];
      }
      case 'prepend': {
        const items = (this.copyInputs ? structuredClone(event.items) : event.items).filter((i) => !this.index.has(i.id));
        for (const item of items) this.index.set(item.id, item);
        this.state.items = [...items, ...this.state.items];
        return items.length ? [{ type: 'prepended', count: items.length }] : [];
      }
      case 'session':
        this.state.session = event.session;
        return [{ type: 'chrome', part: 'session' }];
      case 'item_add':
        return [...this.clearReconnecting(), this.put(this.copyInputs ? structuredClone(event.item) : event.item)];
      case 'assistant_delta':
      case 'thinking_delta': {
        const kind = event.type === 'assistant_delta' ? 'assistant' : 'thinking';
        const existing = this.index.get(event.id);
        if (existing && existing.kind === kind) {
          existing.text += event.text;
          existing.open = true;
          return [...this.clearReconnecting(), { type: 'updated', item: existing }];
        }
        if (existing) return [];
        const item: TranscriptItem = { kind, id: event.id, text: event.text, open: true, ...(event.stepId ? { stepId: event.stepId } : {}) };
        return [...this.clearReconnecting(), this.put(item)];
      }
      case 'block_end': {
        const item = this.index.get(event.id);
        if (!item || (item.kind !== 'assistant' && item.kind !== 'thinking')) return [];
        item.open = false;
        if (item.kind === 'thinking' && event.durationMs !== undefined) item.durationMs = event.durationMs;
        return [{ type: 'updated', item }];
      }
      case 'tool_update': {
        const item = this.index.get(event.id);
        if (!item || item.kind !== 'tool') return [];
        if (event.status) item.status = event.status;
        if (event.view) {
          // The final update of a bash card carries the exit code, not the output it streamed: keep that.
          const kept = item.view.kind === 'bash' ? item.view.output : undefined;
          item.view = event.view.kind === 'bash' && event.view.output === undefined && kept !== undefined ? { ...event.view, output: kept } : event.view;
        }
        if (event.error !== undefined) item.error = event.error;
        if (event.images) item.images = event.images;
        return [...this.clearReconnecting(), { type: 'updated', item }];
      }
      case 'tool_output': {
        const item = this.index.get(event.id);
        if (!item || item.kind !== 'tool' || item.view.kind !== 'bash') return [];
        const output = (item.view.output ?? '') + event.chunk;
        item.view.output = output.length > OUTPUT_TAIL_CHARS ? output.slice(-OUTPUT_TAIL_CHARS) : output;
        return [{ type: 'updated', item }];
      }
      case 'step_discarded': {
        const ids = this.state.items.filter((i) => i.stepId === event.stepId).map((i) => i.id);
        if (ids.length === 0) return [];
        this.state.items = this.state.items.filter((i) => i.stepId !== event.stepId);
        for (const id of ids) this.index.delete(id);
        return [{ type: 'removed', ids }];
      }
      case 'permission_settled': {
        const item = this.index.get(event.requestId);
        if (!item || item.kind !== 'permission') return [];
        // A request is answered once (the host's pending requests settle each one once): a second report changes nothing.
        if (item.settled) return [];
        item.settled = event.settlement;
        return [{ type: 'updated', item }];
      }
      case 'turn': {
        this.state.turn = event.state;
        const changes: Change[] = [{ type: 'chrome', part: 'turn' }];
        if (event.state === 'idle') {
          changes.push(...this.clearReconnecting());
          // A turn that ended (or was aborted) leaves nothing streaming.
          for (const item of this.state.items) {
            if ((item.kind === 'assistant' || item.kind === 'thinking') && item.open) {
              item.open = false;
              changes.push({ type: 'updated', item });
            }
          }
        }
        return changes;
      }
      case 'reconnecting':
        this.reconnecting =
          event.attempt > 0
            ? { attempt: event.attempt, maxAttempts: event.maxAttempts, ...(event.reason ? { reason: event.reason } : {}), ...(event.delayMs !== undefined ? { delayMs: event.delayMs, at: Date.now() } : {}) }
            : undefined;
        return [{ type: 'chrome', part: 'reconnecting' }];
      case 'usage':
        this.state.usage = event.usage;
        return [{ type: 'chrome', part: 'usage' }];
      case 'permission_mode':
        this.state.permission = event.info;
        return [{ type: 'chrome', part: 'mode' }];
      case 'notices':
        this.state.notices = event.notices;
        return [{ type: 'chrome', part: 'notices' }];
      case 'queued':
        this.state.queued = event.items;
        return [{ type: 'chrome', part: 'queued' }];
      case 'plan':
        this.state.plan = event.todos;
        return [{ type: 'chrome', part: 'plan' }];
      case 'attach_candidates':
      case 'attachment_measured':
      case 'instructions':
      case 'slash_commands':
      case 'compose':
        // Transient UI requests: no state to keep or restore.
        return [];
    }
  }

  private put(item: TranscriptItem): Change {
    const existing = this.index.get(item.id);
    this.index.set(item.id, item);
    if (existing) {
      const at = this.state.items.indexOf(existing);
      this.state.items[at] = item;
      return { type: 'updated', item };
    }
    this.state.items.push(item);
    return { type: 'added', item };
  }

  private clearReconnecting(): Change[] {
    if (!this.reconnecting) return [];
    this.reconnecting = undefined;
    return [{ type: 'chrome', part: 'reconnecting' }];
  }
}
