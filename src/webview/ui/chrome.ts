// Everything around the transcript: session header, notices (Restricted Mode,
// missing key), the reconnect line, the usage footer and the live region.
import { type Notice, type SessionInfo, type UsageInfo } from '../protocol';
import { type Reconnecting } from '../transcript';
import { button, el, formatInt, formatTokens, icon } from './dom';
import { type Post } from './items';

const NOTICE_ICONS: Record<Notice['kind'], string> = { restricted: 'shield', no_api_key: 'key', info: 'info', warning: 'warning', error: 'error' };

export class Header {
  readonly root = el('header', { class: 'header' });
  private readonly title = el('h1', { class: 'title' }, 'New session');
  private readonly model: HTMLButtonElement;

  constructor(post: Post) {
    this.model = button('Model', () => post({ type: 'select_model' }), { icon: 'sparkle', secondary: true, cls: 'model', title: 'Select model' });
    this.root.append(
      this.title,
      this.model,
      button('Session history', () => post({ type: 'resume_session' }), { icon: 'history', iconOnly: true, cls: 'history' }),
      button('New session', () => post({ type: 'new_session' }), { icon: 'add', iconOnly: true, cls: 'new-session' }),
    );
  }

  update(session: SessionInfo | undefined): void {
    this.title.textContent = session?.title || 'New session';
    this.title.title = session?.title ?? '';
    const label = this.model.querySelector('.label');
    if (label) label.textContent = session?.model || 'Model';
  }
}

export class Notices {
  readonly root = el('div', { class: 'notices' });
  constructor(private readonly post: Post) {}

  update(notices: Notice[]): void {
    this.root.replaceChildren(
      ...notices.map((n) =>
        el('div', { class: `notice notice-${n.kind}`, role: n.kind === 'error' ? 'alert' : 'note' },
          icon(NOTICE_ICONS[n.kind]),
          el('span', { class: 'notice-text' }, n.text),
          el('span', { class: 'notice-actions' }, ...n.actions.map((a) => button(a.label, () => this.post({ type: 'notice_action', noticeId: n.id, actionId: a.id }), { secondary: true })))),
      ),
    );
    this.root.hidden = notices.length === 0;
  }
}

export class StatusLine {
  readonly root = el('div', { class: 'status', role: 'status' });

  update(reconnecting: Reconnecting | undefined): void {
    if (!reconnecting) {
      this.root.replaceChildren();
      return;
    }
    this.root.replaceChildren(
      icon('sync', 'codicon-modifier-spin'),
      ` Reconnecting… ${reconnecting.attempt}/${reconnecting.maxAttempts}`,
      reconnecting.reason ? el('span', { class: 'hint' }, ` · ${reconnecting.reason}`) : '',
    );
  }
}

export class UsageFooter {
  readonly root = el('footer', { class: 'usage', 'aria-label': 'Session usage' });

  update(usage: UsageInfo | undefined): void {
    if (!usage) {
      this.root.replaceChildren();
      return;
    }
    const prompt = usage.inputTokens + usage.cacheReadTokens + usage.cacheWriteTokens;
    const hit = prompt > 0 ? Math.round((usage.cacheReadTokens / prompt) * 100) : 0;
    this.root.title = `Input ${formatInt(usage.inputTokens)} · cache read ${formatInt(usage.cacheReadTokens)} · cache write ${formatInt(usage.cacheWriteTokens)} · output ${formatInt(usage.outputTokens)}`;
    this.root.replaceChildren(
      el('span', { class: 'usage-in', 'aria-label': `${prompt} tokens in` }, icon('arrow-up'), formatTokens(prompt)),
      el('span', { class: 'usage-out', 'aria-label': `${usage.outputTokens} tokens out` }, icon('arrow-down'), formatTokens(usage.outputTokens)),
      el('span', { class: 'usage-cache' }, `cache ${hit}%`),
      usage.costUsd !== undefined ? el('span', { class: 'usage-cost' }, `$${usage.costUsd < 1 ? usage.costUsd.toFixed(3) : usage.costUsd.toFixed(2)}`) : '',
      contextIndicator(usage),
    );
  }
}

/** How full the model's context window is: a percentage and a small bar, the token counts on hover. */
function contextIndicator(usage: UsageInfo): HTMLElement | string {
  const window = usage.contextWindow;
  if (usage.contextTokens === undefined || !window) return '';
  const percent = Math.min(100, Math.round((usage.contextTokens / window) * 100));
  const fill = el('span', { class: 'context-fill' });
  fill.style.width = `${percent}%`;
  const level = percent >= 85 ? 'high' : percent >= 60 ? 'mid' : 'low';
  return el(
    'span',
    { class: `usage-context context-${level}`, title: `Context ${formatInt(usage.contextTokens)} of ${formatInt(window)} tokens`, 'aria-label': `Context ${percent}% of the window used` },
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
