// One agent session, whatever drives it (the editor's chat, the CLI, the Action through the CLI): the
// runtime, made once with its first turn; each turn's cycle (set-up → context → turn-start checkpoint →
// turn → turn-end checkpoint), one at a time; one cancellation per turn, made before its set-up so a Stop
// pressed while a turn is still being set up stops it; and the session's background commands, which outlive
// a plain Stop (a dev server started two turns ago is not the turn's to end) and end with a Stop-with-kill,
// close() and exit. Faces adapt it: they say where a session is
// stored, how a turn's context is made and how a checkpoint is named, and render its events.
import { type RuntimeEvent, type RuntimeEventListener, type TurnSummary } from '../runtime/events';
import { type ConversationRuntime, type TurnContext } from '../runtime/loop/conversation';
import { type PermissionPrompter } from '../runtime/policy/permissions';
import { type ImageBlock } from '../runtime/types';
import { type BackgroundCommands } from '../tools/shell/background';
import { TurnGate } from './turn-gate';

/** Where a face keeps a session's checkpoints (see turn-checkpoints.ts); the session says when. */
export interface SessionCheckpointPort {
  /** A turn starts on the history's `messageIndex`th message, with these words. */
  turnStarted(messageIndex: number, words: string, onTaken?: (turn: number) => void): void;
  turnEnded(): Promise<void>;
}

export interface AgentSessionPorts {
  /** Before the turn's context is made: what must be read first (the editor's MCP configuration). */
  prepare?(): Promise<void>;
  /** The turn's context as things are now (settings, trust, instructions, caps): a change since the last turn applies. */
  turnContext(): Promise<TurnContext>;
  /** The runtime, made once with the first turn's context: a new session, or a resumed one. */
  openRuntime(context: TurnContext): Promise<ConversationRuntime> | ConversationRuntime;
  checkpoints?: SessionCheckpointPort;
  /** The session's background commands, if it has started any. */
  background?(): BackgroundCommands | undefined;
  /** Absent where nobody can answer (the CLI): what would ask is denied with a reason. */
  prompter?: PermissionPrompter;
  /** Once the turn's context is made and the turn is about to run. */
  onTurnStarted?(): void;
  /** The session started or stopped running. */
  onStateChange?(): void;
}

export interface SubmitOptions {
  images?: ImageBlock[];
  /** The words the turn-start checkpoint is taken under; absent, none is taken (a retry belongs to the turn it retries). */
  checkpoint?: { words: string; onTaken?: (turn: number) => void };
}

export class AgentSession {
  private runtime: ConversationRuntime | undefined;
  private abort: AbortController | undefined;
  private running = false;
  /** Running or finishing (the turn-end checkpoint included): what waits for "no turn" waits here. */
  private readonly gate = new TurnGate();
  private readonly listeners = new Set<RuntimeEventListener>();
  private unsubscribe: (() => void) | undefined;

  constructor(private readonly ports: AgentSessionPorts) {}

  /** The runtime once the first turn made it (or it was adopted): history, usage, queue. */
  get current(): ConversationRuntime | undefined {
    return this.runtime;
  }

  get isRunning(): boolean {
    return this.running;
  }

  /** Resolves once no turn is running or finishing. */
  idle(): Promise<void> {
    return this.gate.idle();
  }

  /** Events of this session's runtime, now and after it is made. */
  subscribe(listener: RuntimeEventListener): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  /** A runtime made elsewhere (a resumed session shown before its first turn) becomes this session's. */
  adopt(runtime: ConversationRuntime): void {
    if (this.runtime === runtime) return;
    this.unsubscribe?.();
    this.runtime = runtime;
    this.unsubscribe = runtime.subscribe((event: RuntimeEvent) => {
      for (const listener of this.listeners) listener(event);
    });
  }

  /**
   * Runs one turn on `input` ('' runs on what is queued, or again on the history as it is). Turns run one at a
   * time: a second submit while one runs is a bug of the face, which waits for idle() or steers instead.
   */
  async submit(input: string, options: SubmitOptions = {}): Promise<TurnSummary> {
    if (this.running) throw new Error('a turn is already running in this session: wait for idle() or steer it');
    const finished = this.gate.begin();
    // Made before the set-up: a Stop from here on reaches the turn (it starts aborted and ends at once, history intact).
    const abort = new AbortController();
    this.abort = abort;
    this.running = true;
    this.ports.onStateChange?.();
    try {
      await this.ports.prepare?.();
      const context = await this.ports.turnContext();
      const runtime = await this.ports.openRuntime(context);
      this.adopt(runtime);
      this.ports.onTurnStarted?.();
      if (options.checkpoint) this.ports.checkpoints?.turnStarted(runtime.messages.length, options.checkpoint.words, options.checkpoint.onTaken);
      try {
        return await runtime.runTurn(input, { context, signal: abort.signal, ...(this.ports.prompter ? { prompter: this.ports.prompter } : {}), ...(options.images?.length ? { images: options.images } : {}) });
      } finally {
        await this.ports.checkpoints?.turnEnded();
      }
    } finally {
      if (this.abort === abort) this.abort = undefined;
      this.running = false;
      finished();
      this.ports.onStateChange?.();
    }
  }

  /**
   * Stop: the running turn (or the one being set up) and its foreground work. `kill`: everything the session
   * runs in the background too (the CLI's Ctrl+C, a closing session).
   */
  interrupt(options: { kill?: boolean } = {}): void {
    this.abort?.abort();
    if (options.kill) void this.ports.background?.()?.killAll();
  }

  /** Interrupts, waits for the turn to finish and for the background commands to end; the runtime is forgotten. */
  async close(): Promise<void> {
    this.interrupt({ kill: true });
    await this.gate.idle();
    await this.ports.background?.()?.killAll();
    this.unsubscribe?.();
    this.unsubscribe = undefined;
    this.runtime = undefined;
  }
}
