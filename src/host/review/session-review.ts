// The session's changes, reviewed natively (issue 44): a source control named Turnstone lists each file
// the agent changed since the last review point, opening VS Code's diff against that point; a quick diff
// marks the agent's unreviewed hunks in the editor's gutter, and the gutter's peek offers Keep / Undo per
// hunk; a file's and the group's inline actions Keep all / Undo all. Keep moves the review point (the
// base) forward; Undo writes the base's lines back into the file, leaving every other line as it is.
import * as path from 'node:path';
import * as vscode from 'vscode';
import { changedFiles, coalescing, FileTextCache, type Hunk, type HunkCount, hunkOfLineChange, hunksOf, keepHunk, type LineChange, undoHunk } from '../../agent/review-hunks';
import { type FileChange } from '../../runtime/types';
import { decodeText, encodeText } from '../../tools/files/text';
import { registerGuardedCommands } from '../command-guard';
import { CONTEXT_REVIEW_FILES } from '../contract';
import { ReviewComments, type SendComment } from './review-comments';

export const REVIEW_SCHEME = 'turnstone-review';

/** Settled files whose last review point is kept for a diff still open on it. */
const MAX_SETTLED = 100;

/** The open session a changed file belongs to: its group in the Source Control view is named after it. */
export interface ReviewOwner {
  key: string;
  title: string;
}

/** One changed file as the review shows it. */
export interface ReviewedFile {
  path: string;
  /** null: the file did not exist at the review point. */
  base: string | null;
  hunks: number;
}

export class SessionReview implements vscode.Disposable, vscode.TextDocumentContentProvider {
  /** The review point of each file the agent changed: its content then (null: it did not exist). */
  private readonly bases = new Map<string, string | null>();
  /**
   * What each file that left the review was kept as: its review-point document (the left side of a diff tab or
   * the gutter's peek still open) then shows the file as it is, with nothing left to review, not an empty file.
   */
  private readonly settled = new Map<string, string | null>();
  private readonly changed = new vscode.EventEmitter<vscode.Uri>();
  readonly onDidChange = this.changed.event;
  private readonly scm: vscode.SourceControl;
  /** One group per session that changed files (key '': files no open session claims), made as they are needed. */
  private readonly groups = new Map<string, vscode.SourceControlResourceGroup>();
  private readonly subscriptions: vscode.Disposable[] = [];
  /** Files read from disk, each read again only once its (mtime, size) changed or a write or save was seen. */
  private readonly disk = new FileTextCache({
    stat: async (file) => {
      const stat = await vscode.workspace.fs.stat(vscode.Uri.file(file));
      return { mtime: stat.mtime, size: stat.size };
    },
    read: async (file) => vscode.workspace.fs.readFile(vscode.Uri.file(file)),
  });
  /** Each file's last hunk count, kept while neither its base nor its text changed. */
  private readonly counts = new Map<string, HunkCount>();
  /** One refresh at a time, one more waiting at most: record() fires one per tool result without waiting. */
  private readonly refreshing = coalescing();
  /** The file names the keyboard's Keep / Undo context key last listed (joined), so it is set only when it changes. */
  private keyedFiles = '';
  /** The list as last drawn: what the Sessions view counts per session without reading a file. */
  private drawn: ReviewedFile[] = [];
  private readonly redrawn = new vscode.EventEmitter<void>();
  /** The list of changes to review was drawn again (a tool's write, Keep, Undo, a save). */
  readonly onDidRedraw = this.redrawn.event;

  /**
   * `send`: where a review comment's *Send to agent* goes (none: the files take no comments). `owner`: the open
   * session that changed a file, whose group lists it (none: one group for every file).
   */
  constructor(
    private readonly log: vscode.LogOutputChannel,
    send?: SendComment,
    private readonly owner: (file: string) => ReviewOwner | undefined = () => undefined,
  ) {
    this.scm = vscode.scm.createSourceControl('turnstone', 'Turnstone', vscode.workspace.workspaceFolders?.[0]?.uri);
    this.scm.quickDiffProvider = { provideOriginalResource: (uri) => (this.bases.has(uri.fsPath) ? this.baseUri(uri.fsPath) : undefined) };
    this.scm.inputBox.visible = false;
    this.subscriptions.push(
      this.scm,
      { dispose: () => this.groups.forEach((g) => g.dispose()) },
      this.changed,
      this.redrawn,
      vscode.workspace.registerTextDocumentContentProvider(REVIEW_SCHEME, this),
      vscode.workspace.onDidSaveTextDocument((doc) => {
        this.disk.forget(doc.uri.fsPath);
        if (this.bases.has(doc.uri.fsPath)) void this.refresh();
      }),
      // Guarded: a file that cannot be read or written says so as a Turnstone error, and is logged.
      ...registerGuardedCommands(
        {
          // From the peek's title bar: the hunk it shows; from the keyboard (no arguments): the one at the cursor.
          'turnstone.review.keep': (uri?: vscode.Uri, changes?: LineChange[], index?: number) => this.onHunk(uri, changes, index, (file, hunk) => this.keep(file, hunk)),
          'turnstone.review.undo': (uri?: vscode.Uri, changes?: LineChange[], index?: number) => this.onHunk(uri, changes, index, (file, hunk) => this.undo(file, hunk)),
          'turnstone.review.keepFile': (...states: vscode.SourceControlResourceState[]) => this.keepFiles(pathsOf(states)),
          'turnstone.review.undoFile': (...states: vscode.SourceControlResourceState[]) => this.undoFiles(pathsOf(states)),
          // From a group's inline action: that session's files; from elsewhere (a script), every file.
          'turnstone.review.keepAll': (group?: vscode.SourceControlResourceGroup) => this.keepFiles(this.filesOf(group)),
          'turnstone.review.undoAll': (group?: vscode.SourceControlResourceGroup) => this.undoFiles(this.filesOf(group), true),
        },
        log,
      ),
    );
    if (send) this.subscriptions.push(new ReviewComments((file) => this.bases.has(file), send, log));
  }

  /** A tool use changed a file: its first change since the review point sets that point. */
  record(change: FileChange): void {
    if (!this.bases.has(change.path)) this.bases.set(change.path, change.before);
    this.settled.delete(change.path);
    this.disk.forget(change.path);
    void this.refresh();
  }

  /**
   * A session closed or started afresh: its files leave the review (what they hold stays, as do the
   * checkpoints); those of the window's other open sessions stay listed. No paths: every file leaves.
   */
  reset(paths?: Iterable<string>): void {
    if (paths === undefined) {
      this.bases.clear();
      this.settled.clear();
    } else {
      for (const p of paths) {
        this.bases.delete(p);
        this.settled.delete(p);
      }
    }
    this.disk.retain(this.bases);
    void this.refresh();
  }

  provideTextDocumentContent(uri: vscode.Uri): string {
    const file = fileOfBase(uri);
    return (this.bases.has(file) ? this.bases.get(file) : this.settled.get(file)) ?? '';
  }

  /** A file's review point (its kept content; null: it did not exist then), or undefined when it is not under review. */
  reviewBase(file: string): string | null | undefined {
    return this.bases.get(file);
  }

  /** The files with changes left to review, and how many hunks each has. */
  async files(): Promise<ReviewedFile[]> {
    this.disk.retain(this.bases);
    const open = openDocuments();
    return changedFiles(this.bases, (file) => readText(file, this.disk, open), this.counts);
  }

  /** The Source Control view's groups as last drawn: each one's label and files (tests, the API). */
  groupsDrawn(): { label: string; files: string[] }[] {
    return [...this.groups.values()].filter((g) => g.resourceStates.length > 0).map((g) => ({ label: g.label, files: pathsOf(g.resourceStates) }));
  }

  /** How many hunks are left to review in these files (a session's), as last drawn. */
  hunksIn(files: ReadonlySet<string>): number {
    return this.drawn.reduce((n, f) => (files.has(f.path) ? n + f.hunks : n), 0);
  }

  /** "Review Changes": the Source Control view, and the diff of the first file left to review (among `files`); false when none is left. */
  async showChanges(files?: ReadonlySet<string>): Promise<boolean> {
    const first = (await this.files()).find((f) => !files || files.has(f.path));
    await vscode.commands.executeCommand('workbench.view.scm');
    if (first) await vscode.commands.executeCommand('vscode.diff', this.baseUri(first.path), vscode.Uri.file(first.path), diffTitle(first), { preview: false });
    return first !== undefined;
  }

  private baseUri(file: string): vscode.Uri {
    return vscode.Uri.from({ scheme: REVIEW_SCHEME, path: vscode.Uri.file(file).path, query: encodeURIComponent(file) });
  }

  /**
   * Redraws the list and the gutter. It forgets nothing: a file is read while tools may still be writing it,
   * so only Keep and Undo (settle) drop a review point, once the file matches it.
   */
  refresh(): Promise<void> {
    return this.refreshing(async () => {
      try {
        await this.redraw();
      } catch (error) {
        this.log.warn(`could not list the changes to review: ${String(error)}`);
      }
    });
  }

  private filesOf(group: vscode.SourceControlResourceGroup | undefined): string[] {
    const listed = group?.resourceStates;
    return Array.isArray(listed) ? pathsOf(listed) : [...this.bases.keys()];
  }

  private async redraw(): Promise<void> {
    const files = await this.files();
    const bySession = new Map<string, { owner: ReviewOwner | undefined; states: vscode.SourceControlResourceState[] }>();
    for (const f of files) {
      const owner = this.owner(f.path);
      const key = owner?.key ?? '';
      const entry = bySession.get(key) ?? { owner, states: [] };
      bySession.set(key, entry);
      const uri = vscode.Uri.file(f.path);
      entry.states.push({
        resourceUri: uri,
        decorations: { tooltip: f.hunks === 1 ? vscode.l10n.t('1 change to review') : vscode.l10n.t('{0} changes to review', f.hunks), ...(f.base === null ? { faded: false } : {}) },
        command: { title: vscode.l10n.t('Open changes'), command: 'vscode.diff', arguments: [this.baseUri(f.path), uri, diffTitle(f)] },
      });
    }
    // A session with nothing left to review has its group emptied (hidden), not disposed: the editor's quick diff
    // reads the originals again when a group's resources change, and a disposed group tells it nothing.
    for (const [key, group] of this.groups) if (!bySession.has(key)) group.resourceStates = [];
    for (const [key, { owner, states }] of bySession) {
      // The session's name first: the Source Control view is narrow, and it is what tells two groups apart.
      const label = owner ? vscode.l10n.t('{0} · changed by the agent', owner.title) : vscode.l10n.t('Changed by the agent');
      let group = this.groups.get(key);
      if (!group) {
        group = this.scm.createResourceGroup(key === '' ? 'session' : `session:${key}`, label);
        group.hideWhenEmpty = true;
        this.groups.set(key, group);
      }
      if (group.label !== label) group.label = label;
      group.resourceStates = states;
    }
    this.scm.count = files.reduce((n, f) => n + f.hunks, 0);
    const keyed = [...new Set(files.map((f) => path.basename(f.path)))];
    if (keyed.join('\n') !== this.keyedFiles) {
      this.keyedFiles = keyed.join('\n');
      void vscode.commands.executeCommand('setContext', CONTEXT_REVIEW_FILES, keyed);
    }
    this.drawn = files;
    this.redrawn.fire();
    for (const file of this.bases.keys()) this.changed.fire(this.baseUri(file));
  }

  /** The hunk a Keep or Undo is for: the peek's (its changes and index), else the one at the active editor's cursor. */
  private async onHunk(uri: vscode.Uri | undefined, changes: LineChange[] | undefined, index: number | undefined, act: (file: string, hunk: Hunk) => Promise<void>): Promise<void> {
    const change = uri && index !== undefined ? changes?.[index] : undefined;
    if (uri && change) return act(uri.fsPath, hunkOfLineChange(change));
    const editor = vscode.window.activeTextEditor;
    const { file, hunk } = await this.hunkAtCursor(editor);
    if (!file || !hunk) {
      // The key did nothing: the log says where the extension host saw the cursor (a key pressed in the peek's own
      // editor, or before the cursor moved, lands elsewhere than the user saw).
      this.log.info(`review: no change left to review at the cursor (${editor ? `${editor.document.uri.scheme}:${path.basename(editor.document.uri.fsPath)}, line ${editor.selection.active.line + 1}` : 'no active editor'})`);
      void vscode.window.setStatusBarMessage(vscode.l10n.t('Turnstone: the cursor is not on a change left to review (Go to Next Change: Alt+F5).'), 5000);
      return;
    }
    return act(file, hunk);
  }

  /**
   * The file under review the editor shows and the hunk at its cursor. The editor is the file itself (an editor
   * tab, or the right side of its diff or of the gutter's peek) or its review point (the left side of either,
   * numbered as the base is).
   */
  private async hunkAtCursor(editor: vscode.TextEditor | undefined): Promise<{ file?: string; hunk?: Hunk }> {
    const uri = editor?.document.uri;
    const file = uri?.scheme === 'file' ? uri.fsPath : uri?.scheme === REVIEW_SCHEME ? fileOfBase(uri) : undefined;
    const base = file === undefined ? undefined : this.bases.get(file);
    if (!editor || !file || base === undefined) return {};
    const line = editor.selection.active.line;
    if (uri?.scheme === 'file') return { file, hunk: hunkAtLine(hunksOf(base ?? '', editor.document.getText()), line) };
    const current = await readText(file, this.disk);
    if (current === null) return { file };
    return { file, hunk: hunkAtBaseLine(hunksOf(base ?? '', current), line) };
  }

  private async keep(file: string, shown: Hunk): Promise<void> {
    const base = this.bases.get(file);
    if (base === undefined) return;
    const current = await readText(file, this.disk);
    const hunk = await this.hunkNow(file, base, shown);
    if (current === null || !hunk) return;
    this.bases.set(file, keepHunk(base ?? '', current, hunk));
    await this.settle([file]);
  }

  private async undo(file: string, shown: Hunk): Promise<void> {
    const base = this.bases.get(file);
    if (base === undefined) return;
    const hunk = await this.hunkNow(file, base, shown);
    if (!hunk) return;
    await this.rewrite(file, (current) => undoHunk(base ?? '', current, hunk));
    await this.settle([file]);
  }

  private async keepFiles(files: string[]): Promise<void> {
    for (const file of files) if (this.bases.has(file)) this.bases.set(file, await readText(file, this.disk));
    await this.settle(files);
  }

  /** Puts each file back as it was at the review point: one it created is deleted. Many files ask first. */
  private async undoFiles(files: string[], ask = false): Promise<void> {
    const targets = files.filter((f) => this.bases.has(f));
    if (targets.length === 0) return;
    if (ask && targets.length > 1) {
      const undo = vscode.l10n.t('Undo All');
      const choice = await vscode.window.showWarningMessage(vscode.l10n.t('Undo the agent’s changes to {0} files? Lines you typed in them since are undone too; the session’s checkpoints keep every version.', targets.length), { modal: true }, undo);
      if (choice !== undo) return;
    }
    for (const file of targets) {
      const base = this.bases.get(file)!;
      try {
        if (base === null) await vscode.workspace.fs.delete(vscode.Uri.file(file), { useTrash: false });
        else await this.rewrite(file, () => base);
      } catch (error) {
        this.log.warn(`could not undo the changes to ${file}: ${String(error)}`);
      }
    }
    await this.settle(targets);
  }

  /**
   * Writes what `change` makes of the file's text. Through its document when that holds the file's text (unsaved
   * edits included): one edit the user's Undo takes back. A document left behind by a write it never saw (a
   * worktree's file outside the workspace is not watched) would write stale lines back: the disk is changed
   * instead, in the file's own encoding.
   */
  private async rewrite(file: string, change: (current: string) => string): Promise<void> {
    const uri = vscode.Uri.file(file);
    const open = openDocuments().get(file);
    const disk = await this.disk.read(file);
    if (!open || open.isDirty || open.getText() === disk) {
      const doc = open ?? (await vscode.workspace.openTextDocument(uri));
      await replaceText(doc, change(doc.getText()));
      // The save's event, which also forgets it, may come after the next Keep or Undo has read the file.
      this.disk.forget(file);
      return;
    }
    if (disk === null) return;
    const decoded = decodeText(await vscode.workspace.fs.readFile(uri));
    // Bytes that are not valid in their encoding would not survive a decode and an encode: left as they are.
    if (decoded.lossy) throw new Error(vscode.l10n.t('{0} is not valid text in its encoding: undo it from a checkpoint instead', path.basename(file)));
    await vscode.workspace.fs.writeFile(uri, encodeText(change(decoded.text), decoded.encoding));
    this.disk.forget(file);
  }

  /**
   * The hunk the peek named, as the file has it now. The peek numbers lines of the open document; one that never
   * saw a tool's later write (a worktree's file outside the workspace is not watched) numbers them wrongly for the
   * file, so the hunk is found again on the disk by its place in the base, which both agree on. Undefined (and
   * the list redrawn) when the file no longer has it.
   */
  private async hunkNow(file: string, base: string | null, hunk: Hunk): Promise<Hunk | undefined> {
    const open = openDocuments().get(file);
    if (!open || open.isDirty) return hunk;
    const disk = await this.disk.read(file);
    if (disk === null || open.getText() === disk) return hunk;
    const found = hunksOf(base ?? '', disk).find((h) => h.baseStart === hunk.baseStart && h.baseCount === hunk.baseCount);
    if (!found) {
      void vscode.window.showInformationMessage(vscode.l10n.t('Turnstone: that change is no longer in {0} as shown; the list is up to date now.', path.basename(file)));
      await this.refresh();
    }
    return found;
  }

  /** After Keep or Undo: a file that now matches its review point has nothing left to review. */
  private async settle(files: string[]): Promise<void> {
    const done: string[] = [];
    for (const file of files) {
      if (!this.bases.has(file) || (await readText(file, this.disk)) !== this.bases.get(file)) continue;
      this.settled.set(file, this.bases.get(file)!);
      // The oldest go first: a diff tab open that long is read again rarely, and each entry is a whole file.
      if (this.settled.size > MAX_SETTLED) this.settled.delete(this.settled.keys().next().value!);
      this.bases.delete(file);
      done.push(file);
    }
    await this.refresh();
    // The gutter may not ask for a settled file's original again, and an open diff would keep showing its old hunks.
    for (const file of done) this.changed.fire(this.baseUri(file));
  }

  dispose(): void {
    for (const s of this.subscriptions) s.dispose();
  }
}

/**
 * The hunk on this (0-based) line of the current text. A hunk that only removed lines has none of its own: it is
 * on the line before the gap (where Go to Next Change puts the cursor) or the one after it.
 */
function hunkAtLine(hunks: Hunk[], line: number): Hunk | undefined {
  return (
    hunks.find((h) => h.currentCount > 0 && line >= h.currentStart && line < h.currentStart + h.currentCount) ??
    hunks.find((h) => h.currentCount === 0 && (line === h.currentStart - 1 || line === h.currentStart))
  );
}

/** The hunk on this (0-based) line of the review point's text; one that only added lines is on the line before it or after it. */
function hunkAtBaseLine(hunks: Hunk[], line: number): Hunk | undefined {
  return (
    hunks.find((h) => h.baseCount > 0 && line >= h.baseStart && line < h.baseStart + h.baseCount) ??
    hunks.find((h) => h.baseCount === 0 && (line === h.baseStart - 1 || line === h.baseStart))
  );
}

/** The file a review-point URI stands for (its query; the path alone for URIs made before the query carried it). */
function fileOfBase(uri: vscode.Uri): string {
  return uri.query ? decodeURIComponent(uri.query) : uri.fsPath;
}

function diffTitle(f: ReviewedFile): string {
  const name = path.basename(f.path);
  return f.base === null ? vscode.l10n.t('{0} (created by the agent)', name) : vscode.l10n.t('{0} (changes by the agent)', name);
}

function pathsOf(states: vscode.SourceControlResourceState[]): string[] {
  return states.flat().flatMap((s) => (s?.resourceUri ? [s.resourceUri.fsPath] : []));
}

/**
 * The file's text: an open document's with unsaved changes, the disk's otherwise (a saved document may not have
 * seen a tool's write yet: a worktree's file outside the workspace is not watched), or null when it does not
 * exist. The disk is decoded by its BOM, as the editor would open the file (UTF-16 LE/BE, UTF-8 with or without
 * BOM; the BOM is not part of the text), and read again only when it changed since `disk` last read it.
 */
async function readText(file: string, disk: FileTextCache, open = openDocuments()): Promise<string | null> {
  const doc = open.get(file);
  if (doc?.isDirty) return doc.getText();
  return disk.read(file);
}

/** The editor's open files, by path. */
function openDocuments(): Map<string, vscode.TextDocument> {
  const out = new Map<string, vscode.TextDocument>();
  for (const d of vscode.workspace.textDocuments) if (d.uri.scheme === 'file') out.set(d.uri.fsPath, d);
  return out;
}

/** The document's whole text replaced and saved: one edit, so the user's Undo takes it back in one step. */
async function replaceText(doc: vscode.TextDocument, text: string): Promise<void> {
  if (doc.getText() === text) return;
  const edit = new vscode.WorkspaceEdit();
  edit.replace(doc.uri, new vscode.Range(doc.positionAt(0), doc.positionAt(doc.getText().length)), text);
  await vscode.workspace.applyEdit(edit);
  await doc.save();
}
