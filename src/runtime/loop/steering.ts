// T7: the one steering queue, owned by the runtime. Text steered while a turn
// can still take it lands in that turn at the top of the next step; anything
// else (steered after the loop's last check, or queued on purpose) waits for
// the next turn, which the host starts as soon as the runtime is idle. The
// queue outlives the runtime: a settings rebuild hands it to the new one.

export interface QueuedInput {
  id: string;
  /** What the model receives. */
  text: string;
  /** What the panel shows, when it differs from `text` (attachments are folded into `text`). */
  label?: string;
  /** 'steer' was sent while a turn ran and missed it; 'queue' was held for the next turn on purpose. */
  delivery: 'steer' | 'queue';
}

export class SteeringQueue {
  /** For the running turn, drained at the top of its next step. */
  private current: string[] = [];
  /** For the next turn. */
  private next: QueuedInput[] = [];
  private counter = 0;

  constructor(
    private readonly onChange: (items: readonly QueuedInput[]) => void,
    initial: readonly QueuedInput[] = [],
  ) {
    this.next = [...initial];
    this.counter = initial.length;
  }

  get pending(): readonly QueuedInput[] {
    return this.next;
  }

  get hasCurrent(): boolean {
    return this.current.length > 0;
  }

  steerCurrent(text: string): void {
    this.current.push(text);
  }

  enqueue(text: string, delivery: QueuedInput['delivery'], label?: string): QueuedInput {
    const item: QueuedInput = { id: `q${++this.counter}-${Date.now().toString(36)}`, text, delivery, ...(label !== undefined && label !== text ? { label } : {}) };
    this.next.push(item);
    this.onChange(this.next);
    return item;
  }

  remove(id: string): boolean {
    const before = this.next.length;
    this.next = this.next.filter((q) => q.id !== id);
    if (this.next.length === before) return false;
    this.onChange(this.next);
    return true;
  }

  takeCurrent(): string[] {
    return this.current.splice(0);
  }

  /** Steered texts taken but not delivered (the turn was stopped while a hook judged them): first in line again. */
  returnCurrent(texts: readonly string[]): void {
    this.current.unshift(...texts);
  }

  /** Queued inputs a turn took but could not submit (stopped during the prompt hook): back at the front, as they were. */
  returnNext(items: readonly QueuedInput[]): void {
    if (items.length === 0) return;
    this.next = [...items, ...this.next];
    this.onChange(this.next);
  }

  takeNext(): QueuedInput[] {
    if (this.next.length === 0) return [];
    const taken = this.next;
    this.next = [];
    this.onChange(this.next);
    return taken;
  }

  /** The turn ended before it could take these: they start the next one, never lost. */
  carryOver(): void {
    const texts = this.current.splice(0);
    for (const text of texts) this.enqueue(text, 'steer');
  }
}
