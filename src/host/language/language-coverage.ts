// Whether anything reports problems for a language, so an edit of a file that
// no language server looks at (plain text, a language without an extension)
// waits for nothing.
//
// VS Code has no API for "is there a diagnostics provider for language X":
// problems are pushed into DiagnosticCollections by whoever likes. So the
// answer is built from evidence: a language is covered when problems of one of
// its documents have been reported in this window, or when an extension with
// code declares `onLanguage:<id>` (the TypeScript and JSON features do; grammar-
// only extensions, and the catch-all `*` / bare `onLanguage` of git or emmet,
// do not count).
//
// Silence is no evidence the other way: the TypeScript features send no report
// for a file that was clean and stays clean, so a declared language is never
// dropped for having said nothing (which costs a clean edit the whole waitMs,
// and a language whose server reports nothing, markdown with validation off,
// the same).
import * as vscode from 'vscode';

/** The fewest milliseconds of silence taken to mean "no change in problems", however fast the server was before. */
const MIN_SILENCE_MS = 750;
/** First-report delays remembered per language. */
const DELAYS_KEPT = 5;

export class LanguageCoverage implements vscode.Disposable {
  private readonly observed = new Set<string>();
  /** How long after a change each language's problems were first reported, the last few times. */
  private readonly reportDelays = new Map<string, number[]>();
  private declaredCache: Set<string> | undefined;
  private readonly subscriptions: vscode.Disposable[];

  constructor() {
    this.subscriptions = [
      vscode.languages.onDidChangeDiagnostics((e) => {
        for (const uri of e.uris) {
          const key = uri.toString();
          const doc = vscode.workspace.textDocuments.find((d) => d.uri.toString() === key);
          if (doc && vscode.languages.getDiagnostics(uri).length > 0) this.observed.add(doc.languageId);
        }
      }),
      vscode.extensions.onDidChange(() => (this.declaredCache = undefined)),
    ];
  }

  covers(languageId: string): boolean {
    return this.observed.has(languageId) || this.declared().has(languageId);
  }

  /** A document of this language changed and its problems were first reported `ms` later. */
  noteReportDelay(languageId: string, ms: number): void {
    const delays = this.reportDelays.get(languageId) ?? [];
    delays.push(ms);
    if (delays.length > DELAYS_KEPT) delays.shift();
    this.reportDelays.set(languageId, delays);
  }

  /**
   * How long after a change a document of this language that got no report yet can be taken to have the
   * problems it had: a clean file that stays clean gets no report at all, and waiting the whole waitMs for
   * one cost every clean edit seconds. Three times the slowest recent first report, at least MIN_SILENCE_MS;
   * undefined (wait the whole bound) until this window has seen the language's server report once.
   */
  silenceAfter(languageId: string): number | undefined {
    const delays = this.reportDelays.get(languageId);
    return delays?.length ? Math.max(MIN_SILENCE_MS, 3 * Math.max(...delays)) : undefined;
  }

  private declared(): Set<string> {
    if (!this.declaredCache) {
      const ids = new Set<string>();
      for (const ext of vscode.extensions.all) {
        const manifest = ext.packageJSON as { main?: string; browser?: string; activationEvents?: unknown };
        if (!manifest.main && !manifest.browser) continue;
        const events = Array.isArray(manifest.activationEvents) ? manifest.activationEvents : [];
        for (const e of events) if (typeof e === 'string' && e.startsWith('onLanguage:')) ids.add(e.slice('onLanguage:'.length));
      }
      this.declaredCache = ids;
    }
    return this.declaredCache;
  }

  dispose(): void {
    for (const s of this.subscriptions) s.dispose();
  }
}
