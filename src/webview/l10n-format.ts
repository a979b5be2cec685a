// The message format of `vscode.l10n.t`, for code that cannot reach `vscode`:
// the webview (no extension API there) and the pure wording shared with it.
// The English text is the key; `{0}`, `{1}`… are replaced by the arguments.

export type L10nArg = string | number | boolean;
export type Translate = (message: string, ...args: L10nArg[]) => string;

/** Replaces `{n}` with the nth argument; without arguments the text is left as is (as vscode.l10n.t does). */
export function formatMessage(message: string, args: readonly L10nArg[]): string {
  if (args.length === 0) return message;
  return message.replace(/\{(\d+)\}/g, (whole, index: string) => {
    const arg = args[Number(index)];
    return arg === undefined ? whole : String(arg);
  });
}

/** A translator over one bundle (English text → translation); a missing entry falls back to the English text. */
export function translator(bundle: Readonly<Record<string, string>> | undefined): Translate {
  return (message, ...args) => formatMessage(bundle?.[message] ?? message, args);
}

/** English, for pure code called without a translator (the CLI, unit tests). */
export const english: Translate = translator(undefined);
