// One view per transcript item kind. Views are built from structured data with
// text nodes; only assistant text goes through the markdown sanitiser.
// Permission buttons exist only here, built from a `permission` item the host
// created: nothing a model writes can produce one.
import { type ToolStatus, type ToolView, type TranscriptItem } from '../protocol';
import { BackgroundLine } from './background-view';
import { article, button, el, firstLine, formatInt, icon } from './dom';
import { sentChip } from './chips';
import { ErrorView } from './error-view';
import { imageThumbs } from './image-attach';
import { type ItemView, type Post, type ToolCard } from './item-view';
import { StreamingMarkdown } from './markdown';
import { PermissionView } from './permission-view';
import { t } from './l10n';

type Of<K extends TranscriptItem['kind']> = Extract<TranscriptItem, { kind: K }>;

export function createItemView(item: TranscriptItem, post: Post): ItemView {
  switch (item.kind) {
    case 'user':
      return new UserView(post);
    case 'assistant':
      return new AssistantView();
    case 'thinking':
      return new ThinkingView();
    case 'tool':
      return new ToolCardView(post);
    case 'error':
      return new ErrorView(post);
    case 'compaction':
      return new CompactionView();
    case 'permission':
      return new PermissionView(post);
    case 'interrupted':
      return new InterruptedView();
  }
}

class UserView implements ItemView {
  readonly root = article('user', t('You'));
  constructor(private readonly post: Post) {}
  update(item: TranscriptItem): void {
    const it = item as Of<'user'>;
    // Steered text joins a running turn: only a message that started a turn has a checkpoint.
    const restore =
      it.delivery === 'steer'
        ? undefined
        : button(t('Restore checkpoint'), () => this.post({ type: 'restore_checkpoint', itemId: it.id }), {
            icon: 'discard',
            iconOnly: true,
            cls: 'restore-checkpoint',
            title: t('Restore checkpoint: go back to before this message (files, conversation or both)'),
          });
    const chips = it.attachments?.length
      ? el('div', { class: 'attachments' }, ...it.attachments.map(sentChip))
      : undefined;
    const tag = it.delivery ? el('span', { class: 'delivery' }, it.delivery === 'steer' ? t('sent while running') : t('queued')) : undefined;
    // A custom command reads as the user typed it; what it expanded to is one hover away.
    const bubble = it.slashCommand ? el('div', { class: 'bubble slash-command', title: t('Sent as:\n{0}', `${it.text.slice(0, 600)}${it.text.length > 600 ? '…' : ''}`) }, it.slashCommand) : el('div', { class: 'bubble' }, it.text);
    for (const state of ['waiting_key', 'failed', 'not_sent'] as const) this.root.classList.toggle(`unsent-${state.replace('_', '-')}`, it.unsent === state);
    this.root.classList.toggle('unsent', !!it.unsent);
    // A message the model has not got has no checkpoint to go back to.
    this.root.replaceChildren(bubble, it.images?.length ? imageThumbs(it.images) : '', chips ?? '', tag ?? '', it.unsent ? this.unsentLine(it) : '', it.unsent ? '' : (restore ?? ''));
  }

  /** Issue 47 items 4–5: why the model has not got this message, and what the user can do about it. */
  private unsentLine(it: Of<'user'>): HTMLElement {
    const edit = button(t('Edit'), () => this.root.dispatchEvent(new CustomEvent<EditRequest>(EDIT_MESSAGE_EVENT, { bubbles: true, detail: { text: it.slashCommand ?? it.text, attachments: it.attachments ?? [] } })), {
      icon: 'edit',
      secondary: true,
      cls: 'edit-message',
      title: t('Put this message back in the input to change it and send it again'),
    });
    if (it.unsent === 'waiting_key') {
      return el('div', { class: 'unsent-line', role: 'status' }, icon('key'), el('span', { class: 'unsent-text' }, t('Waiting for your API key: sent once you save it.')));
    }
    if (it.unsent === 'failed') {
      const retry = button(t('Retry'), () => this.post({ type: 'retry', itemId: it.id }), { icon: 'refresh', secondary: true, cls: 'retry-message', title: t('Send this message again') });
      return el('div', { class: 'unsent-line' }, icon('error'), el('span', { class: 'unsent-text' }, t('Not sent: the request failed.')), el('span', { class: 'unsent-actions' }, retry, edit));
    }
    return el('div', { class: 'unsent-line' }, icon('circle-slash'), el('span', { class: 'unsent-text' }, t('Not sent.')), el('span', { class: 'unsent-actions' }, edit));
  }
}

/** A failed message's Edit asks the composer (main.ts) to take its words back. */
export const EDIT_MESSAGE_EVENT = 'turnstone-edit-message';
export interface EditRequest {
  text: string;
  attachments: NonNullable<Of<'user'>['attachments']>;
}

class AssistantView implements ItemView {
  readonly root = article('assistant', 'Turnstone');
  private readonly md = new StreamingMarkdown();
  constructor() {
    this.root.append(this.md.root);
  }
  update(item: TranscriptItem): void {
    const it = item as Of<'assistant'>;
    this.root.classList.toggle('open', !!it.open);
    this.md.update(it.text, !!it.open);
  }
}

class ThinkingView implements ItemView {
  readonly root = article('thinking', t('Thinking'));
  private readonly details = el('details', {});
  private readonly summaryIcon = icon('loading', 'codicon-modifier-spin');
  private readonly label = el('span', { class: 'label' });
  private readonly body = el('div', { class: 'thinking-text' });
  private readonly startedAt = performance.now();
  /** Only a block seen streaming can be timed here; a restored one without durationMs shows no time. */
  private sawOpen = false;
  private item: Of<'thinking'> | undefined;

  constructor() {
    this.details.append(el('summary', {}, this.summaryIcon, this.label), this.body);
    this.root.append(this.details);
    // The text can be long and is rarely read: fill it only when opened.
    this.details.addEventListener('toggle', () => this.item && this.fill(this.item));
  }

  update(item: TranscriptItem): void {
    const it = (this.item = item as Of<'thinking'>);
    const n = countWords(it.text);
    const chars = n === 1 ? t('1 word') : t('{0} words', formatInt(n));
    if (it.open) {
      this.sawOpen = true;
      this.label.textContent = t('Thinking… · {0}', chars);
    } else {
      const ms = it.durationMs ?? (this.sawOpen ? performance.now() - this.startedAt : undefined);
      if (it.durationMs === undefined && ms !== undefined) it.durationMs = Math.round(ms);
      const seconds = ms === undefined ? undefined : ms < 1000 ? '<1' : String(Math.round(ms / 1000));
      this.label.textContent = seconds === undefined ? t('Thought · {0}', chars) : t('Thought for {0} s · {1}', seconds, chars);
    }
    this.summaryIcon.className = it.open ? 'codicon codicon-loading codicon-modifier-spin' : 'codicon codicon-lightbulb';
    this.fill(it);
  }

  private fill(it: Of<'thinking'>): void {
    if (this.details.open && this.body.textContent !== it.text) this.body.textContent = it.text;
  }
}

const TOOL_ICONS: Record<string, string> = {
  read_file: 'file',
  write_file: 'new-file',
  edit_file: 'edit',
  bash: 'terminal',
  glob_search: 'file-submodule',
  grep_search: 'search',
  todo_write: 'checklist',
  web_fetch: 'globe',
  browser: 'browser',
  agent: 'hubot',
  memory: 'notebook',
};

const STATUS: Record<ToolStatus, { icon: string; label: string }> = {
  running: { icon: 'loading codicon-modifier-spin', label: t('Running') },
  done: { icon: 'check', label: t('Done') },
  error: { icon: 'error', label: t('Failed') },
  denied: { icon: 'circle-slash', label: t('Denied') },
  aborted: { icon: 'debug-stop', label: t('Stopped') },
};

const OUTPUT_LINES = 20;
/** A background command's card shows as many lines as the host keeps of it. */
const BACKGROUND_LINES = 40;

const WAITING = { icon: 'shield', label: t('Waiting for approval') };

/** A background command's tool use is done at once; its header follows the command instead. */
function backgroundStatus(view: ToolView): { icon: string; label: string } | undefined {
  const b = view.kind === 'bash' ? view.background : undefined;
  if (!b) return undefined;
  if (b.state === 'running') return { icon: 'loading codicon-modifier-spin', label: t('Running in the background') };
  if (b.state === 'killed') return { icon: 'debug-stop', label: t('Stopped') };
  return b.exitCode === 0 ? STATUS.done : { icon: 'error', label: t('Exited with an error') };
}

export class ToolCardView implements ToolCard {
  readonly root = article('tool', t('Tool'));
  private readonly header = el('div', { class: 'tool-header' });
  private readonly body = el('div', { class: 'tool-body' });
  private readonly errorLine = el('div', { class: 'tool-error' });
  private readonly imagesBox = el('div', { class: 'tool-images' });
  private shownImages: unknown;
  /** Where this tool's permission request renders: one card per tool, its approval inside it. */
  readonly approval = el('div', { class: 'tool-approval' });
  private waiting = false;
  private item: Of<'tool'> | undefined;
  private diffDetails: HTMLDetailsElement | undefined;
  private diffText: string | undefined;
  private outputPre: HTMLPreElement | undefined;
  private outputActions: HTMLDivElement | undefined;
  private exitLine: HTMLDivElement | undefined;
  private backgroundLine: BackgroundLine | undefined;
  private mcpInput: HTMLDetailsElement | undefined;
  private mcpKey: string | undefined;
  private agentDetails: HTMLDetailsElement | undefined;
  private agentKey: string | undefined;
  private agentClock: AgentClock | undefined;

  constructor(private readonly post: Post) {
    this.root.append(this.header, this.approval, this.body, this.imagesBox, this.errorLine);
  }

  /** Its permission request is pending (no spinner: nothing runs until the user answers). */
  setWaiting(waiting: boolean): void {
    if (this.waiting === waiting) return;
    this.waiting = waiting;
    if (this.item) this.update(this.item);
  }

  update(item: TranscriptItem): void {
    const it = (this.item = item as Of<'tool'>);
    const waiting = this.waiting && it.status === 'running';
    const status = waiting ? WAITING : ((it.status === 'done' && backgroundStatus(it.view)) || STATUS[it.status]);
    this.root.dataset.status = waiting ? 'waiting' : it.status;
    // A browser card's screenshot is its point: shown larger than other tools' images (webview.css).
    this.root.classList.toggle('browser-card', it.view.kind === 'browser');
    this.root.classList.toggle('agent-card', it.view.kind === 'agent');
    this.root.setAttribute('aria-label', accessibleName(it, waiting));
    this.header.replaceChildren(
      el('span', { class: 'tool-icon' }, icon(it.view.kind === 'mcp' ? 'plug' : (TOOL_ICONS[it.name] ?? 'tools'))),
      el('span', { class: 'tool-title' }, ...this.title(it.view, it.id)),
      el('span', { class: 'tool-meta' }, ...meta(it.view)),
      el('span', { class: `tool-status status-${waiting ? 'waiting' : it.status}`, title: status.label, role: 'img', 'aria-label': status.label }, el('span', { class: `codicon codicon-${status.icon}`, 'aria-hidden': 'true' })),
    );
    this.renderBody(it);
    if (it.view.kind === 'agent') (this.agentClock ??= new AgentClock(this.header)).set(it.view.elapsedMs, it.status === 'running');
    else this.agentClock?.stop();
    // Rebuilt only when the images change: a status update must not re-decode them.
    if (it.images !== this.shownImages) {
      this.shownImages = it.images;
      this.imagesBox.replaceChildren(it.images?.length ? imageThumbs(it.images) : '');
    }
    // A denial's reason is already the one line of its answered request inside this card.
    this.errorLine.textContent = it.status === 'denied' && this.approval.childElementCount ? '' : (it.error ?? '');
  }

  private title(view: ToolView, id: string): (Node | string)[] {
    switch (view.kind) {
      case 'read': {
        const range = view.offset !== undefined || view.limit !== undefined ? `L${(view.offset ?? 0) + 1}${view.limit !== undefined ? `–${(view.offset ?? 0) + view.limit}` : '+'}` : '';
        return [this.pathLink(view.path, view.offset), range ? el('span', { class: 'range' }, range) : ''];
      }
      case 'edit': {
        const diff = button(view.path, () => this.post({ type: 'open_diff', toolId: id }), { cls: 'link path', title: t('Open diff of {0}', view.path) });
        // Issue 44: shown (webview.css) only when edits are reviewed after the turn and this one is written.
        const review = this.item?.status === 'done' ? button(t('Review'), () => this.post({ type: 'review_changes', toolId: id }), { cls: 'link review-link', icon: 'diff-multiple', title: t('Review what is left of the changes to {0}', view.path) }) : '';
        return [diff, review];
      }
      case 'bash':
        return [el('code', { class: 'command' }, firstLine(view.command))];
      case 'search':
        return [el('code', { class: 'pattern' }, view.pattern), view.path ? el('span', { class: 'range' }, t('in {0}', view.path)) : ''];
      case 'mcp':
        return [el('span', { class: 'mcp-server' }, view.server), el('span', { class: 'mcp-sep', 'aria-hidden': 'true' }, '›'), el('code', { class: 'mcp-tool' }, view.tool)];
      case 'fetch':
        // Issue 47 item 9: a long URL ends in an ellipsis inside the card; the whole of it is in the tooltip (and the card's name).
        return [el('code', { class: 'url', title: view.url }, view.url)];
      case 'browser':
        return [el('span', { class: 'browser-action' }, view.action), view.url ? el('code', { class: 'url', title: view.url }, view.url) : view.target ? el('code', { title: view.target }, view.target) : ''];
      case 'memory':
        return [el('span', { class: 'memory' }, memoryTitle(view, this.item?.status === 'done'))];
      case 'agent':
        // Its task goes on a line of its own below: at the panel's usual width the title has room for a name only.
        // Issue 47 item 9: the name whole ("explore", never "explo"): the counts beside it go under it when both do not fit.
        return [el('span', { class: 'agent-name', title: view.agent }, view.agent)];
      case 'other': {
        // Issue 47 item 9: the tool in words ("Command output"), then its summary; never the tool's id alone.
        const words = toolWords(this.item?.name ?? '');
        return [el('span', { class: 'tool-label' }, words), view.summary ? el('span', { class: 'tool-summary', title: view.summary }, view.summary) : ''];
      }
    }
  }

  private pathLink(path: string, offset?: number): HTMLButtonElement {
    return button(path, () => this.post({ type: 'open_file', path, ...(offset !== undefined ? { line: offset } : {}) }), { cls: 'link path', title: t('Open {0}', path) });
  }

  private renderBody(it: Of<'tool'>): void {
    const view = it.view;
    if (view.kind === 'edit' && view.diff) {
      if (this.diffText !== view.diff) {
        this.diffText = view.diff;
        const wasOpen = this.diffDetails?.open ?? false;
        this.diffDetails = el('details', { class: 'diff' }, el('summary', {}, t('Diff')), renderDiff(view.diff));
        this.diffDetails.open = wasOpen;
        this.body.replaceChildren(this.diffDetails);
      }
      return;
    }
    if (view.kind === 'mcp') {
      this.renderMcp(view);
      return;
    }
    if (view.kind === 'agent') {
      this.renderAgent(view, it.status);
      return;
    }
    if (view.kind === 'bash') {
      const shownLines = view.background ? BACKGROUND_LINES : OUTPUT_LINES;
      const lines = (view.output ?? '').replace(/\n$/, '').split('\n');
      const tail = lines.slice(-shownLines).join('\n');
      const parts: Node[] = [];
      if (view.command.includes('\n')) parts.push(el('pre', { class: 'command-full' }, view.command));
      if (tail) {
        this.outputPre ??= el('pre', { class: 'output', tabindex: '0', 'aria-label': t('Command output (last lines)') });
        if (this.outputPre.textContent !== tail) {
          this.outputPre.textContent = tail;
          // A live tail reads from its newest line.
          if (view.background) this.outputPre.scrollTop = this.outputPre.scrollHeight;
        }
        parts.push(this.outputPre);
        if (lines.length > shownLines) parts.unshift(el('div', { class: 'output-note' }, t('… last {0} of {1} lines', shownLines, formatInt(lines.length))));
      }
      if (view.background) {
        // Its output is the command's own (bash_output reads it); the result is only its id.
        this.backgroundLine ??= new BackgroundLine(this.post);
        parts.push(this.backgroundLine.update(view.background, view.command));
        if (this.body.childNodes.length !== parts.length || parts.some((p, i) => this.body.childNodes[i] !== p)) this.body.replaceChildren(...parts);
        return;
      }
      // The output keeps its own colours; only the line saying it failed is coloured as an error.
      if (view.exitCode !== undefined && view.exitCode !== 0) {
        const text = view.exitCode === null ? t('Killed before it exited') : t('Exit code {0}', view.exitCode);
        if (this.exitLine?.textContent !== text) this.exitLine = el('div', { class: 'exit-line' }, icon('error'), text);
        parts.push(this.exitLine);
      }
      // Built once: the output is kept after the command ends, with the whole result one click away.
      this.outputActions ??= el('div', { class: 'output-actions' },
        button(t('Show full output'), () => this.post({ type: 'show_tool_output', toolId: it.id }), { icon: 'go-to-file', secondary: true, cls: 'show-output' }),
        button(t('Open in terminal'), () => this.post({ type: 'open_terminal' }), { icon: 'terminal', secondary: true, cls: 'open-terminal' }));
      this.outputActions.querySelector<HTMLButtonElement>('.show-output')!.hidden = it.status === 'running' || it.status === 'denied';
      // Nothing to show before the command printed anything (or while it waits for approval).
      this.outputActions.hidden = it.status === 'denied' || (!tail && it.status === 'running');
      parts.push(this.outputActions);
      if (this.body.childNodes.length !== parts.length || parts.some((p, i) => this.body.childNodes[i] !== p)) this.body.replaceChildren(...parts);
      return;
    }
    if (view.kind === 'browser' && view.page) {
      // The page's URL after the action, whole (the title cuts a long one): where a click or a key led.
      if (this.body.textContent !== view.page) this.body.replaceChildren(el('div', { class: 'browser-page' }, el('code', { class: 'url' }, view.page)));
      return;
    }
    if (this.body.childNodes.length) this.body.replaceChildren();
  }

  /**
   * A subagent: its latest tool use on one line; expanded, every tool use it made and its report. It opens
   * by itself when it asks for approval (the request renders in this card), and stays as the user left it.
   */
  private renderAgent(view: Extract<ToolView, { kind: 'agent' }>, status: ToolStatus): void {
    const steps = view.steps ?? [];
    const latest = steps.at(-1);
    const key = JSON.stringify([steps, view.report ?? '', status, this.waiting]);
    if (this.agentKey === key) return;
    this.agentKey = key;
    const open = this.agentDetails?.open || (this.waiting && status === 'running');
    // A step cut with an ellipsis (a long URL) keeps its whole text in the tooltip.
    const list = el('ol', { class: 'agent-steps' }, ...steps.map((s) => el('li', { class: `agent-step status-${s.status}`, title: s.summary }, icon(STATUS[s.status].icon), ' ', s.summary)));
    const report = view.report ? el('div', { class: 'agent-report' }, el('div', { class: 'agent-report-label' }, t('Report')), el('div', { class: 'agent-report-text', tabindex: '0' }, view.report)) : '';
    const summaryLine = latest && status === 'running' ? t('Latest: {0}', latest.summary) : steps.length === 0 && status === 'running' ? t('Starting…') : t('Details');
    this.agentDetails = el('details', { class: 'agent-details' }, el('summary', { title: summaryLine }, summaryLine), steps.length ? list : '', report);
    this.agentDetails.open = open;
    this.body.replaceChildren(el('div', { class: 'agent-description' }, view.description), this.agentDetails);
  }

  /** An MCP tool: what went in and what came back (text, structured content as JSON; images below the card). */
  private renderMcp(view: Extract<ToolView, { kind: 'mcp' }>): void {
    const key = `${view.input}\u0000${view.output ?? ''}`;
    if (this.mcpKey === key) return;
    this.mcpKey = key;
    const wasOpen = this.mcpInput?.open ?? false;
    this.mcpInput = el('details', { class: 'mcp-input' }, el('summary', {}, t('Input')), el('pre', { class: 'mcp-json', tabindex: '0', 'aria-label': t('Tool input') }, view.input));
    this.mcpInput.open = wasOpen;
    const output = view.output !== undefined ? el('pre', { class: 'output mcp-output', tabindex: '0', 'aria-label': t('Tool output') }, view.output || t('(no output)')) : '';
    this.body.replaceChildren(this.mcpInput, output);
  }
}

/** What a screen reader hears for a tool card: what the tool did, not its internal name. */
function accessibleName(it: Of<'tool'>, waiting: boolean): string {
  const v = it.view;
  const done = it.status === 'done';
  let what: string;
  switch (v.kind) {
    case 'read':
      what = done && v.lines !== undefined ? (v.lines === 1 ? t('Read {0}, 1 line', v.path) : t('Read {0}, {1} lines', v.path, v.lines)) : t('Read {0}', v.path);
      break;
    case 'edit':
      if (!done) what = v.created ? t('Create {0}', v.path) : t('Edit {0}', v.path);
      else if (v.added === 1) what = v.created ? t('Created {0}, 1 line added, {1} removed', v.path, v.removed) : t('Edited {0}, 1 line added, {1} removed', v.path, v.removed);
      else what = v.created ? t('Created {0}, {1} lines added, {2} removed', v.path, v.added, v.removed) : t('Edited {0}, {1} lines added, {2} removed', v.path, v.added, v.removed);
      break;
    case 'bash':
      what = done || it.status === 'error' ? t('Ran {0}', firstLine(v.command)) : t('Run {0}', firstLine(v.command));
      if (v.exitCode !== undefined) what = v.exitCode === null ? t('{0}, killed', what) : t('{0}, exit {1}', what, v.exitCode);
      if (v.background?.state === 'running') return t('{0}: running in the background as {1}', what, v.background.id);
      break;
    case 'search':
      what = v.matches === undefined ? t('Searched {0}', v.pattern) : v.matches === 1 ? t('Searched {0}, 1 match', v.pattern) : t('Searched {0}, {1} matches', v.pattern, v.matches);
      break;
    case 'mcp':
      what = done ? t('Used {0} of the MCP server {1}', v.tool, v.server) : t('Use {0} of the MCP server {1}', v.tool, v.server);
      break;
    case 'fetch':
      what = done || it.status === 'error' ? t('Fetched {0}', v.url) : t('Fetch {0}', v.url);
      break;
    case 'browser':
      what = v.url ? t('Browser {0} {1}', v.action, v.url) : v.target ? t('Browser {0} {1}', v.action, v.target) : t('Browser {0}', v.action);
      break;
    case 'memory':
      what = memoryTitle(v, done);
      break;
    case 'agent':
      what = t('{0} subagent: {1}', v.agent, v.description);
      break;
    case 'other': {
      const plan = it.name === 'todo_write' ? /^(\d+)\/(\d+)/.exec(v.summary) : null;
      what = plan ? t('Plan, {0} of {1} done', Number(plan[1]), Number(plan[2])) : v.summary ? t('{0}: {1}', toolWords(it.name), v.summary) : toolWords(it.name);
      break;
    }
  }
  if (waiting) return t('{0}: waiting for approval', what);
  if (it.status === 'running') return t('{0}: running', what);
  if (it.status === 'done') return what;
  return `${what}: ${STATUS[it.status].label.toLowerCase()}`;
}

function meta(view: ToolView): (Node | string)[] {
  switch (view.kind) {
    case 'read':
      return view.lines === undefined ? [] : [view.lines === 1 ? t('1 line') : t('{0} lines', formatInt(view.lines))];
    case 'edit':
      return [
        view.created ? el('span', { class: 'created' }, `${t('new')} `) : '',
        el('span', { class: 'added', 'aria-label': view.added === 1 ? t('1 line added') : t('{0} lines added', view.added) }, `+${formatInt(view.added)}`),
        ' ',
        el('span', { class: 'removed', 'aria-label': view.removed === 1 ? t('1 line removed') : t('{0} lines removed', view.removed) }, `−${formatInt(view.removed)}`),
      ];
    case 'bash':
      return view.exitCode === undefined ? [] : [el('span', { class: view.exitCode === 0 ? 'exit ok' : 'exit fail' }, view.exitCode === null ? t('killed') : t('exit {0}', view.exitCode))];
    case 'search': {
      const matches = view.matches === undefined ? '' : view.matches === 1 ? t('1 match') : t('{0} matches', formatInt(view.matches));
      const files = view.files === undefined ? '' : view.files === 1 ? t('1 file') : t('{0} files', formatInt(view.files));
      const parts = [matches, files];
      return [parts.filter(Boolean).join(' · ')];
    }
    case 'agent': {
      const parts: string[] = [];
      if (view.toolUses !== undefined) parts.push(view.toolUses === 1 ? t('1 tool use') : t('{0} tool uses', formatInt(view.toolUses)));
      if (view.tokens) parts.push(t('{0} tokens', formatTokens(view.tokens)));
      if (view.elapsedMs === undefined) return [parts.join(' · ')];
      // Its own node: AgentClock ticks it between the subagent's events.
      return [parts.length ? `${parts.join(' · ')} · ` : '', el('span', { class: 'agent-time' }, formatSeconds(view.elapsedMs))];
    }
    case 'mcp':
    case 'fetch':
    case 'browser':
    case 'memory':
    case 'other':
      return [];
  }
}

/** A tool without a card of its own, in words (issue 47 item 9): `bash_output` → "Command output". */
function toolWords(name: string): string {
  switch (name) {
    case 'todo_write':
      return t('Plan');
    case 'bash_output':
      return t('Command output');
    case 'kill_shell':
      return t('Stop a background command');
    case 'lsp':
      return t('Code navigation');
    case 'skill':
      return t('Skill');
    default: {
      const words = name.replace(/_/g, ' ').trim();
      return words ? words[0]!.toUpperCase() + words.slice(1) : t('Tool');
    }
  }
}

/** "Memory updated: /memories/notes.md" once a write is done; "Memory: …" for a read, or a write not (yet) done. */
function memoryTitle(view: Extract<ToolView, { kind: 'memory' }>, done: boolean): string {
  if (view.command === 'view') return t('Memory read: {0}', view.path);
  return done ? t('Memory updated: {0}', view.path) : t('Memory update: {0}', view.path);
}

/** 12 345 → "12.3k": a subagent's running total, read at a glance. */
function formatTokens(n: number): string {
  return n < 1000 ? formatInt(n) : `${(n / 1000).toFixed(n < 100_000 ? 1 : 0)}k`;
}

/**
 * A running subagent's time, counted on between its events (the host sends the time only with each
 * one, and a subagent may think for a minute without one). Stops when the card is gone or done.
 */
class AgentClock {
  private timer: ReturnType<typeof setInterval> | undefined;
  private from = { elapsedMs: 0, at: 0 };

  /** `header`: the card's header, which holds the time (rebuilt on each update, so it is looked up per tick). */
  constructor(private readonly header: HTMLElement) {}

  /** The time the host last sent; ticking while `running`. */
  set(elapsedMs: number | undefined, running: boolean): void {
    if (!running || elapsedMs === undefined) return this.stop();
    this.from = { elapsedMs, at: performance.now() };
    this.timer ??= setInterval(() => this.tick(), 1000);
  }

  private tick(): void {
    const shown = this.header.querySelector('.agent-time');
    if (!this.header.isConnected || !shown) return this.stop();
    shown.textContent = formatSeconds(this.from.elapsedMs + performance.now() - this.from.at);
  }

  stop(): void {
    if (this.timer !== undefined) clearInterval(this.timer);
    this.timer = undefined;
  }
}

function formatSeconds(ms: number): string {
  const s = Math.round(ms / 1000);
  return s < 60 ? t('{0}s', s) : t('{0}m {1}s', Math.floor(s / 60), s % 60);
}


function renderDiff(diff: string): HTMLElement {
  const pre = el('pre', { class: 'diff-lines', tabindex: '0' });
  const frag = document.createDocumentFragment();
  for (const line of diff.replace(/\n$/, '').split('\n')) {
    const cls = line.startsWith('+++') || line.startsWith('---') ? 'hdr' : line.startsWith('+') ? 'add' : line.startsWith('-') ? 'del' : line.startsWith('@@') ? 'hunk' : 'ctx';
    frag.append(el('span', { class: `dl ${cls}` }, `${line}\n`));
  }
  pre.append(frag);
  return pre;
}

class InterruptedView implements ItemView {
  readonly root = el('div', { class: 'item interrupted', role: 'note', 'aria-label': t('Interrupted') });
  update(): void {
    if (!this.root.childElementCount) this.root.append(el('span', { class: 'interrupted-label' }, icon('debug-stop'), t('Interrupted')));
  }
}

class CompactionView implements ItemView {
  readonly root = el('div', { class: 'item compaction', role: 'separator' });
  update(item: TranscriptItem): void {
    const it = item as Of<'compaction'>;
    const parts = [t('Context compacted')];
    if (it.tokensBefore !== undefined && it.tokensAfter !== undefined) parts.push(it.tokensAfter === 1 ? t('{0} → 1 token', formatInt(it.tokensBefore)) : t('{0} → {1} tokens', formatInt(it.tokensBefore), formatInt(it.tokensAfter)));
    if (it.imagesDropped) parts.push(it.imagesDropped === 1 ? t('1 older image removed') : t('{0} older images removed', formatInt(it.imagesDropped)));
    if (it.messagesRemoved !== undefined) parts.push(it.messagesRemoved === 1 ? t('1 message summarised') : t('{0} messages summarised', formatInt(it.messagesRemoved)));
    const label = el('span', { class: 'compaction-label' }, icon('fold'), parts.join(' · '));
    this.root.replaceChildren(it.summary ? el('details', {}, el('summary', {}, label), el('div', { class: 'summary-text' }, it.summary)) : label);
  }
}

function countWords(text: string): number {
  let n = 0;
  for (const _ of text.matchAll(/\S+/g)) n++;
  return n;
}
