// Checkpoints in the editor: one store per session in the extension's storage,
// a checkpoint when each turn starts and ends (agent/turn-checkpoints.ts), and
// "Restore checkpoint": files,
// conversation or both, after one multi-file diff and a confirmation. Hand edits
// made since are conflicts the user decides file by file; nothing of theirs is
// overwritten without being shown.
import { existsSync } from 'node:fs';
import { readdir, rm, stat } from 'node:fs/promises';
import * as path from 'node:path';
import * as vscode from 'vscode';
import { TurnCheckpoints } from '../../agent/turn-checkpoints';
import { type Checkpoint, type FileState, type RestorePlan } from '../../tools/checkpoints';
import { loadCore } from './load-core';
import { readSettings } from '../settings';
import { showChangePreview } from './change-preview';
import { type VsCodeWorkspace } from '../vscode-workspace';
import { type OriginalContentProvider } from '../approvals/proposal-documents';

export type RestoreMode = 'both' | 'files' | 'conversation';

/** What a restore wrote, and what it left (the user's own edits kept, files it could not write or had no copy of). */
export interface FilesRestored {
  restored: string[];
  skipped: string[];
}

/** What a restore can bring back, in the user's language. */
export function restoreChoices(): ReadonlyArray<{ mode: RestoreMode; label: string; detail: string }> {
  return [
    { mode: 'both', label: vscode.l10n.t('Restore files and conversation'), detail: vscode.l10n.t('Files as they were when this message was sent; the conversation goes back to it.') },
    { mode: 'files', label: vscode.l10n.t('Files only'), detail: vscode.l10n.t('Files as they were when this message was sent; the conversation stays.') },
    { mode: 'conversation', label: vscode.l10n.t('Conversation only'), detail: vscode.l10n.t('The conversation goes back to this message; files stay as they are.') },
  ];
}

export class SessionCheckpoints extends TurnCheckpoints {
  constructor(
    private readonly context: vscode.ExtensionContext,
    private readonly log: vscode.LogOutputChannel,
    /** The session's own folder (a worktree) instead of the first workspace folder. */
    private readonly root: vscode.Uri | undefined = undefined,
  ) {
    super({
      dir: (sessionId) => path.join(storageOf(context), 'checkpoints', sessionId),
      root: () => (root ?? localRoot())?.fsPath,
      maxFileBytes: () => readSettings().checkpointsMaxFileSizeMB * 1024 * 1024,
      // The checkpoint code is in the core bundle: loaded by the first turn, not at activation.
      openStore: (options) => loadCore().openCheckpointStore(options),
      log,
      onOpened: (sessionId) => void this.prune(sessionId),
    });
  }

  /** The files the checkpoints cover, as the tools see them (the session's worktree, or the workspace folders). */
  workspace(): VsCodeWorkspace {
    return loadCore().createHostWorkspace(this.root);
  }

  /**
   * Shows what restoring `checkpoint`'s files would change as one multi-file diff, lets the user settle
   * conflicts, asks, and restores: the files restored, and those kept (the user's own edits kept, or
   * failed). Undefined when the user backed out. `beforeApply`: what must happen once the user said yes and
   * not before (issue 47 item 2: the running turn is stopped then, so Cancel leaves everything running).
   */
  async restoreFiles(checkpoint: Checkpoint, originals: OriginalContentProvider, confirm: boolean, beforeApply?: () => Promise<void>): Promise<FilesRestored | undefined> {
    const store = this.current;
    if (!store) return undefined;
    let plan = await store.plan(checkpoint.id);
    if (plan.entries.length === 0 && plan.unrestorable.length === 0) {
      void vscode.window.showInformationMessage(vscode.l10n.t('Turnstone: the files are already as they were at turn {0}.', checkpoint.turn));
      return { restored: [], skipped: [] };
    }
    const root = (this.root ?? localRoot())!;
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
      if (takeCheckpoint === undefined) return undefined;
      if (confirm && !(await this.confirm(plan, takeCheckpoint))) return undefined;
      if (beforeApply) {
        await beforeApply();
        // What the stopped turn wrote meanwhile is planned again; a file that became a conflict keeps its new content.
        plan = await store.plan(checkpoint.id);
      }
      const workspace = new (loadCore().VsCodeWorkspace)([root]);
      const result = await store.apply(plan, workspace, takeCheckpoint);
      this.log.info(`restored turn ${checkpoint.turn}: ${result.restored.length} file(s), kept ${result.keptMine.length} of yours, ${result.failed.length} failed`);
      if (result.failed.length > 0) {
        void vscode.window.showErrorMessage(vscode.l10n.t('Turnstone could not restore {0}', result.failed.map((f) => `${f.path} (${f.error})`).join(', ')));
      }
      return { restored: result.restored, skipped: [...result.keptMine, ...result.failed.map((f) => f.path), ...plan.unrestorable.map((e) => e.path)] };
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
    const storage = storageOf(this.context);
    const base = path.join(storage, 'checkpoints');
    try {
      const names = await readdir(base);
      const dated = await Promise.all(names.map(async (n) => ({ n, t: (await stat(path.join(base, n)).catch(() => undefined))?.mtimeMs ?? 0 })));
      dated.sort((a, b) => b.t - a.t);
      const keep = readSettings().checkpointsKeepSessions;
      const old = dated.filter((d, i) => d.n !== currentId && (i >= keep || !existsSync(path.join(storage, 'sessions', `${d.n}.jsonl`))));
      for (const d of old) await rm(path.join(base, d.n), { recursive: true, force: true });
      if (old.length > 0) this.log.info(`pruned the checkpoints of ${old.length} older session(s)`);
    } catch {
      /* nothing to prune yet */
    }
  }
}

function storageOf(context: vscode.ExtensionContext): string {
  return (context.storageUri ?? context.globalStorageUri).fsPath;
}

/** Checkpoints cover the first workspace folder when it is on this machine's disk. */
function localRoot(): vscode.Uri | undefined {
  const root = vscode.workspace.workspaceFolders?.[0]?.uri;
  return root?.scheme === 'file' ? root : undefined;
}
