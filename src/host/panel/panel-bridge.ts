// Maps the runtime's events (T12) onto the panel's protocol. The webview knows
// nothing of the runtime; this is the one place that translates, turn by turn.
import { type RuntimeEvent } from '../../runtime/events';
import { type ContextInfo } from '../../runtime/context/context-window';
import { type Plan } from '../../runtime/plan';
import { type ImageBlock, type Message, type ToolResultBlock, type Usage } from '../../runtime/types';
import { splitAttachments } from '../../runtime/session/user-text';
import { ABORTED_RESULT } from '../../runtime/session/history';
import { policyReasonText } from './policy-text';
import { approvalQuestion, subagentAsks, whyText } from '../../webview/approval-wording';
import { type PermissionRequest } from '../../runtime/policy/permissions';
import { SubagentCards } from './subagent-cards';
import { describeToolUse } from '../../runtime/tool-summary';
import { english, type Translate } from '../../webview/l10n-format';
import { Attachment, SUBAGENT_STEPS_SHOWN, type HostEvent, type ImageData, MAX_COMPOSER_IMAGES, type PanelSnapshot, type PermissionSettlement, type SessionInfo, type ToolView, type TranscriptItem } from '../../webview/protocol';
import { browserPageUrl, diffStats, MAX_MCP_CHARS, toolViewFromInput } from '../../webview/tool-view';
import { type BackgroundEvent } from '../../tools/shell/background';
import { BackgroundFeed } from './background-feed';
import { describeFailure, loopCard, retryReason, spendCapCard } from './failure-text';
import { permissionItemId } from '../approvals/permission-ids';

export interface PanelBridgeOptions {
  /** What an MCP tool is (server, tool, description), for its permission card. */
  describeTool?: (name: string) => { server: string; tool: string; description: string } | undefined;
  /** How the cards name the service ("Anthropic", "the API server"). */
  provider?: () => string;
  /** True while the models are paid for by the user's editor subscription (provider vscode-lm): the footer says "included", not $0. */
  costIncluded?: () => boolean;
  /** turnstone.maxCostPerTurnUsd now (0: none): a session-cap card offers one more turn's worth when it is set. */
  turnCapUsd?: () => number;
  /** The user's language for the words the bridge writes (vscode.l10n.t in the editor; English otherwise). */
  translate?: Translate;
}

/** What a resumed session's panel is built from. */
export interface ResumedSession {
  messages: readonly Message[];
  /** The turn of the checkpoint each user message (by index) began. */
  checkpointAt: ReadonlyMap<number, number>;
  /** What could not be read of the session file. */
  warnings: readonly string[];
  plan: Plan;
  session: SessionInfo;
  /** Its usage as last saved (none: no usage line). */
  usage: Usage | undefined;
  /** Its cost; undefined when a request's model had no price. */
  costUsd: number | undefined;
  context: ContextInfo;
  /** Each subagent's saved messages, by the `agent` tool use that ran it: its block lists what it did. */
  subagents?: Readonly<Record<string, readonly Message[]>>;
}

type ErrorItem = Extract<TranscriptItem, { kind: 'error' }>;
type UserItem = Extract<TranscriptItem, { kind: 'user' }>;

/**
 * The one author of what the panel shows: items made from the runtime's events (handle), and the few
 * the host makes itself (a message the user sent, a card it raises, a restored transcript). Nothing else
 * posts items, so ids and order have one owner.
 */
export class PanelBridge {
  private turnId = '';
  private userItems = 0;
  /** The user messages posted in this session, by item id (a checkpoint's turn is added to them later). */
  private readonly sent = new Map<string, UserItem>();
  private stepId: string | undefined;
  private textId: string | undefined;
  private thinkingId: string | undefined;
  private blockCounter = 0;
  private readonly inputs = new Map<string, { name: string; input: Record<string, unknown> }>();
  /** Tool uses the user (or a rule) denied: their result is an error, but the card says "Denied". */
  private readonly denied = new Set<string>();
  /** Error cards of failed turns not yet followed by a successful one. */
  private unresolved: Extract<TranscriptItem, { kind: 'error' }>[] = [];
  /** Issue 47 items 4–5: the messages posted for the next turn (not steering), and those that started the running one. */
  private nextTurnUsers: string[] = [];
  private turnUsers: string[] = [];
  /** The messages of the last turn, when it failed before any reply: what a Retry sends again. */
  private failedUsers: string[] = [];
  /** The steps of the running turn that showed something of a reply (not discarded since). */
  private readonly repliedSteps = new Set<string>();
  /** Tool uses whose output streamed into their card (tool_progress). */
  private readonly streamed = new Set<string>();
  private readonly describeTool: NonNullable<PanelBridgeOptions['describeTool']>;
  private readonly provider: NonNullable<PanelBridgeOptions['provider']>;
  private readonly costIncluded: NonNullable<PanelBridgeOptions['costIncluded']>;
  private readonly turnCapUsd: NonNullable<PanelBridgeOptions['turnCapUsd']>;
  private readonly t: Translate;
  /** The cards of bash tool uses that started background commands, and what those print. */
  private readonly background: BackgroundFeed;
  /** The cards of running subagents. */
  private readonly subagents = new SubagentCards();

  constructor(
    private readonly post: (event: HostEvent) => void,
    options: PanelBridgeOptions = {},
  ) {
    this.describeTool = options.describeTool ?? (() => undefined);
    this.provider = options.provider ?? (() => 'Anthropic');
    this.turnCapUsd = options.turnCapUsd ?? (() => 0);
    this.costIncluded = options.costIncluded ?? (() => false);
    this.t = options.translate ?? english;
    this.background = new BackgroundFeed(post);
  }

  /** Nothing paid so far and the editor's subscription pays from here on. */
  private included(costUsd: number): { costIncluded?: true } {
    return costUsd === 0 && this.costIncluded() ? { costIncluded: true } : {};
  }

  /** An event of the session's background commands: the card that started it follows it. */
  backgroundEvent(event: BackgroundEvent): void {
    this.background.handle(event);
  }

  /** Whether a card of this transcript follows background command `id` (the panel's Stop may only name those). */
  followsBackground(id: string): boolean {
    return this.background.follows(id);
  }

  /** A message the user sent: typed, steered into the running turn, or queued for the next. Returns its item's id. */
  userMessage(message: Omit<UserItem, 'kind' | 'id'>): string {
    const item: UserItem = { kind: 'user', id: `u${++this.userItems}`, ...message };
    this.sent.set(item.id, item);
    if (message.delivery !== 'steer') this.nextTurnUsers.push(item.id);
    this.post({ type: 'item_add', item });
    return item.id;
  }

  /** Issue 47 items 4–5: a message the model has not got (waiting for a key, failed, replaced), or (undefined) sent after all. */
  userUnsent(itemId: string, unsent: UserItem['unsent']): void {
    const item = this.sent.get(itemId);
    if (!item || item.unsent === unsent) return;
    const { unsent: _was, ...rest } = item;
    const next: UserItem = unsent ? { ...rest, unsent } : rest;
    this.sent.set(itemId, next);
    this.post({ type: 'item_add', item: next });
  }

  /** A message held back (waiting for a key): shown, but it starts no turn until userForNextTurn names it. */
  userWithdrawn(itemId: string): void {
    this.nextTurnUsers = this.nextTurnUsers.filter((id) => id !== itemId);
  }

  /** A held message is sent now: the next turn is its. */
  userForNextTurn(itemId: string): void {
    if (this.sent.has(itemId) && !this.nextTurnUsers.includes(itemId)) this.nextTurnUsers.push(itemId);
  }

  /** The checkpoint the message's turn took: the message names it from now on (its "Restore checkpoint"). */
  userCheckpoint(itemId: string, turn: number): void {
    const item = this.sent.get(itemId);
    if (!item) return;
    const named = { ...item, checkpointTurn: turn };
    this.sent.set(itemId, named);
    this.post({ type: 'item_add', item: named });
  }

  /** A card the host raises itself (no key yet, a session that cannot be saved, an image refused); returns it. */
  hostCard(card: Omit<ErrorItem, 'kind' | 'id'> & { id?: string }): ErrorItem {
    const item: ErrorItem = { kind: 'error', ...card, id: card.id ?? this.newBlockId(`h${card.errorKind}-`) };
    this.post({ type: 'item_add', item });
    return item;
  }

  /** The same card again, now settled (`resolved`), with new words (which a later turn's end keeps). */
  settleHostCard(item: ErrorItem, message: string): void {
    this.unresolved = this.unresolved.filter((i) => i.id !== item.id);
    const { hint: _hint, ...rest } = item;
    this.post({ type: 'item_add', item: { ...rest, message, resolved: true } });
  }

  /** A whole transcript at once (a new or resumed session): what any earlier turn left open is forgotten. */
  restore(snapshot: PanelSnapshot): void {
    this.closeBlocks();
    this.inputs.clear();
    this.denied.clear();
    this.streamed.clear();
    this.unresolved = [];
    this.sent.clear();
    this.nextTurnUsers = [];
    this.turnUsers = [];
    this.failedUsers = [];
    this.repliedSteps.clear();
    this.background.reset();
    this.post({ type: 'restore', snapshot });
  }

  /**
   * A resumed session at once: its transcript (messages name their checkpoints), plan and usage. A torn or
   * damaged line of its file was skipped: the transcript says so where the user is looking, not only in the log.
   */
  restoreSession(saved: ResumedSession): void {
    const t = this.t;
    const u = saved.usage;
    this.restore({
      items: [
        ...itemsFromHistory(saved.messages, saved.checkpointAt, saved.subagents, this.t),
        ...(saved.warnings.length > 0
          ? [{ kind: 'error' as const, id: 'load-warnings', message: t('Parts of this session file could not be read and were skipped:\n{0}', saved.warnings.slice(0, 5).join('\n')), errorKind: 'session_load', retryable: false }]
          : []),
      ],
      turn: 'idle',
      notices: [],
      queued: [],
      plan: saved.plan.map((todo) => ({ ...todo })),
      session: saved.session,
      ...(u
        ? {
            usage: {
              inputTokens: u.input_tokens,
              outputTokens: u.output_tokens,
              cacheReadTokens: u.cache_read_input_tokens,
              cacheWriteTokens: u.cache_creation_input_tokens,
              ...(saved.costUsd !== undefined ? { costUsd: saved.costUsd, ...this.included(saved.costUsd) } : {}),
              contextTokens: saved.context.tokens,
              contextWindow: saved.context.window,
            },
          }
        : {}),
    });
  }

  /** Where and how a permission request was answered ("Denied in the dialog: use make"). */
  permissionSettled(toolUseId: string, settlement: PermissionSettlement): void {
    this.post({ type: 'permission_settled', requestId: permissionItemId(toolUseId), settlement });
  }

  /** "Edit proposal" was chosen: the request's card says the proposal is now editable. */
  permissionEditing(item: TranscriptItem | undefined): void {
    if (item?.kind === 'permission' && !item.settled) this.post({ type: 'item_add', item: { ...item, editing: true } });
  }

  handle(event: RuntimeEvent): void {
    switch (event.type) {
      case 'turn_started':
        this.turnId = event.turnId;
        this.turnStarted();
        this.post({ type: 'turn', state: 'running' });
        break;
      case 'step_started':
        this.closeBlocks();
        this.stepId = `${this.turnId}:${event.step}`;
        break;
      case 'text_delta':
        if (this.thinkingId) this.closeBlocks();
        this.textId ??= this.newBlockId('a');
        this.repliedSteps.add(this.stepId ?? '');
        this.post({ type: 'assistant_delta', id: this.textId, text: event.text, ...this.step() });
        break;
      case 'thinking_delta':
        if (this.textId) this.closeBlocks();
        this.thinkingId ??= this.newBlockId('t');
        this.repliedSteps.add(this.stepId ?? '');
        this.post({ type: 'thinking_delta', id: this.thinkingId, text: event.thinking, ...this.step() });
        break;
      case 'thinking_done':
        if (this.thinkingId) this.post({ type: 'block_end', id: this.thinkingId, durationMs: Math.max(0, Math.round(event.ms)) });
        this.thinkingId = undefined;
        break;
      case 'tool_use_started':
        this.closeBlocks();
        this.inputs.set(event.id, { name: event.name, input: {} });
        this.repliedSteps.add(this.stepId ?? '');
        this.post({ type: 'item_add', item: { kind: 'tool', id: event.id, name: event.name, status: 'running', view: toolViewFromInput(event.name, {}), ...this.step() } });
        break;
      case 'tool_use_ready':
        this.inputs.set(event.id, { name: event.name, input: event.input });
        this.post({ type: 'tool_update', id: event.id, view: toolViewFromInput(event.name, event.input) });
        break;
      case 'permission_requested':
        this.permissionRequested(event.request);
        break;
      case 'permission_decided': {
        // The card's settlement has one author: the window's pending requests, which know who answered and how
        // (window-listeners.ts). Here only the tool's own card learns it was denied.
        if (event.decision === 'deny') {
          this.denied.add(event.toolUseId);
          this.post({ type: 'tool_update', id: event.toolUseId, status: 'denied', error: policyReasonText(event.reason, this.t).slice(0, 100_000) });
        }
        break;
      }
      case 'tool_progress':
        this.streamed.add(event.id);
        this.post({ type: 'tool_output', id: event.id, chunk: event.chunk });
        break;
      case 'tool_finished':
        this.post(this.toolFinished(event));
        break;
      case 'usage':
        this.post({
          type: 'usage',
          usage: {
            inputTokens: event.cumulative.input_tokens,
            outputTokens: event.cumulative.output_tokens,
            cacheReadTokens: event.cumulative.cache_read_input_tokens,
            cacheWriteTokens: event.cumulative.cache_creation_input_tokens,
            // Unknown when a request's model had no price: no figure rather than a wrong one.
            ...(event.unpricedRequests === 0 ? { costUsd: event.costUsd, ...this.included(event.costUsd) } : {}),
            contextTokens: event.context.tokens,
            contextWindow: event.context.window,
          },
        });
        break;
      case 'queue_changed':
        // Steering that missed a turn is already shown as sent; only input queued on purpose waits in the queue row.
        this.post({ type: 'queued', items: event.items.filter((q) => q.delivery === 'queue').map((q) => ({ id: q.id, text: (q.label ?? q.text).slice(0, 100_000) })) });
        break;
      case 'compaction':
        this.closeBlocks();
        this.post({ type: 'item_add', item: { kind: 'compaction', id: this.newBlockId('c'), messagesRemoved: event.removedMessageCount, ...(event.droppedImages ? { imagesDropped: event.droppedImages } : {}) } });
        break;
      case 'retrying':
        this.post({ type: 'reconnecting', attempt: event.attempt, maxAttempts: event.maxAttempts, reason: retryReason(event.reason, this.t), delayMs: Math.max(0, Math.round(event.delayMs)) });
        break;
      case 'step_discarded':
        this.post({ type: 'step_discarded', stepId: `${this.turnId}:${event.step}` });
        this.repliedSteps.delete(`${this.turnId}:${event.step}`);
        this.textId = undefined;
        this.thinkingId = undefined;
        break;
      case 'warning':
        this.post({ type: 'item_add', item: { kind: 'error', id: this.newBlockId('w'), message: event.message, errorKind: event.kind, retryable: false } });
        break;
      case 'turn_failed': {
        this.closeBlocks();
        // Plain words for the card; the raw message and kind are in the log (session controller).
        const cap = event.spendCap ? spendCapCard(event.spendCap, this.turnCapUsd(), this.t) : undefined;
        const loop = event.loop ? loopCard(event.loop, this.t) : undefined;
        const text = cap ?? loop ?? describeFailure(event.kind, event.message, this.provider(), this.t);
        const item: Extract<TranscriptItem, { kind: 'error' }> = {
          kind: 'error',
          id: this.newBlockId('e'),
          message: text.message,
          errorKind: event.kind,
          retryable: text.action === 'retry',
          cause: text.cause,
          action: text.action,
          ...(text.hint ? { hint: text.hint } : {}),
          ...(cap ? { continueUsd: cap.continueUsd, setting: cap.setting } : {}),
          ...(loop ? { setting: loop.setting } : {}),
          ...(event.requestId && /^[A-Za-z0-9_.:-]{1,200}$/.test(event.requestId) ? { requestId: event.requestId } : {}),
        };
        this.unresolved.push(item);
        this.turnFailed();
        this.post({ type: 'item_add', item });
        this.post({ type: 'turn', state: 'idle' });
        break;
      }
      case 'turn_ended':
        this.closeBlocks();
        // The retry (or the next turn) went through: earlier failures are history, not calls to action.
        for (const item of this.unresolved) this.post({ type: 'item_add', item: { ...item, resolved: true } });
        this.unresolved = [];
        this.failedUsers = [];
        this.post({ type: 'turn', state: 'idle' });
        break;
      case 'turn_aborted':
        this.closeBlocks();
        this.failedUsers = [];
        this.post({ type: 'item_add', item: { kind: 'interrupted', id: this.newBlockId('x') } });
        this.post({ type: 'turn', state: 'idle' });
        break;
      case 'plan_updated':
        this.post({ type: 'plan', todos: event.todos.map((todo) => ({ ...todo })) });
        break;
      case 'subagent_started':
        this.post(this.subagents.started(event));
        break;
      case 'subagent_event':
        this.subagentEvent(event.agentId, event.event);
        break;
      case 'subagent_finished':
      case 'interjection_applied':
      case 'prompt_cache':
        break;
    }
  }

  /**
   * Issue 47 items 4–5. A turn starts with the messages posted for it; one without any is a Retry (or a
   * continue) of the last failed messages. Those sent now lose their "not sent" mark; a failed message a new
   * prompt takes the place of stays unsent (the runtime drops it from the history: it is never merged into
   * the new one), with Edit only.
   */
  private turnStarted(): void {
    const fresh = this.nextTurnUsers;
    this.nextTurnUsers = [];
    if (fresh.length > 0) for (const id of this.failedUsers) this.userUnsent(id, 'not_sent');
    this.turnUsers = fresh.length > 0 ? fresh : this.failedUsers;
    this.failedUsers = [];
    this.repliedSteps.clear();
    for (const id of this.turnUsers) this.userUnsent(id, undefined);
  }

  /** A turn that failed before any reply: its messages are failed ones, with Retry and Edit. */
  private turnFailed(): void {
    if (this.repliedSteps.size > 0) {
      this.failedUsers = [];
      return;
    }
    this.failedUsers = this.turnUsers;
    for (const id of this.failedUsers) this.userUnsent(id, 'failed');
  }

  /**
   * A permission request's card, inside the card of the tool use that asks, or for a subagent's request inside
   * the subagent's card (`agentId`), naming it. One wording with the dialog and the notification (approval-wording.ts).
   */
  private permissionRequested(r: PermissionRequest, agentId?: string): void {
    const edit = r.need === 'edit';
    const mcp = this.describeTool(r.toolName);
    const question = approvalQuestion({ need: r.need, toolName: r.toolName, subject: r.subject, creates: r.preview?.before === null, mcp }, this.t);
    const agent = agentId !== undefined ? this.subagents.agentOf(agentId) : undefined;
    const title = (agent ? subagentAsks(agent, question, this.t) : question).slice(0, 2000);
    this.post({
      type: 'item_add',
      item: {
        kind: 'permission',
        id: permissionItemId(r.toolUseId),
        toolId: agentId ?? r.toolUseId,
        toolName: r.toolName,
        title,
        subject: mcp ? JSON.stringify(r.input, null, 2).slice(0, 100_000) : r.subject,
        reason: whyText(policyReasonText(r.reason, this.t), this.t).slice(0, 2000),
        ...(mcp?.description ? { description: mcp.description.slice(0, 2000) } : {}),
        canOpenDiff: r.preview !== undefined,
        canAllowSession: edit,
        ...((r.need === 'command' || r.need === 'fetch' || r.need === 'browser') && r.suggestedRule ? { rule: r.suggestedRule.slice(0, 2000) } : {}),
        ...this.step(),
      },
    });
  }

  /** A subagent's own event: its card follows what it does; its approvals are asked like the parent's. */
  private subagentEvent(agentId: string, event: RuntimeEvent): void {
    if (event.type === 'permission_requested') this.permissionRequested(event.request, agentId);
    const update = this.subagents.event(agentId, event);
    if (update) this.post(update);
  }

  private toolFinished(event: Extract<RuntimeEvent, { type: 'tool_finished' }>): HostEvent {
    const use = this.inputs.get(event.id);
    this.inputs.delete(event.id);
    const base = toolViewFromInput(event.name, use?.input ?? {});
    let view = base;
    if (event.fileChange && base.kind === 'edit') view = { ...base, ...diffStats(event.fileChange.before, event.fileChange.after, base.path) };
    else if (base.kind === 'read' && !event.isError && event.counts?.lines !== undefined) view = { ...base, lines: event.counts.lines };
    else if (base.kind === 'search' && !event.isError && event.counts?.matches !== undefined) view = { ...base, matches: event.counts.matches };
    else if (base.kind === 'mcp' && !event.isError) view = { ...base, output: clipOutput(event.content) };
    else if (base.kind === 'agent') view = this.subagents.finalView(event.id, use?.input ?? {}, event.content);
    else if (base.kind === 'browser' && !event.isError) view = withPage(base, event.content);
    // A command's output is shown once: the streamed tail stays, the exit code comes structured (never parsed from
    // the text), and only what is not in the output (a timeout, what the sandbox blocked) joins it as an error line.
    // The runtime's "aborted" marker (for the model) is the panel's "Interrupted" (issue 47 item 8).
    let error = event.isError ? (event.aborted === true && event.content === ABORTED_RESULT ? this.t('Interrupted') : event.content) : undefined;
    if (base.kind === 'bash' && event.exit) {
      view = { ...base, exitCode: event.exit.code, ...(this.streamed.has(event.id) ? {} : { output: clipOutput(event.content) }) };
      error = event.exit.note;
    }
    if (base.kind === 'bash' && event.background && !event.isError) view = this.background.started(event.id, base, event.background.id);
    this.streamed.delete(event.id);
    const aborted = event.aborted === true;
    const denied = this.denied.delete(event.id);
    return {
      type: 'tool_update',
      id: event.id,
      status: denied ? 'denied' : aborted ? 'aborted' : event.isError ? 'error' : 'done',
      view,
      ...(error ? { error: error.slice(0, 100_000) } : {}),
      ...(event.images?.length ? { images: panelImages(event.images) } : {}),
    };
  }

  private closeBlocks(): void {
    if (this.textId) this.post({ type: 'block_end', id: this.textId });
    if (this.thinkingId) this.post({ type: 'block_end', id: this.thinkingId });
    this.textId = undefined;
    this.thinkingId = undefined;
  }

  private step(): { stepId?: string } {
    return this.stepId ? { stepId: this.stepId } : {};
  }

  private newBlockId(prefix: string): string {
    return `${prefix}${++this.blockCounter}-${this.turnId}`;
  }
}

const clipOutput = (text: string) => (text.length > MAX_MCP_CHARS ? `${text.slice(0, MAX_MCP_CHARS - 1)}…` : text);

/** The panel's copy of images: only the fields it shows (at most the protocol's limit). */
function panelImages(images: readonly ImageBlock[]): ImageData[] {
  return images.slice(0, MAX_COMPOSER_IMAGES).map(({ mediaType, data, width, height }) => ({ mediaType, data, width, height }));
}

/** Transcript items for a resumed session's history (tool cards rebuilt from tool uses and results). */
export function itemsFromHistory(messages: readonly Message[], checkpointAt: ReadonlyMap<number, number> = new Map(), subagents: Readonly<Record<string, readonly Message[]>> = {}, t: Translate = english): TranscriptItem[] {
  const items: TranscriptItem[] = [];
  const tools = new Map<string, number>();
  let n = 0;
  for (const [index, message] of messages.entries()) {
    const checkpointTurn = checkpointAt.get(index);
    // A prompt's images follow its text in the same message: they join that item.
    let userItem: Extract<TranscriptItem, { kind: 'user' }> | undefined;
    for (const block of message.content) {
      const id = `h${++n}`;
      if (block.type === 'text' && block.text.trim()) {
        if (message.role === 'user') {
          // The user's words in the bubble, what they attached as chips (never the attached text itself).
          const { words, labels, kinds } = splitAttachments(block.text);
          const attachments = labels.map((label, i) => ({ kind: chipKind(kinds[i], label), path: label, label }));
          items.push((userItem = { kind: 'user', id, text: words, ...(attachments.length ? { attachments } : {}), ...(checkpointTurn !== undefined && !userItem ? { checkpointTurn } : {}) }));
        } else {
          items.push({ kind: 'assistant', id, text: block.text });
        }
      } else if (block.type === 'image') {
        const image = { mediaType: block.mediaType, data: block.data, width: block.width, height: block.height };
        if (userItem) userItem.images = [...(userItem.images ?? []), image];
        else items.push((userItem = { kind: 'user', id, text: '', images: [image] }));
      } else if (block.type === 'thinking' && block.thinking !== '') {
        // An OpenAI reasoning item without a summary is kept for the model only.
        items.push({ kind: 'thinking', id, text: block.thinking });
      } else if (block.type === 'tool_use') {
        tools.set(block.id, items.length);
        items.push({ kind: 'tool', id: block.id, name: block.name, status: 'done', view: toolViewFromInput(block.name, block.input) });
      } else if (block.type === 'tool_result') {
        const index = tools.get(block.tool_use_id);
        const item = index === undefined ? undefined : items[index];
        if (item?.kind !== 'tool') continue;
        const status = block.is_error ? (wasAborted(block) ? 'aborted' : 'error') : 'done';
        // Commands and MCP tools show their result as output (once, in plain colours); other tools' failures as an error line.
        const saved = savedFacts(item.view, block);
        const view = saved.kind === 'agent' ? { ...saved, ...subagentSteps(subagents[block.tool_use_id] ?? []) } : saved;
        const shown = (view.kind === 'bash' || view.kind === 'mcp') && status !== 'aborted';
        // As live: a command's exit note (a timeout, what the sandbox blocked) is its only error line.
        const error = view.kind === 'bash' && block.exit ? block.exit.note : block.is_error && !shown ? (status === 'aborted' && block.content === ABORTED_RESULT ? t('Interrupted') : block.content) : undefined;
        items[index!] = {
          ...item,
          status,
          view: shown ? { ...view, output: clipOutput(block.content) } : view,
          ...(error ? { error: error.slice(0, 100_000) } : {}),
          ...(block.images?.length ? { images: panelImages(block.images) } : {}),
        };
      }
    }
  }
  return items;
}

/** What a result saved beside its text (a command's exit code, a read's lines, a search's matches), as the live card shows it. */
function savedFacts(view: ToolView, block: ToolResultBlock): ToolView {
  if (view.kind === 'bash' && block.exit) return { ...view, exitCode: block.exit.code };
  if (block.is_error) return view;
  if (view.kind === 'read' && block.counts?.lines !== undefined) return { ...view, lines: block.counts.lines };
  if (view.kind === 'search' && block.counts?.matches !== undefined) return { ...view, matches: block.counts.matches };
  if (view.kind === 'agent') return { ...view, report: block.content.slice(0, 100_000) };
  if (view.kind === 'browser') return withPage(view, block.content);
  return view;
}

/** A browser card with the page's URL after its action (the result's `URL:` line), when there is one. */
function withPage(view: Extract<ToolView, { kind: 'browser' }>, result: string): ToolView {
  const page = browserPageUrl(result);
  return page ? { ...view, page } : view;
}

/** A resumed subagent block's steps: each tool use its saved transcript holds, with how it ended. */
function subagentSteps(messages: readonly Message[]): { steps: NonNullable<Extract<ToolView, { kind: 'agent' }>['steps']>; toolUses: number } {
  const ended = new Map<string, ToolResultBlock>();
  for (const m of messages) if (m.role === 'user') for (const b of m.content) if (b.type === 'tool_result') ended.set(b.tool_use_id, b);
  const steps = messages.flatMap((m) =>
    m.role === 'assistant'
      ? m.content.flatMap((b) => {
          if (b.type !== 'tool_use') return [];
          const result = ended.get(b.id);
          const status = !result ? ('aborted' as const) : result.is_error ? (wasAborted(result) ? ('aborted' as const) : ('error' as const)) : ('done' as const);
          return [{ id: b.id, summary: describeToolUse(b.name, b.input), status }];
        })
      : [],
  );
  return { steps: steps.slice(-SUBAGENT_STEPS_SHOWN), toolUses: steps.length };
}

/**
 * Whether a saved result was interrupted: the session file says so (`aborted`). Sessions saved before that field
 * existed only have the text, so an error result without the field whose whole text is the marker counts as aborted.
 */
function wasAborted(block: ToolResultBlock): boolean {
  return block.aborted === true || (block.aborted === undefined && block.content === ABORTED_RESULT);
}

const CHIP_KINDS = Attachment.shape.kind.options;

/** A resumed attachment's chip: the kind it was sent with, else (older sessions) a selection by its `:from-to` label. */
function chipKind(kind: string | undefined, label: string): Attachment['kind'] {
  const known = CHIP_KINDS.find((k) => k === kind);
  if (known) return known;
  return /:\d+-\d+$/.test(label) ? 'selection' : 'file';
}
