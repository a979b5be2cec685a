// One chat session in the editor: owns the ConversationRuntime, its session
// file, the running turn's AbortController, and feeds the panel. Commands and
// the webview call into it; nothing here renders.
import * as os from 'node:os';
import * as fs from 'node:fs/promises';
import * as path from 'node:path';
import * as vscode from 'vscode';
import { hostSensitiveMatcher } from './load-panel-support';
import { type TurnSummary } from '../runtime/events';
import { type ConversationRuntime } from '../runtime/conversation';
import { type QueuedInput } from '../runtime/steering';
import { type JsonlSessionStore, type SessionInfo } from '../runtime/session';
import { type FileChange, type ImageBlock, type Message, type Usage } from '../runtime/types';
import { type SavedCost } from '../runtime/usage';
import { type Checkpoint } from '../tools/checkpoints';
import { type OriginalContentProvider } from './proposal-documents';
import { type RestoreMode, SessionCheckpoints } from './checkpoints';
import { formatPromptWithAttachments, type AttachmentBlock, userWordsOf } from './attachment-blocks';
import { type HostEvent, type TranscriptItem as PanelItem } from '../webview/protocol';
import { describeFailure } from './failure-text';
import { type ApiKeys } from './secrets';
import { loadProjectInstructions, type ProjectInstructions } from '../runtime/instructions';
import { readerRootPath, workspaceInstructionReader } from './instruction-reader';
import { loadCore } from './load-core';
import { type HostMcp } from './mcp';
import { type NativePermissionPrompter } from './permission-prompter';
import { KeyDestinations } from './key-destination';
import { readGuardedSettings } from './policy-guard';
import { readSettings, type TurnstoneSettings } from './settings';
import { TurnGate } from './turn-gate';

const TITLES_KEY = 'turnstone.sessionTitles';

export interface ControllerDeps {
  context: vscode.ExtensionContext;
  keys: ApiKeys;
  prompter: NativePermissionPrompter;
  log: vscode.LogOutputChannel;
  /** The window's MCP servers (configured before every turn, started by its first step). */
  mcp: HostMcp;
  /** Posts to the panel (validated and batched by the panel provider). */
  post(event: HostEvent): void;
  onDidChangeState(): void;
}

/** Context sent with a prompt: a chip in the panel, text for the model. */
export type Attachment = AttachmentBlock;

export class SessionController implements vscode.Disposable {
  private runtime: ConversationRuntime | undefined;
  private store: JsonlSessionStore | undefined;
  private abort: AbortController | undefined;
  private current: Promise<TurnSummary> | undefined;
  /** Running or finishing (end-of-turn checkpoint included): what waits for "no turn" waits here. */
  private readonly turns = new TurnGate();
  private userItems = 0;
  /** A key was saved while a turn ran: a request it rejected is sent once more with the new key (T6). */
  private keySavedDuringTurn = false;
  /** "Continue (+$x)" past the session cap: allowed on top of turnstone.maxCostPerSessionUsd, for this session only. */
  private extraSessionUsd = 0;
  /** "Continue (+$x)" past the turn cap: the per-turn cap of the one turn that goes on. */
  private continuedTurnCapUsd: number | undefined;
  /** A prompt sent before any key was set, with the card that asks for one. */
  private awaitingKey: { prompt: string; images: ImageBlock[]; item: Extract<PanelItem, { kind: 'error' }> } | undefined;
  /** The last turn's failure kind, until a turn ends well. */
  private lastFailure: string | undefined;
  /** Recent edits by tool use id, so a finished edit card can open its diff (bounded: contents can be large). */
  private readonly edits = new Map<string, FileChange>();
  /** Settings or trust changed since the runtime was built (see applySettings). */
  private stale = false;
  /** The instruction files the last turn (or the panel's last refresh) found. */
  private instructions: ProjectInstructions | undefined;
  private instructionsKey = '';
  title = 'New session';
  readonly checkpoints: SessionCheckpoints;
  private readonly keyDestinations: KeyDestinations;

  constructor(private readonly deps: ControllerDeps) {
    this.checkpoints = new SessionCheckpoints(deps.context, deps.log);
    this.keyDestinations = new KeyDestinations(deps.context.globalState);
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
  get lastTurnDiff() {
    return this.runtime?.lastTurnDiff;
  }
  get sessionFile(): string | undefined {
    return this.store?.path;
  }
  editOf(toolUseId: string): FileChange | undefined {
    return this.edits.get(toolUseId);
  }
  get messages(): readonly Message[] {
    return this.runtime?.messages ?? [];
  }

  /**
   * Sends a prompt; if a turn is running it waits for it, then runs this one. Resolves with the turn's summary.
   * `slashCommand`: the custom command the prompt was expanded from, as typed; the transcript and the title show it.
   */
  async send(text: string, attachments: Attachment[] = [], images: ImageBlock[] = [], slashCommand?: string): Promise<TurnSummary | undefined> {
    await this.turns.idle();
    this.deps.post({
      type: 'item_add',
      item: {
        kind: 'user',
        id: `u${++this.userItems}`,
        text,
        ...(slashCommand ? { slashCommand } : {}),
        ...(attachments.length ? { attachments: attachments.map((a) => ({ kind: a.kind, path: a.label, label: a.label })) } : {}),
        ...(images.length ? { images: images.map(({ mediaType, data, width, height }) => ({ mediaType, data, width, height })) } : {}),
      },
    });
    if (this.title === 'New session') {
      this.title = (slashCommand ?? text).replace(/\s+/g, ' ').slice(0, 60);
      this.deps.post({ type: 'session', session: { id: path.basename(this.store?.path ?? 'new', '.jsonl'), title: this.title, model: this.model } });
    }
    const prompt = loadCore().withAttachments(text, attachments);
    const provider = readSettings().provider;
    if (provider === 'anthropic' && !(await this.deps.keys.get(provider))) {
      // First run: nothing can be sent. Hold the prompt and ask for a key instead of
      // letting the request fail as if a key had been rejected.
      const text = describeFailure('auth', 'No API key', 'Anthropic');
      const item = { kind: 'error' as const, id: `nokey${++this.userItems}`, message: text.message, ...(text.hint ? { hint: text.hint } : {}), errorKind: 'no_key', cause: text.cause, action: text.action, retryable: false };
      this.awaitingKey = { prompt, images, item };
      this.deps.post({ type: 'item_add', item });
      return undefined;
    }
    return this.run(prompt, undefined, images);
  }

  /**
   * A key was stored (the panel's key field or the command). A prompt held for
   * want of a key is sent now; a turn that failed on a rejected key is retried.
   */
  async keyChanged(): Promise<void> {
    const provider = readSettings().provider;
    if (this.current) {
      this.keySavedDuringTurn = true;
      return;
    }
    if (!(await this.deps.keys.get(provider))) return;
    const held = this.awaitingKey;
    if (held) {
      this.awaitingKey = undefined;
      this.deps.post({ type: 'item_add', item: { ...withoutHint(held.item), message: 'API key saved. Sending your message.', resolved: true } });
      await this.run(held.prompt, undefined, held.images);
    } else if (this.lastFailure === 'auth') {
      await this.retry();
    }
  }

  /** Runs the loop again on the history as it is (after an error): no new user message. */
  async retry(): Promise<TurnSummary | undefined> {
    if (this.current || !this.runtime) return undefined;
    return this.run('');
  }

  /**
   * Issue 25.6, "Continue (+$x)" on a spend-cap card: the session may spend `usd`
   * more (session cap), or the turn goes on with `usd` as its own cap (turn cap).
   * The settings stay as they are.
   */
  async continuePastCap(cap: 'turn' | 'session', usd: number): Promise<TurnSummary | undefined> {
    if (this.current || !this.runtime) return undefined;
    if (cap === 'session') this.extraSessionUsd += usd;
    else this.continuedTurnCapUsd = usd;
    return this.run('');
  }

  /** The caps the next turn runs with: the settings, plus what the user allowed with Continue. */
  private spendCaps(s: TurnstoneSettings): { perTurnUsd: number; perSessionUsd: number } {
    const perTurnUsd = this.continuedTurnCapUsd ?? s.maxCostPerTurnUsd;
    this.continuedTurnCapUsd = undefined;
    return { perTurnUsd, perSessionUsd: s.maxCostPerSessionUsd > 0 ? s.maxCostPerSessionUsd + this.extraSessionUsd : 0 };
  }

  /** T7 "queue for next turn": held in the runtime's one queue (shown in the panel through queue_changed), run when the turn ends. */
  queue(text: string, attachments: Attachment[] = [], slashCommand?: string): void {
    if (!this.runtime || !this.current) {
      void this.send(text, attachments, [], slashCommand);
      return;
    }
    // The label is what the queue row and, later, the transcript show.
    this.runtime.queue(withAttachments(text, attachments), slashCommand ?? text);
  }

  unqueue(id: string): void {
    this.runtime?.unqueue(id);
  }

  /** Starts the next turn on what waits in the runtime's queue (steering that missed the last turn needs no second prompt). */
  private async runQueued(): Promise<void> {
    await this.turns.idle();
    const runtime = this.runtime;
    if (!runtime || runtime.queued.length === 0) return;
    for (const q of runtime.queued) {
      if (q.delivery !== 'queue') continue;
      // A label other than the words is the custom slash command they were expanded from.
      const words = userWordsOf(q.text);
      const slashCommand = q.label !== undefined && q.label !== words ? q.label : undefined;
      this.deps.post({ type: 'item_add', item: { kind: 'user', id: `u${++this.userItems}`, text: words, ...(slashCommand ? { slashCommand } : {}), delivery: 'queued' } });
    }
    // The turn starts with the first queued message: its checkpoint is taken under that message's words.
    const first = runtime.queued[0]!;
    await this.run('', userWordsOf(first.text)).catch((e: unknown) => this.deps.log.error(`queued prompt failed: ${String(e)}`));
  }

  /** `queuedWords`: the turn runs on the runtime's queue, whose first message (these words) starts it. */
  private async run(prompt: string, queuedWords?: string, images: ImageBlock[] = []): Promise<TurnSummary> {
    const finished = this.turns.begin();
    try {
      return await this.runTurn(prompt, queuedWords, images);
    } finally {
      finished();
      if (this.runtime && this.runtime.queued.length > 0) void this.runQueued();
    }
  }

  private async runTurn(prompt: string, queuedWords: string | undefined, images: ImageBlock[]): Promise<TurnSummary> {
    await this.deps.mcp.prepare().catch((e: unknown) => this.deps.log.error(`MCP configuration could not be read: ${String(e)}`));
    const runtime = await this.ensureRuntime();
    // Re-read per turn: an edited AGENTS.md changes the prefix once, and every step of this turn sends the same bytes.
    runtime.setSystemPrompt(await this.systemPrompt());
    runtime.setSpendCaps(this.spendCaps(readGuardedSettings()));
    const abort = new AbortController();
    this.abort = abort;
    this.keySavedDuringTurn = false;
    // A retry ('' with nothing queued) adds no user message: it belongs to the checkpoint of the turn it retries.
    const words = prompt !== '' || images.length > 0 ? userWordsOf(prompt) : queuedWords;
    if (words !== undefined) this.checkpoints.turnStarted(this.sessionId, () => loadCore().createHostWorkspace(), runtime.messages.length, words);
    const turn = runtime.runTurn(prompt, { signal: abort.signal, prompter: this.deps.prompter, ...(images.length > 0 ? { images } : {}) });
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

  /** T7: steer the running turn (or queue it when none is running). */
  steer(text: string, slashCommand?: string): void {
    if (!this.runtime || !this.current) {
      void this.send(text, [], [], slashCommand);
      return;
    }
    // Shown as sent either way: the runtime puts it into this turn, or (past the loop's last check) starts the next one with it.
    this.runtime.steer(text);
    this.deps.post({ type: 'item_add', item: { kind: 'user', id: `u${++this.userItems}`, text, ...(slashCommand ? { slashCommand } : {}), delivery: 'steer' } });
  }

  stop(): void {
    this.abort?.abort();
  }

  async newSession(): Promise<void> {
    this.stop();
    this.awaitingKey = undefined;
    this.extraSessionUsd = 0;
    await this.turns.idle();
    await this.store?.flush();
    this.runtime = undefined;
    this.store = undefined;
    this.checkpoints.forget();
    this.title = 'New session';
    this.deps.post({ type: 'restore', snapshot: { items: [], turn: 'idle', notices: [], queued: [], session: { id: 'new', title: this.title, model: this.model } } });
    this.deps.onDidChangeState();
  }

  /** Saved sessions, newest first, with the names the user gave them. */
  async listSessions(): Promise<SessionInfo[]> {
    const titles = this.titles();
    return (await loadCore().listSessions(this.sessionsDir())).map((s) => ({ ...s, title: titles.get(s.id) ?? s.title }));
  }

  /** The session file this panel shows (undefined before the first turn). */
  get currentSessionFile(): string | undefined {
    return this.store?.path;
  }

  /** A name the user chose; kept in workspace state, the session file stays as written. */
  async renameSession(session: SessionInfo, title: string): Promise<void> {
    await this.saveTitle(session.id, title);
    if (session.path === this.store?.path) {
      this.title = title;
      this.deps.post({ type: 'session', session: { id: session.id, title, model: this.model } });
    }
  }

  /** Deletes a saved session and its checkpoints (`<storage>/checkpoints/<sessionId>`); the current one is closed first. */
  async deleteSession(session: SessionInfo): Promise<void> {
    if (session.path === this.store?.path) await this.newSession();
    const sessions = this.sessionsDir();
    // Only files of our own sessions folder, whatever the list was built from.
    if (path.dirname(path.resolve(session.path)) !== path.resolve(sessions)) throw new Error(`not a Turnstone session file: ${session.path}`);
    await fs.rm(session.path, { force: true });
    // Checkpoints live under the session file's name (SessionCheckpoints.dir); pruning would remove them later anyway.
    await fs.rm(this.checkpoints.dir(path.basename(session.path, '.jsonl')), { recursive: true, force: true });
    const all = Object.fromEntries(this.titles());
    if (session.id in all) {
      delete all[session.id];
      await this.deps.context.workspaceState.update(TITLES_KEY, all);
    }
  }

  private async saveTitle(sessionId: string, title: string): Promise<void> {
    const all = Object.fromEntries(this.titles());
    all[sessionId] = title;
    await this.deps.context.workspaceState.update(TITLES_KEY, all);
  }

  private titles(): Map<string, string> {
    const stored = this.deps.context.workspaceState.get<Record<string, unknown>>(TITLES_KEY) ?? {};
    return new Map(Object.entries(stored).filter((e): e is [string, string] => typeof e[1] === 'string'));
  }

  /** C3: resume a saved session; later turns append to the same file. `title`: its name from now on (a fork's). */
  async resume(file: string, title?: string): Promise<void> {
    this.stop();
    this.awaitingKey = undefined;
    this.extraSessionUsd = 0;
    await this.turns.idle();
    const core = loadCore();
    const loaded = await core.loadSession(file);
    for (const w of loaded.warnings) this.deps.log.warn(w);
    const root = this.root();
    if (root?.scheme === 'file') {
      const removed = await core.cleanUpInterruptedWrites(loaded.messages, root.fsPath);
      if (removed.length > 0) this.deps.log.info(`removed temp files left by a write that was killed: ${removed.join(', ')}`);
    }
    this.store = core.JsonlSessionStore.open(file);
    this.checkpoints.forget();
    this.runtime = this.createRuntime(loaded.messages, { usage: loaded.usage, cost: loaded.cost });
    const firstUser = loaded.messages.find((m) => m.role === 'user')?.content.find((b) => b.type === 'text');
    const words = firstUser && firstUser.type === 'text' ? core.splitAttachments(firstUser.text).words.replace(/\s+/g, ' ').trim() : '';
    if (title !== undefined && loaded.meta?.id) await this.saveTitle(loaded.meta.id, title);
    this.title = this.titles().get(loaded.meta?.id ?? '') ?? title ?? (words ? words.slice(0, 60) : path.basename(file));
    const u = loaded.usage;
    this.deps.post({
      type: 'restore',
      snapshot: {
        // A torn or damaged line was skipped: say so where the user is looking, not only in the log.
        items: [
          ...core.itemsFromHistory(loaded.messages),
          ...(loaded.warnings.length > 0
            ? [{ kind: 'error' as const, id: 'load-warnings', message: `Parts of this session file could not be read and were skipped:\n${loaded.warnings.slice(0, 5).join('\n')}`, errorKind: 'session_load', retryable: false }]
            : []),
        ],
        turn: 'idle',
        notices: [],
        queued: [],
        session: { id: loaded.meta?.id ?? path.basename(file), title: this.title, model: this.model },
        ...(u
          ? {
              usage: {
                inputTokens: u.input_tokens,
                outputTokens: u.output_tokens,
                cacheReadTokens: u.cache_read_input_tokens,
                cacheWriteTokens: u.cache_creation_input_tokens,
                ...(this.runtime.unpricedRequests === 0 ? { costUsd: this.runtime.costUsd } : {}),
                contextTokens: this.runtime.context.tokens,
                contextWindow: this.runtime.context.window,
              },
            }
          : {}),
      },
    });
    this.deps.onDidChangeState();
  }

  get sessionId(): string | undefined {
    return this.store ? path.basename(this.store.path, '.jsonl') : undefined;
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
  async restoreCheckpoint(checkpoint: Checkpoint, mode: RestoreMode, originals: OriginalContentProvider, confirm: boolean): Promise<{ words?: string } | undefined> {
    this.stop();
    await this.turns.idle();
    if (mode !== 'conversation' && !(await this.checkpoints.restoreFiles(checkpoint, originals, confirm))) return undefined;
    if (mode === 'files') return {};
    const file = this.store?.path;
    const message = this.runtime?.messages[checkpoint.messageIndex];
    const words = message?.role === 'user' ? message.content.find((b) => b.type === 'text') : undefined;
    // Compaction replaces older messages with a summary: the checkpoint's message may no longer be there.
    if (!file || !words || words.type !== 'text' || !userWordsOf(words.text).startsWith(checkpoint.prompt)) {
      void vscode.window.showWarningMessage(
        `Turnstone: the conversation at turn ${checkpoint.turn} was summarised by compaction and cannot be gone back to${mode === 'both' ? '; the files were restored' : ''}.`,
      );
      return mode === 'both' ? {} : undefined;
    }
    await this.store?.flush();
    const core = loadCore();
    const oldStore = this.checkpoints.current;
    const { store } = await core.forkSession(file, this.sessionsDir(), checkpoint.messageIndex);
    await oldStore?.forkInto(this.checkpoints.dir(path.basename(store.path, '.jsonl')), checkpoint.id);
    await store.flush();
    // The old branch stays in the session list: the fork must not look like it there or in the header.
    await this.resume(store.path, forkTitle(this.title, checkpoint.turn));
    return { words: userWordsOf(words.text) };
  }

  async compact(): Promise<boolean> {
    if (!this.runtime) return false;
    const event = await this.runtime.compact();
    return event !== undefined;
  }

  /**
   * Settings changed or trust was granted. Mode and model apply to the running
   * runtime at once; rules, hooks, limits and the tools (bash needs trust) are
   * fixed per runtime, so it is rebuilt on the same history before the next turn,
   * keeping the user's "allow for this session" answers (new deny rules still win).
   */
  applySettings(): void {
    if (!this.runtime) return;
    const s = readGuardedSettings();
    this.runtime.setPermissionMode(this.effectiveMode(s));
    this.runtime.setModel(s.model);
    this.stale = true;
  }

  dispose(): void {
    this.stop();
  }

  private async ensureRuntime(): Promise<ConversationRuntime> {
    if (this.runtime && this.stale) {
      // The queue moves to the new runtime: text steered just before a settings change is not lost.
      this.runtime = this.createRuntime([...this.runtime.messages], { usage: this.runtime.cumulativeUsage, cost: this.runtime.savedCost }, this.runtime.sessionRules, this.runtime.queued);
    }
    if (this.runtime) return this.runtime;
    const s = readSettings();
    try {
      this.store = await loadCore().JsonlSessionStore.create(this.sessionsDir(), { cwd: this.root()?.fsPath ?? '', model: s.model });
    } catch (error) {
      // The turn still runs, in memory: an unwritable storage folder must not stop the user's work.
      this.store = undefined;
      const message = `This session cannot be saved (${error instanceof Error ? error.message : String(error)}); it continues in memory and cannot be resumed later.`;
      this.deps.log.warn(message);
      this.deps.post({ type: 'item_add', item: { kind: 'error', id: `session-save-${Date.now()}`, message, errorKind: 'session_write', retryable: false } });
    }
    this.runtime = this.createRuntime([], {});
    return this.runtime;
  }

  /** `spent`: the usage and cost the session already has (a resume, a settings rebuild), carried as saved. */
  private createRuntime(messages: Message[], spent: { usage?: Usage | undefined; cost?: SavedCost | undefined }, sessionRules: readonly string[] = [], queued: readonly QueuedInput[] = []): ConversationRuntime {
    this.stale = false;
    const core = loadCore();
    const s = readGuardedSettings();
    const prices = core.parseModelPrices(s.modelPrices);
    for (const problem of prices.problems) this.deps.log.warn(problem);
    const root = this.root();
    const tools = core.afterCheckpoint(
      core.withMcpTools(
        core.createHostTools(this.deps.context, s, (m) => this.deps.log.info(m), (ws) => core.withCheckpointCapture(ws, () => this.checkpoints.current)),
        this.deps.mcp.ensure(),
      ),
      () => this.checkpoints.settled(),
    );
    // One bridge per runtime: its block ids and open blocks belong to this session.
    const bridge = new core.PanelBridge(this.deps.post, {
      describeTool: (name) => this.deps.mcp.describe(name),
      provider: () => (readSettings().provider === 'anthropic' ? 'Anthropic' : 'the API server'),
      turnCapUsd: () => readSettings().maxCostPerTurnUsd,
    });
    const runtime = new core.ConversationRuntime(
      {
        model: core.createSettingsAwareModelClient(async () => {
          // Provider and base URL as the policy guard accepted them, and the key only to a URL the user chose.
          const now = readGuardedSettings();
          const baseURL = now.baseUrl || (now.provider === 'anthropic' ? process.env.ANTHROPIC_BASE_URL : process.env.OPENAI_BASE_URL) || undefined;
          await this.keyDestinations.check(now.baseUrl || undefined);
          // Local OpenAI-compatible servers accept any key; the SDK insists on one.
          const apiKey = (await this.deps.keys.get(now.provider)) ?? (now.provider === 'openai-compatible' ? 'not-needed' : undefined);
          return { provider: now.provider, baseURL, apiKey };
        }),
        tools,
        ...(vscode.workspace.isTrusted && root ? { hooks: new core.ShellHookRunner(s.hooks, { cwd: root.fsPath }) } : {}),
        ...(this.store ? { session: this.store } : {}),
        log: (message) => this.deps.log.info(message),
        // T6 / issue 25.2: nothing pops up over the window (that prompt kept the turn running, and every message
        // queued into it). A key saved while the request was out is tried once; otherwise the turn ends at once,
        // cleanly, and its card holds the key field: a key saved there retries the turn (keyChanged).
        onAuthError: async () => {
          const refreshed = this.keySavedDuringTurn;
          this.keySavedDuringTurn = false;
          return refreshed;
        },
      },
      {
        model: s.model,
        // Replaced with the instructions of the moment before each turn (see run).
        systemPrompt: this.buildPrompt(this.instructions?.text),
        maxIterations: s.maxIterations,
        thinkingBudgetTokens: s.thinkingBudgetTokens,
        permissionMode: this.effectiveMode(s),
        permissionRules: { allow: s.allow, deny: s.deny, ask: s.ask },
        ...(s.autoCompactInputTokens ? { autoCompactInputTokens: s.autoCompactInputTokens } : {}),
        autoCompactPercent: s.autoCompactPercent,
        contextWindow: s.contextWindow,
        maxTokens: s.maxOutputTokens,
        maxCostPerTurnUsd: s.maxCostPerTurnUsd,
        maxCostPerSessionUsd: s.maxCostPerSessionUsd,
        prices: prices.prices,
      },
      { messages, sessionRules, queued, ...(spent.usage ? { usage: spent.usage } : {}), ...(spent.cost ? { cost: spent.cost } : {}) },
    );
    runtime.subscribe((event) => {
      bridge.handle(event);
      if (event.type === 'tool_finished' && event.fileChange) {
        this.edits.set(event.id, event.fileChange);
        if (this.edits.size > 50) this.edits.delete(this.edits.keys().next().value!);
      }
      if (event.type === 'usage' || event.type === 'turn_ended' || event.type === 'turn_failed' || event.type === 'turn_aborted') this.deps.onDidChangeState();
      if (event.type === 'turn_failed') this.lastFailure = event.kind;
      if (event.type === 'turn_ended') this.lastFailure = undefined;
      if (event.type === 'turn_failed') this.deps.log.error(`turn failed (${event.kind}${event.requestId ? `, request ${event.requestId}` : ''}): ${event.message}`);
      // The panel shows one line; the provider's whole message (a proxy's traceback) goes to the log only.
      if (event.type === 'retrying') this.deps.log.warn(`retrying ${event.attempt}/${event.maxAttempts} in ${event.delayMs} ms: ${event.detail ?? event.reason}`);
      if (event.type === 'warning') this.deps.log.warn(event.message);
    });
    return runtime;
  }

  /** Project instructions (contracts.md): read now, shown in the panel's header; the log says what was cut. */
  async refreshInstructions(): Promise<ProjectInstructions> {
    const root = this.root();
    const found = root
      ? await loadProjectInstructions(workspaceInstructionReader(root), { workspaceRoot: readerRootPath(root), sensitive: hostSensitiveMatcher(), ...(root.scheme === 'file' ? { homeDir: os.homedir() } : {}) })
      : { files: [], notes: [], text: '' };
    this.instructions = found;
    const key = JSON.stringify([found.files.map((f) => [f.label, f.chars, f.included]), found.notes, vscode.workspace.isTrusted]);
    if (key !== this.instructionsKey) {
      this.instructionsKey = key;
      for (const note of found.notes) this.deps.log.warn(`project instructions: ${note}`);
      if (found.files.length) this.deps.log.info(`project instructions: ${found.files.map((f) => f.label).join(', ')}`);
    }
    this.postInstructions();
    return found;
  }

  /** Re-sends what the header chip shows (the panel reloaded). */
  postInstructions(): void {
    const found = this.instructions;
    if (!found) return;
    this.deps.post({
      type: 'instructions',
      files: found.files.map((f) => ({ label: f.label, chars: f.chars, included: f.included })),
      notes: found.notes.slice(0, 20),
      restricted: !vscode.workspace.isTrusted,
    });
  }

  /** The file behind a label the panel sent, if it is one of the files in use (the panel cannot name others). */
  instructionFile(label: string): string | undefined {
    return this.instructions?.files.find((f) => f.label === label)?.path;
  }

  private async systemPrompt(): Promise<string> {
    const found = await this.refreshInstructions().catch((error: unknown) => {
      this.deps.log.warn(`project instructions could not be read: ${String(error)}`);
      return undefined;
    });
    return this.buildPrompt(found?.text);
  }

  private buildPrompt(extra: string | undefined): string {
    return loadCore().buildSystemPrompt({
      workspaceRoot: this.root()?.fsPath ?? '(no folder open)',
      platform: process.platform,
      host: `VS Code ${vscode.version}`,
      date: new Date().toISOString().slice(0, 10),
      ...(extra ? { extra } : {}),
    });
  }

  /** Restricted Mode: only plan mode, whatever the settings say (trust granted later applies on the next turn). */
  private effectiveMode(s: TurnstoneSettings) {
    return vscode.workspace.isTrusted ? s.permissionMode : 'plan';
  }

  private root(): vscode.Uri | undefined {
    return vscode.workspace.workspaceFolders?.[0]?.uri;
  }

  private sessionsDir(): string {
    const base = this.deps.context.storageUri ?? this.deps.context.globalStorageUri;
    return path.join(base.fsPath, 'sessions');
  }
}

function withAttachments(text: string, attachments: Attachment[]): string {
  return formatPromptWithAttachments(text, attachments);
}

function withoutHint<T extends { hint?: string }>(item: T): Omit<T, 'hint'> {
  const { hint: _hint, ...rest } = item;
  return rest;
}

/** "Fork at turn 2: make the greeting friendlier"; a fork of a fork names only the newest turn. */
export function forkTitle(title: string, turn: number): string {
  return `Fork at turn ${turn}: ${title.replace(/^Fork at turn \d+: /, '')}`.slice(0, 120);
}
