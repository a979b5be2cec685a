// Every permission request that waits for the user, wherever it is shown (native
// dialog, diff editor, panel card, tests' API). The first answer settles it;
// later answers are ignored, so a request can never be decided twice.
import * as vscode from 'vscode';
import { type PermissionDecision, type PermissionRequest } from '../runtime/permissions';

export type AnsweredBy = 'dialog' | 'panel' | 'editor' | 'palette' | 'api' | 'abort';

export interface PendingPermission {
  readonly id: string;
  readonly request: PermissionRequest;
  /** The proposed-side document of the diff, for edits (what the user may have changed). */
  readonly proposedUri?: vscode.Uri;
}

export interface Settlement {
  id: string;
  decision: PermissionDecision;
  by: AnsweredBy;
}

export class PendingPermissions implements vscode.Disposable {
  private readonly pending = new Map<string, { entry: PendingPermission; resolve: (d: PermissionDecision) => void }>();
  private readonly added = new vscode.EventEmitter<PendingPermission>();
  private readonly settled = new vscode.EventEmitter<Settlement>();
  readonly onDidAdd = this.added.event;
  readonly onDidSettle = this.settled.event;

  /** Registers a request; the promise resolves with the first answer. */
  wait(entry: PendingPermission): Promise<PermissionDecision> {
    return new Promise<PermissionDecision>((resolve) => {
      this.pending.set(entry.id, { entry, resolve });
      this.added.fire(entry);
    });
  }

  /** Returns false when the request is unknown or already settled (e.g. a stale panel button). */
  settle(id: string, decision: PermissionDecision, by: AnsweredBy): boolean {
    const p = this.pending.get(id);
    if (!p) return false;
    this.pending.delete(id);
    p.resolve(decision);
    this.settled.fire({ id, decision, by });
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
  }
}
