// T6 / issue 25.2: a missing or rejected key never pops anything up over the window. A prompt
// sent before any key was set waits here with the card asking for one; a key saved while a
// request was out lets that request go once more. Issue 47 item 4: a waiting prompt stays in the
// transcript marked "waiting for your API key", each is sent once when the key is saved (the same
// words sent again while they wait are not held twice), and the card is raised once.
import * as vscode from 'vscode';
import { type ImageBlock } from '../../runtime/types';
import { describeFailure } from '../panel/failure-text';
import { type PanelBridge } from '../panel/panel-bridge';
import { type ApiKeys, needsApiKey, providerLabel } from '../secrets';
import { readSettings } from '../settings';
import { presetInUse } from '../model-lists';

/** A prompt that could not be sent for want of a key, and its message's panel item. */
export interface HeldPrompt {
  prompt: string;
  images: ImageBlock[];
  userItem: string;
}

export class KeyWait {
  /** A key was saved while a turn ran: a request it rejected is sent once more with the new key. */
  private savedDuringTurn = false;
  private held: HeldPrompt[] = [];
  private card: ReturnType<PanelBridge['hostCard']> | undefined;

  constructor(
    private readonly keys: ApiKeys,
    private readonly panel: () => PanelBridge,
  ) {}

  /** Whether a prompt sent now would have to wait for a key. */
  async keyMissing(): Promise<boolean> {
    const s = readSettings();
    // A provider that needs a key, or a preset's server that does (OpenRouter, Groq, …); a local server needs none.
    const preset = presetInUse(s);
    return (needsApiKey(s.provider) || !!preset?.keyVariable) && !(await this.keys.get(s.provider, preset));
  }

  /** The same words (and images) already wait for the key: sending them again must not send them twice. */
  isHeld(prompt: string, images: readonly ImageBlock[]): boolean {
    return this.held.some((h) => h.prompt === prompt && h.images.length === images.length && h.images.every((image, i) => image.data === images[i]!.data));
  }

  /** Holds a prompt (its message marked waiting) until a key is saved; the card asking for one is raised once. */
  hold(prompt: HeldPrompt): void {
    this.panel().userUnsent(prompt.userItem, 'waiting_key');
    this.panel().userWithdrawn(prompt.userItem);
    this.held.push(prompt);
    if (this.card) return;
    const s = readSettings();
    const preset = presetInUse(s);
    const failure = describeFailure('auth', 'No API key', preset?.label ?? providerLabel(s.provider), vscode.l10n.t);
    this.card = this.panel().hostCard({ message: failure.message, ...(failure.hint ? { hint: failure.hint } : {}), errorKind: 'no_key', cause: failure.cause, action: failure.action, retryable: false });
  }

  turnStarted(): void {
    this.savedDuringTurn = false;
  }

  /** The runtime's question after a rejected key: tried once more only if a key was saved meanwhile; otherwise the turn ends, its card holds the key field. */
  async retryRejected(): Promise<boolean> {
    const saved = this.savedDuringTurn;
    this.savedDuringTurn = false;
    return saved;
  }

  /**
   * A key was stored. During a turn it only marks the key as new. Otherwise: the held prompts to send now, in
   * order, each once (the card settled), 'retry' when the last turn failed on its key, or undefined (no key,
   * nothing waiting).
   */
  async keyChanged(running: boolean, failedOnKey: () => boolean): Promise<HeldPrompt[] | 'retry' | undefined> {
    if (running) {
      this.savedDuringTurn = true;
      return undefined;
    }
    const s = readSettings();
    if (!(await this.keys.get(s.provider, presetInUse(s)))) return undefined;
    const held = this.held;
    if (held.length === 0) return failedOnKey() ? 'retry' : undefined;
    this.held = [];
    if (this.card) this.panel().settleHostCard(this.card, held.length === 1 ? vscode.l10n.t('API key saved. Sending your message.') : vscode.l10n.t('API key saved. Sending your messages.'));
    this.card = undefined;
    return held;
  }

  forget(): void {
    this.held = [];
    this.card = undefined;
  }
}
