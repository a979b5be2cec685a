// A session's turns run one at a time: each starts with a fresh turn context and its
// checkpoint, waits for the one before to finish, and hands on to what was queued.
// Which session they run in (its runtime, file and title) is the controller's.
import type * as vscode from 'vscode';
import { type TurnSummary } from '../../runtime/events';
import { type ConversationRuntime, type TurnContext } from '../../runtime/loop/conversation';
import { type ImageBlock } from '../../runtime/types';
import { type NativePermissionPrompter } from '../approvals/permission-prompter';
import { userWordsOf } from '../context/attachment-blocks';
import { type HostMcp } from '../mcp';
import { type PanelBridge } from '../panel/panel-bridge';
import { type SessionCheckpoints } from './checkpoints';
import { loadCore } from './load-core';
import { TurnGate } from './turn-gate';

/** How a turn starts: the images sent with its prompt, the queue's first words, the message's panel item. */
export interface TurnStart {
  queuedWords?: string;
  images?: ImageBlock[];
  userItem?: string;
}

export interface TurnRunnerDeps {
  log: vscode.LogOutputChannel;
  prompter: NativePermissionPrompter;
  mcp: HostMcp;
  checkpoints: SessionCheckpoints;
  panel(): PanelBridge;
  onDidChangeState(): void;
  sessionId(): string | undefined;
  /** Settings, trust, instructions and caps as they are now. */
  turnContext(): Promise<TurnContext>;
  /** The session's runtime, made with its first turn. */
  openRuntime(context: TurnContext): Promise<ConversationRuntime>;
  /** The session's runtime if it has one (its queue is run after each turn). */
  runtime(): ConversationRuntime | undefined;
  turnStarted(): void;
}

export class TurnRunner {
  private abort: AbortController | undefined;
  private current: Promise<TurnSummary> | undefined;
  /** Running or finishing (end-of-turn checkpoint included): what waits for "no turn" waits here. */
  private readonly gate = new TurnGate();

  constructor(private readonly deps: TurnRunnerDeps) {}

  get running(): boolean {
    return this.current !== undefined;
  }

  /** Resolves once no turn is running or finishing. */
  idle(): Promise<void> {
    return this.gate.idle();
  }

  stop(): void {
    this.abort?.abort();
  }

  /**
   * `queuedWords`: the turn runs on the runtime's queue, whose first message (these words) starts it.
   * `userItem`: the panel item of the message that starts it, which learns the turn's checkpoint.
   */
  async run(prompt: string, start: TurnStart = {}): Promise<TurnSummary> {
    const finished = this.gate.begin();
    try {
      return await this.runTurn(prompt, start);
    } finally {
      finished();
      const runtime = this.deps.runtime();
      if (runtime && runtime.queued.length > 0) void this.runQueued();
    }
  }

  /** Starts the next turn on what waits in the runtime's queue (steering that missed the last turn needs no second prompt). */
  private async runQueued(): Promise<void> {
    await this.gate.idle();
    const runtime = this.deps.runtime();
    if (!runtime || runtime.queued.length === 0) return;
    let first: string | undefined;
    for (const q of runtime.queued) {
      if (q.delivery !== 'queue') continue;
      // A label other than the words is the custom slash command they were expanded from.
      const words = userWordsOf(q.text);
      const slashCommand = q.label !== undefined && q.label !== words ? q.label : undefined;
      const item = this.deps.panel().userMessage({ text: words, ...(slashCommand ? { slashCommand } : {}), delivery: 'queued' });
      if (q === runtime.queued[0]) first = item;
    }
    // The turn starts with the first queued message: its checkpoint is taken under that message's words.
    await this.run('', { queuedWords: userWordsOf(runtime.queued[0]!.text), ...(first ? { userItem: first } : {}) }).catch((e: unknown) => this.deps.log.error(`queued prompt failed: ${String(e)}`));
  }

  private async runTurn(prompt: string, { queuedWords, images = [], userItem }: TurnStart): Promise<TurnSummary> {
    const { deps } = this;
    await deps.mcp.prepare().catch((e: unknown) => deps.log.error(`MCP configuration could not be read: ${String(e)}`));
    // Settings, trust, instructions and caps as they are now: a change since the last turn simply applies.
    const context = await deps.turnContext();
    const runtime = await deps.openRuntime(context);
    const abort = new AbortController();
    this.abort = abort;
    deps.turnStarted();
    // A retry ('' with nothing queued) adds no user message: it belongs to the checkpoint of the turn it retries.
    const words = prompt !== '' || images.length > 0 ? userWordsOf(prompt) : queuedWords;
    if (words !== undefined) {
      const named = userItem ? (turn: number) => deps.panel().userCheckpoint(userItem, turn) : undefined;
      deps.checkpoints.turnStarted(deps.sessionId(), () => loadCore().createHostWorkspace(), runtime.messages.length, words, named);
    }
    const turn = runtime.runTurn(prompt, { context, signal: abort.signal, prompter: deps.prompter, ...(images.length > 0 ? { images } : {}) });
    this.current = turn;
    deps.onDidChangeState();
    const started = Date.now();
    try {
      const summary = await turn;
      const u = summary.turnUsage;
      deps.log.info(
        `turn ${summary.outcome} in ${Date.now() - started} ms: ${summary.iterations} step(s), ${u.input_tokens} in / ${u.output_tokens} out, cache read ${u.cache_read_input_tokens} / write ${u.cache_creation_input_tokens}, session $${summary.costUsd.toFixed(4)}`,
      );
      return summary;
    } finally {
      await deps.checkpoints.turnEnded();
      this.current = undefined;
      this.abort = undefined;
      deps.onDidChangeState();
    }
  }
}
