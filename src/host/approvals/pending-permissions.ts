// Every permission request that waits for the user, wherever it is shown (native
// dialog, diff editor, panel card, tests' API). The first answer settles it;
// later answers are ignored, so a request can never be decided twice.
import * as vscode from 'vscode';
import { type PermissionDecision, type PermissionRequest } from '../../runtime/policy/permissions';

export type AnsweredBy = 'dialog' | 'panel' | 'editor' | 'palette' | 'api' | 'abort';

export interface PendingPermission {
  readonly id: string;
  readonly request: PermissionRequest;
  /** The proposed-side document of the diff, for edits (what the user may have changed). */
  readonly proposedUri?: vscode.Uri;
  /** The user chose "Edit proposal": the proposed side is editable (it opens read-only). */
  editing?: boolean;
  /** The window's session that asks (issue 43: several run at once); absent for a request of no session. */
  readonly session?: string;
}

export interface Settlement {
  id: string;
  decision: PermissionDecision;
  by: AnsweredBy;
  /** "Always allow": the rule saved to the workspace settings. */
  savedRule?: string;
  /** The session that asked (its card is in that session's transcript, shown or not). */
  session?: string;
}

export class PendingPermissions implements vscode.Disposable {
  private readonly pending = new Map<string, { entry: PendingPermission; resolve: (d: PermissionDecision) => void }>();
  private readonly added = new vscode.EventEmitter<PendingPermission>();
  private readonly settled = new vscode.EventEmitter<Settlement>();
  private readonly editing = new vscode.EventEmitter<PendingPermission>();
  readonly onDidAdd = this.added.event;
  readonly onDidSettle = this.settled.event;
  /** A waiting proposal became editable. */
  readonly onDidStartEditing = this.editing.event;

  /** Registers a request; the promise resolves with the first answer. */
  wait(entry: PendingPermission): Promise<PermissionDecision> {
    return new Promise<PermissionDecision>((resolve) => {
      this.pending.set(entry.id, { entry, resolve });
      this.added.fire(entry);
    });
  }

  /** Returns false when the request is unknown or already settled (e.g. a stale panel button). */
  settle(id: string, decision: PermissionDecision, by: AnsweredBy, savedRule?: string): boolean {
    const p = this.pending.get(id);
    if (!p) return false;
    this.pending.delete(id);
    p.resolve(decision);
    const session = p.entry.session;
    this.settled.fire({ id, decision, by, ...(savedRule ? { savedRule } : {}), ...(session ? { session } : {}) });
    return true;
  }

  /** Records that the user chose to edit a waiting proposal; false when it is not waiting (or has no proposal). */
  markEditing(id: string): boolean {
    const entry = this.pending.get(id)?.entry;
    if (!entry?.proposedUri) return false;
    if (!entry.editing) {
      entry.editing = true;
      this.editing.fire(entry);
    }
    return true;
  }

  get(id: string): PendingPermission | undefined {
    return this.pending.get(id)?.entry;
  }

  list(): PendingPermission[] {
    return [...this.pending.values()].map((p) => p.entry);
  }

  dispose(): void {
    for (const id of [...this.pending.keys()]) this.settle(id, { kind: 'deny', feedback: 'Turnstone was closed.' }, 'abort');
    this.added.dispose();
    this.settled.dispose();
    this.editing.dispose();
  }
}
