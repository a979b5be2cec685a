// The chat session in the editor: which session is open, its runtime (made once
// per session: history, usage, queue, store), and what is sent to it. Its turns
// run one at a time in the turn runner, each with a fresh turn context
// (turn-setup.ts). What the panel shows goes through the panel bridge; saved
// sessions are the library's; checkpoints, the key wait and background commands
// have their own modules. Commands and the webview call into it; nothing here renders.
import { hostCustomAgents } from '../context/skills';
import * as path from 'node:path';
import * as vscode from 'vscode';
import { type TurnSummary } from '../../runtime/events';
import { type ConversationRuntime, type TurnContext } from '../../runtime/loop/conversation';
import { type JsonlSessionStore, type SessionInfo } from '../../runtime/session/session';
import { type FileChange, type ImageBlock, type Message } from '../../runtime/types';
import { type CommandClaims } from '../../agent/command-claims';
import { SessionCheckpoints } from './checkpoints';
import { CheckpointActions } from './checkpoint-actions';
import { type AttachmentBlock } from '../context/attachment-blocks';
import { type HostEvent } from '../../webview/protocol';
import { InstructionsState } from './instructions-state';
import { KeyDestinations } from './key-destination';
import { KeyWait } from './key-wait';
import { type ApiKeys, providerLabel } from '../secrets';
import { loadCore } from './load-core';
import { type HostMcp } from '../mcp';
import { type NativePermissionPrompter } from '../approvals/permission-prompter';
import { type PanelBridge } from '../panel/panel-bridge';
import { firstWords, loadSavedSession } from './saved-session';
import { SessionBackground } from './session-background';
import { SessionLibrary } from './session-library';
import { SessionRuntimes } from './session-runtime';
import { SessionTitle } from './session-title';
import { readSettings } from '../settings';
import { readGuardedSettings } from '../approvals/policy-guard';
import { effectiveMode, hostTurnContext, SpendAllowance } from './turn-setup';
import { TurnRunner } from './turn-runner';

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
  /** A turn ended, however: the attention signal decides whether the user is told. */
  onTurnEnded?(summary: TurnSummary): void;
  /** The session's changes for review (issue 44): fed each file change, started afresh with each session. */
  review?: { record(change: FileChange): void; reset(paths?: Iterable<string>): void };
  /** Which of the window's sessions this is (issue 43): its permission requests carry it. */
  key?: string;
  /** Each file this session's tools changed. */
  onFileChange?(change: FileChange): void;
  /** Why this session may not write `file` now (another running session changed it), or undefined. */
  claimProblem?(file: string): string | undefined;
  /** Other sessions in the same folder: the files this session's commands change are claimed through it. */
  commandClaims?: CommandClaims;
  /** The session's own git worktree (issue 43): its tools, commands, hooks and checkpoints work there. */
  worktree?: SessionWorktree;
}

/** A worktree a session of the window runs in: its folder, its branch and the repository it was made from. */
export interface SessionWorktree {
  path: string;
  branch: string;
  repo: string;
}

/** Context sent with a prompt: a chip in the panel, text for the model. */
export type Attachment = AttachmentBlock;

export class SessionController implements vscode.Disposable {
  private runtime: ConversationRuntime | undefined;
  private store: JsonlSessionStore | undefined;
  private readonly turns: TurnRunner;
  private readonly keyWait: KeyWait;
  private readonly runtimes: SessionRuntimes;
  private readonly spend = new SpendAllowance();
  /** The session's background commands; their cards' Stop and "Open in terminal" go straight here. */
  readonly background = new SessionBackground(() => this.panel);
  private readonly destinations: KeyDestinations;
  private bridge: PanelBridge | undefined;
  private readonly name: SessionTitle;
  readonly checkpoints: SessionCheckpoints;
  /** Listing, restoring and undoing to the session's turn checkpoints. */
  readonly checkpointActions: CheckpointActions;
  readonly library: SessionLibrary;
  readonly instructions: InstructionsState;

  constructor(private readonly deps: ControllerDeps) {
    this.checkpoints = new SessionCheckpoints(deps.context, deps.log, deps.worktree ? vscode.Uri.file(deps.worktree.path) : undefined);
    this.library = new SessionLibrary(deps.context);
    this.instructions = new InstructionsState(deps.post, deps.log);
    this.destinations = new KeyDestinations(deps.context.globalState);
    this.name = new SessionTitle(deps.post, () => ({ id: this.sessionId ?? 'new', model: this.model }));
    this.keyWait = new KeyWait(deps.keys, () => this.panel);
    this.runtimes = new SessionRuntimes({
      log: deps.log,
      panel: () => this.panel,
      onDidChangeState: deps.onDidChangeState,
      onAuthError: () => this.keyWait.retryRejected(),
      onFileChange: (change: FileChange) => {
        deps.review?.record(change);
        deps.onFileChange?.(change);
      },
    });
    this.turns = new TurnRunner({
      log: deps.log,
      // Tagged with the session, so the window knows which one is waiting for the user.
      prompter: { request: (request, signal) => deps.prompter.request(request, signal, deps.key) },
      mcp: deps.mcp,
      onDidChangeState: deps.onDidChangeState,
      checkpoints: this.checkpoints,
      panel: () => this.panel,
      sessionId: () => this.sessionId,
      turnContext: () => this.turnContext(),
      openRuntime: (context) => this.openRuntime(context),
      runtime: () => this.runtime,
      background: () => this.background.current,
      ...(deps.onTurnEnded ? { onTurnEnded: deps.onTurnEnded } : {}),
      turnStarted: () => this.keyWait.turnStarted(),
    });
    // What a restore needs besides the public face: a halt of the turn and the file written out before it forks.
    const halt = async () => {
      this.stop();
      await this.turns.idle();
    };
    this.checkpointActions = new CheckpointActions(this, { halt, flush: async () => this.store?.flush() }, this.checkpoints, this.library, deps.log);
  }

  /** The panel's one author of items; made with the core, on first use. */
  get panel(): PanelBridge {
    this.bridge ??= new (loadCore().PanelBridge)(this.deps.post, {
      describeTool: (name) => this.deps.mcp.describe(name),
      provider: () => providerLabel(readSettings().provider),
      costIncluded: () => readSettings().provider === 'vscode-lm',
      turnCapUsd: () => readSettings().maxCostPerTurnUsd,
      translate: vscode.l10n.t,
    });
    return this.bridge;
  }

  get title(): string {
    return this.name.text;
  }
  get isRunning(): boolean {
    return this.turns.running;
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
    return this.runtimes.editOf(toolUseId);
  }

  /**
   * Sends a prompt; if a turn is running it waits for it, then runs this one. Resolves with the turn's summary.
   * `slashCommand`: the custom command the prompt was expanded from, as typed; the transcript and the title show it.
   */
  async send(text: string, attachments: Attachment[] = [], images: ImageBlock[] = [], slashCommand?: string): Promise<TurnSummary | undefined> {
    await this.turns.idle();
    const prompt = loadCore().withAttachments(text, attachments);
    // Issue 47 item 4: without a key the message shows at once, marked as waiting for it, and is sent once the key is saved.
    const noKey = await this.keyWait.keyMissing();
    // The same words sent again while they wait (the user thought them lost) are already shown and held once.
    if (noKey && this.keyWait.isHeld(prompt, images)) {
      this.deps.log.info('a prompt was sent again while it waits for a key: it is shown and held once');
      return undefined;
    }
    const userItem = this.panel.userMessage({
      text,
      ...(slashCommand ? { slashCommand } : {}),
      ...(attachments.length ? { attachments: attachments.map((a) => ({ kind: a.kind, path: a.label, label: a.label })) } : {}),
      ...(images.length ? { images: images.map(({ mediaType, data, width, height }) => ({ mediaType, data, width, height })) } : {}),
      ...(noKey ? { unsent: 'waiting_key' as const } : {}),
    });
    this.name.fromFirstMessage(slashCommand ?? text);
    if (noKey) {
      this.keyWait.hold({ prompt, images, userItem });
      return undefined;
    }
    return this.turns.run(prompt, { images, userItem });
  }

  /**
   * A key was stored (the panel's key field or the command). A prompt held for
   * want of a key is sent now; a turn that failed on a rejected key is retried.
   */
  async keyChanged(): Promise<void> {
    const next = await this.keyWait.keyChanged(this.turns.running, () => this.runtimes.lastFailure === 'auth');
    if (next === 'retry') await this.retry();
    else if (next) {
      // Each held prompt its own turn, in order; after one that did not go through the others wait no more (not sent, Edit).
      for (const [i, held] of next.entries()) {
        this.panel.userForNextTurn(held.userItem);
        const summary = await this.turns.run(held.prompt, { images: held.images, userItem: held.userItem });
        if (summary.outcome !== 'completed') {
          for (const rest of next.slice(i + 1)) this.panel.userUnsent(rest.userItem, 'not_sent');
          break;
        }
      }
    }
  }

  /** Runs the loop again on the history as it is (after an error): no new user message. */
  async retry(): Promise<TurnSummary | undefined> {
    if (this.turns.running || !this.runtime) return undefined;
    return this.turns.run('');
  }

  /** Issue 25.6, "Continue (+$x)" on a spend-cap card: the turn goes on with `usd` more (the settings stay). */
  async continuePastCap(cap: 'turn' | 'session', usd: number): Promise<TurnSummary | undefined> {
    if (this.turns.running || !this.runtime) return undefined;
    this.spend.allow(cap, usd);
    return this.turns.run('');
  }

  /** T7 "queue for next turn": held in the runtime's one queue (shown in the panel through queue_changed), run when the turn ends. */
  queue(text: string, attachments: Attachment[] = [], slashCommand?: string): void {
    if (!this.runtime || !this.turns.running) {
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
    if (!this.runtime || !this.turns.running) {
      void this.send(text, [], [], slashCommand);
      return;
    }
    // Shown as sent either way: the runtime puts it into this turn, or (past the loop's last check) starts the next one with it.
    this.runtime.steer(text);
    this.panel.userMessage({ text, ...(slashCommand ? { slashCommand } : {}), delivery: 'steer' });
  }

  /**
   * Stop ends the running turn (even one being set up) and its foreground work. Background commands run on
   * until kill_shell, their card's Stop, a new session or the window closing (issue 47: a Stop on a later turn
   * once ended the dev server started two turns earlier).
   */
  stop(): void {
    this.turns.stop();
  }

  private async turnContext(): Promise<TurnContext> {
    const background = this.background.get();
    // A resumed session's history names its earlier commands: new ones must not take their ids.
    background.continueAfter(this.runtime?.messages ?? []);
    return hostTurnContext(
      { context: this.deps.context, keys: this.deps.keys, mcp: this.deps.mcp, log: this.deps.log, checkpoints: this.checkpoints, destinations: this.destinations, background, ...(this.deps.claimProblem ? { claimProblem: this.deps.claimProblem } : {}), ...(this.deps.commandClaims ? { commandClaims: this.deps.commandClaims } : {}), ...(this.deps.worktree ? { root: vscode.Uri.file(this.deps.worktree.path) } : {}) },
      {
        systemPrompt: await this.instructions.systemPrompt(),
        caps: this.spend.capsForNextTurn(),
        customAgents: await hostCustomAgents(this.deps.log).catch((error: unknown) => {
          this.deps.log.warn(`custom agents could not be read: ${String(error)}`);
          return [];
        }),
        // Read with the prompt just above (issue 46): the path-scoped rules, those still in the history counted as sent.
        pathScoped: this.instructions.pathScoped?.sync(this.runtime?.messages ?? []),
      },
    );
  }

  /** The session's runtime, made with its first turn: a new session file, or the one resumed. */
  private async openRuntime(context: TurnContext): Promise<ConversationRuntime> {
    if (this.runtime) return this.runtime;
    this.store = await this.runtimes.newStore(this.library.sessionsDir, context.config.model, this.deps.worktree?.path);
    this.runtime = this.runtimes.create(context, this.store, []);
    await this.rememberWorktree();
    return this.runtime;
  }

  async newSession(): Promise<void> {
    await this.close();
    this.name.reset();
    this.panel.restore({ items: [], turn: 'idle', notices: [], queued: [], session: this.name.info() });
    this.deps.onDidChangeState();
  }

  /** Stops the running turn and its background commands, and forgets the open session (its file stays as written). */
  async close(): Promise<void> {
    this.stop();
    this.keyWait.forget();
    this.spend.reset();
    await this.turns.idle();
    await this.background.killAll();
    await this.store?.flush();
    this.runtime = undefined;
    this.store = undefined;
    this.checkpoints.forget();
    this.deps.review?.reset();
  }

  async renameSession(session: SessionInfo, title: string): Promise<void> {
    await this.library.saveTitle(session.id, title);
    if (session.path === this.store?.path) {
      this.name.set(title);
      this.name.postInfo();
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
    const loaded = await loadSavedSession(file, workspaceRoot(), this.deps.log);
    this.store = loadCore().JsonlSessionStore.open(file);
    const runtime = (this.runtime = this.runtimes.create(await this.turnContext(), this.store, loaded.messages, { usage: loaded.usage, cost: loaded.cost, plan: loaded.plan }));
    const id = loaded.meta?.id ?? path.basename(file);
    await this.rememberWorktree();
    if (title !== undefined && loaded.meta?.id) await this.library.saveTitle(loaded.meta.id, title);
    this.name.set(this.library.titleOf(id) ?? title ?? (firstWords(loaded.messages).slice(0, 60) || path.basename(file)));
    this.panel.restoreSession({
      messages: loaded.messages,
      checkpointAt: await this.checkpointActions.byMessage(loaded.messages),
      warnings: loaded.warnings,
      plan: loaded.plan,
      session: { id, title: this.name.text, model: this.model },
      usage: loaded.usage,
      costUsd: runtime.unpricedRequests === 0 ? runtime.costUsd : undefined,
      context: runtime.context,
      subagents: loaded.subagents,
    });
    this.deps.onDidChangeState();
  }

  /** A session in a worktree is recorded as one, so resuming it later opens it there again (a fork too). */
  private async rememberWorktree(): Promise<void> {
    const id = this.sessionId;
    if (id && this.deps.worktree) await this.library.saveWorktree(id, this.deps.worktree).catch((e: unknown) => this.deps.log.warn(`the session's worktree could not be recorded: ${String(e)}`));
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
    this.name.postInfo();
  }

  dispose(): void {
    this.stop();
    this.background.dispose();
  }
}

function workspaceRoot(): vscode.Uri | undefined {
  return vscode.workspace.workspaceFolders?.[0]?.uri;
}
