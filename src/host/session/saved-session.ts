// Reading a saved session back before it is resumed: its file, and the temp files a write
// killed mid-way left in the workspace. What the panel shows of it is the bridge's.
import type * as vscode from 'vscode';
import { type LoadedSession } from '../../runtime/session/session';
import { type Message } from '../../runtime/types';
import { loadCore } from './load-core';

export async function loadSavedSession(file: string, root: vscode.Uri | undefined, log: vscode.LogOutputChannel): Promise<LoadedSession> {
  const core = loadCore();
  const loaded = await core.loadSession(file);
  for (const w of loaded.warnings) log.warn(w);
  if (root?.scheme === 'file') {
    const removed = await core.cleanUpInterruptedWrites(loaded.messages, root.fsPath);
    if (removed.length > 0) log.info(`removed temp files left by a write that was killed: ${removed.join(', ')}`);
  }
  return loaded;
}

/** The words of a session's first message on one line ('' when it has none): its title when the user gave it none. */
export function firstWords(messages: readonly Message[]): string {
  const firstUser = messages.find((m) => m.role === 'user')?.content.find((b) => b.type === 'text');
  return firstUser?.type === 'text' ? loadCore().splitAttachments(firstUser.text).words.replace(/\s+/g, ' ').trim() : '';
}
