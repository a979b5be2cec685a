// A session's turns, as the editor runs them: through the session's AgentSession (one turn at a time, each
// with a fresh turn context and its checkpoints), handing on to what was queued with the panel's items for it.
// Which session they run in (its runtime, file and title) is the controller's.
import type * as vscode from 'vscode';
import { type TurnSummary } from '../../runtime/events';
import { type ConversationRuntime, type TurnContext } from '../../runtime/loop/conversation';
import { type ImageBlock } from '../../runtime/types';
import { type BackgroundCommands } from '../../tools/shell/background';
// Light (types and a gate only): the session object is made at activation, the core on the first turn.
import { AgentSession } from '../../agent/agent-session';
import { type PermissionPrompter } from '../../runtime/policy/permissions';
import { userWordsOf } from '../context/attachment-blocks';
import { type HostMcp } from '../mcp';
import { type PanelBridge } from '../panel/panel-bridge';
import { type SessionCheckpoints } from './checkpoints';

/** How a turn starts: the images sent with its prompt, the queue's first words, the message's panel item. */
export interface TurnStart {
  queuedWords?: string;
  images?: ImageBlock[];
  userItem?: string;
}

export interface TurnRunnerDeps {
  log: vscode.LogOutputChannel;
  prompter: PermissionPrompter;
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
  /** The session's background commands, if any were started: Stop ends them with the turn. */
  background(): BackgroundCommands | undefined;
  turnStarted(): void;
  onTurnEnded?(summary: TurnSummary): void;
}

/** The editor's face of an AgentSession: the panel's items for queued prompts, and the log line of each turn. */
export class TurnRunner {
  private readonly session: AgentSession;

  constructor(private readonly deps: TurnRunnerDeps) {
    this.session = new AgentSession({
      prepare: async () => {
        await deps.mcp.prepare().catch((e: unknown) => deps.log.error(`MCP configuration could not be read: ${String(e)}`));
      },
      turnContext: () => deps.turnContext(),
      openRuntime: (context) => deps.openRuntime(context),
      checkpoints: {
        turnStarted: (index, words, onTaken) => deps.checkpoints.turnStarted(deps.sessionId(), () => deps.checkpoints.workspace(), index, words, onTaken),
        turnEnded: () => deps.checkpoints.turnEnded(),
      },
      background: () => deps.background(),
      prompter: deps.prompter,
      onTurnStarted: () => deps.turnStarted(),
      onStateChange: () => deps.onDidChangeState(),
    });
  }

  get running(): boolean {
    return this.session.isRunning;
  }

  /** Resolves once no turn is running or finishing. */
  idle(): Promise<void> {
    return this.session.idle();
  }

  /** The turn, even one still being set up; background commands run on. */
  stop(): void {
    this.session.interrupt();
  }

  /**
   * `queuedWords`: the turn runs on the runtime's queue, whose first message (these words) starts it.
   * `userItem`: the panel item of the message that starts it, which learns the turn's checkpoint.
   */
  async run(prompt: string, { queuedWords, images = [], userItem }: TurnStart = {}): Promise<TurnSummary> {
    const { deps } = this;
    // A retry ('' with nothing queued) adds no user message: it belongs to the checkpoint of the turn it retries.
    const words = prompt !== '' || images.length > 0 ? userWordsOf(prompt) : queuedWords;
    const onTaken = userItem ? (turn: number) => deps.panel().userCheckpoint(userItem, turn) : undefined;
    const started = Date.now();
    try {
      const summary = await this.session.submit(prompt, { images, ...(words !== undefined ? { checkpoint: { words, ...(onTaken ? { onTaken } : {}) } } : {}) });
      const u = summary.turnUsage;
      deps.log.info(
        `turn ${summary.outcome} in ${Date.now() - started} ms: ${summary.iterations} step(s), ${u.input_tokens} in / ${u.output_tokens} out, cache read ${u.cache_read_input_tokens} / write ${u.cache_creation_input_tokens}, session $${summary.costUsd.toFixed(4)}`,
      );
      deps.onTurnEnded?.(summary);
      return summary;
    } finally {
      const runtime = deps.runtime();
      if (runtime && runtime.queued.length > 0) void this.runQueued();
    }
  }

  /** Starts the next turn on what waits in the runtime's queue (steering that missed the last turn needs no second prompt). */
  private async runQueued(): Promise<void> {
    await this.session.idle();
    const runtime = this.deps.runtime();
    if (!runtime || runtime.queued.length === 0 || this.session.isRunning) return;
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
}
