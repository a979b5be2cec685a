// EditDiagnostics for the VS Code host: the problems the language servers
// report for a file the agent edits, before and after the write
// (turnstone.diagnostics.afterEdit / .waitMs).
//
// Two facts of VS Code shape this. Diagnostics are pushed (DiagnosticCollection),
// never asked for, so nothing says when they are "done": we wait for the first
// report after the document took the new text, then for a short quiet spell,
// all bounded by waitMs; a file that stays clean gets no report at all, so once
// the language's server has been seen to report, silence for a few times its
// usual delay also ends the wait (LanguageCoverage.silenceAfter). And the
// built-in TypeScript features (like other servers) only check files open in an
// editor tab, so a file that is in none is opened in a background tab: not a
// preview (that would replace the user's own preview tab), not shown, no focus.
import * as vscode from 'vscode';
import { type EditDiagnostics, type Problem, type ProblemWatch } from '../../tools/language-ports';
import { tabsEditing } from '../editor-tabs';
import { type LanguageCoverage } from './language-coverage';

export interface DiagnosticsSettings {
  afterEdit: boolean;
  waitMs: number;
}

/**
 * Reports that follow each other closer than this belong to one update (TypeScript sends syntax, then semantic
 * problems). On a busy machine the second comes later: the quiet spell grows to as long as the first report took
 * (up to MAX_QUIET_MS), or an edit that broke the types could be judged on its syntax report alone.
 */
const QUIET_MS = 300;
const MAX_QUIET_MS = 3_000;

interface SettleOptions {
  /** With no report of the new text for this long after the change, it kept its problems (undefined: wait for one). */
  silenceMs?: number;
  /**
   * The problems the file had before the change, and how long after the change a report that only repeats them is
   * taken as final. Such a report may describe the old text: TypeScript's answer for the previous version, or a
   * change notice sent just before the edit, can land after the document took the new text (seen ~80 ms after it
   * on a loaded machine, with the real report ~400 ms later). Ending the wait on it lost a new error.
   */
  repeat?: { before: readonly Problem[]; waitMs: number };
}

function toProblem(d: vscode.Diagnostic): Problem | undefined {
  const severity = d.severity === vscode.DiagnosticSeverity.Error ? 'error' : d.severity === vscode.DiagnosticSeverity.Warning ? 'warning' : undefined;
  if (!severity) return undefined;
  const code = typeof d.code === 'object' ? d.code.value : d.code;
  return { line: d.range.start.line + 1, severity, message: d.message, ...(code !== undefined ? { code: String(code) } : {}), ...(d.source ? { source: d.source } : {}) };
}

function problemsOf(uri: vscode.Uri): Problem[] {
  return vscode.languages.getDiagnostics(uri).flatMap((d) => toProblem(d) ?? []);
}

function sameProblems(a: readonly Problem[], b: readonly Problem[]): boolean {
  const key = (list: readonly Problem[]) => JSON.stringify(list.map((p) => [p.line, p.severity, p.code ?? '', p.message]).sort());
  return a.length === b.length && key(a) === key(b);
}

const inTab = (uri: vscode.Uri) => tabsEditing(uri).length > 0;

/** Into a tab of the active group without showing it: pinned (a preview would replace the user's), in the background, no focus. */
async function openInBackgroundTab(uri: vscode.Uri): Promise<void> {
  // `background` is an option of the vscode.open command (the editor opens inactive); showTextDocument has none.
  await vscode.commands.executeCommand('vscode.open', uri, { preview: false, preserveFocus: true, background: true });
}

async function openDocument(uri: vscode.Uri): Promise<vscode.TextDocument | undefined> {
  try {
    return await vscode.workspace.openTextDocument(uri);
  } catch {
    return undefined; // missing (a new file) or not text
  }
}

/** Listens to one file's diagnostics and the document's text from the moment it is created. */
class FileReports implements vscode.Disposable {
  private lastReport = 0;
  private reports = 0;
  private textChanged = false;
  /** When the document took the text being judged, and how long its first report then took. */
  private changedAt = Date.now();
  private firstReportMs = 0;
  private wake: (() => void) | undefined;
  private readonly subscriptions: vscode.Disposable[];

  constructor(private readonly uri: vscode.Uri) {
    const key = uri.toString();
    this.subscriptions = [
      vscode.languages.onDidChangeDiagnostics((e) => {
        if (!e.uris.some((u) => u.toString() === key)) return;
        this.reports++;
        this.lastReport = Date.now();
        if (this.reports === 1) this.firstReportMs = this.lastReport - this.changedAt;
        this.wake?.();
      }),
      vscode.workspace.onDidChangeTextDocument((e) => {
        if (e.document.uri.toString() !== key || e.contentChanges.length === 0) return;
        // Reports from before the document took the new text describe the old one.
        this.textChanged = true;
        this.reports = 0;
        this.changedAt = Date.now();
        this.wake?.();
      }),
    ];
  }

  /** How long the first report of the current text took, if one came. */
  get firstReportDelay(): number | undefined {
    return this.textChanged && this.reports > 0 ? this.firstReportMs : undefined;
  }

  /** Forget what came so far: only reports after this count (the baseline wait). */
  restart(textChanged: boolean): void {
    this.reports = 0;
    this.textChanged = textChanged;
    this.changedAt = Date.now();
  }

  /**
   * Waits for a report of the current text followed by a quiet spell (QUIET_MS, or as long as that first
   * report took), or, with no report, for `silenceMs` after the document took the text, or the deadline.
   * A report that only repeats the problems from before the change ends the wait no sooner than `repeat.waitMs`
   * after the change.
   */
  async settle(deadline: number, signal: AbortSignal, { silenceMs, repeat }: SettleOptions = {}): Promise<void> {
    for (;;) {
      const now = Date.now();
      if (signal.aborted || now >= deadline) return;
      const quiet = Math.min(MAX_QUIET_MS, Math.max(QUIET_MS, this.firstReportMs));
      const quietUntil = !this.textChanged
        ? Number.POSITIVE_INFINITY
        : this.reports > 0
          ? repeat && sameProblems(problemsOf(this.uri), repeat.before)
            ? Math.max(this.lastReport + quiet, this.changedAt + repeat.waitMs)
            : this.lastReport + quiet
          : silenceMs !== undefined
            ? this.changedAt + silenceMs
            : Number.POSITIVE_INFINITY;
      if (now >= quietUntil) return;
      await new Promise<void>((resolve) => {
        const timer = setTimeout(done, Math.min(deadline, quietUntil) - now);
        const onAbort = () => done();
        signal.addEventListener('abort', onAbort, { once: true });
        function done() {
          clearTimeout(timer);
          signal.removeEventListener('abort', onAbort);
          resolve();
        }
        this.wake = done;
      });
      this.wake = undefined;
    }
  }

  dispose(): void {
    for (const s of this.subscriptions) s.dispose();
  }
}

export class HostEditDiagnostics implements EditDiagnostics {
  constructor(
    private readonly toUri: (path: string) => vscode.Uri,
    private readonly settings: DiagnosticsSettings,
    private readonly coverage: LanguageCoverage,
  ) {}

  async watch(path: string, signal: AbortSignal): Promise<ProblemWatch | undefined> {
    if (!this.settings.afterEdit || this.settings.waitMs <= 0) return undefined;
    const uri = this.toUri(path);
    const existing = await openDocument(uri);
    if (existing && !this.coverage.covers(existing.languageId)) return undefined;
    const reports = new FileReports(uri);
    let before: Problem[] = [];
    if (existing) {
      if (!inTab(uri)) {
        // Not checked until it is in a tab: open it and take the problems of the unchanged file as the baseline.
        reports.restart(true);
        await openInBackgroundTab(uri);
        await reports.settle(Date.now() + this.settings.waitMs, signal, { silenceMs: this.coverage.silenceAfter(existing.languageId) });
        this.learn(existing.languageId, reports);
      }
      before = problemsOf(uri);
    }
    reports.restart(false);
    return {
      before,
      settle: async (settleSignal) => {
        try {
          const deadline = Date.now() + this.settings.waitMs;
          let document = existing;
          if (!document) {
            // A new file: its language is known now.
            document = await openDocument(uri);
            if (!document || !this.coverage.covers(document.languageId)) return [];
            reports.restart(true);
          }
          if (!inTab(uri)) {
            reports.restart(true);
            await openInBackgroundTab(uri);
          }
          // Silence means "no change" only for a file that had no problems: a server reports a changed file that has
          // some (TypeScript does every time), so there the wait is for that report, however busy the machine
          // (a slow report taken for silence lost a new error on a loaded machine).
          const silence = this.coverage.silenceAfter(document.languageId);
          await reports.settle(deadline, settleSignal, {
            silenceMs: before.length > 0 ? undefined : silence,
            repeat: { before, waitMs: silence ?? MAX_QUIET_MS },
          });
          this.learn(document.languageId, reports);
          return problemsOf(uri);
        } finally {
          reports.dispose();
        }
      },
      dispose: () => reports.dispose(),
    };
  }

  private learn(languageId: string, reports: FileReports): void {
    const delay = reports.firstReportDelay;
    if (delay !== undefined) this.coverage.noteReportDelay(languageId, delay);
  }
}
