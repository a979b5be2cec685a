// The panel's translator. `vscode.l10n` does not exist in a webview, so the host
// puts its current bundle (`vscode.l10n.bundle`; none for English) in the
// page's `data-l10n` attribute (see ../panel-html.ts) and strings are looked up
// here with the same format: `t('Show {0} earlier', n)`.
import { type L10nArg, type Translate, translator } from '../l10n-format';

let current: Translate | undefined;

function readBundle(): Record<string, string> | undefined {
  const raw = document.documentElement.dataset.l10n;
  if (!raw) return undefined;
  try {
    const parsed: unknown = JSON.parse(raw);
    if (!parsed || typeof parsed !== 'object' || Array.isArray(parsed)) return undefined;
    // Only string entries: a malformed bundle shows English, never "[object Object]".
    return Object.fromEntries(Object.entries(parsed).filter((e): e is [string, string] => typeof e[1] === 'string'));
  } catch {
    return undefined;
  }
}

/** The panel's `vscode.l10n.t`: the English text is the key. */
export function t(message: string, ...args: L10nArg[]): string {
  current ??= translator(readBundle());
  return current(message, ...args);
}
