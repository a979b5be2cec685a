// Everything around the transcript: session header, notices (Restricted Mode,
// missing key), the reconnect line, the usage footer and the live region.
import { type Notice, type PermissionModeInfo, type SessionInfo, type UsageInfo } from '../protocol';
import { type Reconnecting } from '../transcript';
import { button, el, formatInt, formatTokens, icon } from './dom';
import { KeyField } from './error-view';
import { type Post } from './item-view';
import { t } from './l10n';

const NOTICE_ICONS: Record<Notice['kind'], string> = { restricted: 'shield', no_api_key: 'key', info: 'info', warning: 'warning', error: 'error' };

/** The session's title (and, beside it, the instructions chip). New session and history live in the view's title bar. */
export class Header {
  readonly root = el('header', { class: 'header' });
  private readonly title = el('h1', { class: 'title' }, t('New session'));

  constructor() {
    this.root.append(this.title);
  }

  update(session: SessionInfo | undefined): void {
    this.title.textContent = session?.title || t('New session');
    this.title.title = session?.title ?? '';
  }
}

/**
 * The model picker, in the composer's action row: the model belongs to the next
 * message, and at the sidebar's default 300 px the header has no room for it
 * beside the title and the instructions chip.
 */
export class ModelButton {
  readonly root: HTMLButtonElement;

  constructor(post: Post) {
    this.root = button(t('Model'), () => post({ type: 'select_model' }), { icon: 'sparkle', secondary: true, cls: 'model', title: t('Select model') });
  }

  update(session: SessionInfo | undefined): void {
    const id = session?.model;
    const label = this.root.querySelector('.label');
    if (label) label.textContent = id ? modelName(id) : t('Model');
    this.root.title = id ? t('Model: {0} (select another)', id) : t('Select model');
    this.root.setAttribute('aria-label', id ? t('Model: {0}. Select model', id) : t('Select model'));
    this.root.dataset.model = id ?? '';
  }
}

/** "claude-sonnet-5-5" → "Sonnet 5.5": short enough for the composer row; other ids as they are. */
export function modelName(id: string): string {
  const m = /^claude-(opus|sonnet|haiku)-(\d+)(?:-(\d+))?$/.exec(id);
  if (!m) return id;
  return `${m[1]![0]!.toUpperCase()}${m[1]!.slice(1)} ${m[2]}${m[3] ? `.${m[3]}` : ''}`;
}

export class Notices {
  readonly root = el('div', { class: 'notices' });
  /** Kept across updates so a half-typed key is not wiped by an unrelated notice change. */
  private keyField: KeyField | undefined;
  constructor(private readonly post: Post) {}

  update(notices: Notice[]): void {
    this.root.replaceChildren(
      ...notices.map((n) => {
        const notice = el('div', { class: `notice notice-${n.kind}`, role: n.kind === 'error' ? 'alert' : 'note' },
          icon(NOTICE_ICONS[n.kind]),
          el('span', { class: 'notice-text' }, n.text),
          el('span', { class: 'notice-actions' }, ...n.actions.map((a) => button(a.label, () => this.post({ type: 'notice_action', noticeId: n.id, actionId: a.id }), { secondary: true }))));
        if (n.kind === 'no_api_key') notice.append((this.keyField ??= new KeyField(this.post)).root);
        return notice;
      }),
    );
    this.root.hidden = notices.length === 0;
  }
}

export class StatusLine {
  readonly root = el('div', { class: 'status', role: 'status' });
  private timer: ReturnType<typeof setInterval> | undefined;

  /** `activity`: what the running turn is doing (the plan's active item), shown unless a retry is pending. */
  update(reconnecting: Reconnecting | undefined, activity?: string): void {
    if (this.timer !== undefined) clearInterval(this.timer);
    this.timer = undefined;
    if (!reconnecting) {
      if (activity && this.root.querySelector('.activity')?.textContent === activity) return;
      this.root.replaceChildren(...(activity ? [icon('loading', 'codicon-modifier-spin'), ' ', el('span', { class: 'activity' }, activity)] : []));
      return;
    }
    const r = reconnecting;
    const count = el('span', { class: 'countdown' });
    const tick = () => {
      const left = r.delayMs !== undefined && r.at !== undefined ? Math.ceil((r.at + r.delayMs - Date.now()) / 1000) : 0;
      count.textContent = left > 0 ? t('Retrying in {0} s', left) : t('Retrying…');
      if (left <= 0 && this.timer !== undefined) {
        clearInterval(this.timer);
        this.timer = undefined;
      }
    };
    tick();
    if (r.delayMs !== undefined && r.delayMs > 1000) this.timer = setInterval(tick, 250);
    this.root.replaceChildren(
      icon('sync', 'codicon-modifier-spin'),
      ' ',
      count,
      el('span', { class: 'hint' }, ` · ${t('attempt {0} of {1}', r.attempt, r.maxAttempts)}${r.reason ? ` · ${r.reason}` : ''}`),
    );
  }
}

export class UsageFooter {
  readonly root = el('footer', { class: 'usage', role: 'group', tabindex: '0', 'aria-label': t('Session usage') });

  update(usage: UsageInfo | undefined): void {
    if (!usage) {
      this.root.replaceChildren();
      return;
    }
    const prompt = usage.inputTokens + usage.cacheReadTokens + usage.cacheWriteTokens;
    const hit = prompt > 0 ? Math.round((usage.cacheReadTokens / prompt) * 100) : 0;
    const inLabel = prompt === 1 ? t('1 token in') : t('{0} tokens in', formatInt(prompt));
    const outLabel = usage.outputTokens === 1 ? t('1 token out') : t('{0} tokens out', formatInt(usage.outputTokens));
    const cost = usage.costIncluded ? t('included') : usage.costUsd !== undefined ? `$${usage.costUsd < 1 ? usage.costUsd.toFixed(3) : usage.costUsd.toFixed(2)}` : undefined;
    const context = contextIndicator(usage);
    // Issue 47 item 7: one line of short figures; the details in the tooltip; one focusable element whose name says
    // it all in words (the figures inside are hidden from screen readers, never read as "34k 341 cache 82%").
    const details = [t('Input {0} · cache read {1} · cache write {2} · output {3}', formatInt(usage.inputTokens), formatInt(usage.cacheReadTokens), formatInt(usage.cacheWriteTokens), formatInt(usage.outputTokens))];
    if (usage.costIncluded) details.push(t('Included in your editor subscription'));
    if (context) details.push(context.title);
    this.root.title = details.join('\n');
    const spoken = [inLabel, outLabel, t('cache {0}%', hit), ...(cost ? [usage.costIncluded ? t('Included in your editor subscription') : t('cost {0}', cost)] : []), ...(context ? [context.getAttribute('aria-label') ?? ''] : [])];
    this.root.setAttribute('aria-label', t('Session usage: {0}', spoken.join(', ')));
    this.root.replaceChildren(
      el('span', { class: 'usage-in', 'aria-hidden': 'true', 'aria-label': inLabel }, icon('arrow-up'), formatTokens(prompt)),
      el('span', { class: 'usage-out', 'aria-hidden': 'true', 'aria-label': outLabel }, icon('arrow-down'), formatTokens(usage.outputTokens)),
      el('span', { class: 'usage-cache', 'aria-hidden': 'true' }, t('cache {0}%', hit)),
      cost ? el('span', { class: 'usage-cost', 'aria-hidden': 'true' }, cost) : '',
      context ?? '',
    );
  }
}

/** How full the model's context window is: a percentage and a small bar, the token counts on hover. */
function contextIndicator(usage: UsageInfo): HTMLElement | undefined {
  const window = usage.contextWindow;
  if (usage.contextTokens === undefined || !window) return undefined;
  const percent = Math.min(100, Math.round((usage.contextTokens / window) * 100));
  const fill = el('span', { class: 'context-fill' });
  fill.style.width = `${percent}%`;
  const level = percent >= 85 ? 'high' : percent >= 60 ? 'mid' : 'low';
  return el(
    'span',
    { class: `usage-context context-${level}`, 'aria-hidden': 'true', title: t('Context {0} of {1} tokens', formatInt(usage.contextTokens), formatInt(window)), 'aria-label': t('Context {0}% of the window used', percent) },
    el('span', { class: 'context-bar' }, fill),
    `${percent}%`,
  );
}

/** Screen readers hear finished messages, never individual tokens. */
export class Announcer {
  readonly root = el('div', { class: 'sr-only', 'aria-live': 'polite', 'aria-atomic': 'true' });
  say(text: string): void {
    this.root.textContent = text;
  }
}

const MODES: { mode: PermissionModeInfo['mode']; label: string; title: string }[] = [
  { mode: 'plan', label: t('Plan'), title: t('Read and search only: nothing is edited or run') },
  { mode: 'ask', label: t('Ask'), title: t('Every edit and command asks first') },
  { mode: 'acceptEdits', label: t('Accept edits'), title: t('Edits inside the workspace go ahead; commands ask') },
  { mode: 'bypassPermissions', label: t('Bypass'), title: t('Nothing asks (deny rules still apply)') },
];

/** The composer's permission-mode switch; the host owns the setting, this only asks to change it. */
export class ModeSwitch {
  readonly root = el('select', { class: 'mode-switch', 'aria-label': t('Permission mode') });
  private info: PermissionModeInfo | undefined;

  constructor(post: Post) {
    this.root.addEventListener('change', () => {
      const mode = MODES.find((m) => m.mode === this.root.value)?.mode;
      if (mode && mode !== this.info?.mode) post({ type: 'set_permission_mode', mode });
    });
    this.root.hidden = true;
  }

  update(info: PermissionModeInfo | undefined): void {
    this.info = info;
    this.root.hidden = !info;
    if (!info) return;
    // Restricted Mode: plan is all there is, so that is all it offers.
    const offered = info.restricted ? MODES.filter((m) => m.mode === 'plan') : MODES;
    const mode = info.restricted ? 'plan' : info.mode;
    this.root.replaceChildren(...offered.map((m) => el('option', { value: m.mode, title: m.title }, m.label)));
    this.root.value = mode;
    this.root.disabled = info.restricted;
    this.root.title = info.restricted ? t('Restricted Mode: plan only until you trust this folder') : (MODES.find((m) => m.mode === mode)?.title ?? '');
  }
}
