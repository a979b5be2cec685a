// Status bar: model, session tokens and cost, cache-hit %, a spinner while a turn runs.
import * as vscode from 'vscode';
import { type Usage } from '../runtime/types';

export function formatTokens(n: number): string {
  if (n < 1000) return String(n);
  if (n < 1_000_000) return `${(n / 1000).toFixed(n < 10_000 ? 1 : 0)}k`;
  return `${(n / 1_000_000).toFixed(1)}M`;
}

/** Share of prompt tokens read from cache: what prompt caching saved. */
export function cacheHitPercent(u: Usage): number {
  const prompt = u.input_tokens + u.cache_read_input_tokens + u.cache_creation_input_tokens;
  return prompt === 0 ? 0 : Math.round((u.cache_read_input_tokens / prompt) * 100);
}

export class TurnstoneStatusBar implements vscode.Disposable {
  private readonly item = vscode.window.createStatusBarItem('turnstone.status', vscode.StatusBarAlignment.Right, 100);
  private last: { model: string; running: boolean; usage?: Usage; costUsd?: number } = { model: '', running: false };
  private waiting = 0;

  constructor() {
    this.item.name = 'Turnstone';
    this.item.command = 'turnstone.focus';
    this.update({ model: '', running: false });
    this.item.show();
  }

  /** The session's model, usage and running state, here and in the `turnstone.turnRunning` context key (menus, keys). */
  showSession(session: { readonly model: string; readonly isRunning: boolean; readonly usage: { usage: Usage; costUsd?: number } | undefined }): void {
    void vscode.commands.executeCommand('setContext', 'turnstone.turnRunning', session.isRunning);
    const u = session.usage;
    this.update({ model: session.model, running: session.isRunning, ...(u ? { usage: u.usage, ...(u.costUsd !== undefined ? { costUsd: u.costUsd } : {}) } : {}) });
  }

  /** Requests waiting for the user's answer: a bell and the count lead the item. */
  setWaiting(count: number): void {
    this.waiting = count;
    this.update(this.last);
  }

  update(state: { model: string; running: boolean; usage?: Usage; costUsd?: number }): void {
    this.last = state;
    const icon = this.waiting > 0 ? `$(bell-dot) ${this.waiting}` : state.running ? '$(loading~spin)' : '$(comment-discussion)';
    const u = state.usage;
    const tokens = u ? ` ${formatTokens(u.input_tokens + u.cache_read_input_tokens + u.cache_creation_input_tokens)}↑ ${formatTokens(u.output_tokens)}↓` : '';
    const cost = state.costUsd !== undefined && state.costUsd > 0 ? ` $${state.costUsd.toFixed(state.costUsd < 1 ? 3 : 2)}` : '';
    this.item.text = `${icon} ${state.model || 'Turnstone'}${tokens}${cost}`;
    const tip = new vscode.MarkdownString(undefined, true);
    tip.appendMarkdown(`**Turnstone** — ${this.waiting > 0 ? vscode.l10n.t('{0} waiting for your answer', this.waiting) : state.running ? vscode.l10n.t('a turn is running') : vscode.l10n.t('idle')}\n\n`);
    tip.appendMarkdown(`${vscode.l10n.t('Model: {0}', `\`${state.model}\``)}\n\n`);
    if (u) {
      tip.appendMarkdown(`${vscode.l10n.t('Session: {0} in · {1} out · cache read {2} / write {3} ({4}% hit)', u.input_tokens, u.output_tokens, u.cache_read_input_tokens, u.cache_creation_input_tokens, cacheHitPercent(u))}\n\n`);
    }
    if (state.costUsd !== undefined) tip.appendMarkdown(`${vscode.l10n.t('Estimated cost: ${0}', state.costUsd.toFixed(4))}\n\n`);
    tip.appendMarkdown(vscode.l10n.t('Click to open the chat.'));
    this.item.tooltip = tip;
  }

  dispose(): void {
    this.item.dispose();
  }
}
