// A code block in assistant markdown: a header (language, copy button) around
// the sanitised <pre>, capped at ~20 lines with "Show all N lines". All of it
// ours, built after sanitising; nothing from the model becomes a control.
import { el, icon } from './dom';
import { t } from './l10n';

/** Lines a code block shows before "Show all N lines". */
export const CODE_LINES = 20;

export class CodeBlock {
  readonly root = el('div', { class: 'code-block' });
  private expand: HTMLButtonElement | undefined;
  private lines = 0;

  constructor(
    readonly pre: HTMLPreElement,
    readonly code: HTMLElement | null,
    readonly lang: string,
  ) {
    const copy = el('button', { type: 'button', class: 'icon-button copy', title: t('Copy code'), 'aria-label': t('Copy code') }, icon('copy'));
    copy.addEventListener('click', () => copyText(code?.textContent ?? pre.textContent ?? '', copy));
    this.root.append(el('div', { class: 'code-header' }, el('span', { class: 'code-lang' }, lang || 'text'), copy), pre);
    // Issue 47 item 9 (axe scrollable-region-focusable): a block that scrolls sideways is reachable by keyboard.
    pre.tabIndex = 0;
    pre.setAttribute('role', 'group');
    pre.setAttribute('aria-label', t('Code block, {0}', lang || 'text'));
    this.setLines(countLines(code?.textContent ?? pre.textContent ?? ''));
  }

  /** Long blocks are capped (CSS) with the rest one click away; a streaming block keeps its count in step. */
  setLines(lines: number): void {
    if (lines === this.lines) return;
    this.lines = lines;
    if (lines <= CODE_LINES) return;
    if (!this.expand) {
      this.root.classList.add('capped');
      const expand = (this.expand = el('button', { type: 'button', class: 'secondary code-expand', 'aria-expanded': 'false' }));
      expand.addEventListener('click', () => {
        const capped = this.root.classList.toggle('capped');
        expand.setAttribute('aria-expanded', String(!capped));
        this.label();
      });
      this.root.append(expand);
    }
    this.label();
  }

  private label(): void {
    if (this.expand) this.expand.textContent = this.root.classList.contains('capped') ? t('Show all {0} lines', this.lines) : t('Show less');
  }
}

export const countLines = (text: string) => text.replace(/\n$/, '').split('\n').length;

/** The language a sanitised <code> names (only `language-*` classes survive the sanitiser). */
export const languageOf = (code: Element | null) => /language-([\w+#.-]+)/.exec(code?.className ?? '')?.[1] ?? '';

/** Wraps a sanitised <pre> (which has a parent) in a code block in place. */
export function decorateCode(pre: HTMLPreElement): CodeBlock {
  const parent = pre.parentNode;
  const next = pre.nextSibling;
  const code = pre.querySelector('code');
  // Building the block moves the <pre> into it; it goes back where the <pre> was.
  const block = new CodeBlock(pre, code, languageOf(code));
  parent?.insertBefore(block.root, next);
  return block;
}

export function copyText(text: string, feedbackOn?: HTMLElement): void {
  const done = () => {
    if (!feedbackOn) return;
    feedbackOn.classList.add('copied');
    feedbackOn.querySelector('.codicon')?.classList.replace('codicon-copy', 'codicon-check');
    setTimeout(() => {
      feedbackOn.classList.remove('copied');
      feedbackOn.querySelector('.codicon')?.classList.replace('codicon-check', 'codicon-copy');
    }, 1200);
  };
  if (navigator.clipboard?.writeText) navigator.clipboard.writeText(text).then(done, () => fallbackCopy(text) && done());
  else if (fallbackCopy(text)) done();
}

function fallbackCopy(text: string): boolean {
  const area = el('textarea', { class: 'clipboard-helper', 'aria-hidden': 'true' });
  area.value = text;
  document.body.append(area);
  area.select();
  const ok = document.execCommand('copy');
  area.remove();
  return ok;
}
