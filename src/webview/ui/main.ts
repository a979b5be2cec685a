// Browser side of the chat panel (bundled as an IIFE into dist/webview.js).
// It talks to the host only through the validated protocol in ../protocol.ts.
// Host events update the model at once; DOM work is deferred to one
// requestAnimationFrame, which renders only the items that changed.
import { type HostEvent, HostToWebview, isSafeLinkHref } from '../protocol';
import { type Change, Transcript } from '../transcript';
import { Announcer, Header, ModeSwitch, ModelButton, Notices, StatusLine, UsageFooter } from './chrome';
import { Composer } from './composer';
import { el } from './dom';
import { InstructionsChip } from './instructions-chip';
import { EDIT_MESSAGE_EVENT, type EditRequest } from './items';
import { plainText, warmUp } from './markdown';
import { StateSaver, loadState, post } from './state';
import { TranscriptView } from './transcript-view';
import { finishedPlanOutlived, planProgress, PlanView } from './plan-view';
import { type HeldImages } from './image-attach';
import { SessionDrafts } from './session-drafts';
import { t } from './l10n';

// Events here come straight from JSON and zod, so the model may keep them without copying.
const model = new Transcript(false);
const header = new Header();
const modelButton = new ModelButton(post);
const notices = new Notices(post);
const transcript = new TranscriptView(() => model.items, post);
const status = new StatusLine();
const footer = new UsageFooter();
const plan = new PlanView();
const announcer = new Announcer();
const saver = new StateSaver(() => ({ snapshot: model.snapshot, draft: composer.draft.text, attachments: composer.draft.attachments, drafts: drafts.saved() }));
// What the user sends or stops always brings the view back to the newest item.
const composer = new Composer((message) => {
  if (message.type === 'send' || message.type === 'steer' || message.type === 'queue' || message.type === 'stop') transcript.scrollToBottom();
  // After Stop (button or Escape) the keyboard stays in the input, never on the page body.
  if (message.type === 'stop') composer.input.focus();
  post(message);
}, () => saver.schedule());

// Issue 47 item 9: each session's draft stays with it (a fork's words never go to the session resumed after it).
const saved = loadState();
const drafts = new SessionDrafts<HeldImages>(saved?.drafts);

/** A `restore` shows another session: the composer's draft goes with the session it was typed for (issue 47 item 9). */
function sessionShown(to: string | undefined): void {
  const from = model.snapshot.session?.id;
  if (!SessionDrafts.changes(from, to)) return;
  // Another session's plan is a plan of its own, shown as new (open, or folded if outlived), whatever was done to this one.
  plan.forget();
  const { text, attachments } = composer.draft;
  const next = drafts.switch(from, to, { text, attachments, images: composer.images.hold() });
  if (!next) return;
  composer.setDraft(next.text, next.attachments);
  composer.images.put(next.images);
}

composer.prompts = () => model.items.flatMap((i) => (i.kind === 'user' ? [i.slashCommand ?? i.text] : []));
// Issue 47 item 5: Edit on a message that was not sent puts its words (and chips) back in the composer.
document.addEventListener(EDIT_MESSAGE_EVENT, (e) => {
  const { text, attachments } = (e as CustomEvent<EditRequest>).detail;
  composer.setDraft('', []);
  composer.compose(text, attachments, true);
});

const instructions = new InstructionsChip(post);
// Beside the title.
header.root.append(instructions.root);
// The mode switch and the model sit in the composer's action row, after the attach button.
const modeSwitch = new ModeSwitch(post);
const actionsRow = composer.root.querySelector('.composer-actions');
for (const control of [modeSwitch.root, modelButton.root]) {
  if (actionsRow) actionsRow.insertBefore(control, actionsRow.querySelector('.spacer'));
  else composer.root.append(control);
}

const app = document.getElementById('app') ?? document.body.appendChild(el('main', { id: 'app', class: 'turnstone-chat' }));
app.setAttribute('aria-label', t('Turnstone chat'));
app.append(header.root, notices.root, transcript.container, status.root, plan.root, composer.root, footer.root, announcer.root);

// Links come only from sanitised markdown; they never navigate the webview.
document.addEventListener('click', onLinkClick, true);
document.addEventListener('auxclick', onLinkClick, true);
function onLinkClick(e: MouseEvent): void {
  const a = e.target instanceof Element ? e.target.closest('a') : null;
  if (!a) return;
  e.preventDefault();
  const href = a.getAttribute('href');
  if (href && isSafeLinkHref(href)) post({ type: 'open_link', href });
}

const dirty = new Set<string>();
/** Blocks that were streaming, so their close is announced once. */
const streaming = new Set<string>();
let frame = 0;
let chromeDirty = false;

function schedule(): void {
  frame ||= requestAnimationFrame(render);
}

function render(): void {
  frame = 0;
  let userTouched = false;
  for (const id of dirty) {
    const item = model.get(id);
    try {
      if (item) transcript.view(id)?.update(item);
    } catch (error) {
      // One item that fails to draw must not stop every other item (and the next frames) from drawing.
      post({ type: 'log', level: 'error', message: `webview could not draw item ${id}: ${String(error).slice(0, 2000)}` });
    }
    if (item?.kind === 'user') userTouched = true;
  }
  dirty.clear();
  if (chromeDirty) {
    chromeDirty = false;
    renderChrome();
  }
  transcript.afterRender();
  // Only when a message was drawn again or messages came and went: a streaming frame costs nothing here.
  if (userTouched || userMessages.length !== namedMessages) nameRestoreButtons();
}

const userMessages = document.getElementsByClassName('user');
let namedMessages = -1;

/** Issue 47 item 9: "Restore checkpoint before message 3", so the buttons are told apart by name. */
function nameRestoreButtons(): void {
  namedMessages = userMessages.length;
  let n = 0;
  for (const message of document.querySelectorAll('article.item.user')) {
    n++;
    const restore = message.querySelector('button.restore-checkpoint');
    const name = t('Restore checkpoint before message {0}', n);
    if (restore && restore.getAttribute('aria-label') !== name) restore.setAttribute('aria-label', name);
  }
}

let lastTurn = model.snapshot.turn;
const isTyping = (e: Element | null) => e instanceof HTMLTextAreaElement || e instanceof HTMLInputElement;

// Issue 47 item 1: Escape on a waiting approval card (its buttons, its feedback box, its tool card) hands the
// keyboard back to the composer. The request keeps waiting and the turn keeps running: the event stops here, so
// neither the stop handler below nor the workbench's Escape keybinding (turnstone.stop) sees it.
document.addEventListener('keydown', (e) => {
  if (e.key !== 'Escape' || e.defaultPrevented || !(e.target instanceof Element)) return;
  if (!e.target.closest('.item.permission:not(.settled), .item.tool[data-status="waiting"]')) return;
  e.preventDefault();
  e.stopPropagation();
  composer.input.focus();
});

// Issue 47 item 1: Ctrl+Alt+Enter allows and Ctrl+Alt+Backspace denies the waiting request (Cmd on macOS), from
// anywhere in the panel, the input included: chords that type nothing, so text typed while a card arrives never
// answers it. The card with the keyboard in it, else the only one waiting; with several and none focused, the
// first one's Allow gets the keyboard and nothing is answered. The event stops here: the workbench's keybindings
// for the same keys (a proposal's diff editor) never see it twice.
document.addEventListener('keydown', (e) => {
  if (!(e.ctrlKey || e.metaKey) || !e.altKey || e.shiftKey || (e.key !== 'Enter' && e.key !== 'Backspace') || e.isComposing) return;
  e.preventDefault();
  e.stopPropagation();
  const waiting = [...document.querySelectorAll<HTMLElement>('.item.permission:not(.settled)')];
  const card = (e.target instanceof Element ? waiting.find((w) => w.contains(e.target as Element)) : undefined) ?? (waiting.length === 1 ? waiting[0] : undefined);
  if (!card) {
    waiting[0]?.querySelector<HTMLButtonElement>('button.perm-allow')?.focus();
    return;
  }
  card.querySelector<HTMLButtonElement>(e.key === 'Enter' ? 'button.perm-allow' : 'button.perm-deny')?.click();
});

// Escape anywhere in the panel stops a running turn (the input handles its own, the
// workbench's turnstone.stop keybinding covers a focused view without a focused element).
document.addEventListener('keydown', (e) => {
  if (e.key !== 'Escape' || e.defaultPrevented || model.snapshot.turn !== 'running' || isTyping(e.target as Element | null)) return;
  if (e.target instanceof Element && e.target.closest('.item.permission, details')) return;
  e.preventDefault();
  transcript.scrollToBottom();
  post({ type: 'stop' });
  composer.input.focus();
});

// Issue 25.1: a modal approval focuses its first button, so the host holds it while the user types here.
// The pause is measured here, where the keys arrive: a busy workbench that delays our messages cannot make
// typing look like a pause. Two messages per burst of typing: it started, it stopped.
const TYPING_PAUSE_MS = 1_500;
let typingActive = false;
let typingPause: ReturnType<typeof setTimeout> | undefined;
const typingStopped = () => {
  clearTimeout(typingPause);
  typingPause = undefined;
  if (!typingActive) return;
  typingActive = false;
  post({ type: 'typing', active: false });
};
document.addEventListener('keydown', (e) => {
  if (!isTyping(e.target as Element | null)) return;
  if (!typingActive) {
    typingActive = true;
    post({ type: 'typing', active: true });
  }
  clearTimeout(typingPause);
  typingPause = setTimeout(typingStopped, TYPING_PAUSE_MS);
}, true);
// Losing the focus is not a pause. On a busy workbench the proposal's diff, opened beside the panel without the
// keyboard, may blur it for a moment while the user goes on typing here, and a modal opened at that blur would
// take the next space as Allow (a stress run on VS Code 1.139 saw an Allow nobody clicked, most likely so). Only
// 1.5 s without a key here is a pause; keys typed in an editor meanwhile the host times itself.

// The focus shortcut (and a click on the view's title) focuses the webview: the keyboard belongs in the input.
window.addEventListener('focus', () => {
  if (!document.activeElement || document.activeElement === document.body) composer.input.focus();
});

function renderChrome(): void {
  const s = model.snapshot;
  header.update(s.session);
  modelButton.update(s.session);
  transcript.setModel(s.session?.model);
  notices.update(s.notices);
  plan.update(s.plan, finishedPlanOutlived(s.items, s.plan));
  // The running bar says what the model is doing now: the plan's active item, while a turn runs.
  status.update(model.reconnecting, s.turn === 'running' ? planProgress(s.plan ?? []).active?.activeForm : undefined);
  footer.update(s.usage);
  modeSwitch.update(s.permission);
  document.body.classList.toggle('review-after-turn', s.permission?.reviewAfterTurn === true);
  // A turn that ends while the user is in the panel hands the keyboard back to the input.
  if (lastTurn === 'running' && s.turn === 'idle' && document.hasFocus() && !isTyping(document.activeElement)) composer.input.focus();
  lastTurn = s.turn;
  composer.setTurn(s.turn);
  composer.setQueued(s.queued);
  document.body.classList.toggle('turn-running', s.turn === 'running');
}

function onChange(change: Change): void {
  switch (change.type) {
    case 'reset':
      dirty.clear();
      streaming.clear();
      transcript.reset();
      // The header, plan and footer change with the transcript, not a frame later: a hidden or busy
      // webview may not run the next frame for a while, and until then the old session's plan would
      // sit under the new session's empty transcript.
      chromeDirty = false;
      renderChrome();
      requestAnimationFrame(() => transcript.scrollToBottom());
      break;
    case 'added':
      transcript.add(change.item);
      // A permission request waits for the user: it must never sit below the fold.
      if (change.item.kind === 'permission' || change.item.kind === 'user') transcript.scrollToBottom();
      // A message that starts the next turn folds a finished plan (issue 47 item 9).
      if (change.item.kind === 'user' && model.snapshot.plan?.length) chromeDirty = true;
      noteStreaming(change.item.id, change.item);
      announceNew(change.item);
      break;
    case 'updated':
      // An item_add that replaced an item of another kind needs a new view.
      if (transcript.view(change.item.id) && !transcript.view(change.item.id)!.root.classList.contains(change.item.kind)) transcript.replace(change.item);
      dirty.add(change.item.id);
      noteStreaming(change.item.id, change.item);
      break;
    case 'removed':
      transcript.remove(change.ids);
      for (const id of change.ids) {
        dirty.delete(id);
        streaming.delete(id);
      }
      break;
    case 'prepended':
      transcript.prepended(change.count);
      break;
    case 'chrome':
      chromeDirty = true;
      break;
  }
}

function noteStreaming(id: string, item: { kind: string; open?: boolean; text?: string }): void {
  if (item.kind !== 'assistant') return;
  if (item.open) streaming.add(id);
  else if (streaming.delete(id) && item.text) announcer.say(t('Turnstone: {0}', plainText(item.text)));
}

function announceNew(item: { kind: string; title?: string; message?: string }): void {
  if (item.kind === 'permission') announcer.say(t('Permission needed: {0}', item.title ?? ''));
  else if (item.kind === 'error') announcer.say(t('Error: {0}', item.message ?? ''));
}

let dropped = 0;
function apply(events: HostEvent[]): void {
  for (const event of events) {
    if (event.type === 'attach_candidates') composer.setCandidates(event.candidates, event.query);
    else if (event.type === 'slash_commands') composer.setSlashCommands(event.commands);
    else if (event.type === 'attachment_measured') composer.setMeasured(event.kind, event.path, event.tokens, event.note);
    else if (event.type === 'compose') composer.compose(event.text, event.attachments, event.focus ?? true);
    else if (event.type === 'instructions') instructions.update(event);
    else if (event.type === 'restore') sessionShown(event.snapshot.session?.id);
    for (const change of model.apply(event)) onChange(change);
  }
  schedule();
  saver.schedule();
}

/**
 * `prepend` messages (older items of a long session) wait until the newest
 * items are painted. Anything else that arrives meanwhile applies them first,
 * so the order of events is never changed; a `restore` makes them moot.
 */
let deferred: unknown[] = [];
let deferredScheduled = false;

function receive(data: unknown): void {
  const parsed = HostToWebview.safeParse(data);
  if (!parsed.success) {
    console.warn('[turnstone] dropped malformed host message', parsed.error.message);
    // Bounded: a broken host must not turn the log channel into a flood.
    if (++dropped <= 20) post({ type: 'log', level: 'warn', message: `webview dropped a malformed message: ${parsed.error.message.slice(0, 2000)}` });
    return;
  }
  apply(parsed.data.type === 'batch' ? parsed.data.events : [parsed.data]);
}

function applyDeferred(): void {
  deferredScheduled = false;
  const pending = deferred;
  deferred = [];
  for (const data of pending) receive(data);
}

const typeOf = (data: unknown) => (typeof data === 'object' && data !== null ? (data as { type?: unknown }).type : undefined);

window.addEventListener('message', (event: MessageEvent) => {
  const type = typeOf(event.data);
  if (type === 'prepend') {
    deferred.push(event.data);
    if (!deferredScheduled) {
      deferredScheduled = true;
      // After the next frame is painted (a task queued from rAF runs after it).
      requestAnimationFrame(() => setTimeout(applyDeferred, 0));
    }
    return;
  }
  if (type === 'restore') deferred = [];
  else if (deferred.length) applyDeferred();
  receive(event.data);
});

window.addEventListener('error', (e) => post({ type: 'log', level: 'error', message: `webview error: ${String(e.message).slice(0, 2000)}` }));

// Show what we had before the page was hidden at once; the host's `restore` follows.
if (saved) {
  apply([{ type: 'restore', snapshot: saved.snapshot }]);
  composer.setDraft(saved.draft, saved.attachments);
} else {
  renderChrome();
}
post({ type: 'ready' });
composer.input.focus();
if (typeof requestIdleCallback === 'function') requestIdleCallback(() => warmUp(), { timeout: 2_000 });
