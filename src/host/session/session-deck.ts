// The window's open chat sessions (issue 43): several run at once, the panel shows one. Each session
// posts into a mirror of its own transcript; only the shown one's posts reach the panel, and showing
// another restores the panel from that one's mirror (the window's notices and mode stay as they are).
// A session keeps running, asking and spending while another is shown; the Sessions view lists them.
import { existsSync } from 'node:fs';
import * as path from 'node:path';
import * as vscode from 'vscode';
import { type TurnSummary } from '../../runtime/events';
import { type SessionInfo } from '../../runtime/session/session';
import { type FileChange } from '../../runtime/types';
import { type HostEvent, type PanelSnapshot } from '../../webview/protocol';
import { Transcript } from '../../webview/transcript';
import { type ControllerDeps, SessionController, type SessionWorktree } from './session-controller';

/** What a row of the Sessions view says a session is doing. */
export type SessionState = 'new' | 'running' | 'waiting' | 'done' | 'failed' | 'stopped';

/** One open session: its controller, what its panel would show, how its last turn ended. */
export interface OpenSession {
  readonly key: string;
  readonly controller: SessionController;
  readonly mirror: Transcript;
  /**
   * Files this session changed last (another session's later change takes the file), by absolute path: the view's
   * count, the review's group, the rule on files another running session changed.
   */
  readonly changed: Set<string>;
  /**
   * Files its commands changed (found by scanning, agent/command-claims.ts): the rule on files another running
   * session changed, and the view's count; never the review's (what a command wrote is not reviewed hunk by hunk).
   */
  readonly commanded: Set<string>;
  /** The git worktree it runs in (issue 43), if it was started in one. */
  readonly worktree?: SessionWorktree;
  lastOutcome?: TurnSummary['outcome'];
}

/** How many files a session changed: with its tools, or with its commands while another session was beside it. */
export function filesChangedBy(session: OpenSession): number {
  let n = session.changed.size;
  for (const file of session.commanded) if (!session.changed.has(file)) n++;
  return n;
}

export interface SessionDeckDeps extends Omit<ControllerDeps, 'post' | 'onTurnEnded' | 'onDidChangeState' | 'key' | 'worktree'> {
  /** Posts to the panel (the shown session's events, and a restore when another is shown). */
  panelPost(event: HostEvent): void;
  /** What the panel shows now: its window-wide parts (notices, mode) stay when another session is shown. */
  panelSnapshot(): PanelSnapshot;
  /** turnstone.sessions.maxParallel. */
  maxOpen(): number;
  /** A session's turn ended (the attention signal decides whether the user is told). */
  onTurnEnded?(summary: TurnSummary, session: OpenSession): void;
  /** Which sessions have a permission request waiting for the user. */
  waitingSessions(): ReadonlySet<string>;
}

export class SessionDeck implements vscode.Disposable {
  private readonly open: OpenSession[] = [];
  private shownKey: string;
  private counter = 0;
  private readonly changed = new vscode.EventEmitter<void>();
  /** A session was added, removed, shown, or changed state: the Sessions view and the status bar follow. */
  readonly onDidChange = this.changed.event;

  constructor(private readonly deps: SessionDeckDeps) {
    this.shownKey = this.add().key;
  }

  get shown(): SessionController {
    return this.entry(this.shownKey)!.controller;
  }

  get shownSession(): OpenSession {
    return this.entry(this.shownKey)!;
  }

  get sessions(): readonly OpenSession[] {
    return this.open;
  }

  entry(key: string): OpenSession | undefined {
    return this.open.find((s) => s.key === key);
  }

  isShown(key: string): boolean {
    return key === this.shownKey;
  }

  stateOf(session: OpenSession): SessionState {
    if (this.deps.waitingSessions().has(session.key)) return 'waiting';
    if (session.controller.isRunning) return 'running';
    switch (session.lastOutcome) {
      case 'completed':
        return 'done';
      case 'failed':
        return 'failed';
      case 'aborted':
        return 'stopped';
      default:
        return 'new';
    }
  }

  /** Puts `key`'s session in the panel; the one shown before goes on as it was. */
  show(key: string): boolean {
    const session = this.entry(key);
    if (!session) return false;
    if (key !== this.shownKey) {
      this.shownKey = key;
      const window = this.deps.panelSnapshot();
      this.deps.panelPost({ type: 'restore', snapshot: { ...session.mirror.snapshot, notices: window.notices, ...(window.permission ? { permission: window.permission } : {}) } });
      session.controller.postSessionInfo();
      session.controller.instructions.postChip();
    }
    this.changed.fire();
    return true;
  }

  /**
   * A fresh session in the panel. The one shown stays open (and running) unless it is empty, which is
   * reused. Past turnstone.sessions.maxParallel the oldest idle session not shown is closed (its file
   * stays in the history); when every one is busy, nothing opens and the user is told why.
   */
  async newSession(worktree?: SessionWorktree): Promise<SessionController | undefined> {
    const shown = this.shownSession;
    if (!worktree && !shown.worktree && isEmpty(shown.controller)) {
      await shown.controller.newSession();
      shown.lastOutcome = undefined;
      this.changed.fire();
      return shown.controller;
    }
    if (!(await this.makeRoom())) return undefined;
    const session = this.add(worktree);
    this.show(session.key);
    await session.controller.newSession();
    return session.controller;
  }

  /** The session to resume a saved file in: the open one that has it, else a fresh one (see newSession). */
  async resume(file: string, title?: string): Promise<void> {
    const open = this.open.find((s) => s.controller.sessionFile === file);
    if (open) {
      this.show(open.key);
      // Read again from the file only when that loses nothing: no turn and no background command running.
      if (!open.controller.isRunning && (open.controller.background.current?.running.length ?? 0) === 0) await open.controller.resume(file, title);
      return;
    }
    // A session that ran in a worktree opens there again; one whose worktree is gone opens in the workspace, said so.
    let worktree = this.shown.library.worktreeOf(path.basename(file, '.jsonl'));
    if (worktree && !existsSync(worktree.path)) {
      void vscode.window.showWarningMessage(vscode.l10n.t('Turnstone: the worktree this session ran in ({0}) no longer exists; it opens in the workspace folder.', worktree.path));
      worktree = undefined;
    }
    const target = isEmpty(this.shown) && this.shownSession.worktree?.path === worktree?.path ? this.shown : await this.newSession(worktree);
    if (!target) return;
    await target.resume(file, title);
  }

  /** Renames a saved session; an open one's header and row follow. */
  async rename(saved: SessionInfo, title: string): Promise<void> {
    const open = this.open.find((s) => s.controller.sessionFile === saved.path);
    await (open ?? this.shownSession).controller.renameSession(saved, title);
    this.changed.fire();
  }

  /** Deletes a saved session and its checkpoints; an open one is closed first. */
  async delete(saved: SessionInfo): Promise<void> {
    const open = this.open.find((s) => s.controller.sessionFile === saved.path);
    if (open && this.open.length > 1) await this.remove(open.key);
    await (open && this.open.includes(open) ? open : this.shownSession).controller.deleteSession(saved);
    this.changed.fire();
  }

  /** Closes a session (Stop with its background commands; its file stays). The panel then shows another, or a fresh one. */
  async remove(key: string): Promise<void> {
    const session = this.entry(key);
    if (!session) return;
    if (this.open.length === 1 && !session.worktree) {
      await session.controller.newSession();
      session.lastOutcome = undefined;
      this.changed.fire();
      return;
    }
    this.open.splice(this.open.indexOf(session), 1);
    // The panel always shows a session: the last one opened, or a fresh one when this was the only one.
    if (this.open.length === 0) this.add();
    if (key === this.shownKey) this.show(this.open[this.open.length - 1]!.key);
    await session.controller.close();
    session.controller.dispose();
    this.changed.fire();
  }

  /** The session whose transcript holds this item (a permission card's settlement goes there). */
  holding(itemId: string): OpenSession | undefined {
    return this.open.find((s) => s.mirror.get(itemId) !== undefined);
  }

  /** The window's record of file changes: each file's last changer, in order (a command's claim skips later ones). */
  private changeSeq = 0;
  private readonly lastChange = new Map<string, { key: string; seq: number }>();

  private noteChange(key: string, file: string): void {
    this.lastChange.set(file, { key, seq: ++this.changeSeq });
  }

  /**
   * Why a session may not change `file`: another running session, not in a worktree, changed it in this
   * window (two agents editing one file would overwrite each other's work). Undefined when it may.
   */
  claimProblem(key: string, file: string): string | undefined {
    const other = this.open.find((s) => s.key !== key && s.controller.isRunning && (s.changed.has(file) || s.commanded.has(file)));
    if (!other) return undefined;
    return `${file} was changed by another Turnstone session that is still running ("${other.controller.title}"). Two sessions editing one file would overwrite each other's work: wait for it to finish, or stop it, or run this task in a worktree (Turnstone: New Session in Worktree).`;
  }

  private add(worktree?: SessionWorktree): OpenSession {
    const key = `s${++this.counter}`;
    const mirror = new Transcript();
    const changed = new Set<string>();
    const commanded = new Set<string>();
    const controller = new SessionController({
      ...this.deps,
      key,
      post: (event) => {
        mirror.apply(event);
        if (key === this.shownKey) this.deps.panelPost(event);
      },
      onDidChangeState: () => this.changed.fire(),
      onTurnEnded: (summary) => {
        session.lastOutcome = summary.outcome;
        this.changed.fire();
        // A session the user removed ends its turn as it goes: that is no news to tell them.
        if (this.open.includes(session)) this.deps.onTurnEnded?.(summary, session);
      },
      // The last session to change a file has it: its group in the review, its row's count, its comments. A
      // session still running keeps its claim (claimProblem), should a change reach the file by another way.
      onFileChange: (change: FileChange) => {
        let moved = false;
        for (const other of this.open) {
          if (other === session || other.controller.isRunning) continue;
          if (other.changed.delete(change.path)) moved = true;
          other.commanded.delete(change.path);
        }
        changed.add(change.path);
        this.noteChange(key, change.path);
        if (moved) this.changed.fire();
      },
      // This session's files leave the window's review when it closes or starts afresh; the others' stay.
      ...(this.deps.review
        ? {
            review: {
              record: (change: FileChange) => this.deps.review!.record(change),
              reset: () => {
                this.deps.review!.reset([...changed]);
                changed.clear();
                commanded.clear();
              },
            },
          }
        : {}),
      claimProblem: (file) => this.claimProblem(key, file),
      // A command's files, found by scanning (command-claims.ts): only beside another session in the same folder.
      // Claimed unless another running session had them first (its claim stands; this one's writes are refused).
      commandClaims: {
        shared: () => !worktree && this.open.some((s) => s !== session && !s.worktree),
        now: () => this.changeSeq,
        claim: (files, since) => {
          let added = false;
          for (const file of files) {
            const last = this.lastChange.get(file);
            // Another session changed it while the command ran: its change, not this command's.
            if (last && last.key !== key && last.seq > since) continue;
            if (this.open.some((s) => s !== session && s.controller.isRunning && (s.changed.has(file) || s.commanded.has(file)))) continue;
            for (const other of this.open) if (other !== session && !other.controller.isRunning) other.commanded.delete(file);
            if (!changed.has(file) && !commanded.has(file)) added = true;
            commanded.add(file);
            this.noteChange(key, file);
          }
          if (added) this.changed.fire();
        },
      },
      ...(worktree ? { worktree } : {}),
    });
    const session: OpenSession = { key, controller, mirror, changed, commanded, ...(worktree ? { worktree } : {}) };
    this.open.push(session);
    return session;
  }

  /** Closes the oldest idle session not shown when the deck is full; false when every one is busy. */
  private async makeRoom(): Promise<boolean> {
    const max = Math.max(1, this.deps.maxOpen());
    while (this.open.length >= max) {
      const idle = this.open.find((s) => !this.isShown(s.key) && !s.controller.isRunning && !this.deps.waitingSessions().has(s.key));
      if (!idle) {
        void vscode.window.showWarningMessage(
          vscode.l10n.t('{0} Turnstone sessions are open and busy (turnstone.sessions.maxParallel). Stop or remove one in the Sessions view, or raise the setting.', this.open.length),
        );
        return false;
      }
      await this.remove(idle.key);
    }
    return true;
  }

  /** Something a row shows changed outside the sessions (a request began or stopped waiting). */
  refresh(): void {
    this.changed.fire();
  }

  /** Settings changed or trust was granted: every session's next turn has them. */
  applySettings(): void {
    for (const s of this.open) s.controller.applySettings();
  }

  dispose(): void {
    for (const s of this.open) s.controller.dispose();
    this.changed.dispose();
  }
}

/** A session with nothing in it yet: no turn ran and none is running. */
function isEmpty(controller: SessionController): boolean {
  return controller.sessionFile === undefined && !controller.isRunning;
}
