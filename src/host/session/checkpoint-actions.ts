// What the user does with the open session's checkpoints: list them, go back to one (files,
// conversation by a fork, or both), undo the last turn. Kept apart from the session's turns,
// which only take checkpoints.
import * as path from 'node:path';
import * as vscode from 'vscode';
import { type Message } from '../../runtime/types';
import { type Checkpoint } from '../../tools/checkpoints';
import { type OriginalContentProvider } from '../approvals/proposal-documents';
import { userWordsOf } from '../context/attachment-blocks';
import { type FilesRestored, type RestoreMode, type SessionCheckpoints } from './checkpoints';
import { forkTitle, type SessionLibrary } from './session-library';

/** The open session as the checkpoint actions see it (the chat session's public face). */
export interface CheckpointSession {
  readonly sessionId: string | undefined;
  readonly sessionFile: string | undefined;
  readonly messages: readonly Message[];
  readonly title: string;
  resume(file: string, title: string): Promise<void>;
}

export interface CheckpointSessionControl {
  /** Stops the running turn and waits until none is running or finishing. */
  halt(): Promise<void>;
  /** Writes out what the session file has yet to get. */
  flush(): Promise<void>;
}

export class CheckpointActions {
  constructor(
    private readonly session: CheckpointSession,
    private readonly control: CheckpointSessionControl,
    private readonly checkpoints: SessionCheckpoints,
    private readonly library: SessionLibrary,
    private readonly log: vscode.LogOutputChannel,
  ) {}

  /** The current session's turn checkpoints, newest first (opened from storage after a resume or restart). */
  async list(): Promise<Checkpoint[]> {
    const id = this.session.sessionId;
    if (!id) return [];
    await this.checkpoints.settled(); // the running turn's own checkpoint included
    const store = await this.checkpoints.open(id, () => this.checkpoints.workspace());
    return [...(store?.turns() ?? [])].reverse();
  }

  /** Which user message each turn-start checkpoint began with, so a resumed transcript's messages name theirs. */
  async byMessage(messages: readonly Message[]): Promise<Map<number, number>> {
    const at = new Map<number, number>();
    const checkpoints = await this.list().catch((e: unknown) => {
      this.log.warn(`the checkpoints of this session could not be read: ${String(e)}`);
      return [];
    });
    for (const c of checkpoints) {
      // A turn after a failed one joined the user message that failed (consecutive user messages are one).
      const index = messages[c.messageIndex]?.role === 'user' ? c.messageIndex : c.messageIndex - 1;
      if (messages[index]?.role === 'user' && !at.has(index)) at.set(index, c.turn);
    }
    return at;
  }

  /**
   * Goes back to `checkpoint`: its files, its conversation, or both. The conversation goes back by forking the
   * session just before the checkpoint's message (the old branch stays in the session list) and resuming the fork;
   * the message's words are returned for the composer. Undefined when the user backed out or nothing was done.
   */
  async restore(checkpoint: Checkpoint, mode: RestoreMode, originals: OriginalContentProvider, confirm: boolean): Promise<{ words?: string; files?: FilesRestored } | undefined> {
    // The running turn is stopped only once the user said yes (issue 47 item 2): a Cancel changes nothing.
    const files = mode === 'conversation' ? undefined : await this.checkpoints.restoreFiles(checkpoint, originals, confirm, () => this.control.halt());
    if (mode !== 'conversation' && !files) return undefined;
    if (mode === 'files') return { ...(files ? { files } : {}) };
    // Going back in the conversation forks the session file: no turn may be writing it.
    await this.control.halt();
    const file = this.session.sessionFile;
    const message = this.session.messages[checkpoint.messageIndex];
    const words = message?.role === 'user' ? message.content.find((b) => b.type === 'text') : undefined;
    // Compaction replaces older messages with a summary: the checkpoint's message may no longer be there.
    if (!file || !words || words.type !== 'text' || !userWordsOf(words.text).startsWith(checkpoint.prompt)) {
      void vscode.window.showWarningMessage(
        mode === 'both'
          ? vscode.l10n.t('Turnstone: the conversation at turn {0} was summarised by compaction and cannot be gone back to; the files were restored.', checkpoint.turn)
          : vscode.l10n.t('Turnstone: the conversation at turn {0} was summarised by compaction and cannot be gone back to.', checkpoint.turn),
      );
      return mode === 'both' ? { ...(files ? { files } : {}) } : undefined;
    }
    await this.control.flush();
    const oldStore = this.checkpoints.current;
    const forked = await this.library.fork(file, checkpoint.messageIndex);
    await oldStore?.forkInto(this.checkpoints.dir(path.basename(forked, '.jsonl')), checkpoint.id);
    // The old branch stays in the session list: the fork must not look like it there or in the header.
    await this.session.resume(forked, forkTitle(this.session.title, checkpoint.turn));
    return { words: userWordsOf(words.text), ...(files ? { files } : {}) };
  }

  /**
   * C5 "Undo last turn": the files go back to the last turn's start checkpoint (after the same diff and
   * confirmation as any restore); the conversation stays. Undefined when there is no turn to undo.
   */
  async undoLastTurn(originals: OriginalContentProvider, confirm: boolean): Promise<FilesRestored | 'no_checkpoint' | undefined> {
    const last = (await this.list())[0];
    if (!last) return 'no_checkpoint';
    return (await this.restore(last, 'files', originals, confirm))?.files;
  }
}
