// Making a session's runtime and its file is one job, and so is keeping what the host needs
// from its events (recent edits, the last failure, the log): both apart from running turns.
import * as vscode from 'vscode';
import { type RuntimeEvent } from '../../runtime/events';
import { type ConversationHistory, type ConversationRuntime, type TurnContext } from '../../runtime/loop/conversation';
import { type JsonlSessionStore } from '../../runtime/session/session';
import { type FileChange, type Message } from '../../runtime/types';
import { type PanelBridge } from '../panel/panel-bridge';
import { loadCore } from './load-core';

export interface SessionRuntimeDeps {
  log: vscode.LogOutputChannel;
  panel(): PanelBridge;
  onDidChangeState(): void;
  /** Whether a request whose key was rejected is sent once more. */
  onAuthError(): Promise<boolean>;
  /** A tool use changed a file (the review lists it). */
  onFileChange?(change: FileChange): void;
}

export class SessionRuntimes {
  /** Recent edits by tool use id, so a finished edit card can open its diff (bounded: contents can be large). */
  private readonly edits = new Map<string, FileChange>();
  /** The last turn's failure kind, until a turn ends well. */
  lastFailure: string | undefined;

  constructor(private readonly deps: SessionRuntimeDeps) {}

  editOf(toolUseId: string): FileChange | undefined {
    return this.edits.get(toolUseId);
  }

  /** A new session file; undefined when the storage folder cannot be written (the user is told, the turn still runs, in memory). */
  /** `cwd`: where the session works (its worktree), recorded in the file; the first workspace folder by default. */
  async newStore(sessionsDir: string, model: string, cwd = vscode.workspace.workspaceFolders?.[0]?.uri.fsPath ?? ''): Promise<JsonlSessionStore | undefined> {
    try {
      return await loadCore().JsonlSessionStore.create(sessionsDir, { cwd, model });
    } catch (error) {
      // An unwritable storage folder must not stop the user's work.
      const message = vscode.l10n.t('This session cannot be saved ({0}); it continues in memory and cannot be resumed later.', error instanceof Error ? error.message : String(error));
      this.deps.log.warn(message);
      this.deps.panel().hostCard({ message, errorKind: 'session_write', retryable: false });
      return undefined;
    }
  }

  create(context: TurnContext, store: JsonlSessionStore | undefined, messages: Message[], spent: Pick<ConversationHistory, 'usage' | 'cost' | 'plan'> = {}): ConversationRuntime {
    const runtime = new (loadCore().ConversationRuntime)(
      {
        model: context.model,
        tools: context.tools,
        ...(context.hooks ? { hooks: context.hooks } : {}),
        ...(store ? { session: store } : {}),
        log: (message) => this.deps.log.info(message),
        onAuthError: () => this.deps.onAuthError(),
      },
      context.config,
      { messages, ...spent },
    );
    runtime.subscribe((event) => this.observe(event));
    return runtime;
  }

  private observe(event: RuntimeEvent): void {
    this.deps.panel().handle(event);
    if (event.type === 'tool_finished' && event.fileChange) {
      this.deps.onFileChange?.(event.fileChange);
      this.edits.set(event.id, event.fileChange);
      if (this.edits.size > 50) this.edits.delete(this.edits.keys().next().value!);
    }
    if (event.type === 'usage' || event.type === 'turn_ended' || event.type === 'turn_failed' || event.type === 'turn_aborted') this.deps.onDidChangeState();
    if (event.type === 'turn_failed') {
      this.lastFailure = event.kind;
      this.deps.log.error(`turn failed (${event.kind}${event.requestId ? `, request ${event.requestId}` : ''}): ${event.message}`);
    }
    if (event.type === 'turn_ended') this.lastFailure = undefined;
    // The panel shows one line; the provider's whole message (a proxy's traceback) goes to the log only.
    if (event.type === 'retrying') this.deps.log.warn(`retrying ${event.attempt}/${event.maxAttempts} in ${event.delayMs} ms: ${event.detail ?? event.reason}`);
    if (event.type === 'warning') this.deps.log.warn(event.message);
  }
}
