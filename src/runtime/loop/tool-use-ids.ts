// T9: a tool use id names one call in the whole session. Servers do not all
// keep that promise (some number calls per reply, `call_0` every step), and the
// Anthropic API refuses a history where two tool uses share an id (a session
// resumed there from an OpenAI-compatible server would stop working). So the
// ids a step brings are checked against the history and renamed when taken.
import { randomBytes } from 'node:crypto';
import { type Message } from '../types';

export class ToolUseIds {
  private readonly used = new Set<string>();
  /** The current step's ids: as the provider sent them → as recorded. */
  private step = new Map<string, string>();

  constructor(history: readonly Message[] = []) {
    this.remember(history);
  }

  /** Ids already in `messages` (a resumed or rebuilt history) stay taken. */
  remember(messages: readonly Message[]): void {
    for (const m of messages) {
      if (m.role !== 'assistant') continue;
      for (const b of m.content) if (b.type === 'tool_use') this.used.add(b.id);
    }
  }

  /** The id to record for the call the provider named `id` in this step (the same answer for every event of it). */
  idFor(id: string): string {
    let mapped = this.step.get(id);
    if (mapped !== undefined) return mapped;
    mapped = id && !this.used.has(id) ? id : `toolu_${randomBytes(9).toString('base64url')}`;
    this.step.set(id, mapped);
    this.used.add(mapped);
    return mapped;
  }

  /** The step was restarted (S6): its ids were never recorded. */
  discardStep(): void {
    for (const mapped of this.step.values()) this.used.delete(mapped);
    this.step = new Map();
  }

  /** The step's message is in the history: its ids are taken from now on. */
  commitStep(): void {
    this.step = new Map();
  }
}
