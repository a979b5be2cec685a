// Comments on the agent's changes (issue 44): in a file the review lists, the user comments on a line
// or a selection as on a pull request, and *Send to agent* hands the comment, the lines it is about
// and where they are to the session that changed the file. The thread stays, marked as sent, so the
// user sees what was asked; the agent's answer comes in the panel like any turn, and in the thread too
// when the comment started that turn (one queued behind a running turn is answered in the panel).
import * as vscode from 'vscode';
import { registerGuardedCommands } from '../command-guard';

export const REVIEW_COMMENTS_ID = 'turnstone';

/**
 * Where a comment goes: the session that changed `file` (shown in the panel first), or the one shown. Resolves
 * once it is sent, with the agent's final answer to come (undefined: queued, or the turn did not complete).
 */
export type SendComment = (file: string, prompt: string) => Promise<{ reply: Promise<string | undefined> }>;

/**
 * The agent's answer in the thread: its text as Markdown, never trusted (no commands, no HTML), and with no
 * image (the thread, unlike the panel, has no content policy: an image URL in an injected answer would be
 * fetched as it renders, carrying whatever the URL holds). `![alt](url)` shows as its text.
 */
class AgentReply implements vscode.Comment {
  readonly mode = vscode.CommentMode.Preview;
  readonly author = { name: 'Turnstone' };
  readonly body: vscode.MarkdownString;
  constructor(text: string) {
    this.body = new vscode.MarkdownString(withoutImages(text));
    this.body.isTrusted = false;
    this.body.supportHtml = false;
  }
}

class SentComment implements vscode.Comment {
  readonly mode = vscode.CommentMode.Preview;
  readonly author = { name: vscode.l10n.t('You') };
  readonly label: string;
  constructor(
    readonly body: string,
    sent: boolean,
  ) {
    this.label = sent ? vscode.l10n.t('sent to the agent') : vscode.l10n.t('not sent');
  }
}

/** Markdown with every image turned into text: `![` is escaped, and an `<img` tag is shown as text too. */
export function withoutImages(markdown: string): string {
  return markdown.replace(/!\[/g, '!\\[').replace(/<(img|picture|source|image)\b/gi, '&lt;$1');
}

/** The prompt a comment becomes: the file, the lines (as they are now) and the user's words. */
export function commentPrompt(relativePath: string, range: { start: number; end: number }, lines: string, words: string): string {
  const where = range.start === range.end ? `line ${range.start + 1}` : `lines ${range.start + 1}-${range.end + 1}`;
  return `Review comment on ${relativePath}, ${where}:\n\`\`\`\n${lines}\n\`\`\`\n${words.trim()}`;
}

export class ReviewComments implements vscode.Disposable {
  private readonly controller = vscode.comments.createCommentController(REVIEW_COMMENTS_ID, 'Turnstone');
  private readonly subscriptions: vscode.Disposable[] = [];

  constructor(
    /** Whether the review lists this file (only the agent's changes take comments). */
    private readonly reviewed: (file: string) => boolean,
    private readonly send: SendComment,
    private readonly log: vscode.LogOutputChannel,
  ) {
    this.controller.options = { prompt: vscode.l10n.t('Tell the agent what to change here…'), placeHolder: vscode.l10n.t('Tell the agent what to change here…') };
    this.controller.commentingRangeProvider = {
      provideCommentingRanges: (document) => (document.uri.scheme === 'file' && this.reviewed(document.uri.fsPath) ? [new vscode.Range(0, 0, Math.max(0, document.lineCount - 1), 0)] : []),
    };
    this.subscriptions.push(
      this.controller,
      ...registerGuardedCommands({ 'turnstone.review.sendToAgent': (reply: vscode.CommentReply) => this.sendReply(reply) }, log),
    );
  }

  private async sendReply(reply: vscode.CommentReply | undefined): Promise<void> {
    const words = reply?.text?.trim();
    if (!reply || !words) return;
    const { thread } = reply;
    const document = await vscode.workspace.openTextDocument(thread.uri);
    const range = thread.range ?? new vscode.Range(0, 0, 0, 0);
    const lines = document.getText(new vscode.Range(range.start.line, 0, range.end.line, document.lineAt(Math.min(range.end.line, document.lineCount - 1)).text.length));
    const prompt = commentPrompt(vscode.workspace.asRelativePath(thread.uri), { start: range.start.line, end: range.end.line }, lines, words);
    let sent = true;
    let answer: Promise<string | undefined> = Promise.resolve(undefined);
    try {
      answer = (await this.send(thread.uri.fsPath, prompt)).reply;
    } catch (error) {
      sent = false;
      this.log.warn(`a review comment could not be sent: ${String(error)}`);
      void vscode.window.showErrorMessage(vscode.l10n.t('Turnstone: the comment could not be sent: {0}', error instanceof Error ? error.message : String(error)));
    }
    thread.comments = [...thread.comments, new SentComment(words, sent)];
    thread.label = sent ? vscode.l10n.t('Sent to the agent') : undefined;
    thread.canReply = !sent;
    thread.collapsibleState = vscode.CommentThreadCollapsibleState.Expanded;
    // Not awaited: the command ends once the comment is sent; the answer joins the thread when the turn ends.
    void answer.then(
      (text) => {
        if (text?.trim()) thread.comments = [...thread.comments, new AgentReply(text.trim())];
      },
      (error: unknown) => this.log.warn(`a review comment's answer could not be shown: ${String(error)}`),
    );
  }

  dispose(): void {
    for (const s of this.subscriptions) s.dispose();
  }
}
