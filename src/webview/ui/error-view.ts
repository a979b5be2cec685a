// Error cards: what went wrong in the user's words, and only an action that can
// help (issue 25.6): the key field for a rejected key, Continue and Open setting
// past a spend cap (a pause, not an error), Retry where trying again can work.
import { type TranscriptItem } from '../protocol';
import { article, button, el, icon } from './dom';
import { type ItemView, type Post } from './item-view';
import { t } from './l10n';

type ErrorItem = Extract<TranscriptItem, { kind: 'error' }>;

export class ErrorView implements ItemView {
  readonly root = article('error', t('Error'));
  private keyField: KeyField | undefined;
  constructor(private readonly post: Post) {}
  update(item: TranscriptItem): void {
    const it = item as ErrorItem;
    this.root.classList.toggle('resolved', !!it.resolved);
    if (it.resolved) {
      // The retry went through: one quiet line, nothing left to press.
      this.root.removeAttribute('role');
      this.root.setAttribute('aria-label', t('Resolved error'));
      this.keyField = undefined;
      this.root.replaceChildren(el('div', { class: 'error-line' }, icon('pass'), el('span', { class: 'message' }, `${it.message}`), el('span', { class: 'resolved-tag' }, t('Resolved'))));
      return;
    }
    // A spend cap or the loop guard is a stop the user chose: a pause, not an error.
    const paused = it.cause === 'spend_cap' || it.cause === 'loop';
    // An answer the user asked for (/skills) is no error either.
    const notice = it.cause === 'notice';
    this.root.classList.toggle('paused', paused);
    this.root.classList.toggle('notice', notice);
    this.root.setAttribute('role', paused || notice ? 'status' : 'alert');
    this.root.setAttribute('aria-label', paused ? t('Paused') : notice ? t('Notice') : t('Error'));
    const actions: Node[] = [];
    // A key the API rejected mid-session: the field is there at once (never focused: the user may be typing).
    if (it.action === 'set_key' && it.cause === 'auth') this.keyField ??= new KeyField(this.post);
    if (it.action === 'set_key') {
      const open = button(t('Set API Key'), () => {
        this.keyField ??= new KeyField(this.post);
        if (!this.keyField.root.isConnected) this.root.append(this.keyField.root);
        open.hidden = true;
        this.keyField.focus();
      }, { icon: 'key', cls: 'set-key' });
      open.hidden = !!this.keyField;
      actions.push(open);
    }
    if (it.action === 'continue') {
      // The loop guard's Continue goes on as it is; a spend cap's names the sum the host allows on top.
      if (it.cause === 'loop') {
        actions.push(button(t('Continue'), () => this.post({ type: 'continue_turn', itemId: it.id }), { icon: 'debug-continue', cls: 'continue' }));
        actions.push(button(t('Stop'), () => this.post({ type: 'dismiss_card', itemId: it.id }), { icon: 'debug-stop', secondary: true, cls: 'dismiss' }));
      } else if (it.continueUsd !== undefined) {
        actions.push(button(t('Continue (+${0})', it.continueUsd.toFixed(2)), () => this.post({ type: 'continue_turn', itemId: it.id }), { icon: 'debug-continue', cls: 'continue' }));
      }
      const setting = it.setting;
      if (setting) actions.push(button(t('Open setting'), () => this.post({ type: 'open_setting', setting }), { icon: 'settings-gear', secondary: true, cls: 'open-setting', title: t('Open the setting {0}', setting) }));
    }
    if (it.retryable) actions.push(button(t('Retry'), () => this.post({ type: 'retry', itemId: it.id }), { icon: 'refresh', secondary: true, cls: 'retry' }));
    const requestId = it.requestId;
    this.root.replaceChildren(
      el('div', { class: 'error-line' }, icon(paused ? 'debug-pause' : notice ? 'info' : 'error'), el('span', { class: 'message' }, it.message)),
      it.hint ? el('div', { class: 'hint' }, it.hint) : '',
      actions.length || requestId
        ? el('div', { class: 'error-actions' },
            ...actions,
            requestId ? button(t('Copy request id'), () => this.post({ type: 'copy_request_id', requestId }), { icon: 'copy', secondary: true, cls: 'copy-request-id', title: t('Request id {0} (for support)', requestId) }) : '')
        : '',
      this.keyField?.root ?? '',
    );
  }
}

/**
 * The panel's own API key field. The key leaves at once for the host (which
 * keeps it in SecretStorage) and the field is emptied: the webview never holds
 * it in its state.
 */
export class KeyField {
  readonly root = el('form', { class: 'key-field', 'aria-label': t('Anthropic API key') });
  private readonly input = el('input', { type: 'password', class: 'key-input', placeholder: 'sk-ant-…', autocomplete: 'off', spellcheck: 'false', 'aria-label': t('Anthropic API key') });
  private readonly note = el('div', { class: 'hint key-note', role: 'status' });

  constructor(private readonly post: Post) {
    const where = button('console.anthropic.com', () => this.post({ type: 'open_link', href: 'https://console.anthropic.com/settings/keys' }), { cls: 'link key-where', title: t('Create a key in the Anthropic Console') });
    // The link sits inside the sentence, wherever the translation puts {0}.
    const [before = '', after = ''] = t("Get a key at {0}. It is kept in VS Code's secret storage.").split('{0}');
    this.root.append(
      el('div', { class: 'key-row' }, this.input, button(t('Save'), () => this.save(), { icon: 'check', cls: 'key-save' })),
      el('div', { class: 'hint' }, before, where, after),
      this.note,
    );
    this.root.addEventListener('submit', (e) => {
      e.preventDefault();
      this.save();
    });
  }

  focus(): void {
    this.input.focus();
  }

  private save(): void {
    const key = this.input.value.trim();
    if (key.length < 8) {
      this.note.textContent = t('That is too short to be an API key.');
      return;
    }
    this.post({ type: 'set_api_key', key });
    this.input.value = '';
    this.note.textContent = t('Saved.');
  }
}

