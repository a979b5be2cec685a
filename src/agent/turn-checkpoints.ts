// A session's checkpoints as turns come and go, for every front end: one when a
// turn starts (taken while its first request streams; tools wait for it) and one
// when it ends. The editor adds restoring on top (host/checkpoints.ts); the CLI
// takes them beside its session file.
import { type CheckpointStore } from '../tools/checkpoints';
import { type Workspace } from '../tools/ports';

export interface CheckpointLog {
  info(message: string): void;
  warn(message: string): void;
}

export interface TurnCheckpointsOptions {
  /** Where a session's checkpoints are kept. */
  dir(sessionId: string): string;
  /** The local folder checkpoints cover; undefined where they cannot work (no folder, a virtual one). */
  root(): string | undefined;
  maxFileBytes(): number;
  /** Opens a store: passed in so an editor can load the checkpoint code only when a turn first needs it. */
  openStore(options: { dir: string; root: string; workspace: Workspace; maxFileBytes: number }): Promise<CheckpointStore>;
  log: CheckpointLog;
  /** After a session's store is opened (the editor prunes older sessions' checkpoints then). */
  onOpened?(sessionId: string): void;
}

export class TurnCheckpoints {
  private store: CheckpointStore | undefined;
  private storeFor: string | undefined;
  private turn = 0;
  /** The turn-start checkpoint being taken (never rejects). */
  private pending: Promise<void> = Promise.resolve();

  constructor(protected readonly options: TurnCheckpointsOptions) {}

  /** The store of the current session, for the tools' write capture; undefined between sessions. */
  get current(): CheckpointStore | undefined {
    return this.store;
  }

  dir(sessionId: string): string {
    return this.options.dir(sessionId);
  }

  /** Opens (or reuses) the session's store; undefined where checkpoints cannot work. */
  async open(sessionId: string, workspace: () => Workspace): Promise<CheckpointStore | undefined> {
    if (this.store && this.storeFor === sessionId) return this.store;
    const root = this.options.root();
    if (!root) return undefined;
    const store = await this.options.openStore({ dir: this.dir(sessionId), root, workspace: workspace(), maxFileBytes: this.options.maxFileBytes() });
    this.store = store;
    this.storeFor = sessionId;
    this.turn = store.turns().at(-1)?.turn ?? 0;
    this.options.onOpened?.(sessionId);
    return store;
  }

  /**
   * Starts the checkpoint of a turn that is starting, without holding up the turn's first request (a take
   * costs about one `git status`). Tools wait for it through settled() before they run, so it still sees
   * every file as it was before the turn changed anything. Never stops the turn: a failure is logged and
   * the turn has no checkpoint.
   */
  turnStarted(sessionId: string | undefined, workspace: () => Workspace, messageIndex: number, prompt: string, onTaken?: (turn: number) => void): void {
    if (!sessionId) return;
    this.pending = this.pending.then(() => this.takeStart(sessionId, workspace, messageIndex, prompt, onTaken));
  }

  /** Resolves once the checkpoints started so far are written (tool runs and restores wait for it). */
  settled(): Promise<void> {
    return this.pending;
  }

  async turnEnded(): Promise<void> {
    await this.pending;
    const last = this.store?.all().at(-1);
    if (!this.store || last?.kind !== 'turn-start') return;
    await this.store.take({ kind: 'turn-end', turn: last.turn, messageIndex: last.messageIndex, prompt: last.prompt }).catch((error: unknown) => {
      this.options.log.warn(`turn-end checkpoint failed: ${error instanceof Error ? error.message : String(error)}`);
    });
  }

  forget(): void {
    this.store = undefined;
    this.storeFor = undefined;
    this.turn = 0;
  }

  private async takeStart(sessionId: string, workspace: () => Workspace, messageIndex: number, prompt: string, onTaken?: (turn: number) => void): Promise<void> {
    const t0 = Date.now();
    try {
      const store = await this.open(sessionId, workspace);
      if (!store) return;
      const checkpoint = await store.take({ kind: 'turn-start', turn: ++this.turn, messageIndex, prompt });
      onTaken?.(checkpoint.turn);
      this.options.log.info(`checkpoint for turn ${checkpoint.turn} (${store.mode}, ${Object.keys(checkpoint.overlay).length} changed file(s) copied) in ${Date.now() - t0} ms`);
    } catch (error) {
      this.options.log.warn(`no checkpoint for this turn: ${error instanceof Error ? error.message : String(error)}`);
    }
  }
}

