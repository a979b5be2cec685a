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

export class LanguageCoverage implements vscode.Disposable {
  private readonly observed = new Set<string>();
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
