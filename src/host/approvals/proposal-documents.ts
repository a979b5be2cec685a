// Virtual documents behind the permission diff: the left side is the file as it
// is (read-only), the right side the proposed content on an in-memory file
// system. A proposal opens read-only (issue 25.1: a keystroke meant for the
// panel must never change it) and becomes editable only when the user chooses
// "Edit Proposal"; what they then change is what gets written on Allow.
import * as vscode from 'vscode';

export const ORIGINAL_SCHEME = 'turnstone-original';
export const PROPOSED_SCHEME = 'turnstone-proposed';

/** Read-only "before" side. */
export class OriginalContentProvider implements vscode.TextDocumentContentProvider {
  private readonly contents = new Map<string, string>();
  private readonly changed = new vscode.EventEmitter<vscode.Uri>();
  readonly onDidChange = this.changed.event;

  set(uri: vscode.Uri, text: string): void {
    this.contents.set(uri.toString(), text);
    this.changed.fire(uri);
  }
  delete(uri: vscode.Uri): void {
    this.contents.delete(uri.toString());
  }
  provideTextDocumentContent(uri: vscode.Uri): string {
    return this.contents.get(uri.toString()) ?? '';
  }
}

/** The "proposed" side: a flat in-memory file system, one file per pending request, read-only until the user edits it. */
export class ProposalFileSystem implements vscode.FileSystemProvider {
  private readonly files = new Map<string, { data: Uint8Array; mtime: number; ctime: number; editable: boolean; settled?: true }>();
  private readonly emitter = new vscode.EventEmitter<vscode.FileChangeEvent[]>();
  readonly onDidChangeFile = this.emitter.event;

  put(uri: vscode.Uri, text: string): void {
    const now = Date.now();
    this.files.set(uri.toString(), { data: new TextEncoder().encode(text), mtime: now, ctime: now, editable: false });
    this.emitter.fire([{ type: vscode.FileChangeType.Created, uri }]);
  }
  text(uri: vscode.Uri): string | undefined {
    const f = this.files.get(uri.toString());
    return f ? new TextDecoder().decode(f.data) : undefined;
  }
  remove(uri: vscode.Uri): void {
    this.files.delete(uri.toString());
  }
  /**
   * The request was answered: what the proposal holds no longer matters, but VS Code may still hold its document
   * (a tab it re-opened, a dirty model) and save it. Such a save is accepted rather than failing with an error
   * about a proposal the user can do nothing with (seen once on VS Code 1.139: "Failed to save" after Allow).
   */
  settle(uri: vscode.Uri): void {
    const f = this.files.get(uri.toString());
    if (!f || f.settled) return;
    f.settled = true;
    // Its read-only state goes too (the change makes VS Code read the stat again), so that saving the document
    // before its tab closes succeeds instead of failing and turning the close into a "Save changes?" prompt.
    if (!f.editable) this.emitter.fire([{ type: vscode.FileChangeType.Changed, uri }]);
  }
  isEditable(uri: vscode.Uri): boolean {
    return this.files.get(uri.toString())?.editable ?? false;
  }
  /**
   * The user chose to edit the proposal. The change event makes the open
   * editor re-read the file's stat, which drops its read-only state (seen on
   * VS Code 1.100 and 1.139). The mtime stays: a newer one would leave an
   * editor the user had already typed into with a stale version, and saving
   * it on close would fail as "the file is newer".
   * False when the proposal is gone (the request was settled).
   */
  makeEditable(uri: vscode.Uri): boolean {
    const f = this.files.get(uri.toString());
    if (!f) return false;
    if (f.editable) return true;
    f.editable = true;
    this.emitter.fire([{ type: vscode.FileChangeType.Changed, uri }]);
    return true;
  }

  watch(): vscode.Disposable {
    return new vscode.Disposable(() => undefined);
  }
  stat(uri: vscode.Uri): vscode.FileStat {
    const f = this.files.get(uri.toString());
    if (f) return { type: vscode.FileType.File, ctime: f.ctime, mtime: f.mtime, size: f.data.byteLength, ...(f.editable || f.settled ? {} : { permissions: vscode.FilePermission.Readonly }) };
    if (uri.path === '/' || !uri.path.slice(1).includes('.')) return { type: vscode.FileType.Directory, ctime: 0, mtime: 0, size: 0 };
    throw vscode.FileSystemError.FileNotFound(uri);
  }
  readDirectory(): [string, vscode.FileType][] {
    return [];
  }
  createDirectory(): void {}
  readFile(uri: vscode.Uri): Uint8Array {
    const f = this.files.get(uri.toString());
    if (!f) throw vscode.FileSystemError.FileNotFound(uri);
    return f.data;
  }
  writeFile(uri: vscode.Uri, content: Uint8Array): void {
    const prev = this.files.get(uri.toString());
    if (!prev) throw vscode.FileSystemError.NoPermissions(vscode.l10n.t('Only the proposal opened by Turnstone can be edited here.'));
    if (!prev.editable && !prev.settled) throw vscode.FileSystemError.NoPermissions(vscode.l10n.t('Choose "{0}" first: a proposal is read-only until you do.', vscode.l10n.t('Edit proposal')));
    this.files.set(uri.toString(), { ...prev, data: content, mtime: Date.now() });
    this.emitter.fire([{ type: vscode.FileChangeType.Changed, uri }]);
  }
  delete(uri: vscode.Uri): void {
    this.files.delete(uri.toString());
  }
  rename(): void {
    throw vscode.FileSystemError.NoPermissions(vscode.l10n.t('Proposals cannot be renamed.'));
  }
}
