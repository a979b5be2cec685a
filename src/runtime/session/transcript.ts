// The session's messages as the model sees them, and as the session file keeps
// them (C3): appended as the turn goes, every record written at once, a disk
// error said once and the session carried on in memory. Nothing with a lone
// surrogate enters (the API would refuse every later request), and a history
// replaced by compaction or repaired after an interrupt is written as a snapshot.
import { errorMessage } from '../errors';
import { appendUserContent, historyProblem, normaliseHistory } from './history';
import { historyChars, messageChars } from '../context/context-window';
import { type SessionRecord, type SessionStore } from './session';
import { repairLoneSurrogates } from '../text-cut';
import { type AssistantMessage, type Message, type Usage, type UserContentBlock } from '../types';

/** What the session has cost so far, as saved records carry it. */
export interface CostRecord {
  usage: Usage;
  costUsd: number;
  unpricedRequests: number;
}

/**
 * Where the history stood before a turn's input was added (issue 47 item 5): a turn that failed before any
 * reply can be taken back to it, so the next prompt replaces the failed one instead of joining it.
 */
export interface HistoryMark {
  /** The history array then (compaction or a repair since makes a new one: the mark no longer holds). */
  readonly list: readonly Message[];
  readonly messages: number;
  /** The blocks of the last message then, when it was a user message the input would join (after an aborted turn). */
  readonly lastBlocks: number;
}

export class Transcript {
  private list: Message[];
  /** historyChars(list), kept as messages are appended: the context estimate must not rescan history every step. */
  private size: number;
  private warned = false;

  constructor(
    messages: readonly Message[],
    private readonly store: SessionStore | undefined,
    private readonly now: () => number,
    private readonly warn: (message: string) => void,
  ) {
    this.list = [...messages];
    this.size = historyChars(this.list);
  }

  /** The live history (the array a request is built from: its identity says "this is the history"). */
  get messages(): Message[] {
    return this.list;
  }

  get chars(): number {
    return this.size;
  }

  /** A new turn may warn again about a session file it cannot write. */
  newTurn(): void {
    this.warned = false;
  }

  /** `cost`: the session's cost, saved with the step that incurred it. */
  appendAssistant(message: AssistantMessage, cost?: CostRecord): void {
    message = repairLoneSurrogates(message).value;
    this.list.push(message);
    this.size += messageChars(message);
    this.persist({ type: 'message', ts: this.now(), message, ...(cost ? { usage: cost.usage, costUsd: cost.costUsd, unpricedRequests: cost.unpricedRequests } : {}) });
  }

  /** Joins the last user message (tool results, steering, hook feedback) or starts one. */
  appendUser(blocks: UserContentBlock[]): void {
    if (blocks.length === 0) return;
    blocks = repairLoneSurrogates(blocks).value;
    appendUserContent(this.list, blocks);
    this.size += messageChars({ role: 'user', content: blocks });
    this.persist({ type: 'message', ts: this.now(), message: { role: 'user', content: blocks } });
  }

  /** The history as it is now, to take a turn's unanswered input back to (retract). */
  mark(): HistoryMark {
    const last = this.list.at(-1);
    return { list: this.list, messages: this.list.length, lastBlocks: last?.role === 'user' ? last.content.length : 0 };
  }

  /** Whether only user content (a turn's input) was added since `mark`: the model has answered nothing of it. */
  unansweredSince(mark: HistoryMark): boolean {
    if (mark.list !== this.list || this.list.length < mark.messages || this.list.length > mark.messages + 1) return false;
    const added = this.list.slice(mark.lastBlocks > 0 ? mark.messages - 1 : mark.messages);
    return added.length > 0 && added.every((m) => m.role === 'user') && (added[0]!.content.length > mark.lastBlocks || mark.lastBlocks === 0);
  }

  /**
   * Takes the history back to `mark`, written as a snapshot: a failed turn's prompt that the next prompt
   * replaces (issue 47 item 5). False, and nothing changed, unless only that input was added since.
   */
  retract(mark: HistoryMark): boolean {
    if (!this.unansweredSince(mark)) return false;
    const kept = this.list.slice(0, mark.messages);
    const last = kept.at(-1);
    if (mark.lastBlocks > 0 && last?.role === 'user') kept[kept.length - 1] = { role: 'user', content: last.content.slice(0, mark.lastBlocks) };
    this.list = kept;
    this.size = historyChars(kept);
    this.persist({ type: 'snapshot', ts: this.now(), reason: 'retract', messages: kept });
    return true;
  }

  /** Compaction's result: the new history, written whole. */
  replace(messages: Message[], reason: 'compaction'): void {
    this.list = messages;
    this.size = historyChars(messages);
    this.persist({ type: 'snapshot', ts: this.now(), reason, messages });
  }

  /** T9 whatever the path to here: the last tool uses answered once each, in call order (only the tail can be off). */
  repairTail(): void {
    const from = this.list.findLastIndex((m) => m.role === 'assistant');
    if (from < 0) return;
    const tail = this.list.slice(from);
    if (historyProblem(tail) === undefined) return;
    this.list = [...this.list.slice(0, from), ...normaliseHistory(tail)];
    this.size = historyChars(this.list);
  }

  event(name: string, data: Record<string, unknown>): void {
    this.persist({ type: 'event', ts: this.now(), name, data });
  }

  async flush(): Promise<void> {
    await this.store?.flush().catch(() => undefined);
  }

  // C3: a disk error must not kill the turn; say so once and carry on in memory.
  private persist(record: SessionRecord): void {
    this.store?.append(record).catch((error: unknown) => {
      if (this.warned) return;
      this.warned = true;
      this.warn(`could not write the session file (${errorMessage(error)}); continuing in memory`);
    });
  }
}
