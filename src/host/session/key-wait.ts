// T6 / issue 25.2: a missing or rejected key never pops anything up over the window. A prompt
// sent before any key was set waits here with the card asking for one; a key saved while a
// request was out lets that request go once more.
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
  private held: (HeldPrompt & { card: ReturnType<PanelBridge['hostCard']> }) | undefined;

  constructor(
    private readonly keys: ApiKeys,
    private readonly panel: () => PanelBridge,
  ) {}

  /**
   * First run: nothing can be sent. Holds the prompt and asks for a key instead of letting the
   * request fail as if a key had been rejected. False when there is a key (or none is needed).
   */
  async holdWithoutKey(prompt: HeldPrompt): Promise<boolean> {
    const s = readSettings();
    // A provider that needs a key, or a preset's server that does (OpenRouter, Groq, …); a local server needs none.
    const preset = presetInUse(s);
    if ((!needsApiKey(s.provider) && !preset?.keyVariable) || (await this.keys.get(s.provider, preset))) return false;
    const failure = describeFailure('auth', 'No API key', preset?.label ?? providerLabel(s.provider), vscode.l10n.t);
    const card = this.panel().hostCard({ message: failure.message, ...(failure.hint ? { hint: failure.hint } : {}), errorKind: 'no_key', cause: failure.cause, action: failure.action, retryable: false });
    this.held = { ...prompt, card };
    return true;
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
   * A key was stored. During a turn it only marks the key as new. Otherwise: the held prompt to send now
   * (its card settled), 'retry' when the last turn failed on its key, or undefined (no key, nothing waiting).
   */
  async keyChanged(running: boolean, failedOnKey: () => boolean): Promise<HeldPrompt | 'retry' | undefined> {
    if (running) {
      this.savedDuringTurn = true;
      return undefined;
    }
    const s = readSettings();
    if (!(await this.keys.get(s.provider, presetInUse(s)))) return undefined;
    const held = this.held;
    if (!held) return failedOnKey() ? 'retry' : undefined;
    this.held = undefined;
    this.panel().settleHostCard(held.card, vscode.l10n.t('API key saved. Sending your message.'));
    return held;
  }

  forget(): void {
    this.held = undefined;
  }
}
