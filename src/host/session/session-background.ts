// A session's background commands outlive the tool use that started them: made on first use,
// stopped with the session, and reachable from the panel only through cards of this transcript.
import { type BackgroundCommands } from '../../tools/shell/background';
import { type PanelBridge } from '../panel/panel-bridge';
import { readSettings } from '../settings';
import { loadCore } from './load-core';

export class SessionBackground {
  private commands: BackgroundCommands | undefined;

  constructor(private readonly panel: () => PanelBridge) {}

  /** The commands if any were started (nothing is made just to be stopped). */
  get current(): BackgroundCommands | undefined {
    return this.commands;
  }

  /** Made with the core on first use; their cards follow them. */
  get(): BackgroundCommands {
    if (this.commands) return this.commands;
    const core = loadCore();
    this.commands = new core.BackgroundCommands({ maxRunning: () => readSettings().bashMaxBackground, maxUnreadChars: core.DEFAULT_LIMITS.maxOutputChars, maxLogBytes: () => readSettings().bashOutputCapMB * 1024 * 1024 });
    this.commands.onEvent((event) => this.panel().backgroundEvent(event));
    return this.commands;
  }

  /** A card's Stop: the same kill as kill_shell. Any other id (forged, or of an earlier session) does nothing. */
  async stop(id: string): Promise<void> {
    if (!this.commands || !this.panel().followsBackground(id)) return;
    await this.commands.kill(id);
  }

  /** A card's "Open in terminal": the command's own terminal. */
  reveal(id: string): boolean {
    if (!this.commands || !this.panel().followsBackground(id)) return false;
    return this.commands.reveal(id);
  }

  async killAll(): Promise<void> {
    await this.commands?.killAll();
  }

  dispose(): void {
    void this.commands?.dispose();
  }
}
