// The chat session in the editor: which session is open, its runtime (made once
// per session: history, usage, queue, store), and its turns, each started with
// a fresh turn context (host/turn-setup.ts). What the panel shows goes through
// the panel bridge; saved sessions are the library's; instructions are
// InstructionsState's. Commands and the webview call into it; nothing here renders.
import * as path from 'node:path';
import * as vscode from 'vscode';
import { type TurnSummary } from '../../runtime/events';
import { type ConversationHistory, type ConversationRuntime, type TurnContext } from '../../runtime/loop/conversation';
import { type JsonlSessionStore, type SessionInfo } from '../../runtime/session/session';
import { type FileChange, type ImageBlock, type Message } from '../../runtime/types';
import { type Checkpoint } from '../../tools/checkpoints';
import { type BackgroundCommands } from '../../tools/background';
import { type OriginalContentProvider } from '../approvals/proposal-documents';
import { type FilesRestored, type RestoreMode, SessionCheckpoints } from './checkpoints';
import { type AttachmentBlock, userWordsOf } from '../context/attachment-blocks';
import { type HostEvent } from '../../webview/protocol';
import { describeFailure } from '../panel/failure-text';
import { InstructionsState } from './instructions-state';
import { KeyDestinations } from './key-destination';
import { type ApiKeys } from '../secrets';
import { loadCore } from './load-core';
import { type HostMcp } from '../mcp';
import { type NativePermissionPrompter } from '../approvals/permission-prompter';
import { type PanelBridge } from '../panel/panel-bridge';
import { forkTitle, SessionLibrary } from './session-library';
import { readSettings } from '../settings';
import { readGuardedSettings } from '../approvals/policy-guard';
import { effectiveMode, hostTurnContext, SpendAllowance } from './turn-setup';
import { TurnGate } from './turn-gate';

export interface ControllerDeps {
  context: vscode.ExtensionContext;
  keys: ApiKeys;
  prompter: NativePermissionPrompter;
  log: vscode.LogOutputChannel;
  /** The window's MCP servers (configured before every turn, started by its first step). */
  mcp: HostMcp;
  /** Posts to the panel (validated and batched by the panel provider); only the panel bridge uses it. */
  post(event: HostEvent): void;
  onDidChangeState(): void;
}

/** Context sent with a prompt: a chip in the panel, text for the model. */
export type Attachment = AttachmentBlock;

/** A session's title until its first message names it. */
const newTitle = () => vscode.l10n.t('New session');

/** How a turn starts: the images sent with its prompt, the queue's first words, the message's panel item. */
interface TurnStart {
  queuedWords?: string;
  images?: ImageBlock[];
  userItem?: string;
}

export class SessionController implements vscode.Disposable {
  private runtime: ConversationRuntime | undefined;
  private store: JsonlSessionStore | undefined;
  private abort: AbortController | undefined;
  private current: Promise<TurnSummary> | undefined;
  /** Running or finishing (end-of-turn checkpoint included): what waits for "no turn" waits here. */
  private readonly turns = new TurnGate();
  /** A key was saved while a turn ran: a request it rejected is sent once more with the new key (T6). */
  private keySavedDuringTurn = false;
  /** A prompt sent before any key was set, with the card that asks for one. */
  private awaitingKey: { prompt: string; images: ImageBlock[]; card: ReturnType<PanelBridge['hostCard']>; userItem: string } | undefined;
  /** The last turn's failure kind, until a turn ends well. */
  private lastFailure: string | undefined;
  /** Recent edits by tool use id, so a finished edit card can open its diff (bounded: contents can be large). */
  private readonly edits = new Map<string, FileChange>();
  private readonly spend = new SpendAllowance();
  private background: BackgroundCommands | undefined;
  private readonly destinations: KeyDestinations;
  private bridge: PanelBridge | undefined;
  title = newTitle();
  /** The title was set (by the first message, a rename or a resume). */
  private named = false;
  readonly checkpoints: SessionCheckpoints;
  readonly library: SessionLibrary;
  readonly instructions: InstructionsState;

  constructor(private readonly deps: ControllerDeps) {
    this.checkpoints = new SessionCheckpoints(deps.context, deps.log);
    this.library = new SessionLibrary(deps.context);
    this.instructions = new InstructionsState(deps.post, deps.log);
    this.destinations = new KeyDestinations(deps.context.globalState);
  }

  /** The panel's one author of items; made with the core, on first use. */
  get panel(): PanelBridge {
    this.bridge ??= new (loadCore().PanelBridge)(this.deps.post, {
      describeTool: (name) => this.deps.mcp.describe(name),
      provider: () => (readSettings().provider === 'anthropic' ? 'Anthropic' : 'the API server'),
      turnCapUsd: () => readSettings().maxCostPerTurnUsd,
      translate: vscode.l10n.t,
    });
    return this.bridge;
  }

  get isRunning(): boolean {
    return this.current !== undefined;
  }
  get usage() {
    return this.runtime ? { usage: this.runtime.cumulativeUsage, ...(this.runtime.unpricedRequests === 0 ? { costUsd: this.runtime.costUsd } : {}) } : undefined;
  }
  get model(): string {
    return readSettings().model;
  }
  get sessionFile(): string | undefined {
    return this.store?.path;
  }
  get sessionId(): string | undefined {
    return this.store ? path.basename(this.store.path, '.jsonl') : undefined;
  }
  get messages(): readonly Message[] {
    return this.runtime?.messages ?? [];
  }
  editOf(toolUseId: string): FileChange | undefined {
    return this.edits.get(toolUseId);
  }

  /**
   * Sends a prompt; if a turn is running it waits for it, then runs this one. Resolves with the turn's summary.
   * `slashCommand`: the custom command the prompt was expanded from, as typed; the transcript and the title show it.
   */
  async send(text: string, attachments: Attachment[] = [], images: ImageBlock[] = [], slashCommand?: string): Promise<TurnSummary | undefined> {
    await this.turns.idle();
    const userItem = this.panel.userMessage({
      text,
      ...(slashCommand ? { slashCommand } : {}),
      ...(attachments.length ? { attachments: attachments.map((a) => ({ kind: a.kind, path: a.label, label: a.label })) } : {}),
      ...(images.length ? { images: images.map(({ mediaType, data, width, height }) => ({ mediaType, data, width, height })) } : {}),
    });
    if (!this.named) {
      this.named = true;
      this.title = (slashCommand ?? text).replace(/\s+/g, ' ').slice(0, 60);
      this.postSessionInfo();
    }
    const prompt = loadCore().withAttachments(text, attachments);
    const provider = readSettings().provider;
    if (provider === 'anthropic' && !(await this.deps.keys.get(provider))) {
      // First run: nothing can be sent. Hold the prompt and ask for a key instead of
      // letting the request fail as if a key had been rejected.
      const failure = describeFailure('auth', 'No API key', 'Anthropic', vscode.l10n.t);
      const card = this.panel.hostCard({ message: failure.message, ...(failure.hint ? { hint: failure.hint } : {}), errorKind: 'no_key', cause: failure.cause, action: failure.action, retryable: false });
      this.awaitingKey = { prompt, images, card, userItem };
      return undefined;
    }
    return this.run(prompt, { images, userItem });
  }

  /**
   * A key was stored (the panel's key field or the command). A prompt held for
   * want of a key is sent now; a turn that failed on a rejected key is retried.
   */
  async keyChanged(): Promise<void> {
    if (this.current) {
      this.keySavedDuringTurn = true;
      return;
    }
    if (!(await this.deps.keys.get(readSettings().provider))) return;
    const held = this.awaitingKey;
    if (held) {
      this.awaitingKey = undefined;
      this.panel.settleHostCard(held.card, vscode.l10n.t('API key saved. Sending your message.'));
      await this.run(held.prompt, { images: held.images, userItem: held.userItem });
    } else if (this.lastFailure === 'auth') {
      await this.retry();
    }
  }

  /** Runs the loop again on the history as it is (after an error): no new user message. */
  async retry(): Promise<TurnSummary | undefined> {
    if (this.current || !this.runtime) return undefined;
    return this.run('');
  }

  /** Issue 25.6, "Continue (+$x)" on a spend-cap card: the turn goes on with `usd` more (the settings stay). */
  async continuePastCap(cap: 'turn' | 'session', usd: number): Promise<TurnSummary | undefined> {
    if (this.current || !this.runtime) return undefined;
    this.spend.allow(cap, usd);
    return this.run('');
  }

  /** T7 "queue for next turn": held in the runtime's one queue (shown in the panel through queue_changed), run when the turn ends. */
  queue(text: string, attachments: Attachment[] = [], slashCommand?: string): void {
    if (!this.runtime || !this.current) {
      void this.send(text, attachments, [], slashCommand);
      return;
    }
    // The label is what the queue row and, later, the transcript show.
    this.runtime.queue(loadCore().withAttachments(text, attachments), slashCommand ?? text);
  }

  unqueue(id: string): void {
    this.runtime?.unqueue(id);
  }

  /** T7: steer the running turn (or send it when none is running). */
  steer(text: string, slashCommand?: string): void {
    if (!this.runtime || !this.current) {
      void this.send(text, [], [], slashCommand);
      return;
    }
    // Shown as sent either way: the runtime puts it into this turn, or (past the loop's last check) starts the next one with it.
    this.runtime.steer(text);
    this.panel.userMessage({ text, ...(slashCommand ? { slashCommand } : {}), delivery: 'steer' });
  }

  stop(): void {
    this.abort?.abort();
    // Stop means everything the session runs, its background commands too.
    void this.background?.killAll();
  }

  /**
   * A background command card's Stop: the same kill as kill_shell. Only a command a card of this
   * transcript follows; any other id (forged, or of an earlier session) does nothing.
   */
  async stopBackground(id: string): Promise<void> {
    if (!this.background || !this.panel.followsBackground(id)) return;
    await this.background.kill(id);
  }

  /** A background command card's "Open in terminal": its own terminal, for a command a card of this transcript follows. */
  revealBackground(id: string): boolean {
    if (!this.background || !this.panel.followsBackground(id)) return false;
    return this.background.reveal(id);
  }

  /** The session's background commands, made with the core on first use; stopped with the session. Their cards follow them. */
  private backgroundCommands(): BackgroundCommands {
    if (this.background) return this.background;
    const core = loadCore();
    this.background = new core.BackgroundCommands({ maxRunning: () => readSettings().bashMaxBackground, maxUnreadChars: core.DEFAULT_LIMITS.maxOutputChars });
    this.background.onEvent((event) => this.panel.backgroundEvent(event));
    return this.background;
  }

  /** Starts the next turn on what waits in the runtime's queue (steering that missed the last turn needs no second prompt). */
  private async runQueued(): Promise<void> {
    await this.turns.idle();
    const runtime = this.runtime;
    if (!runtime || runtime.queued.length === 0) return;
    let first: string | undefined;
    for (const q of runtime.queued) {
      if (q.delivery !== 'queue') continue;
      // A label other than the words is the custom slash command they were expanded from.
      const words = userWordsOf(q.text);
      const slashCommand = q.label !== undefined && q.label !== words ? q.label : undefined;
      const item = this.panel.userMessage({ text: words, ...(slashCommand ? { slashCommand } : {}), delivery: 'queued' });
      if (q === runtime.queued[0]) first = item;
    }
    // The turn starts with the first queued message: its checkpoint is taken under that message's words.
    await this.run('', { queuedWords: userWordsOf(runtime.queued[0]!.text), ...(first ? { userItem: first } : {}) }).catch((e: unknown) => this.deps.log.error(`queued prompt failed: ${String(e)}`));
  }

  /**
   * `queuedWords`: the turn runs on the runtime's queue, whose first message (these words) starts it.
   * `userItem`: the panel item of the message that starts it, which learns the turn's checkpoint.
   */
  private async run(prompt: string, start: TurnStart = {}): Promise<TurnSummary> {
    const finished = this.turns.begin();
    try {
      return await this.runTurn(prompt, start);
    } finally {
      finished();
      if (this.runtime && this.runtime.queued.length > 0) void this.runQueued();
    }
  }

  private async runTurn(prompt: string, { queuedWords, images = [], userItem }: TurnStart): Promise<TurnSummary> {
    await this.deps.mcp.prepare().catch((e: unknown) => this.deps.log.error(`MCP configuration could not be read: ${String(e)}`));
    // Settings, trust, instructions and caps as they are now: a change since the last turn simply applies.
    const context = await this.turnContext();
    const runtime = await this.openRuntime(context);
    const abort = new AbortController();
    this.abort = abort;
    this.keySavedDuringTurn = false;
    // A retry ('' with nothing queued) adds no user message: it belongs to the checkpoint of the turn it retries.
    const words = prompt !== '' || images.length > 0 ? userWordsOf(prompt) : queuedWords;
    if (words !== undefined) {
      const named = userItem ? (turn: number) => this.panel.userCheckpoint(userItem, turn) : undefined;
      this.checkpoints.turnStarted(this.sessionId, () => loadCore().createHostWorkspace(), runtime.messages.length, words, named);
    }
    const turn = runtime.runTurn(prompt, { context, signal: abort.signal, prompter: this.deps.prompter, ...(images.length > 0 ? { images } : {}) });
    this.current = turn;
    this.deps.onDidChangeState();
    const started = Date.now();
    try {
      const summary = await turn;
      const u = summary.turnUsage;
      this.deps.log.info(
        `turn ${summary.outcome} in ${Date.now() - started} ms: ${summary.iterations} step(s), ${u.input_tokens} in / ${u.output_tokens} out, cache read ${u.cache_read_input_tokens} / write ${u.cache_creation_input_tokens}, session $${summary.costUsd.toFixed(4)}`,
      );
      return summary;
    } finally {
      await this.checkpoints.turnEnded();
      this.current = undefined;
      this.abort = undefined;
      this.deps.onDidChangeState();
    }
  }

  private async turnContext(): Promise<TurnContext> {
    return hostTurnContext(
      { context: this.deps.context, keys: this.deps.keys, mcp: this.deps.mcp, log: this.deps.log, checkpoints: this.checkpoints, destinations: this.destinations, background: this.backgroundCommands() },
      {
        systemPrompt: await this.instructions.systemPrompt(),
        caps: this.spend.capsForNextTurn(),
      },
    );
  }

  /** The session's runtime, made with its first turn: a new session file, or the one resumed. */
  private async openRuntime(context: TurnContext): Promise<ConversationRuntime> {
    if (this.runtime) return this.runtime;
    const core = loadCore();
    try {
      this.store = await core.JsonlSessionStore.create(this.library.sessionsDir, { cwd: workspaceRoot()?.fsPath ?? '', model: context.config.model });
    } catch (error) {
      // The turn still runs, in memory: an unwritable storage folder must not stop the user's work.
      this.store = undefined;
      const message = vscode.l10n.t('This session cannot be saved ({0}); it continues in memory and cannot be resumed later.', error instanceof Error ? error.message : String(error));
      this.deps.log.warn(message);
      this.panel.hostCard({ message, errorKind: 'session_write', retryable: false });
    }
    this.runtime = this.createRuntime(context, []);
    return this.runtime;
  }

  private createRuntime(context: TurnContext, messages: Message[], spent: Pick<ConversationHistory, 'usage' | 'cost' | 'plan'> = {}): ConversationRuntime {
    const core = loadCore();
    const runtime = new core.ConversationRuntime(
      {
        model: context.model,
        tools: context.tools,
        ...(context.hooks ? { hooks: context.hooks } : {}),
        ...(this.store ? { session: this.store } : {}),
        log: (message) => this.deps.log.info(message),
        // T6 / issue 25.2: nothing pops up over the window. A key saved while the request was out is tried
        // once; otherwise the turn ends at once, cleanly, and its card holds the key field (keyChanged retries).
        onAuthError: async () => {
          const saved = this.keySavedDuringTurn;
          this.keySavedDuringTurn = false;
          return saved;
        },
      },
      context.config,
      { messages, ...spent },
    );
    runtime.subscribe((event) => {
      this.panel.handle(event);
      if (event.type === 'tool_finished' && event.fileChange) {
        this.edits.set(event.id, event.fileChange);
        if (this.edits.size > 50) this.edits.delete(this.edits.keys().next().value!);
      }
      if (event.type === 'usage' || event.type === 'turn_ended' || event.type === 'turn_failed' || event.type === 'turn_aborted') this.deps.onDidChangeState();
      if (event.type === 'turn_failed') {
        this.lastFailure = event.kind;
        this.deps.log.error(`turn failed (${event.kind}${event.requestId ? `, request ${event.requestId}` : ''}): ${event.message}`);
      }
      if (event.type === 'turn_ended') this.lastFailure = undefined;
      // The panel shows one line; the provider's whole message (a proxy's traceback) goes to the log only.
      if (event.type === 'retrying') this.deps.log.warn(`retrying ${event.attempt}/${event.maxAttempts} in ${event.delayMs} ms: ${event.detail ?? event.reason}`);
      if (event.type === 'warning') this.deps.log.warn(event.message);
    });
    return runtime;
  }

  async newSession(): Promise<void> {
    await this.close();
    this.title = newTitle();
    this.named = false;
    this.panel.restore({ items: [], turn: 'idle', notices: [], queued: [], session: this.sessionInfo() });
    this.deps.onDidChangeState();
  }

  /** Stops the running turn and forgets the open session (its file stays as written). */
  private async close(): Promise<void> {
    this.stop();
    this.awaitingKey = undefined;
    this.spend.reset();
    await this.turns.idle();
    await this.background?.killAll();
    await this.store?.flush();
    this.runtime = undefined;
    this.store = undefined;
    this.checkpoints.forget();
  }

  /** Saved sessions, newest first, with the names the user gave them. */
  listSessions(): Promise<SessionInfo[]> {
    return this.library.list();
  }

  async renameSession(session: SessionInfo, title: string): Promise<void> {
    await this.library.saveTitle(session.id, title);
    if (session.path === this.store?.path) {
      this.title = title;
      this.named = true;
      this.postSessionInfo();
    }
  }

  /** Deletes a saved session and its checkpoints; the open one is closed first. */
  async deleteSession(session: SessionInfo): Promise<void> {
    if (session.path === this.store?.path) await this.newSession();
    await this.library.delete(session);
  }

  /** C3: resume a saved session; later turns append to the same file. `title`: its name from now on (a fork's). */
  async resume(file: string, title?: string): Promise<void> {
    await this.close();
    const core = loadCore();
    const loaded = await core.loadSession(file);
    for (const w of loaded.warnings) this.deps.log.warn(w);
    const root = workspaceRoot();
    if (root?.scheme === 'file') {
      const removed = await core.cleanUpInterruptedWrites(loaded.messages, root.fsPath);
      if (removed.length > 0) this.deps.log.info(`removed temp files left by a write that was killed: ${removed.join(', ')}`);
    }
    this.store = core.JsonlSessionStore.open(file);
    const runtime = (this.runtime = this.createRuntime(await this.turnContext(), loaded.messages, { usage: loaded.usage, cost: loaded.cost, plan: loaded.plan }));
    const id = loaded.meta?.id ?? path.basename(file);
    if (title !== undefined && loaded.meta?.id) await this.library.saveTitle(loaded.meta.id, title);
    const firstUser = loaded.messages.find((m) => m.role === 'user')?.content.find((b) => b.type === 'text');
    const words = firstUser?.type === 'text' ? core.splitAttachments(firstUser.text).words.replace(/\s+/g, ' ').trim() : '';
    this.title = this.library.titleOf(id) ?? title ?? (words ? words.slice(0, 60) : path.basename(file));
    this.named = true;
    const u = loaded.usage;
    this.panel.restore({
      // A torn or damaged line was skipped: say so where the user is looking, not only in the log.
      items: [
        ...core.itemsFromHistory(loaded.messages, await this.checkpointsByMessage(loaded.messages)),
        ...(loaded.warnings.length > 0
          ? [{ kind: 'error' as const, id: 'load-warnings', message: vscode.l10n.t('Parts of this session file could not be read and were skipped:\n{0}', loaded.warnings.slice(0, 5).join('\n')), errorKind: 'session_load', retryable: false }]
          : []),
      ],
      turn: 'idle',
      notices: [],
      queued: [],
      plan: loaded.plan.map((todo) => ({ ...todo })),
      session: { id, title: this.title, model: this.model },
      ...(u
        ? {
            usage: {
              inputTokens: u.input_tokens,
              outputTokens: u.output_tokens,
              cacheReadTokens: u.cache_read_input_tokens,
              cacheWriteTokens: u.cache_creation_input_tokens,
              ...(runtime.unpricedRequests === 0 ? { costUsd: runtime.costUsd } : {}),
              contextTokens: runtime.context.tokens,
              contextWindow: runtime.context.window,
            },
          }
        : {}),
    });
    this.deps.onDidChangeState();
  }

  /** Which user message each turn-start checkpoint began with, so a resumed transcript's messages name theirs. */
  private async checkpointsByMessage(messages: readonly Message[]): Promise<Map<number, number>> {
    const at = new Map<number, number>();
    const checkpoints = await this.listCheckpoints().catch((e: unknown) => {
      this.deps.log.warn(`the checkpoints of this session could not be read: ${String(e)}`);
      return [];
    });
    for (const c of checkpoints) {
      // A turn after a failed one joined the user message that failed (consecutive user messages are one).
      const index = messages[c.messageIndex]?.role === 'user' ? c.messageIndex : c.messageIndex - 1;
      if (messages[index]?.role === 'user' && !at.has(index)) at.set(index, c.turn);
    }
    return at;
  }

  /** The current session's turn checkpoints, newest first (opened from storage after a resume or restart). */
  async listCheckpoints(): Promise<Checkpoint[]> {
    const id = this.sessionId;
    if (!id) return [];
    await this.checkpoints.settled(); // the running turn's own checkpoint included
    const store = await this.checkpoints.open(id, () => loadCore().createHostWorkspace());
    return [...(store?.turns() ?? [])].reverse();
  }

  /**
   * Goes back to `checkpoint`: its files, its conversation, or both. The conversation goes back by forking the
   * session just before the checkpoint's message (the old branch stays in the session list) and resuming the fork;
   * the message's words are returned for the composer. Undefined when the user backed out or nothing was done.
   */
  async restoreCheckpoint(checkpoint: Checkpoint, mode: RestoreMode, originals: OriginalContentProvider, confirm: boolean): Promise<{ words?: string; files?: FilesRestored } | undefined> {
    this.stop();
    await this.turns.idle();
    const files = mode === 'conversation' ? undefined : await this.checkpoints.restoreFiles(checkpoint, originals, confirm);
    if (mode !== 'conversation' && !files) return undefined;
    if (mode === 'files') return { ...(files ? { files } : {}) };
    const file = this.store?.path;
    const message = this.runtime?.messages[checkpoint.messageIndex];
    const words = message?.role === 'user' ? message.content.find((b) => b.type === 'text') : undefined;
    // Compaction replaces older messages with a summary: the checkpoint's message may no longer be there.
    if (!file || !words || words.type !== 'text' || !userWordsOf(words.text).startsWith(checkpoint.prompt)) {
      void vscode.window.showWarningMessage(
        mode === 'both'
          ? vscode.l10n.t('Turnstone: the conversation at turn {0} was summarised by compaction and cannot be gone back to; the files were restored.', checkpoint.turn)
          : vscode.l10n.t('Turnstone: the conversation at turn {0} was summarised by compaction and cannot be gone back to.', checkpoint.turn),
      );
      return mode === 'both' ? { ...(files ? { files } : {}) } : undefined;
    }
    await this.store?.flush();
    const oldStore = this.checkpoints.current;
    const forked = await this.library.fork(file, checkpoint.messageIndex);
    await oldStore?.forkInto(this.checkpoints.dir(path.basename(forked, '.jsonl')), checkpoint.id);
    // The old branch stays in the session list: the fork must not look like it there or in the header.
    await this.resume(forked, forkTitle(this.title, checkpoint.turn));
    return { words: userWordsOf(words.text), ...(files ? { files } : {}) };
  }

  /**
   * C5 "Undo last turn": the files go back to the last turn's start checkpoint (after the same diff and
   * confirmation as any restore); the conversation stays. Undefined when there is no turn to undo.
   */
  async undoLastTurn(originals: OriginalContentProvider, confirm: boolean): Promise<FilesRestored | 'no_checkpoint' | undefined> {
    const last = (await this.listCheckpoints())[0];
    if (!last) return 'no_checkpoint';
    return (await this.restoreCheckpoint(last, 'files', originals, confirm))?.files;
  }

  async compact(): Promise<boolean> {
    if (!this.runtime) return false;
    return (await this.runtime.compact()) !== undefined;
  }

  /**
   * Settings changed or trust was granted: the next turn's context has them. Only the permission mode is
   * a switch the user expects at once, so it also reaches the tool uses the running turn has yet to decide.
   */
  applySettings(): void {
    this.runtime?.setPermissionMode(effectiveMode(readGuardedSettings()));
  }

  /** The header's session line (not an item: posted at activation too, before the core is loaded). */
  postSessionInfo(): void {
    this.deps.post({ type: 'session', session: this.sessionInfo() });
  }

  private sessionInfo() {
    return { id: this.sessionId ?? 'new', title: this.title, model: this.model };
  }

  dispose(): void {
    this.stop();
    void this.background?.dispose();
  }
}

function workspaceRoot(): vscode.Uri | undefined {
  return vscode.workspace.workspaceFolders?.[0]?.uri;
}
