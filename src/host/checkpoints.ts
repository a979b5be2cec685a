// Checkpoints in the editor: one store per session in the extension's storage,
// a checkpoint when each turn starts and ends, and "Restore checkpoint": files,
// conversation or both, after one multi-file diff and a confirmation. Hand edits
// made since are conflicts the user decides file by file; nothing of theirs is
// overwritten without being shown.
import { existsSync } from 'node:fs';
import { readdir, rm, stat } from 'node:fs/promises';
import * as path from 'node:path';
import * as vscode from 'vscode';
import { type Checkpoint, type CheckpointStore, type FileState, type RestorePlan } from '../runtime/checkpoints';
import { type Workspace } from '../tools/ports';
import { loadCore } from './load-core';
import { showChangePreview } from './change-preview';
import { type OriginalContentProvider } from './proposal-documents';

export type RestoreMode = 'both' | 'files' | 'conversation';

/** What a restore can bring back, in the user's language. */
export function restoreChoices(): ReadonlyArray<{ mode: RestoreMode; label: string; detail: string }> {
  return [
    { mode: 'both', label: vscode.l10n.t('Restore files and conversation'), detail: vscode.l10n.t('Files as they were when this message was sent; the conversation goes back to it.') },
    { mode: 'files', label: vscode.l10n.t('Files only'), detail: vscode.l10n.t('Files as they were when this message was sent; the conversation stays.') },
    { mode: 'conversation', label: vscode.l10n.t('Conversation only'), detail: vscode.l10n.t('The conversation goes back to this message; files stay as they are.') },
  ];
}

export interface CheckpointSettings {
  maxFileSizeMB: number;
  keepSessions: number;
}

export function readCheckpointSettings(): CheckpointSettings {
  const c = vscode.workspace.getConfiguration('turnstone');
  return { maxFileSizeMB: Math.max(0, c.get<number>('checkpoints.maxFileSizeMB', 5)), keepSessions: Math.max(1, c.get<number>('checkpoints.keepSessions', 50)) };
}

/** What the controller tells the service, and what a conversation restore needs from it. */
export interface CheckpointSession {
  /** The session's id (its file name without .jsonl); undefined while nothing is saved. */
  readonly sessionId: string | undefined;
}

export class SessionCheckpoints {
  private store: CheckpointStore | undefined;
  private storeFor: string | undefined;
  private turn = 0;
  /** The turn-start checkpoint being taken (never rejects). */
  private pending: Promise<void> = Promise.resolve();

  constructor(
    private readonly context: vscode.ExtensionContext,
    private readonly log: vscode.LogOutputChannel,
  ) {}

  /** The store of the current session, for the tools' write capture; undefined between sessions. */
  get current(): CheckpointStore | undefined {
    return this.store;
  }

  private root(): vscode.Uri | undefined {
    const root = vscode.workspace.workspaceFolders?.[0]?.uri;
    return root?.scheme === 'file' ? root : undefined;
  }

  dir(sessionId: string): string {
    return path.join((this.context.storageUri ?? this.context.globalStorageUri).fsPath, 'checkpoints', sessionId);
  }

  /** Opens (or reuses) the session's store; undefined where checkpoints cannot work (no local folder). */
  async open(sessionId: string, workspace: () => Workspace): Promise<CheckpointStore | undefined> {
    if (this.store && this.storeFor === sessionId) return this.store;
    const root = this.root();
    if (!root) return undefined;
    const core = loadCore();
    const s = readCheckpointSettings();
    const store = await core.openCheckpointStore({ dir: this.dir(sessionId), root: root.fsPath, workspace: workspace(), maxFileBytes: s.maxFileSizeMB * 1024 * 1024 });
    this.store = store;
    this.storeFor = sessionId;
    this.turn = store.turns().at(-1)?.turn ?? 0;
    void this.prune(sessionId);
    return store;
  }

  /**
   * Starts the checkpoint of a turn that is starting, without holding up the turn's first request (a take
   * costs about one `git status`). Tools wait for it through settled() before they run, so it still sees
   * every file as it was before the turn changed anything. Never stops the turn: a failure is logged and
   * the turn has no checkpoint.
   */
  turnStarted(sessionId: string | undefined, workspace: () => Workspace, messageIndex: number, prompt: string): void {
    if (!sessionId) return;
    this.pending = this.pending.then(() => this.takeStart(sessionId, workspace, messageIndex, prompt));
  }

  /** Resolves once the checkpoints started so far are written (tool runs and restores wait for it). */
  settled(): Promise<void> {
    return this.pending;
  }

  private async takeStart(sessionId: string, workspace: () => Workspace, messageIndex: number, prompt: string): Promise<void> {
    const t0 = Date.now();
    try {
      const store = await this.open(sessionId, workspace);
      if (!store) return;
      const checkpoint = await store.take({ kind: 'turn-start', turn: ++this.turn, messageIndex, prompt });
      this.log.info(`checkpoint for turn ${checkpoint.turn} (${store.mode}, ${Object.keys(checkpoint.overlay).length} changed file(s) copied) in ${Date.now() - t0} ms`);
    } catch (error) {
      this.log.warn(`no checkpoint for this turn: ${error instanceof Error ? error.message : String(error)}`);
    }
  }

  async turnEnded(): Promise<void> {
    await this.pending;
    const last = this.store?.all().at(-1);
    if (!this.store || last?.kind !== 'turn-start') return;
    await this.store.take({ kind: 'turn-end', turn: last.turn, messageIndex: last.messageIndex, prompt: last.prompt }).catch((error: unknown) => {
      this.log.warn(`turn-end checkpoint failed: ${error instanceof Error ? error.message : String(error)}`);
    });
  }

  forget(): void {
    this.store = undefined;
    this.storeFor = undefined;
    this.turn = 0;
  }

  /**
   * Shows what restoring `checkpoint`'s files would change as one multi-file diff, lets the user settle
   * conflicts, asks, and restores. Returns false when the user backed out.
   */
  async restoreFiles(checkpoint: Checkpoint, originals: OriginalContentProvider, confirm: boolean): Promise<boolean> {
    const store = this.store;
    if (!store) return false;
    const plan = await store.plan(checkpoint.id);
    if (plan.entries.length === 0 && plan.unrestorable.length === 0) {
      void vscode.window.showInformationMessage(vscode.l10n.t('Turnstone: the files are already as they were at turn {0}.', checkpoint.turn));
      return true;
    }
    const root = this.root()!;
    const text = async (state: FileState) => (state.kind === 'absent' ? undefined : state.kind === 'blob' ? loadCore().decodeText(await store.read(state.id)).text : '');
    const preview = confirm
      ? await showChangePreview(
          vscode.l10n.t('Restore checkpoint: turn {0} (now ↔ after restore)', checkpoint.turn),
          await Promise.all(plan.entries.map(async (e) => ({ file: vscode.Uri.joinPath(root, e.path), now: await text(e.now), after: await text(e.target) }))),
          originals,
        )
      : undefined;
    try {
      const takeCheckpoint = confirm ? await this.settleConflicts(plan) : new Set<string>();
      if (takeCheckpoint === undefined) return false;
      if (confirm && !(await this.confirm(plan, takeCheckpoint))) return false;
      const workspace = new (loadCore().VsCodeWorkspace)([this.root()!]);
      const result = await store.apply(plan, workspace, takeCheckpoint);
      this.log.info(`restored turn ${checkpoint.turn}: ${result.restored.length} file(s), kept ${result.keptMine.length} of yours, ${result.failed.length} failed`);
      if (result.failed.length > 0) {
        void vscode.window.showErrorMessage(vscode.l10n.t('Turnstone could not restore {0}', result.failed.map((f) => `${f.path} (${f.error})`).join(', ')));
      }
      return true;
    } finally {
      // The preview has done its job whether the files were restored or the user backed out.
      await preview?.close();
    }
  }

  /** Conflicting files: the user ticks those to take from the checkpoint; the rest keep their hand edits. */
  private async settleConflicts(plan: RestorePlan): Promise<Set<string> | undefined> {
    const conflicts = plan.entries.filter((e) => e.conflict);
    if (conflicts.length === 0) return new Set();
    const picked = await vscode.window.showQuickPick(
      conflicts.map((e) => ({ label: e.path, description: vscode.l10n.t('changed by hand since'), picked: false })),
      {
        canPickMany: true,
        title: vscode.l10n.t('You changed these files since that turn'),
        placeHolder: vscode.l10n.t('Tick the files to take from the checkpoint; the others keep your version'),
        ignoreFocusOut: true,
      },
    );
    return picked === undefined ? undefined : new Set(picked.map((p) => p.label));
  }

  private async confirm(plan: RestorePlan, takeCheckpoint: ReadonlySet<string>): Promise<boolean> {
    const written = plan.entries.filter((e) => !e.conflict || takeCheckpoint.has(e.path));
    const kept = plan.entries.filter((e) => e.conflict && !takeCheckpoint.has(e.path));
    const lines = [
      ...written.map((e) => (e.target.kind === 'absent' ? vscode.l10n.t('delete {0}', e.path) : e.now.kind === 'absent' ? vscode.l10n.t('recreate {0}', e.path) : vscode.l10n.t('restore {0}', e.path))),
      ...kept.map((e) => vscode.l10n.t('keep yours: {0}', e.path)),
      ...plan.unrestorable.map((e) => vscode.l10n.t('cannot restore {0} ({1})', e.path, e.target.kind === 'unrestorable' ? e.target.why : '')),
    ];
    const restore = vscode.l10n.t('Restore');
    const more = lines.length > 30 ? `\n${vscode.l10n.t('… and {0} more', lines.length - 30)}` : '';
    const choice = await vscode.window.showWarningMessage(
      written.length === 1 ? vscode.l10n.t('Restore 1 file to turn {0}?', plan.checkpoint.turn) : vscode.l10n.t('Restore {0} files to turn {1}?', written.length, plan.checkpoint.turn),
      { modal: true, detail: `${lines.slice(0, 30).join('\n')}${more}\n\n${vscode.l10n.t('A checkpoint is taken first, so this can be undone.')}` },
      restore,
    );
    return choice === restore;
  }

  /** Checkpoints go with their session: those of deleted sessions, and beyond the newest `keepSessions`, are removed. */
  private async prune(currentId: string): Promise<void> {
    const storage = (this.context.storageUri ?? this.context.globalStorageUri).fsPath;
    const base = path.join(storage, 'checkpoints');
    try {
      const names = await readdir(base);
      const dated = await Promise.all(names.map(async (n) => ({ n, t: (await stat(path.join(base, n)).catch(() => undefined))?.mtimeMs ?? 0 })));
      dated.sort((a, b) => b.t - a.t);
      const keep = readCheckpointSettings().keepSessions;
      const old = dated.filter((d, i) => d.n !== currentId && (i >= keep || !existsSync(path.join(storage, 'sessions', `${d.n}.jsonl`))));
      for (const d of old) await rm(path.join(base, d.n), { recursive: true, force: true });
      if (old.length > 0) this.log.info(`pruned the checkpoints of ${old.length} older session(s)`);
    } catch {
      /* nothing to prune yet */
    }
  }
}

