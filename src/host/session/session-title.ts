// The open session's name in the header: "New session" until its first message (or a rename, or a
// resume) names it, and posted on its own because the header shows it before the core is loaded.
import * as vscode from 'vscode';
import { type HostEvent } from '../../webview/protocol';

export class SessionTitle {
  text = newTitle();
  /** Set by the first message, a rename or a resume: later messages leave it alone. */
  private named = false;

  constructor(
    private readonly post: (event: HostEvent) => void,
    private readonly header: () => { id: string; model: string },
  ) {}

  /** A new session: unnamed until its first message. */
  reset(): void {
    this.text = newTitle();
    this.named = false;
  }

  /** The first message names the session (its slash command, as typed, when it was one). */
  fromFirstMessage(words: string): void {
    if (this.named) return;
    this.set(words.replace(/\s+/g, ' ').slice(0, 60));
    this.postInfo();
  }

  set(title: string): void {
    this.text = title;
    this.named = true;
  }

  /** What the header shows: the session's id, name and model. */
  info(): { id: string; title: string; model: string } {
    return { ...this.header(), title: this.text };
  }

  postInfo(): void {
    this.post({ type: 'session', session: this.info() });
  }
}

const newTitle = () => vscode.l10n.t('New session');
