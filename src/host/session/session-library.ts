// The saved sessions of this workspace: where they live, the names the user
// gave them, listing, renaming, deleting (with their checkpoints) and forking.
// Which one is open is the chat session's business (session-controller.ts).
import * as fs from 'node:fs/promises';
import * as path from 'node:path';
import type * as vscode from 'vscode';
import { type SessionInfo } from '../../runtime/session/session';
import { loadCore } from './load-core';

const TITLES_KEY = 'turnstone.sessionTitles';
const WORKTREES_KEY = 'turnstone.sessionWorktrees';

/** The worktree a saved session ran in (issue 43): it opens there again when resumed. */
export interface SavedWorktree {
  path: string;
  branch: string;
  repo: string;
}

export class SessionLibrary {
  constructor(private readonly context: vscode.ExtensionContext) {}

  private get storage(): string {
    return (this.context.storageUri ?? this.context.globalStorageUri).fsPath;
  }

  get sessionsDir(): string {
    return path.join(this.storage, 'sessions');
  }

  /** Where a session's checkpoints live: beside the sessions folder, under the session's id. */
  checkpointsDir(sessionId: string): string {
    return path.join(this.storage, 'checkpoints', sessionId);
  }

  /** Saved sessions, newest first, with the names the user gave them. */
  async list(): Promise<SessionInfo[]> {
    const titles = this.titles();
    return (await loadCore().listSessions(this.sessionsDir)).map((s) => ({ ...s, title: titles.get(s.id) ?? s.title }));
  }

  titleOf(sessionId: string): string | undefined {
    return this.titles().get(sessionId);
  }

  /** A name the user chose; kept in workspace state, the session file stays as written. */
  async saveTitle(sessionId: string, title: string): Promise<void> {
    const all = Object.fromEntries(this.titles());
    all[sessionId] = title;
    await this.context.workspaceState.update(TITLES_KEY, all);
  }

  worktreeOf(sessionId: string): SavedWorktree | undefined {
    const w = this.context.workspaceState.get<Record<string, SavedWorktree>>(WORKTREES_KEY)?.[sessionId];
    return w && typeof w.path === 'string' && typeof w.branch === 'string' && typeof w.repo === 'string' ? w : undefined;
  }

  /** Records where a session runs, in workspace state beside its name. */
  async saveWorktree(sessionId: string, worktree: SavedWorktree): Promise<void> {
    const all = { ...(this.context.workspaceState.get<Record<string, SavedWorktree>>(WORKTREES_KEY) ?? {}) };
    all[sessionId] = { path: worktree.path, branch: worktree.branch, repo: worktree.repo };
    await this.context.workspaceState.update(WORKTREES_KEY, all);
  }

  /** Deletes a saved session's file, its checkpoints and its name. The caller closes it first if it is open. */
  async delete(session: SessionInfo): Promise<void> {
    // Only files of our own sessions folder, whatever the list was built from.
    if (path.dirname(path.resolve(session.path)) !== path.resolve(this.sessionsDir)) throw new Error(`not a Turnstone session file: ${session.path}`);
    await fs.rm(session.path, { force: true });
    await fs.rm(this.checkpointsDir(path.basename(session.path, '.jsonl')), { recursive: true, force: true });
    const all = Object.fromEntries(this.titles());
    if (session.id in all) {
      delete all[session.id];
      await this.context.workspaceState.update(TITLES_KEY, all);
    }
  }

  /** A new session file holding `file`'s messages before `messageIndex`; its path. */
  async fork(file: string, messageIndex: number): Promise<string> {
    const { store } = await loadCore().forkSession(file, this.sessionsDir, messageIndex);
    await store.flush();
    return store.path;
  }

  private titles(): Map<string, string> {
    const stored = this.context.workspaceState.get<Record<string, unknown>>(TITLES_KEY) ?? {};
    return new Map(Object.entries(stored).filter((e): e is [string, string] => typeof e[1] === 'string'));
  }
}

/** "Fork at turn 2: make the greeting friendlier"; a fork of a fork names only the newest turn. */
export function forkTitle(title: string, turn: number): string {
  return `Fork at turn ${turn}: ${title.replace(/^Fork at turn \d+: /, '')}`.slice(0, 120);
}
