// The one message protocol between the extension host and the chat webview.
// Declared once as zod schemas; both sides validate what they receive and drop
// (and log) anything malformed, since the webview renders hostile model output.
//
// The webview knows nothing about the runtime: the host maps runtime events
// (T12) into the HostToWebview messages below. A typical turn, as the host
// would post it (ids are the host's, unique per session):
//
//   { type: 'turn', state: 'running' }
//   { type: 'item_add', item: { kind: 'user', id: 'u1', text: 'fix the test' } }
//   { type: 'thinking_delta', id: 'th1', text: 'Let me look…', stepId: 's1' }
//   { type: 'block_end', id: 'th1', durationMs: 4000 }
//   { type: 'assistant_delta', id: 'a1', text: 'I will read ', stepId: 's1' }
//   { type: 'assistant_delta', id: 'a1', text: 'the file.' }
//   { type: 'block_end', id: 'a1' }
//   { type: 'item_add', item: { kind: 'tool', id: 'toolu_1', name: 'read_file', status: 'running',
//       view: { kind: 'read', path: 'src/a.ts' }, stepId: 's1' } }
//   { type: 'tool_update', id: 'toolu_1', status: 'done', view: { kind: 'read', path: 'src/a.ts', lines: 120 } }
//   { type: 'usage', usage: { inputTokens: 1200, outputTokens: 80, cacheReadTokens: 900, cacheWriteTokens: 0, costUsd: 0.004 } }
//   { type: 'turn', state: 'idle' }
//
// Deltas are coalesced by DeltaBatcher (./batcher.ts), which may wrap several
// messages in one `batch`. ChatPanelProvider.post() does both the batching and
// the bookkeeping needed to answer the webview's `ready` with a `restore`.
// Namespace import: lets esbuild drop the parts of zod we do not use (450 KB → 90 KB in the webview bundle).
import * as z from 'zod';

const Id = z.string().min(1).max(200);
const Text = z.string().max(5_000_000);
const Short = z.string().max(2_000);
const Count = z.number().int().nonnegative();
/** A background command's id, as the bash tool names it (bash_1, …). */
const BackgroundId = z.string().regex(/^bash_[1-9][0-9]{0,8}$/);

/** Only these link targets ever leave the webview (model output is hostile). */
export function isSafeLinkHref(href: string): boolean {
  try {
    const url = new URL(href);
    return url.protocol === 'https:' || url.protocol === 'http:' || url.protocol === 'mailto:';
  } catch {
    return false;
  }
}

// ---------------------------------------------------------------------------
// Shared shapes

/** Context the user attached with `@`: the host offers candidates, the webview sends them back unchanged. */
export const Attachment = z.object({
  /** folder: its listing, not its contents; problems/terminal/git: what the editor has right now. */
  kind: z.enum(['file', 'selection', 'folder', 'problems', 'terminal', 'git']),
  /** Workspace-relative or absolute path, as the host offered it. */
  path: Short,
  /** What the chip shows, e.g. "main.ts" or "main.ts:10-24". */
  label: Short,
  range: z.object({ startLine: Count, endLine: Count }).optional(),
  /** Estimated tokens of what will be sent, once the host has measured it (`attachment_measured`). */
  tokens: Count.optional(),
});
export type Attachment = z.infer<typeof Attachment>;

/**
 * An image pasted or dropped into the composer, already downscaled by the
 * webview (≤ 1568 px long edge). The host checks the bytes again before the
 * model sees them: the webview is not trusted to have done so.
 */
export const ImageData = z.object({
  mediaType: z.enum(['image/png', 'image/jpeg', 'image/gif', 'image/webp']),
  /**
   * base64, at most ~5 MB decoded. Not pattern-checked here: a regex over 27 MB
   * of a 50-screenshot restore doubled the panel's open time, and the value only
   * ever becomes an <img> src set with setAttribute under a raster media type,
   * where stray characters make a broken image, never markup or script.
   */
  data: z.string().max(7_000_000),
  width: Count,
  height: Count,
});
export type ImageData = z.infer<typeof ImageData>;
/** The composer's (and Anthropic's) per-message image limit. */
export const MAX_COMPOSER_IMAGES = 20;

/** A subagent's block lists its last tool uses, at most this many. */
export const SUBAGENT_STEPS_SHOWN = 50;

export const ToolStatus = z.enum(['running', 'done', 'error', 'denied', 'aborted']);
export type ToolStatus = z.infer<typeof ToolStatus>;

/**
 * What a tool card shows. One variant per family of tools; `toolViewFromInput`
 * in ./tool-view.ts builds it from a tool use's name and input.
 */
export const ToolView = z.discriminatedUnion('kind', [
  /** read_file: path and the line range asked for; `lines` = lines returned. */
  z.object({ kind: z.literal('read'), path: Short, offset: Count.optional(), limit: Count.optional(), lines: Count.optional() }),
  /** write_file / edit_file: +/- line counts and an optional unified diff (expandable). */
  z.object({
    kind: z.literal('edit'),
    path: Short,
    added: Count,
    removed: Count,
    created: z.boolean().optional(),
    diff: Text.optional(),
  }),
  /**
   * bash: the command, a live tail of its output (tool_output appends) and the exit code once known.
   * `background`: it started a background command, which the card follows (its last lines in `output`) until it ends.
   */
  z.object({
    kind: z.literal('bash'),
    command: z.string().max(100_000),
    description: Short.optional(),
    output: Text.optional(),
    exitCode: z.number().int().nullable().optional(),
    background: z.object({ id: BackgroundId, state: z.enum(['running', 'exited', 'killed']), exitCode: z.number().int().nullable().optional() }).optional(),
  }),
  /** glob_search / grep_search: the pattern and how many matches/files came back. */
  z.object({
    kind: z.literal('search'),
    mode: z.enum(['glob', 'grep']),
    pattern: Short,
    path: Short.optional(),
    matches: Count.optional(),
    files: Count.optional(),
  }),
  /** An MCP tool (mcp__<server>__<tool>): its input as JSON, and what it returned (text, structured content as JSON). */
  z.object({
    kind: z.literal('mcp'),
    server: Short,
    tool: Short,
    input: z.string().max(100_000),
    output: Text.optional(),
  }),
  /** web_fetch: the URL asked for. */
  z.object({ kind: z.literal('fetch'), url: Short }),
  /**
   * browser: the action, the URL it opens and what it acts on (a selector, a point, a key); `page`: the page's URL
   * after the action (from its result); its screenshot is the card's image.
   */
  z.object({ kind: z.literal('browser'), action: Short, url: Short.optional(), target: Short.optional(), page: Short.optional() }),
  /** memory: the command and the `/memories/…` path (`old → new` for a rename); a write shows as "Memory updated". */
  z.object({ kind: z.literal('memory'), command: z.enum(['view', 'create', 'str_replace', 'insert', 'delete', 'rename']), path: Short }),
  /**
   * agent: a subagent's block. Its tool uses one line each (the latest last), its tokens and time so far,
   * and once it is over its report (what the main agent was told).
   */
  z.object({
    kind: z.literal('agent'),
    agent: Short,
    description: Short,
    steps: z.array(z.object({ id: Id, summary: Short, status: ToolStatus })).max(SUBAGENT_STEPS_SHOWN).optional(),
    toolUses: Count.optional(),
    tokens: Count.optional(),
    elapsedMs: Count.optional(),
    report: Text.optional(),
  }),
  /** Anything else (unknown tools): a one-line summary. */
  z.object({ kind: z.literal('other'), summary: Short }),
]);
export type ToolView = z.infer<typeof ToolView>;

/** allow_always: allow, and save the request's rule to the workspace settings ("Always allow <rule>"). */
export const PermissionDecision = z.enum(['allow', 'allow_session', 'allow_always', 'deny']);
export type PermissionDecision = z.infer<typeof PermissionDecision>;

/** How a permission request ended; `by` says where it was answered (the native dialog, the panel, a timeout…). */
export const PermissionSettlement = z.object({
  decision: PermissionDecision,
  feedback: z.string().max(20_000).optional(),
  by: z.enum(['panel', 'dialog', 'editor', 'palette', 'policy', 'abort']).optional(),
  /** allow_always: the rule that was saved. */
  rule: Short.optional(),
});
export type PermissionSettlement = z.infer<typeof PermissionSettlement>;

// ---------------------------------------------------------------------------
// Transcript items. `stepId` ties an item to the model step that produced it,
// so a retried step (S6 step_reset) can be dropped with `step_discarded`.

const Base = { id: Id, stepId: Id.optional() };

/** The settings a paused card (spend cap, loop guard) may open. */
const CardSetting = z.enum(['turnstone.maxCostPerTurnUsd', 'turnstone.maxCostPerSessionUsd', 'turnstone.loopGuard.repeats']);

/** Why a turn failed, as the error card explains it (see src/host/panel/failure-text.ts). */
/** `budget`: the provider's account is out of credit; `spend_cap`: one of Turnstone's own spend caps stopped the turn; `loop`: the loop guard did. */
/** `notice`: no failure, an answer the user asked for (the list of `/skills`), shown as a quiet card. */
export const ErrorCause = z.enum(['no_key', 'auth', 'overloaded', 'rate_limit', 'network', 'server', 'budget', 'spend_cap', 'loop', 'context', 'stalled', 'request', 'other', 'notice']);
export type ErrorCause = z.infer<typeof ErrorCause>;

export const TranscriptItem = z.discriminatedUnion('kind', [
  z.object({
    ...Base,
    kind: z.literal('user'),
    /** What the model got: the user's words, or the prompt a custom slash command expanded to. */
    text: Text,
    /** A custom slash command as the user typed it (`/review src/a.ts`): the bubble shows this instead of `text`. */
    slashCommand: z.string().max(20_000).optional(),
    attachments: z.array(Attachment).max(100).optional(),
    images: z.array(ImageData).max(MAX_COMPOSER_IMAGES).optional(),
    /** 'steer': sent while a turn ran; 'queued': was queued for the next turn. */
    delivery: z.enum(['steer', 'queued']).optional(),
    /** The turn checkpoint this message started (taken as its turn began): what "Restore checkpoint" goes back to. */
    checkpointTurn: Count.optional(),
    /**
     * Issue 47 items 4 and 5, a message the model has not got: 'waiting_key' held until an API key is saved (then
     * sent once); 'failed' its turn failed before any reply (Retry, Edit); 'not_sent' a failed message a later
     * prompt replaced (Edit only). None: sent.
     */
    unsent: z.enum(['waiting_key', 'failed', 'not_sent']).optional(),
  }),
  /** Markdown from the model; `open` while it still streams. */
  z.object({ ...Base, kind: z.literal('assistant'), text: Text, open: z.boolean().optional() }),
  z.object({ ...Base, kind: z.literal('thinking'), text: Text, open: z.boolean().optional(), durationMs: Count.optional() }),
  z.object({
    ...Base,
    kind: z.literal('tool'),
    name: Short,
    status: ToolStatus,
    view: ToolView,
    /** Error text (status error/denied), shown under the card. */
    error: z.string().max(100_000).optional(),
    /** Images the tool returned (read_file on a PNG, an MCP screenshot). */
    images: z.array(ImageData).max(MAX_COMPOSER_IMAGES).optional(),
  }),
  z.object({
    ...Base,
    kind: z.literal('error'),
    message: z.string().max(100_000),
    /** The runtime's ModelErrorKind or another short code (for logs and tests; never shown). */
    errorKind: Short.optional(),
    retryable: z.boolean(),
    /** What went wrong, in the user's terms; picks the card's wording and action. */
    cause: ErrorCause.optional(),
    /** A second line: what to do about it. */
    hint: Short.optional(),
    /** The provider's request id, behind a copy button (support asks for it). */
    requestId: z.string().regex(/^[A-Za-z0-9_.:-]{1,200}$/).optional(),
    /**
     * What the card offers: 'retry' a Retry button, 'set_key' the key field,
     * 'continue' "Continue (+$x)" past a spend cap and "Open setting", 'none' nothing
     * (retrying cannot help, e.g. a request the API refused as invalid).
     */
    action: z.enum(['retry', 'set_key', 'continue', 'none']).optional(),
    /** action 'continue': how much more this session may spend when the user continues. */
    continueUsd: z.number().positive().max(1_000_000).optional(),
    /** action 'continue': the VS Code setting "Open setting" shows. */
    setting: CardSetting.optional(),
    /** A later retry (or the next turn) succeeded: the card collapses to one line without buttons. */
    resolved: z.boolean().optional(),
  }),
  /** After Stop: where the turn was interrupted. */
  z.object({ ...Base, kind: z.literal('interrupted') }),
  z.object({
    ...Base,
    kind: z.literal('compaction'),
    tokensBefore: Count.optional(),
    tokensAfter: Count.optional(),
    messagesRemoved: Count.optional(),
    imagesDropped: Count.optional(),
    summary: Text.optional(),
  }),
  /** An inline permission request. Buttons come only from this structure, never from markdown. */
  z.object({
    ...Base,
    kind: z.literal('permission'),
    /** The tool use it gates, if any (for "Open diff"). */
    toolId: Id.optional(),
    toolName: Short,
    /** e.g. "Run this command?" / "Edit src/a.ts?" */
    title: Short,
    /** The command or path, shown monospaced. */
    subject: z.string().max(100_000),
    /** Why Turnstone asks (the policy's reason), one line. */
    reason: Short.optional(),
    /** MCP tools: the tool's description as its server gives it, shown apart from the reason. */
    description: Short.optional(),
    canOpenDiff: z.boolean().optional(),
    /** The proposal opens read-only; true once the user chose "Edit proposal". */
    editing: z.boolean().optional(),
    /** Offer "Allow edits for this session" (edit tools only). */
    canAllowSession: z.boolean().optional(),
    /** Offer "Always allow <rule>": the exact rule it saves (commands and MCP tools). */
    rule: Short.optional(),
    settled: PermissionSettlement.optional(),
  }),
]);
export type TranscriptItem = z.infer<typeof TranscriptItem>;
export type ItemKind = TranscriptItem['kind'];

export const SessionInfo = z.object({
  id: z.string().max(200),
  title: Short,
  model: Short,
});
export type SessionInfo = z.infer<typeof SessionInfo>;

/** Session totals for the footer. */
export const UsageInfo = z.object({
  inputTokens: Count,
  outputTokens: Count,
  cacheReadTokens: Count,
  cacheWriteTokens: Count,
  costUsd: z.number().nonnegative().optional(),
  /** The requests are paid by the editor's subscription (provider vscode-lm): "included" instead of $0. */
  costIncluded: z.literal(true).optional(),
  /** C1: tokens the next request would carry, and the model's window (the footer's context indicator). */
  contextTokens: Count.optional(),
  contextWindow: Count.optional(),
});
export type UsageInfo = z.infer<typeof UsageInfo>;

/** Restricted Mode, missing API key, etc. Actions post `notice_action` back. */
export const Notice = z.object({
  id: Id,
  kind: z.enum(['restricted', 'no_api_key', 'info', 'warning', 'error']),
  text: Short,
  actions: z.array(z.object({ id: Id, label: z.string().max(100) })).max(5),
});
export type Notice = z.infer<typeof Notice>;

export const QueuedInput = z.object({ id: Id, text: Text });
export type QueuedInput = z.infer<typeof QueuedInput>;

export const SlashCommandInfo = z.object({
  name: z.string().min(1).max(100),
  description: Short,
  source: z.enum(['builtin', 'custom']),
  /** For custom commands: the file it comes from, e.g. `.turnstone/commands/review.md`. */
  file: Short.optional(),
});
export type SlashCommandInfo = z.infer<typeof SlashCommandInfo>;

/** One item of the model's plan (todo_write); the panel pins the list above the composer. */
export const PlanTodo = z.object({ content: Short, status: z.enum(['pending', 'in_progress', 'completed']), activeForm: Short });
export type PlanTodo = z.infer<typeof PlanTodo>;
const PlanTodos = z.array(PlanTodo).max(100);

export const TurnState = z.enum(['running', 'idle']);
export type TurnState = z.infer<typeof TurnState>;

export const PermissionModeName = z.enum(['plan', 'ask', 'acceptEdits', 'bypassPermissions']);
/** The composer's mode switch: the setting, and whether Restricted Mode limits it to plan. */
/** `reviewAfterTurn`: edits are written at once and reviewed afterwards (turnstone.edits.review): edit cards link to the review. */
export const PermissionModeInfo = z.object({ mode: PermissionModeName, restricted: z.boolean(), reviewAfterTurn: z.boolean().optional() });
export type PermissionModeInfo = z.infer<typeof PermissionModeInfo>;

/** Everything the panel shows, for `restore` (reload, re-show after hiding, resume). */
export const PanelSnapshot = z.object({
  /** Kept from before when a `restore` leaves it out (a new session does not change the mode). */
  permission: PermissionModeInfo.optional(),
  session: SessionInfo.optional(),
  items: z.array(TranscriptItem).max(200_000),
  turn: TurnState,
  usage: UsageInfo.optional(),
  notices: z.array(Notice).max(20),
  queued: z.array(QueuedInput).max(100),
  /** The session's plan (todo_write); absent or empty: none. */
  plan: PlanTodos.optional(),
});
export type PanelSnapshot = z.infer<typeof PanelSnapshot>;

// ---------------------------------------------------------------------------
// Host → webview

export const HostEvent = z.discriminatedUnion('type', [
  /** Replace everything (answer to `ready`, session resumed, new session). */
  z.object({ type: z.literal('restore'), snapshot: PanelSnapshot }),
  /**
   * Older items, put before everything shown. Lets a long session open from
   * its newest items first (see `restoreEvents`); the rest follows in the
   * background.
   */
  z.object({ type: z.literal('prepend'), items: z.array(TranscriptItem).max(200_000) }),
  z.object({ type: z.literal('session'), session: SessionInfo }),
  /** Append an item (or replace the item with the same id). */
  z.object({ type: z.literal('item_add'), item: TranscriptItem }),
  /** Append model text to the assistant block `id`, opening it if new. */
  z.object({ type: z.literal('assistant_delta'), id: Id, text: Text, stepId: Id.optional() }),
  /** Append thinking text to the thinking block `id`, opening it if new. */
  z.object({ type: z.literal('thinking_delta'), id: Id, text: Text, stepId: Id.optional() }),
  /** Close an assistant or thinking block (its final render; thinking shows its duration). */
  z.object({ type: z.literal('block_end'), id: Id, durationMs: Count.optional() }),
  /** Patch a tool card. `view` replaces the card's view wholesale. */
  z.object({
    type: z.literal('tool_update'),
    id: Id,
    status: ToolStatus.optional(),
    view: ToolView.optional(),
    error: z.string().max(100_000).optional(),
    images: z.array(ImageData).max(MAX_COMPOSER_IMAGES).optional(),
  }),
  /** Append live output to a bash card (the panel keeps a tail). */
  z.object({ type: z.literal('tool_output'), id: Id, chunk: Text }),
  /** S6: the step restarted; drop everything it emitted. */
  z.object({ type: z.literal('step_discarded'), stepId: Id }),
  /** The request was answered elsewhere (native dialog, policy, abort) or the panel's answer was applied. */
  z.object({ type: z.literal('permission_settled'), requestId: Id, settlement: PermissionSettlement }),
  z.object({ type: z.literal('turn'), state: TurnState }),
  /** S6 "Reconnecting… n/m"; cleared by the next content, `turn` idle, or attempt 0. */
  z.object({ type: z.literal('reconnecting'), attempt: Count, maxAttempts: Count, reason: Short.optional(), delayMs: Count.optional() }),
  z.object({ type: z.literal('usage'), usage: UsageInfo }),
  z.object({ type: z.literal('permission_mode'), info: PermissionModeInfo }),
  z.object({ type: z.literal('notices'), notices: z.array(Notice).max(20) }),
  z.object({ type: z.literal('queued'), items: z.array(QueuedInput).max(100) }),
  /** The model rewrote its plan (todo_write): the whole list. */
  z.object({ type: z.literal('plan'), todos: PlanTodos }),
  /** Answer to `attach`: what `@` can offer (open editors, the selection). */
  z.object({ type: z.literal('attach_candidates'), candidates: z.array(Attachment).max(200), query: z.string().max(500).optional() }),
  /** Project instruction files in use (header chip); `restricted`: read in Restricted Mode, where only plan mode runs. */
  z.object({
    type: z.literal('instructions'),
    files: z.array(z.object({ label: Short, chars: Count, included: Count })).max(100),
    notes: z.array(Short).max(20),
    restricted: z.boolean(),
    /** Path-scoped rules (`applyTo`, Cursor's globs) the model has in this session, and the file each came with. */
    applied: z.array(z.object({ label: Short, path: Short.optional() })).max(100).optional(),
  }),
  /** Slash commands the composer offers (built-in and the workspace's own). */
  z.object({ type: z.literal('slash_commands'), commands: z.array(SlashCommandInfo).max(500) }),
  /** Answer to `attach_measure`: the token estimate of an attachment, and what it cannot include (e.g. @terminal without shell integration). */
  z.object({ type: z.literal('attachment_measured'), kind: Attachment.shape.kind, path: Short, tokens: Count, note: Short.optional() }),
  /** Put text/attachments into the composer (e.g. "Ask about selection"). */
  z.object({ type: z.literal('compose'), text: Text.optional(), attachments: z.array(Attachment).max(100).optional(), focus: z.boolean().optional() }),
]);
export type HostEvent = z.infer<typeof HostEvent>;

export const HostToWebview = z.union([
  HostEvent,
  /** Several events in order, posted at once by DeltaBatcher. */
  z.object({ type: z.literal('batch'), events: z.array(HostEvent).min(1).max(100_000) }),
]);
export type HostToWebview = z.infer<typeof HostToWebview>;

// ---------------------------------------------------------------------------
// Webview → host

const Input = z.string().min(1).max(1_000_000);

export const WebviewToHost = z.discriminatedUnion('type', [
  /** The webview (re)loaded: answer with `restore`. */
  z.object({ type: z.literal('ready') }),
  /** Start a turn; `images`: pasted or dropped into the composer. */
  z.object({
    type: z.literal('send'),
    text: Input,
    attachments: z.array(Attachment).max(100).default([]),
    images: z.array(ImageData).max(MAX_COMPOSER_IMAGES).optional(),
  }),
  /** Interject into the running turn (T7). */
  z.object({ type: z.literal('steer'), text: Input, attachments: z.array(Attachment).max(100).default([]) }),
  /** Run after the current turn ends (T7 "queue for next turn"). */
  z.object({ type: z.literal('queue'), text: Input, attachments: z.array(Attachment).max(100).default([]) }),
  z.object({ type: z.literal('unqueue'), id: Id }),
  z.object({ type: z.literal('stop') }),
  /** Retry after the error item `itemId`. */
  z.object({ type: z.literal('retry'), itemId: Id }),
  /** A spend-cap card's "Continue (+$x)": raise this session's allowance by the card's amount and go on; a loop-guard card's "Continue": go on. */
  z.object({ type: z.literal('continue_turn'), itemId: Id }),
  /** A paused card's "Stop": the turn stays where it ended, and the card says so. */
  z.object({ type: z.literal('dismiss_card'), itemId: Id }),
  /** A paused card's "Open setting". Only the settings such a card names can be opened. */
  z.object({ type: z.literal('open_setting'), setting: CardSetting }),
  /**
   * The user started typing in the panel (active) or paused for ~1.5 s, or left it
   * (not active). A modal approval dialog waits while they type, so no keystroke answers it.
   */
  z.object({ type: z.literal('typing'), active: z.boolean() }),
  z.object({
    type: z.literal('permission_decision'),
    requestId: Id,
    decision: PermissionDecision,
    feedback: z.string().max(20_000).optional(),
  }),
  /** Make a waiting proposal editable (it opens read-only) and show it. */
  z.object({ type: z.literal('edit_proposal'), requestId: Id }),
  /** Show the native diff for a permission request or a tool card. */
  z.object({ type: z.literal('open_diff'), requestId: Id.optional(), toolId: Id.optional() }).refine(
    (m) => m.requestId !== undefined || m.toolId !== undefined,
    'open_diff needs requestId or toolId',
  ),
  /** A link the user clicked; never navigated inside the webview. */
  z.object({ type: z.literal('open_link'), href: z.string().max(8_000).refine(isSafeLinkHref, 'only http(s) and mailto links') }),
  /** An edit card's "Review": the host shows what is left to review of the file that tool use changed (issue 44). */
  z.object({ type: z.literal('review_changes'), toolId: Id }),
  /** A path in a tool card; the host must check it is inside the workspace. */
  z.object({ type: z.literal('open_file'), path: Short, line: Count.optional() }),
  /** A bash card's "Show full output": the host opens the whole result of that tool use in an editor. */
  z.object({ type: z.literal('show_tool_output'), toolId: Id }),
  /** A background command's card's Stop: the host stops it (only a command of this session a card follows). */
  z.object({ type: z.literal('stop_background'), id: BackgroundId }),
  /** A bash card's "Open in terminal": reveal the terminal the command ran in. */
  /** With `backgroundId`: that background command's own terminal; without: the terminal foreground commands run in. */
  z.object({ type: z.literal('open_terminal'), backgroundId: BackgroundId.optional() }),
  /** A user message's "Restore checkpoint": the host finds the turn that message started and asks what to restore. */
  z.object({ type: z.literal('restore_checkpoint'), itemId: Id }),
  z.object({ type: z.literal('new_session') }),
  /** Without sessionId: show the history picker. */
  z.object({ type: z.literal('resume_session'), sessionId: Id.optional() }),
  /** Without model: show the model quick pick. */
  z.object({ type: z.literal('select_model'), model: Short.optional() }),
  /** `@` typed: ask for attach_candidates matching `query` (fuzzy, over the whole workspace). */
  z.object({ type: z.literal('attach'), query: z.string().max(500).default('') }),
  /** An attachment was chosen: ask for its token estimate. */
  z.object({ type: z.literal('attach_measure'), attachment: Attachment }),
  /** Open one of the instruction files in use, by the label the host sent. */
  z.object({ type: z.literal('open_instructions'), label: Short }),
  /** `/` typed: ask for slash_commands. */
  z.object({ type: z.literal('slash_list') }),
  z.object({ type: z.literal('notice_action'), noticeId: Id, actionId: Id }),
  /** The composer's mode switch: the host writes turnstone.permissionMode (plan only in Restricted Mode). */
  z.object({ type: z.literal('set_permission_mode'), mode: PermissionModeName }),
  /**
   * The panel's inline key field. The host stores the key in SecretStorage at once;
   * the webview clears the field and never keeps the key in its state.
   */
  z.object({ type: z.literal('set_api_key'), key: z.string().trim().min(8).max(500) }),
  /** An error card's copy button: the host puts that request id on the clipboard. */
  z.object({ type: z.literal('copy_request_id'), requestId: z.string().regex(/^[A-Za-z0-9_.:-]{1,200}$/) }),
  /** Webview-side problems (dropped messages, render errors) for the host's log. */
  z.object({ type: z.literal('log'), level: z.enum(['info', 'warn', 'error']), message: z.string().max(10_000) }),
]);
export type WebviewToHost = z.infer<typeof WebviewToHost>;
/** What the webview builds before defaults are applied. */
export type WebviewToHostInput = z.input<typeof WebviewToHost>;
